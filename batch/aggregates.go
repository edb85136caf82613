package batch

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/schedule"
	"github.com/mnemo-ai/mnemo/store"
)

// pageSize is how many users one page of StreamUsers holds.
const pageSize = 500

// pageUsers turns a page of the store into the users the aggregate package
// reads, one at a time. A user whose profile, a session summary or an event
// does not decode (a number beyond float64, a document that is not JSON) is
// left out and reported to skip with the reason: the others are read.
func pageUsers(p store.SessionPage, app string, skip func(userID, reason string)) []aggregate.User {
	users := make([]aggregate.User, 0, len(p.Users))
	bad := make([]string, 0, len(p.Users)) // by user index: why the user is left out
	index := map[string]int{}
	for _, u := range p.Users {
		au := aggregate.User{UserID: u.ID, App: app, Timezone: u.Timezone}
		why := ""
		if len(u.Profile) > 0 {
			if json.Unmarshal(u.Profile, &au.Profile) != nil {
				why = SkipProfile
			}
		}
		index[u.ID] = len(users)
		users = append(users, au)
		bad = append(bad, why)
	}
	sessionAt := map[string][2]int{} // session → user index, session index
	for _, s := range p.Sessions {
		i, ok := index[s.UserID]
		if !ok || bad[i] != "" {
			continue
		}
		as := aggregate.Session{SessionID: s.ID, StartedAt: s.StartedAt, EndedAt: s.EndedAt}
		if len(s.Summary) > 0 && string(s.Summary) != "null" {
			if json.Unmarshal(s.Summary, &as.Summary) != nil {
				bad[i] = SkipSummary
				continue
			}
		}
		sessionAt[s.ID] = [2]int{i, len(users[i].Sessions)}
		users[i].Sessions = append(users[i].Sessions, as)
	}
	for _, e := range p.Events {
		at, ok := sessionAt[e.SessionID]
		if !ok || bad[at[0]] != "" {
			continue
		}
		var data map[string]any
		if json.Unmarshal(e.Data, &data) != nil {
			bad[at[0]] = SkipEvent
			continue
		}
		s := &users[at[0]].Sessions[at[1]]
		s.Events = append(s.Events, aggregate.Event{Type: e.Type, At: e.At, Data: data})
	}
	out := users[:0]
	for i, u := range users {
		if bad[i] != "" {
			skip(u.UserID, bad[i])
			continue
		}
		out = append(out, u)
	}
	return out
}

// StreamUsers pages through an app's users with sessions that ended in
// [from, to) and hands each page to fn: memory holds one page, never the data.
// Users whose data does not decode are skipped (see pageUsers) and reported to Skipped.
func StreamUsers(ctx context.Context, st store.Store, app string, from, to time.Time, fn func([]aggregate.User) error) error {
	return streamUsers(ctx, st, app, from, to, "", pageSize, func(users []aggregate.User, _ string) error { return fn(users) })
}

