package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store"
)

// Records that accumulate over sessions (learning progress, emotional
// counts, reinforcement metrics) are a fold: each session is
// folded into the records the sessions before it left. Folded in the order
// the sessions were handed over, a session that arrives late would be
// counted as the newest: its attempts would close a streak the later
// sessions had already broken. So a session older than what the records
// already hold is folded in its place: the records are rebuilt by folding
// every processed session of the user again, oldest first, from the events
// they stored. The rules fold at each session's own time (rulesNow), so the
// rebuilt records are the ones handing the sessions over in order would
// have left.

// foldsRecords reports whether app's records are a fold over sessions.
func foldsRecords(app *prompts.App) bool { return extract.KindOfApp(app).Fold() != nil }

// rulesNow is the time the rules of app fold session in at. A fold is
// done at the session's own time (or now, for a session dated in the
// future), so that the same sessions folded in the same order give the same
// records whenever they are folded; other presets read the processing time.
func rulesNow(app *prompts.App, in extract.Session, now time.Time) time.Time {
	if !foldsRecords(app) && !derivesProfile(app) {
		return now
	}
	if t := sessionTime(in); !t.IsZero() && !t.After(now) {
		return t
	}
	return now
}

// recordsAreLater reports whether the user's folded records already hold a
// session later than sess (at its time at): sess must then be folded in its
// place (refoldRecords).
func recordsAreLater(ctx context.Context, tx store.Tx, app *prompts.App, sess store.Session, at time.Time) (bool, error) {
	if !foldsRecords(app) {
		return false, nil
	}
	recs, err := tx.ListRecords(ctx, sess.UserID, nil)
	if err != nil {
		return false, err
	}
	for _, r := range recs {
		if r.App != sess.App {
			continue
		}
		if c := r.StatedAt.Compare(at); c > 0 || (c == 0 && r.SessionID > sess.ID) {
			return true, nil
		}
	}
	return false, nil
}

