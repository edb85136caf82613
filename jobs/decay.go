package jobs

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/schedule"
	"github.com/mnemo-ai/mnemo/store"
)

// decayRecords pages through one kind of record of every app whose kind's
// records decay (LaRa's: extract.Kind.DecaysRecords) and applies fn to
// each, writing what changed — one bounded transaction per page, the page's
// records locked while it runs.
func decayRecords(ctx context.Context, d *Deps, kind string, now time.Time,
	fn func(extract.Record) (next extract.Record, remove, changed bool)) (int64, error) {
	limit := d.Batch.rows()
	var touched int64
	for _, app := range d.appsWhose(extract.Kind.DecaysRecords) {
		afterUser, afterKey := "", ""
		for {
			var n int
			err := d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				page, err := tx.PageRecords(ctx, store.RecordPage{App: app, Kind: kind, AfterUser: afterUser, AfterKey: afterKey, Limit: limit})
				if err != nil {
					return err
				}
				n = len(page)
				for _, r := range page {
					afterUser, afterKey = r.UserID, r.Key
					rec, err := decodeRecord(r)
					if err != nil {
						// A number beyond float64 or a document that is not
						// JSON: the record stays as it is, the others decay.
						skipped(ctx, r.UserID, SkipRecord)
						continue
					}
					var next extract.Record
					var remove, changed bool
					if ok, _ := guard(ctx, r.UserID, func() error { next, remove, changed = fn(rec); return nil }); !ok {
						continue
					}
					switch {
					case remove:
						err = tx.DeleteRecord(ctx, store.RecordKey{UserID: r.UserID, Kind: r.Kind, Key: r.Key})
					case changed:
						data, merr := json.Marshal(next.Data)
						if merr != nil {
							skipped(ctx, r.UserID, SkipResult)
							continue
						}
						err = tx.UpsertRecord(ctx, store.Record{UserID: r.UserID, App: r.App, Kind: r.Kind, Key: r.Key,
							Data: data, SessionID: r.SessionID, UpdatedAt: now})
					default:
						continue
					}
					if err != nil {
						return err
					}
					touched++
				}
				return nil
			})
			if err != nil {
				return touched, err
			}
			if n < limit {
				break
			}
		}
	}
	return touched, nil
}

// runEmotionalDecay normalises LaRa's emotional counts: recent sessions
// weigh more, the 30-day averages are recomputed.
func runEmotionalDecay(ctx context.Context, d *Deps, p schedule.Period, now time.Time) (int64, error) {
	pol := d.Batch.Decay
	return decayRecords(ctx, d, extract.LaraEmotional, now, func(r extract.Record) (extract.Record, bool, bool) {
		next, changed := decay.Emotional(r, now, pol)
		return next, false, changed
	})
}

// runPreferenceDecay removes preferences unused for the policy's span.
func runPreferenceDecay(ctx context.Context, d *Deps, p schedule.Period, now time.Time) (int64, error) {
	pol := d.Batch.Decay
	return decayRecords(ctx, d, extract.LaraPreference, now, func(r extract.Record) (extract.Record, bool, bool) {
		return r, decay.Preference(r, now, pol), false
	})
}

// runMasteryDecay lowers, very slowly, the mastery of concepts not practised
// for the idle span, never to zero.
func runMasteryDecay(ctx context.Context, d *Deps, p schedule.Period, now time.Time) (int64, error) {
	pol := d.Batch.Decay
	return decayRecords(ctx, d, extract.LaraLearning, now, func(r extract.Record) (extract.Record, bool, bool) {
		next, changed := decay.Mastery(r, now, pol)
		return next, false, changed
	})
}
