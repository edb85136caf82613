package jobs

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
	// StatedAt (coach's goals and themes) rather than said once: they
	// replace the field's value and statement time whenever they are at
	// least as new, even when the value is the same.
	Derived bool
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

// WriteProfile applies w to the user's profile, field by field by statement
// time: a value stated after the field's current one replaces it; a value
// stated before it is kept in the profile history as an older value and
// changes nothing; the same value stated earlier moves the field's
// statement time back, unless another value was stated in between. Every
// write that brought a value is one history row. It must run in a
// transaction that holds the user (LockUser).
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
	here := store.FieldStatement{At: w.StatedAt.UTC(), By: w.By}
	var history []store.ProfileChange
	movedBack := false
	for field, v := range w.Updates {
		if len(extract.ProfileDiff(nil, map[string]any{field: v})) == 0 {
			continue // null or not JSON: says nothing
		}
		// A field removed by an edit keeps its statement time: what was
		// said before the edit does not bring it back.
		st, known := stated[field]
		newer := !known || compareStatements(here, st) >= 0
		same := len(extract.ProfileDiff(out.Before, map[string]any{field: v})) == 0
		switch {
		case same && newer && w.Derived:
			if compareStatements(here, st) > 0 {
				stated[field] = here
				movedBack = true
			}
		case same && newer:
			if !known {
				stated[field] = here // a field from before statement times were kept
			}
		case same:
			// The same value said earlier: the field has held it since then,
			// unless something else was said in between.
			if history == nil {
				if history, err = tx.ListProfileHistory(ctx, w.UserID); err != nil {
					return out, err
				}
			}
			if !saidBetween(history, field, v, here.At, st.At) {
				stated[field] = here
				movedBack = true
			}
		case newer:
			out.Changed[field] = v
			out.After[field] = v
			stated[field] = here
		default:
			out.Older[field] = v
		}
	}
	if len(out.Changed) == 0 && len(out.Older) == 0 && !movedBack {
		return out, nil
	}
	doc, err := json.Marshal(out.After)
	if err != nil {
		return out, err
	}
	statedJSON, err := json.Marshal(stated)
	if err != nil {
		return out, err
	}
	changed, err := json.Marshal(out.Changed)
	if err != nil {
		return out, err
	}
	older, err := json.Marshal(out.Older)
	if err != nil {
		return out, err
	}
	out.Version++
	err = tx.SaveProfile(ctx, store.Profile{UserID: w.UserID, App: w.App, Doc: doc, Version: out.Version, Stated: statedJSON, UpdatedAt: now},
		store.ProfileChange{Changed: changed, Older: older, Actor: w.Actor, SessionID: w.SessionID, At: now, StatedAt: here.At})
	return out, err
}

// compareStatements orders two statements of one field: by time, then by
// what made them.
func compareStatements(a, b store.FieldStatement) int {
	return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.By, b.By))
}

// saidBetween reports whether the history holds a value of field other than
// v stated strictly between from and to.
func saidBetween(history []store.ProfileChange, field string, v any, from, to time.Time) bool {
	for _, h := range history {
		if !h.StatedAt.After(from) || !h.StatedAt.Before(to) {
			continue
		}
		for _, raw := range []json.RawMessage{h.Changed, h.Older} {
			var vals map[string]any
			if json.Unmarshal(raw, &vals) != nil {
				continue
			}
			if old, ok := vals[field]; ok && len(extract.ProfileDiff(map[string]any{field: old}, map[string]any{field: v})) > 0 {
				return true
			}
		}
	}
	return false
}

// StampEdit is the statement times of a profile after an edit by actor at
// at that set (or removed) fields: the edit is the newest statement of each.
func StampEdit(stated json.RawMessage, fields []string, at time.Time, actor string) (json.RawMessage, error) {
	m := map[string]store.FieldStatement{}
	if len(stated) > 0 {
		if err := json.Unmarshal(stated, &m); err != nil {
			return nil, fmt.Errorf("decode profile statement times: %w", err)
		}
	}
	for _, f := range fields {
		m[f] = store.FieldStatement{At: at.UTC(), By: actor}
	}
	return json.Marshal(m)
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
// before t, whether it was applied or arrived late and was kept as older,
// and when (and by what) a later statement replaced it. A field removed by
// an edit is absent. A user's fresh start (DELETE) removes the history with
// the profile, so nothing before it is answered.
func ProfileAsOf(history []store.ProfileChange, t time.Time) map[string]FieldAsOf {
	type said struct {
		at      time.Time
		version int
		by      string
		rec     time.Time
		v       any
	}
	byField := map[string][]said{}
	for _, h := range history {
		by := cmp.Or(h.SessionID, h.Actor)
		for _, raw := range []json.RawMessage{h.Changed, h.Older} {
			var vals map[string]any
			if json.Unmarshal(raw, &vals) != nil {
				continue
			}
			for k, v := range vals {
				byField[k] = append(byField[k], said{h.StatedAt, h.Version, by, h.At, v})
			}
		}
	}
	out := map[string]FieldAsOf{}
	for k, list := range byField {
		slices.SortFunc(list, func(a, b said) int {
			return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.by, b.by), cmp.Compare(a.version, b.version))
		})
		i := -1
		for j, s := range list {
			if !s.at.After(t) {
				i = j
			}
		}
		if i < 0 || list[i].v == nil {
			continue
		}
		f := FieldAsOf{Value: list[i].v, StatedAt: list[i].at, By: list[i].by, RecordedAt: list[i].rec}
		for _, next := range list[i+1:] {
			if len(extract.ProfileDiff(map[string]any{k: list[i].v}, map[string]any{k: next.v})) > 0 || next.v == nil {
				at := next.at
				f.InvalidatedAt, f.InvalidatedBy = &at, next.by
				break
			}
		}
		out[k] = f
	}
	return out
}
