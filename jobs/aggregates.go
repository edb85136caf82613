package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/schedule"
	"github.com/mnemo-ai/mnemo/store"
)

// pageSize is how many users one page of a streamed aggregate holds.
const pageSize = 500

// pageUsers turns a page of the store into the users the aggregate package
// reads, one at a time.
func pageUsers(p store.SessionPage, app string) ([]aggregate.User, error) {
	users := make([]aggregate.User, 0, len(p.Users))
	index := map[string]int{}
	for _, u := range p.Users {
		au := aggregate.User{UserID: u.ID, App: app, Timezone: u.Timezone}
		if len(u.Profile) > 0 {
			if err := json.Unmarshal(u.Profile, &au.Profile); err != nil {
				return nil, fmt.Errorf("profile of %s: %w", u.ID, err)
			}
		}
		index[u.ID] = len(users)
		users = append(users, au)
	}
	sessionAt := map[string][2]int{} // session → user index, session index
	for _, s := range p.Sessions {
		i, ok := index[s.UserID]
		if !ok {
			continue
		}
		as := aggregate.Session{SessionID: s.ID, StartedAt: s.StartedAt, EndedAt: s.EndedAt}
		if len(s.Summary) > 0 && string(s.Summary) != "null" {
			if err := json.Unmarshal(s.Summary, &as.Summary); err != nil {
				return nil, fmt.Errorf("summary of %s: %w", s.ID, err)
			}
		}
		sessionAt[s.ID] = [2]int{i, len(users[i].Sessions)}
		users[i].Sessions = append(users[i].Sessions, as)
	}
	for _, e := range p.Events {
		at, ok := sessionAt[e.SessionID]
		if !ok {
			continue
		}
		var data map[string]any
		if err := json.Unmarshal(e.Data, &data); err != nil {
			return nil, fmt.Errorf("event %d of %s: %w", e.Seq, e.SessionID, err)
		}
		s := &users[at[0]].Sessions[at[1]]
		s.Events = append(s.Events, aggregate.Event{Kind: e.Kind, At: e.At, Data: data})
	}
	return users, nil
}

// streamUsers pages through an app's users with sessions that ended in
// [from, to) and hands each page to fn: memory holds one page, never the data.
func streamUsers(ctx context.Context, st store.Store, app string, from, to time.Time, fn func([]aggregate.User) error) error {
	after := ""
	for {
		page, err := st.PageSessions(ctx, app, from, to, after, pageSize)
		if err != nil {
			return err
		}
		if len(page.Users) == 0 {
			return nil
		}
		users, err := pageUsers(page, app)
		if err != nil {
			return err
		}
		if err := fn(users); err != nil {
			return err
		}
		after = page.Last
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// runWeeklyAnalytics computes Elder Tree's analytics per user for the week
// ending on the period's date, in each user's zone, and upserts them: a
// re-run of the week writes the same rows.
func runWeeklyAnalytics(ctx context.Context, d *Deps, p schedule.Period, now time.Time) (int64, error) {
	week := p.WeekEnding
	end, err := time.Parse(time.DateOnly, week)
	if err != nil {
		return 0, fmt.Errorf("weekly analytics needs a week_ending period, got %q", p.Name)
	}
	// Zones reach ±14 h around UTC; the streak looks back 90 days.
	from, to := end.AddDate(0, 0, -97), end.AddDate(0, 0, 2)
	var rows int64
	for _, app := range d.appsWithRules("eldertree") {
		err := streamUsers(ctx, d.Store, app, from, to, func(users []aggregate.User) error {
			out := make([]store.AggregateRow, 0, len(users))
			for _, u := range users {
				w, ok := aggregate.Weekly(u, week)
				if !ok {
					continue
				}
				data, err := json.Marshal(w)
				if err != nil {
					return err
				}
				out = append(out, store.AggregateRow{UserID: u.UserID, App: app, WeekEnding: week, Data: data, UpdatedAt: now})
			}
			rows += int64(len(out))
			return d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error { return tx.UpsertWeekly(ctx, out) })
		})
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// runTrends recomputes Clara's per-user trends over their recent sessions.
func runTrends(ctx context.Context, d *Deps, p schedule.Period, now time.Time) (int64, error) {
	var rows int64
	for _, app := range d.appsWithRules("clara") {
		err := streamUsers(ctx, d.Store, app, now.AddDate(0, 0, -90), now.Add(time.Minute), func(users []aggregate.User) error {
			out := make([]store.AggregateRow, 0, len(users))
			for _, u := range users {
				data, err := json.Marshal(aggregate.Trends(u, now))
				if err != nil {
					return err
				}
				out = append(out, store.AggregateRow{UserID: u.UserID, App: app, Data: data, UpdatedAt: now})
			}
			rows += int64(len(out))
			return d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error { return tx.UpsertTrends(ctx, out) })
		})
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// runInsights aggregates a week's stored analytics per app into anonymised
// insights for supervisors; groups of fewer than k users are suppressed.
func runInsights(ctx context.Context, d *Deps, p schedule.Period, now time.Time) (int64, error) {
	week := p.WeekEnding
	if week == "" {
		return 0, fmt.Errorf("insights needs a week_ending period, got %q", p.Name)
	}
	var rows int64
	for _, app := range d.appsWithRules("eldertree") {
		acc := aggregate.NewInsights(app, week)
		after := ""
		for {
			page, err := d.Store.PageWeekly(ctx, app, week, after, 1000)
			if err != nil {
				return rows, err
			}
			for _, r := range page {
				var w aggregate.WeeklyAnalytics
				if err := json.Unmarshal(r.Data, &w); err != nil {
					return rows, fmt.Errorf("weekly analytics of %s: %w", r.UserID, err)
				}
				acc.Add(r.UserID, w)
				after = r.UserID
			}
			if len(page) < 1000 {
				break
			}
		}
		data, err := json.Marshal(acc.Result(d.Batch.k()))
		if err != nil {
			return rows, err
		}
		if err := d.Store.UpsertInsight(ctx, store.Insight{App: app, WeekEnding: week, Data: data, UpdatedAt: now}); err != nil {
			return rows, err
		}
		rows++
	}
	return rows, nil
}
