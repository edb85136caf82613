package memory

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/store"
)

// ProfileWrite is one write of profile fields: what was said, when and by
// whom.
type ProfileWrite struct {
	UserID, App string
	// Updates are the fields to set; a null or missing field is left alone
	// (extract.ProfileDiff).
	Updates map[string]any
	// StatedAt is when the values were stated: the session's time for an
	// extraction, the request's for an edit. By names the statement (the
	// session id, or the actor of an edit) and breaks ties between equal
	// times, so that any order of arrival gives one answer.
	StatedAt time.Time
	By       string
	// Actor and SessionID are recorded in the profile history.
	Actor     string
	SessionID string
	// Derived marks values derived from all of the user's sessions up to
	// StatedAt (goals and themes) rather than said once.
	Derived bool
	// Edit marks a user's or operator's edit, whose null removes a field.
	Edit bool
	// MaxRemoved bounds how many removed fields keep their marker (0:
	// DefaultMaxRemoved); beyond it the markers of the fields removed
	// longest ago go (compactRemoved), on any write, so that a profile
	// that grew them before the bound is compacted by its next write.
	MaxRemoved int
}

// ProfileWritten is what a ProfileWrite did.
type ProfileWritten struct {
	Before, After map[string]any
	// Changed are the fields whose value the write replaced; Older the
	// values it brought that were older than the profile's own, kept in the
	// history only.
	Changed, Older map[string]any
	// Version is the profile's version after the write (unchanged when
	// nothing was recorded).
	Version int
}

// WriteProfile applies w to the user's profile. Every field keeps a
// timeline of the values stated for it (the profile history's said
// values); the field's value is the newest statement's, and its statement
// time is when the newest run of that value began. So a value stated after
// the field's current one replaces it; a value stated before it is kept in
// the history as an older value and changes nothing; and any order of
// arrival gives the same profile. Every write that states a value is one
// history row. It must run in a transaction that holds the user
// (LockUser).
func WriteProfile(ctx context.Context, tx store.Tx, w ProfileWrite, now time.Time) (ProfileWritten, error) {
	out := ProfileWritten{Before: map[string]any{}, Changed: map[string]any{}, Older: map[string]any{}}
	stated := map[string]store.FieldStatement{}
	cur, err := tx.GetProfile(ctx, w.UserID)
	switch {
	case err == nil:
		out.Version = cur.Version
		if err := json.Unmarshal(cur.Doc, &out.Before); err != nil {
			return out, fmt.Errorf("decode profile: %w", err)
		}
		if len(cur.Stated) > 0 {
			if err := json.Unmarshal(cur.Stated, &stated); err != nil {
				return out, fmt.Errorf("decode profile statement times: %w", err)
			}
		}
	case !errors.Is(err, store.ErrNotFound):
		return out, err
	}
	if out.Before == nil {
		out.Before = map[string]any{}
	}
	out.After = maps.Clone(out.Before)
	said := SaidFields(w.Updates, w.Edit)
	if len(said) == 0 {
		return out, nil
	}
	version := out.Version + 1
	here := store.FieldStatement{At: w.StatedAt.UTC(), By: w.By}
	// The history is read only when a statement is not the newest of its
	// field (a session handed over late), or the profile's statements were
	// kept before each field's newest was: otherwise each field's newest
	// statement (FieldStatement.Newest) says all the write needs.
	var lines map[string][]fieldSaid
	if !indexed(stated, out.Before) || !newestOfAll(said, stated, here, w.Edit) {
		history, err := tx.ListProfileHistory(ctx, w.UserID)
		if err != nil {
			return out, err
		}
		lines = fieldLines(history)
		for field, line := range lines {
			if _, ok := said[field]; !ok {
				last, start := lineState(line)
				e, ok := stated[field]
				stated[field] = statementOf(e, ok, last, start)
			}
		}
	}
	for field, v := range said {
		said := fieldSaid{at: here.At, by: here.By, edit: w.Edit, version: version, rec: now, v: v}
		last, start := said, said
		if lines != nil {
			line := append(lines[field], said)
			sortLine(line)
			last, start = lineState(line)
		} else if e, ok := stated[field]; ok && !e.Removed && sameValue(v, out.Before[field]) {
			start = fieldSaid{at: e.Newest.RunAt, by: e.Newest.RunBy}
		}
		if last.version != version {
			out.Older[field] = v
		}
		_, had := out.Before[field]
		switch {
		case last.v == nil && had:
			delete(out.After, field)
			out.Changed[field] = nil
		case last.v != nil && (!had || len(extract.ProfileDiff(out.Before, map[string]any{field: last.v})) > 0):
			out.After[field] = last.v
			out.Changed[field] = last.v
		}
		if w.Derived {
			// Derived from every session up to the newest: stated then.
			start = last
		}
		stated[field] = statementOf(store.FieldStatement{}, false, last, start)
	}
	compactRemoved(stated, cmp.Or(w.MaxRemoved, DefaultMaxRemoved))
	err = nil // GetProfile's ErrNotFound for a first write
	enc := func(v any) json.RawMessage {
		if err == nil {
			var b []byte
			b, err = json.Marshal(v)
			return b
		}
		return nil
	}
	doc, statedJSON, changed, older, saidJSON := enc(out.After), enc(stated), enc(out.Changed), enc(out.Older), enc(said)
	if err != nil {
		return out, err
	}
	out.Version = version
	err = tx.SaveProfile(ctx, store.Profile{UserID: w.UserID, App: w.App, Doc: doc, Version: version, Stated: statedJSON, UpdatedAt: now},
		store.ProfileChange{Changed: changed, Older: older, Said: saidJSON, Actor: w.Actor, SessionID: w.SessionID, At: now, StatedAt: here.At})
	return out, err
}

