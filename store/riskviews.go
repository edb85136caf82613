// Reads of the risk findings for the views (ViewReader): a user's safety
// section, and the operations page's counts and lowered findings. A risk
// finding is a cue of kind CueRisk whose detail holds class, severity,
// message_id, actor, source and, when a model lowered it, "lowered": the
// frame code; never text. These reads group and count those fields and
// return nothing else of the detail.

package store

import (
	"context"
	"fmt"
	"time"
)

// CueRisk is the kind of the cue a risk finding is stored as (the cue
// kind the package memory names CueRisk).
const CueRisk = "risk"

// RiskGroup is one line of a user's risk findings: the findings of one
// session with the same class, severity, source, actor and lowering (the
// same words said in a thousand messages are one line), with how many
// there are. It holds no text.
type RiskGroup struct {
	SessionID string
	Class     string
	Severity  string
	// Source is who found it (rules, trained, model); "" for a finding
	// recorded before sources were.
	Source string
	// Actor is whose words they were (user, other); "" when not recorded.
	Actor string
	// Frame is the frame code a model lowered the findings with; "" when
	// they were not lowered.
	Frame string
	// Findings is how many messages; Unresolved how many of them are not
	// resolved.
	Findings   int64
	Unresolved int64
	// FirstAt and LastAt are when the first and the last were recorded.
	FirstAt time.Time
	LastAt  time.Time
}

// RiskCount counts the risk findings recorded on one UTC day with the same
// app, class, severity, actor, source and lowering frame ("" when not
// lowered).
type RiskCount struct {
	Day      time.Time // UTC midnight
	App      string
	Class    string
	Severity string
	Actor    string
	Source   string
	Frame    string
	Count    int64
}

// detailText is the SQL of a text field of a cue's detail, "" when it has
// none: jsonb on Postgres, JSON text on SQLite.
func (q queries) detailText(key string) string {
	if q.e.dialect() == DialectPostgres {
		return "COALESCE(c.detail->>'" + key + "', '')"
	}
	return "COALESCE(json_extract(c.detail, '$." + key + "'), '')"
}

// riskFields are the grouped fields of a risk cue's detail, in the order
// the reads select them.
func (q queries) riskFields() string {
	return q.detailText("class") + " AS r_class, " + q.detailText("severity") + " AS r_severity, " +
		q.detailText("source") + " AS r_source, " + q.detailText("actor") + " AS r_actor, " + q.detailText("lowered") + " AS r_frame"
}

const riskGroupBy = "r_class, r_severity, r_source, r_actor, r_frame"

func (q queries) ViewUserRisks(ctx context.Context, userID string, limit int) ([]RiskGroup, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("user risks: limit %d: want a positive number", limit)
	}
	out, err := queryAll(ctx, q, "SELECT c.session_id, "+q.riskFields()+`, count(*),
		SUM(CASE WHEN c.resolved_at IS NULL THEN 1 ELSE 0 END), min(c.created_at), max(c.created_at)
		FROM mnemo_cues c WHERE c.user_id = $1 AND c.kind = $2
		GROUP BY c.session_id, `+riskGroupBy+`
		ORDER BY max(c.created_at) DESC, c.session_id, `+riskGroupBy+` LIMIT $3`,
		[]any{userID, CueRisk, limit}, func(r rows) (RiskGroup, error) {
			var g RiskGroup
			err := r.Scan(&g.SessionID, &g.Class, &g.Severity, &g.Source, &g.Actor, &g.Frame, &g.Findings, &g.Unresolved,
				scanTime{&g.FirstAt}, scanTime{&g.LastAt})
			return g, err
		})
	if err != nil {
		return nil, fmt.Errorf("user risks: %w", err)
	}
	return out, nil
}

func (q queries) ViewRiskCounts(ctx context.Context, from, to time.Time) ([]RiskCount, error) {
	expr, _, err := q.bucketExpr("c.created_at", ViewDay)
	if err != nil {
		return nil, err
	}
	out, err := queryAll(ctx, q, "SELECT "+expr+" AS d, c.app, "+q.riskFields()+`, count(*)
		FROM mnemo_cues c WHERE c.kind = $1 AND c.created_at >= $2 AND c.created_at < $3
		GROUP BY d, c.app, `+riskGroupBy+` ORDER BY d, c.app, `+riskGroupBy,
		[]any{CueRisk, from, to}, func(r rows) (RiskCount, error) {
			var c RiskCount
			var d string
			if err := r.Scan(&d, &c.App, &c.Class, &c.Severity, &c.Source, &c.Actor, &c.Frame, &c.Count); err != nil {
				return c, err
			}
			t, err := time.Parse(time.DateOnly, d)
			c.Day = t.UTC()
			return c, err
		})
	if err != nil {
		return nil, fmt.Errorf("risk counts: %w", err)
	}
	return out, nil
}

func (q queries) ViewRiskLowerings(ctx context.Context, from, to time.Time, limit int) ([]RiskLowering, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("risk lowerings: limit %d: want a positive number", limit)
	}
	out, err := queryAll(ctx, q, `SELECT id, user_id, app, session_id, message_id, from_class, from_severity, to_class, to_severity,
		frame, created_at FROM mnemo_risk_lowerings WHERE created_at >= $1 AND created_at < $2
		ORDER BY created_at DESC, id LIMIT $3`, []any{from, to, limit},
		func(r rows) (RiskLowering, error) {
			var l RiskLowering
			err := r.Scan(&l.ID, &l.UserID, &l.App, &l.SessionID, &l.MessageID, &l.FromClass, &l.FromSeverity, &l.ToClass,
				&l.ToSeverity, &l.Frame, scanTime{&l.CreatedAt})
			return l, err
		})
	if err != nil {
		return nil, fmt.Errorf("risk lowerings: %w", err)
	}
	return out, nil
}