// streamUsers is StreamUsers from the user after after ("" from the first)
// in pages of limit users, handing fn each page's last user id too, where
// the next page starts.
func streamUsers(ctx context.Context, st store.Store, app string, from, to time.Time, after string, limit int,
	fn func(users []aggregate.User, last string) error) error {
	for {
		page, err := st.PageSessions(ctx, app, from, to, after, limit)
		if err != nil {
			return err
		}
		if len(page.Users) == 0 {
			return nil
		}
		users := pageUsers(page, app, func(userID, reason string) { Skipped(ctx, userID, reason) })
		if err := fn(users, page.Last); err != nil {
			return err
		}
		after = page.Last
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// EncodeUser computes one user's result and encodes it as JSON; a panic
// or a result JSON cannot hold (a non-finite number) skips the user, and
// a compute that has nothing for the user (false) writes nothing.
func EncodeUser(ctx context.Context, userID string, compute func() (any, bool)) ([]byte, bool) {
	var data []byte
	ok, _ := Guard(ctx, userID, func() error {
		v, has := compute()
		if !has {
			return nil
		}
		var err error
		if data, err = json.Marshal(v); err != nil {
			Skipped(ctx, userID, SkipResult)
			data = nil
		}
		return nil
	})
	return data, ok && data != nil
}

// WeeklyAnalytics is the weekly-analytics batch (aggregate.Weekly): per
// user of the declaring kinds' apps, the analytics of the week ending on
// the period's date, in the user's zone. It runs Monday noon UTC, when
// every zone's Sunday is over, catches up five weeks, reads the sessions
// of the week and the 90 days of its streak, and feeds insights.
func WeeklyAnalytics() Batch {
	return Batch{Name: aggregate.BatchWeeklyAnalytics, Spec: "0 12 * * 1; all 840h", Run: runWeeklyAnalytics,
		Reads: Reads{Sessions: func(p schedule.Period, _ time.Time) time.Time {
			end, err := time.Parse(time.DateOnly, cmp.Or(p.WeekEnding, p.Name))
			if err != nil {
				return p.At
			}
			return end.AddDate(0, 0, -97)
		}},
		Feeds: []string{aggregate.BatchInsights}}
}

// Trends is the trends batch (aggregate.Trends): each user's latest trends
// over their sessions of the last 90 days, daily.
func Trends() Batch {
	return Batch{Name: aggregate.BatchTrends, Spec: "0 3 * * *; latest", Run: runTrends, LatestOnly: true,
		Reads: Reads{Sessions: func(_ schedule.Period, now time.Time) time.Time { return now.AddDate(0, 0, -90) }}}
}

// Insights is the insights batch (aggregate.NewInsights): per app, the
// week's stored weekly analytics added up into anonymised insights for
// supervisors, after weekly analytics ran; groups of fewer than
// Env.InsightsK users are suppressed. It reads weekly analytics' output,
// so a kind that declares it declares WeeklyAnalytics too.
func Insights() Batch {
	return Batch{Name: aggregate.BatchInsights, Spec: "30 13 * * 1; all 840h", Run: runInsights}
}

// runWeeklyAnalytics computes the weekly analytics per user for the week
// ending on the period's date, in each user's zone, and upserts them: a
// re-run of the week writes the same rows.
func runWeeklyAnalytics(ctx context.Context, env Env, p schedule.Period, now time.Time) (int64, error) {
	week := p.WeekEnding
	end, err := time.Parse(time.DateOnly, week)
	if err != nil {
		return 0, fmt.Errorf("weekly analytics needs a week_ending period, got %q", p.Name)
	}
	// Zones reach ±14 h around UTC; the streak looks back 90 days.
	from, to := end.AddDate(0, 0, -97), end.AddDate(0, 0, 2)
	return perUser(ctx, env, from, to,
		func(u aggregate.User) (any, bool) { return aggregate.Weekly(u, week) },
		func(app, userID string, data []byte) store.AggregateRow {
			return store.AggregateRow{UserID: userID, App: app, WeekEnding: week, Data: data, UpdatedAt: now}
		},
		store.Tx.UpsertWeekly)
}

// runTrends recomputes the per-user trends over their recent sessions.
func runTrends(ctx context.Context, env Env, p schedule.Period, now time.Time) (int64, error) {
	return perUser(ctx, env, now.AddDate(0, 0, -90), now.Add(time.Minute),
		func(u aggregate.User) (any, bool) { return aggregate.Trends(u, now), true },
		func(app, userID string, data []byte) store.AggregateRow {
			return store.AggregateRow{UserID: userID, App: app, Data: data, UpdatedAt: now}
		},
		store.Tx.UpsertTrends)
}

// perUser is a batch that computes one row per user of each of env's apps
// from their sessions that ended in [from, to): page by page, each page's
// rows upserted with the run's position (Cursor) in one transaction, a run
// resumed after the last page committed. compute's false means no row for
// the user; a user whose data or result does not encode is skipped.
func perUser(ctx context.Context, env Env, from, to time.Time, compute func(aggregate.User) (any, bool),
	row func(app, userID string, data []byte) store.AggregateRow,
	upsert func(tx store.Tx, ctx context.Context, rows []store.AggregateRow) error) (int64, error) {
	var rows int64
	for _, app := range env.Apps {
		after, _, skip := env.start(app, 0)
		if skip {
			continue
		}
		err := streamUsers(ctx, env.Store, app, from, to, after, env.userPage(), func(users []aggregate.User, last string) error {
			out := make([]store.AggregateRow, 0, len(users))
			for _, u := range users {
				data, ok := EncodeUser(ctx, u.UserID, func() (any, bool) { return compute(u) })
				if !ok {
					continue
				}
				out = append(out, row(app, u.UserID, data))
			}
			err := env.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				if err := upsert(tx, ctx, out); err != nil {
					return err
				}
				return env.mark(ctx, tx, Cursor{App: app, User: last})
			})
			if err == nil {
				rows += int64(len(out))
			}
			return err
		})
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// runInsights aggregates a week's stored analytics per app into anonymised
// insights for supervisors; groups of fewer than k users are suppressed.
func runInsights(ctx context.Context, env Env, p schedule.Period, now time.Time) (int64, error) {
	week := p.WeekEnding
	if week == "" {
		return 0, fmt.Errorf("insights needs a week_ending period, got %q", p.Name)
	}
	var rows int64
	for _, app := range env.Apps {
		acc := aggregate.NewInsights(app, week)
		after := ""
		for {
			page, err := env.Store.PageWeekly(ctx, store.WeeklyPage{App: app, WeekEnding: week, After: after, Limit: 1000})
			if err != nil {
				return rows, err
			}
			for _, r := range page {
				after = r.UserID
				var w aggregate.WeeklyAnalytics
				if json.Unmarshal(r.Data, &w) != nil || !w.Plausible() {
					Skipped(ctx, r.UserID, SkipAnalytics)
					continue
				}
				Guard(ctx, r.UserID, func() error { acc.Add(r.UserID, w); return nil })
			}
			if len(page) < 1000 {
				break
			}
		}
		data, err := json.Marshal(acc.Result(cmp.Or(env.InsightsK, 5)))
		if err != nil {
			return rows, err
		}
		if err := env.Store.UpsertInsight(ctx, store.Insight{App: app, WeekEnding: week, Data: data, UpdatedAt: now}); err != nil {
			return rows, err
		}
		rows++
	}
	return rows, nil
}

// readyMade are the ready-made batches' names in the order every listing
// shows them (Collect): the aggregations, then the decays.
var readyMade = []string{aggregate.BatchWeeklyAnalytics, aggregate.BatchTrends, aggregate.BatchInsights,
	decay.BatchEmotional, decay.BatchPreference, decay.BatchMastery}

// rank orders the kinds' batches: the ready-made ones first, in their order.
func rank(name string) int {
	if i := slices.Index(readyMade, name); i >= 0 {
		return i
	}
	return len(readyMade)
}
