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

// runDecay is the decay batch named batch: it applies the decay rules of
// that batch (decay.Rule) that each app's kind supplies to the records they
// read.
func runDecay(batch string) batchFunc {
	return func(ctx context.Context, d *Deps, _ schedule.Period, now time.Time) (int64, error) {
		pol := d.Batch.Decay
		var touched int64
		for _, app := range d.appsWhose(func(k extract.Kind) bool { return len(decay.RulesOf(k, batch)) > 0 }) {
			for _, rule := range decay.RulesOf(extract.KindOfApp(d.Apps[app]), batch) {
				n, err := decayRecords(ctx, d, app, rule.Record, now, func(r extract.Record) (extract.Record, bool, bool) {
					return rule.Apply(r, now, pol)
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

// decayRecords pages through app's records of one kind and applies fn to
// each, writing what changed — one bounded transaction per page, the page's
// records locked while it runs.
func decayRecords(ctx context.Context, d *Deps, app, kind string, now time.Time,
	fn func(extract.Record) (next extract.Record, remove, changed bool)) (int64, error) {
	limit := d.Batch.rows()
	var touched int64
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
	return touched, nil
}