// statementOf is a field's entry e (ok: it has one) once its line ends
// with the newest statement last, in the run of equal values begun by
// start: the newest statement is kept, and a field without an entry is
// stated at start. A field whose newest statement removed it is kept as
// removed, so that a later write knows it.
func statementOf(e store.FieldStatement, ok bool, last, start fieldSaid) store.FieldStatement {
	newest := &store.NewestStatement{At: last.at, By: last.by, Edit: last.edit, RunAt: start.at, RunBy: start.by}
	if last.v == nil {
		return store.FieldStatement{Removed: true, Newest: newest}
	}
	if !ok || e.Removed {
		e.At, e.By = start.at, start.by
	}
	e.Removed, e.Newest = false, newest
	return e
}

// DefaultMaxRemoved is how many removed fields keep their marker when a
// write sets no bound: the API's default bound on a profile's fields.
const DefaultMaxRemoved = 256

// compactRemoved keeps the markers of at most limit removed fields (0: all),
// those removed last: a marker makes a session handed over late, from
// before the removal, leave the field out, which matters for the newest
// removals; without a bound, edits that set and removed new names grew the
// statements without end.
func compactRemoved(stated map[string]store.FieldStatement, limit int) {
	if limit <= 0 {
		return
	}
	var removed []string
	for f, e := range stated {
		if e.Removed {
			removed = append(removed, f)
		}
	}
	if len(removed) <= limit {
		return
	}
	at := func(f string) time.Time {
		if n := stated[f].Newest; n != nil {
			return n.At
		}
		return time.Time{}
	}
	slices.SortFunc(removed, func(a, b string) int {
		return cmp.Or(at(a).Compare(at(b)), cmp.Compare(a, b))
	})
	for _, f := range removed[:len(removed)-limit] {
		delete(stated, f)
	}
}

// indexed reports whether every field the profile has stated keeps its
// newest statement, so that a field without an entry was never stated.
func indexed(stated map[string]store.FieldStatement, doc map[string]any) bool {
	for _, e := range stated {
		if e.Newest == nil {
			return false
		}
	}
	for field := range doc {
		if _, ok := stated[field]; !ok {
			return false
		}
	}
	return true
}

// newestOfAll reports whether a statement made at here (an edit, or a
// session's) comes after the newest statement of every field it says, in
// sortLine's order: it then ends each field's line.
func newestOfAll(said map[string]any, stated map[string]store.FieldStatement, here store.FieldStatement, edit bool) bool {
	for field := range said {
		e, ok := stated[field]
		if !ok {
			continue
		}
		n := e.Newest
		switch {
		case here.At.After(n.At):
		case !here.At.Equal(n.At):
			return false
		case edit: // an edit comes after what sessions said at one instant, and after older edits
		case n.Edit || here.By < n.By:
			return false
		}
	}
	return true
}

