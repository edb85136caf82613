package batch

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/schedule"
	"github.com/mnemo-ai/mnemo/store"
)

// decaySpecs are the decay batches' default schedules: the weekly
// normalisation of emotional counts on Monday, preferences and mastery
// daily.
var decaySpecs = map[string]string{
	decay.BatchEmotional:  "0 4 * * 1; latest",
	decay.BatchPreference: "15 4 * * *; latest",
	decay.BatchMastery:    "30 4 * * *; latest",
}

// Decays are the decay batches that run rules (decay.Rule): one batch per
// name the rules give (decay.BatchEmotional, …), in the order of their
// first rule, each applying its rules in order to the records of the
// declaring kind's apps under Env.Decay. A name this package has no default
// schedule for runs daily at 04:45 UTC. Decays read records, not sessions:
// a late session marks none of them.
func Decays(rules []decay.Rule) []Batch {
	var out []Batch
	by := map[string]int{}
	var grouped [][]decay.Rule
	for _, r := range rules {
		i, ok := by[r.Batch]
		if !ok {
			i = len(grouped)
			by[r.Batch] = i
			grouped = append(grouped, nil)
			spec := decaySpecs[r.Batch]
			if spec == "" {
				spec = "45 4 * * *; latest"
			}
			out = append(out, Batch{Name: r.Batch, Spec: spec})
		}
		grouped[i] = append(grouped[i], r)
	}
	for i := range out {
		out[i].Run = runDecay(grouped[i])
	}
	return out
}

// runDecay applies rules, in order, to the records they read of each app.
func runDecay(rules []decay.Rule) func(ctx context.Context, env Env, p schedule.Period, now time.Time) (int64, error) {
	return func(ctx context.Context, env Env, _ schedule.Period, now time.Time) (int64, error) {
		var touched int64
		for _, app := range env.Apps {
			for step, rule := range rules {
				afterUser, afterKey, skip := env.start(app, step)
				if skip {
					continue
				}
				at := Cursor{App: app, Step: step, User: afterUser, Key: afterKey}
				n, err := decayRecords(ctx, env, at, rule.Record, now, func(r extract.Record) (extract.Record, bool, bool) {
					return rule.Apply(r, now, env.Decay)
				})
				touched += n
				if err != nil {
					return touched, err
				}
			}
		}
		return touched, nil
	}
}

// DecayRecords pages through app's records of one record type and applies
// fn to each, writing what changed (next) or deleting (remove): one bounded
// transaction per page of env.Rows, the page's records locked while it
// runs. A record that does not decode or whose judgement panics is
// skipped, and stays as it is.
func DecayRecords(ctx context.Context, env Env, app, kind string, now time.Time,
	fn func(extract.Record) (next extract.Record, remove, changed bool)) (int64, error) {
	// A kind's own batch knows nothing of cursors: it runs from the first
	// record and marks nothing.
	env.After, env.Mark = nil, nil
	return decayRecords(ctx, env, Cursor{App: app}, kind, now, fn)
}

// decayRecords is DecayRecords from the record after at.User and at.Key
// ("" from the first), marking after each page where it stands (Env.Mark).
func decayRecords(ctx context.Context, env Env, at Cursor, kind string, now time.Time,
	fn func(extract.Record) (next extract.Record, remove, changed bool)) (int64, error) {
	app := at.App
	limit := env.rows()
	var touched int64
	afterUser, afterKey := at.User, at.Key
	for {
		var n int
		var done int64 // rows the page touched, counted once it commits
		var lastUser, lastKey string
		err := env.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			done = 0
			page, err := tx.PageRecords(ctx, store.RecordPage{App: app, Type: kind, AfterUser: afterUser, AfterKey: afterKey, Limit: limit})
			if err != nil {
				return err
			}
			n = len(page)
			for _, r := range page {
				lastUser, lastKey = r.UserID, r.Key
				rec, err := DecodeRecord(r)
				if err != nil {
					// A number beyond float64 or a document that is not
					// JSON: the record stays as it is, the others decay.
					Skipped(ctx, r.UserID, SkipRecord)
					continue
				}
				var next extract.Record
				var remove, changed bool
				if ok, _ := Guard(ctx, r.UserID, func() error { next, remove, changed = fn(rec); return nil }); !ok {
					continue
				}
				switch {
				case remove:
					err = tx.DeleteRecord(ctx, store.RecordKey{UserID: r.UserID, Type: r.Type, Key: r.Key})
				case changed:
					data, merr := json.Marshal(next.Data)
					if merr != nil {
						Skipped(ctx, r.UserID, SkipResult)
						continue
					}
					err = tx.UpsertRecord(ctx, store.Record{UserID: r.UserID, App: r.App, Type: r.Type, Key: r.Key,
						Data: data, SessionID: r.SessionID, UpdatedAt: now})
				default:
					continue
				}
				if err != nil {
					return err
				}
				done++
			}
			if len(page) == 0 {
				return nil
			}
			at.User, at.Key = lastUser, lastKey
			return env.mark(ctx, tx, at)
		})
		if err != nil {
			return touched, err
		}
		touched += done
		afterUser, afterKey = lastUser, lastKey
		if n < limit {
			break
		}
	}
	return touched, nil
}

// DecodeRecord turns a stored record into the logic packages' shape.
func DecodeRecord(r store.Record) (extract.Record, error) {
	var data map[string]any
	err := json.Unmarshal(r.Data, &data)
	return extract.Record{Type: r.Type, Key: r.Key, Data: data}, err
}
