package kindtest

import (
	"context"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/batch"
	"github.com/mnemo-ai/mnemo/schedule"
	"github.com/mnemo-ai/mnemo/store"
)

// TallyBatch is the kind's own batch: each user's notes and sessions of the
// last TallyDays days, counted daily from their session summaries.
const TallyBatch = "kindtest-tally"

// TallyDays is how far back a tally reaches.
const TallyDays = 30

// Tally is what the batch stores per user: a record of kind TallyRecord
// under the key TallyKey, which the kind's page shows.
type Tally struct {
	Sessions int       `json:"sessions"`
	Notes    int       `json:"notes"`
	Since    time.Time `json:"since"`
}

// The tally's record.
const (
	TallyRecord = "tally"
	TallyKey    = "recent"
)

// Batches are the kind's batches (batch.Declarer): the tally, daily at
// 06:00 UTC. It is each user's latest state, so a late session re-runs the
// newest run only.
func (kind) Batches() []batch.Batch {
	return []batch.Batch{{
		Name: TallyBatch, Spec: "0 6 * * *; latest", Run: runTally, LatestOnly: true,
		Reads: batch.Reads{Sessions: func(_ schedule.Period, now time.Time) time.Time { return now.AddDate(0, 0, -TallyDays) }},
	}}
}

// runTally counts, per user of env.Apps, the sessions that ended in the
// last TallyDays days and the notes their summaries count, and upserts the
// user's tally record: a re-run writes the same row.
func runTally(ctx context.Context, env batch.Env, _ schedule.Period, now time.Time) (int64, error) {
	since := now.AddDate(0, 0, -TallyDays)
	var rows int64
	for _, app := range env.Apps {
		err := batch.StreamUsers(ctx, env.Store, app, since, now.Add(time.Minute), func(users []aggregate.User) error {
			out := make([]store.Record, 0, len(users))
			for _, u := range users {
				data, ok := batch.EncodeUser(ctx, u.UserID, func() (any, bool) { return tally(u, since), true })
				if ok {
					out = append(out, store.Record{UserID: u.UserID, App: app, Type: TallyRecord, Key: TallyKey, Data: data, UpdatedAt: now})
				}
			}
			rows += int64(len(out))
			return env.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				for _, r := range out {
					if err := tx.UpsertRecord(ctx, r); err != nil {
						return err
					}
				}
				return nil
			})
		})
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// tally counts a user's sessions and the notes their summaries count.
func tally(u aggregate.User, since time.Time) Tally {
	t := Tally{Sessions: len(u.Sessions), Since: since.UTC()}
	for _, s := range u.Sessions {
		if n, ok := s.Summary["notes"].(float64); ok && n > 0 {
			t.Notes += int(n)
		}
	}
	return t
}