// SaidFields are the fields of updates that state something: a null or a
// value that is not JSON says nothing, except an edit's null, which removes
// the field and is a statement too.
func SaidFields(updates map[string]any, edit bool) map[string]any {
	said := map[string]any{}
	for field, v := range updates {
		if v == nil && edit {
			said[field] = nil
			continue
		}
		if len(extract.ProfileDiff(nil, map[string]any{field: v})) > 0 {
			said[field] = v
		}
	}
	return said
}

// fieldSaid is one statement of one profile field.
type fieldSaid struct {
	at      time.Time
	by      string // the session, or the actor of an edit
	edit    bool   // made by an edit, not a session
	version int    // the history row's
	rec     time.Time
	v       any // nil: an edit removed the field
}

// fieldLines are the profile's fields' statements, from its history: the
// values each row said (for rows written before statements were kept, the
// values it changed).
func fieldLines(history []store.ProfileChange) map[string][]fieldSaid {
	lines := map[string][]fieldSaid{}
	for _, h := range history {
		raw := h.Said
		if len(raw) == 0 || string(raw) == "{}" {
			raw = h.Changed
		}
		var vals map[string]any
		if json.Unmarshal(raw, &vals) != nil {
			continue
		}
		by := cmp.Or(h.SessionID, h.Actor)
		for k, v := range vals {
			lines[k] = append(lines[k], fieldSaid{at: h.StatedAt, by: by, edit: h.SessionID == "", version: h.Version, rec: h.At, v: v})
		}
	}
	for _, line := range lines {
		sortLine(line)
	}
	return lines
}

// sortLine orders a field's statements by statement time. At one instant an
// edit comes after what sessions said, and edits come in the order they were
// made; sessions' statements are ordered by session id, so that the order
// sessions arrive in does not matter.
func sortLine(line []fieldSaid) {
	slices.SortFunc(line, func(a, b fieldSaid) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		if a.edit != b.edit {
			return cmp.Compare(boolInt(a.edit), boolInt(b.edit))
		}
		if a.edit {
			return cmp.Compare(a.version, b.version)
		}
		return cmp.Or(cmp.Compare(a.by, b.by), cmp.Compare(a.version, b.version))
	})
}

// lineState is the newest statement of a sorted, non-empty line and the
// first of the run of equal values it ends.
func lineState(line []fieldSaid) (last, start fieldSaid) {
	last = line[len(line)-1]
	start = last
	for i := len(line) - 2; i >= 0 && sameValue(line[i].v, last.v); i-- {
		start = line[i]
	}
	return last, start
}

func sameValue(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return len(extract.ProfileDiff(map[string]any{"v": a}, map[string]any{"v": b})) == 0
}

// FieldAsOf is one profile field as it was true at some time.
type FieldAsOf struct {
	Value any `json:"value"`
	// StatedAt is when the value was stated and By what (a session id or
	// the actor of an edit); RecordedAt when Mnemo recorded it.
	StatedAt   time.Time `json:"stated_at"`
	By         string    `json:"stated_by"`
	RecordedAt time.Time `json:"recorded_at"`
	// InvalidatedAt is when a newer statement replaced the value (after the
	// time asked about), and InvalidatedBy what made it; empty while current.
	InvalidatedAt *time.Time `json:"invalidated_at,omitempty"`
	InvalidatedBy string     `json:"invalidated_by,omitempty"`
}

// ProfileAsOf is the profile as it was true at t (valid time), rebuilt from
// its history: for each field, the value of the latest statement made at or
// before t, whether it was applied then or arrived late; when that value's
// run of statements began, and when (and by what) a later statement replaced
// it. A field removed by an edit is absent. A user's fresh start (DELETE)
// removes the history with the profile, so nothing before it is answered.
func ProfileAsOf(history []store.ProfileChange, t time.Time) map[string]FieldAsOf {
	out := map[string]FieldAsOf{}
	for k, line := range fieldLines(history) {
		n := 0
		for n < len(line) && !line[n].at.After(t) {
			n++
		}
		if n == 0 {
			continue
		}
		last, start := lineState(line[:n])
		if last.v == nil {
			continue
		}
		f := FieldAsOf{Value: last.v, StatedAt: start.at, By: start.by, RecordedAt: start.rec}
		for _, next := range line[n:] {
			if !sameValue(next.v, last.v) {
				at := next.at
				f.InvalidatedAt, f.InvalidatedBy = &at, next.by
				break
			}
		}
		out[k] = f
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