// refoldRecords rebuilds the user's records of app by folding every
// processed session of the user and sess (whose transcript in carries)
// again, oldest first. The earlier sessions' transcripts are gone (a
// folding kind keeps none): what they said of preferences is read from their summaries.
// A summary written before summaries kept it leaves the preference records
// as they are, and only sess may change them.
func refoldRecords(ctx context.Context, tx store.Tx, app *prompts.App, sess store.Session, in extract.Session, now time.Time) error {
	var restated string // the record type each session restates (extract.Fold)
	if f := extract.KindOfApp(app).Fold(); f != nil {
		restated = f.Restated
	}
	all, err := tx.ListUserSessions(ctx, sess.UserID)
	if err != nil {
		return err
	}
	var order []store.Session
	for _, s := range all {
		if s.App == sess.App && (s.ID == sess.ID || s.Status == store.StatusProcessed) {
			order = append(order, s)
		}
	}
	at := func(s store.Session) time.Time { return cmp.Or(s.EndedAt, s.StartedAt) }
	slices.SortFunc(order, func(a, b store.Session) int { return cmp.Or(at(a).Compare(at(b)), strings.Compare(a.ID, b.ID)) })

	stored, err := tx.ListRecords(ctx, sess.UserID, nil)
	if err != nil {
		return err
	}
	type ref struct{ kind, key string }
	type folded struct {
		rec     extract.Record
		session string
		at      time.Time
	}
	said, skip := map[string][]extract.Memory{}, map[string]bool{}
	legacy := false
	for _, s := range order {
		if s.ID == sess.ID {
			continue
		}
		prefs, ok, err := summarisedPreferences(ctx, tx, s.ID)
		if errors.Is(err, errMemoryWasOff) {
			skip[s.ID] = true // nothing of it was kept, nor will be now
			continue
		} else if err != nil {
			return err
		}
		legacy = legacy || !ok
		said[s.ID] = prefs
	}
	acc, prefs := map[ref]folded{}, map[ref]folded{}
	for _, r := range stored {
		if !legacy {
			break
		}
		if r.App != sess.App || r.Type != restated {
			continue
		}
		var data map[string]any
		if err := json.Unmarshal(r.Data, &data); err != nil {
			return fmt.Errorf("decode record %s/%s: %w", r.Type, r.Key, err)
		}
		prefs[ref{r.Type, r.Key}] = folded{extract.Record{Type: r.Type, Key: r.Key, Data: data}, r.SessionID, r.StatedAt}
	}
	for _, s := range order {
		if skip[s.ID] {
			continue
		}
		x := in
		if s.ID != sess.ID {
			events, err := tx.ListEvents(ctx, s.ID)
			if err != nil {
				return err
			}
			x = extract.Session{ID: s.ID, UserID: s.UserID, App: s.App, StartedAt: s.StartedAt, EndedAt: s.EndedAt,
				Timezone: s.Timezone, Events: make([]extract.Event, len(events)), Said: said[s.ID]}
			for i, e := range events {
				x.Events[i] = extract.Event{Type: e.Type, At: e.At, MessageID: e.MessageID, Data: e.Data}
			}
		}
		x.History = extract.History{}
		for _, f := range acc {
			x.History.Records = append(x.History.Records, f.rec)
		}
		if s.ID == sess.ID || !legacy {
			for _, f := range prefs {
				x.History.Records = append(x.History.Records, f.rec)
			}
		}
		slices.SortFunc(x.History.Records, func(a, b extract.Record) int {
			return cmp.Or(strings.Compare(a.Type, b.Type), strings.Compare(a.Key, b.Key))
		})
		for _, r := range extract.Rules(app, x, rulesNow(app, x, now)).Records {
			into := acc
			if r.Type == restated {
				into = prefs
			}
			if r.Delete {
				delete(into, ref{r.Type, r.Key})
				continue
			}
			into[ref{r.Type, r.Key}] = folded{r, s.ID, sessionTime(x)}
		}
	}
	maps.Copy(acc, prefs)

	for _, r := range stored {
		if _, keep := acc[ref{r.Type, r.Key}]; !keep && r.App == sess.App {
			if err := tx.DeleteRecord(ctx, store.RecordKey{UserID: sess.UserID, Type: r.Type, Key: r.Key}); err != nil {
				return err
			}
		}
	}
	for k, f := range acc {
		data, err := json.Marshal(f.rec.Data)
		if err != nil {
			return fmt.Errorf("encode record %s/%s: %w", k.kind, k.key, err)
		}
		if err := tx.UpsertRecord(ctx, store.Record{UserID: sess.UserID, App: sess.App, Type: k.kind, Key: k.key,
			Data: data, SessionID: f.session, UpdatedAt: now, StatedAt: f.at}); err != nil {
			return err
		}
	}
	return nil
}

var errMemoryWasOff = errors.New("the user had memory turned off")

// summarisedPreferences reads the preferences a processed session
// stated from its summary; false when the summary predates that list.
func summarisedPreferences(ctx context.Context, tx store.Tx, sessionID string) ([]extract.Memory, bool, error) {
	sum, err := tx.GetSummary(ctx, sessionID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, err
	}
	var d struct {
		MemoryDisabled bool `json:"memory_disabled"`
		Preferences    *[]struct {
			Key   string    `json:"key"`
			Value string    `json:"value"`
			At    time.Time `json:"at"`
		} `json:"preferences"`
	}
	if err := json.Unmarshal(sum.Data, &d); err == nil && d.MemoryDisabled {
		return nil, false, errMemoryWasOff
	}
	if err := json.Unmarshal(sum.Data, &d); err != nil || d.Preferences == nil {
		return nil, false, nil
	}
	out := []extract.Memory{}
	for _, p := range *d.Preferences {
		out = append(out, extract.Memory{Key: p.Key, Value: p.Value, StatedAt: p.At})
	}
	return out, true, nil
}
