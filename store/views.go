package store

import (
	"context"
	"fmt"
	"time"
)

// ViewReader is what the server-rendered views (package views) read beyond
// the Querier: counts for the operations page and the weeks of supervisor
// insights, and the risk findings of a user's safety section and of the
// operations page. Both stores implement it; it is kept apart from Store so
// that nothing else depends on it. Every count is an aggregate, and no row
// carries text of a session.
type ViewReader interface {
	// ViewSessionCounts counts the sessions of the given apps that ended in
	// [from, to), by UTC hour or day (bucket ViewHour or ViewDay) and app,
	// oldest bucket first. Buckets without sessions are left out.
	ViewSessionCounts(ctx context.Context, apps []string, from, to time.Time, bucket string) ([]SessionCount, error)
	// ViewExtractionStats adds up the extraction runs recorded in [from,
	// to) by UTC day, app, source, outcome and whether the run was final:
	// how many, their tokens and cost. Oldest day first.
	ViewExtractionStats(ctx context.Context, from, to time.Time) ([]ExtractionStat, error)
	// ViewInsightWeeks lists up to limit weeks that have insights, newest first.
	ViewInsightWeeks(ctx context.Context, limit int) ([]string, error)
	// ViewInsights lists one week's insights, by app.
	ViewInsights(ctx context.Context, weekEnding string) ([]Insight, error)

	// ViewUserRisks lists a user's risk findings (cues of kind CueRisk)
	// grouped by session, class, severity, source, actor and lowering
	// frame, up to limit groups, the group recorded last first. It is the
	// one read here that names a user: a user's page shows it to whoever
	// may see that page.
	ViewUserRisks(ctx context.Context, userID string, limit int) ([]RiskGroup, error)
	// ViewRiskCounts counts the risk findings recorded in [from, to) by UTC
	// day, app, class, severity, actor, source and lowering frame. Oldest
	// day first.
	ViewRiskCounts(ctx context.Context, from, to time.Time) ([]RiskCount, error)
	// ViewRiskLowerings lists up to limit of the findings a model lowered
	// (mnemo_risk_lowerings) recorded in [from, to), newest first: ids,
	// classes, severities and frames, never text.
	ViewRiskLowerings(ctx context.Context, from, to time.Time, limit int) ([]RiskLowering, error)
}

var (
	_ ViewReader = (*Postgres)(nil)
	_ ViewReader = (*SQLite)(nil)
)

// Buckets of ViewSessionCounts.
const (
	ViewHour = "hour"
	ViewDay  = "day"
)

// SessionCount is how many sessions of one app ended in one bucket.
type SessionCount struct {
	// Start is the bucket's first instant, UTC.
	Start time.Time
	App   string
	Count int64
}

// ExtractionStat adds up the extraction runs of one UTC day, app, source,
// outcome and finality.
type ExtractionStat struct {
	Day          time.Time // UTC midnight
	App          string
	Source       string
	Outcome      string
	Final        bool
	Runs         int64
	InputTokens  int64
	OutputTokens int64
	CostUSD      float64
}

// bucketExpr is the SQL of a timestamp column's UTC hour ("2026-11-20T09")
// or day ("2026-11-20") as text, the same on both databases. SQLite holds
// timestamps as fixed-width UTC text (sqliteTimeLayout).
func (q queries) bucketExpr(col, bucket string) (string, string, error) {
	pg := q.e.dialect() == DialectPostgres
	switch bucket {
	case ViewHour:
		if pg {
			return "to_char(" + col + ` AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24')`, "2006-01-02T15", nil
		}
		return "substr(" + col + ", 1, 13)", "2006-01-02T15", nil
	case ViewDay:
		if pg {
			return "to_char(" + col + " AT TIME ZONE 'UTC', 'YYYY-MM-DD')", time.DateOnly, nil
		}
		return "substr(" + col + ", 1, 10)", time.DateOnly, nil
	}
	return "", "", fmt.Errorf("unknown bucket %q: want %s or %s", bucket, ViewHour, ViewDay)
}

func (q queries) ViewSessionCounts(ctx context.Context, apps []string, from, to time.Time, bucket string) ([]SessionCount, error) {
	expr, layout, err := q.bucketExpr("ended_at", bucket)
	if err != nil {
		return nil, err
	}
	if len(apps) == 0 {
		return []SessionCount{}, nil
	}
	args := []any{from, to}
	for _, a := range apps {
		args = append(args, a)
	}
	// app IN (…) with the range keeps to the (app, ended_at) index.
	out, err := queryAll(ctx, q, "SELECT "+expr+" AS b, app, count(*) FROM mnemo_sessions WHERE app IN ("+placeholders(3, len(apps))+
		") AND ended_at >= $1 AND ended_at < $2 GROUP BY b, app ORDER BY b, app", args, func(r rows) (SessionCount, error) {
		var c SessionCount
		var b string
		if err := r.Scan(&b, &c.App, &c.Count); err != nil {
			return c, err
		}
		t, err := time.Parse(layout, b)
		c.Start = t.UTC()
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("count sessions by %s: %w", bucket, err)
	}
	return out, nil
}

func (q queries) ViewExtractionStats(ctx context.Context, from, to time.Time) ([]ExtractionStat, error) {
	expr, _, err := q.bucketExpr("created_at", ViewDay)
	if err != nil {
		return nil, err
	}
	out, err := queryAll(ctx, q, "SELECT "+expr+` AS d, app, source, outcome, final, count(*), COALESCE(SUM(input_tokens), 0),
		COALESCE(SUM(output_tokens), 0), COALESCE(SUM(cost_usd), 0) FROM mnemo_extraction_runs
		WHERE created_at >= $1 AND created_at < $2 GROUP BY d, app, source, outcome, final ORDER BY d, app, source, outcome, final`,
		[]any{from, to}, func(r rows) (ExtractionStat, error) {
			var s ExtractionStat
			var d string
			if err := r.Scan(&d, &s.App, &s.Source, &s.Outcome, &s.Final, &s.Runs, &s.InputTokens, &s.OutputTokens, &s.CostUSD); err != nil {
				return s, err
			}
			t, err := time.Parse(time.DateOnly, d)
			s.Day = t.UTC()
			return s, err
		})
	if err != nil {
		return nil, fmt.Errorf("extraction stats: %w", err)
	}
	return out, nil
}

func (q queries) ViewInsightWeeks(ctx context.Context, limit int) ([]string, error) {
	out, err := queryAll(ctx, q, "SELECT DISTINCT week_ending FROM mnemo_insights ORDER BY week_ending DESC LIMIT $1", []any{limit},
		func(r rows) (string, error) {
			var w string
			return w, r.Scan(&w)
		})
	if err != nil {
		return nil, fmt.Errorf("insight weeks: %w", err)
	}
	return out, nil
}

func (q queries) ViewInsights(ctx context.Context, weekEnding string) ([]Insight, error) {
	out, err := queryAll(ctx, q, "SELECT app, week_ending, data, updated_at FROM mnemo_insights WHERE week_ending = $1 ORDER BY app",
		[]any{weekEnding}, func(r rows) (Insight, error) {
			var in Insight
			return in, r.Scan(&in.App, &in.WeekEnding, scanJSON{&in.Data}, scanTime{&in.UpdatedAt})
		})
	if err != nil {
		return nil, fmt.Errorf("insights of %s: %w", weekEnding, err)
	}
	return out, nil
}
