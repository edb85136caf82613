package memory

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
)

// DefaultCareNoteDays is how many days after a risk finding the context
// pack carries a care note, when the worker is not told otherwise
// (MNEMO_CARE_NOTE_DAYS).
const DefaultCareNoteDays = 14

// MaxCareNoteDays bounds MNEMO_CARE_NOTE_DAYS.
const MaxCareNoteDays = 365

// CareCue is a risk cue a care note may tell of: the user's own (actor
// user), of medium or high severity, not lowered by a model and not
// resolved by an operator; with its class, severity and the time it was
// said (Said: the caller's, from the cue's session).
type CareCue struct {
	SessionID string
	CreatedAt time.Time
	Class     string
	Severity  string
	Said      time.Time
}

// CareCues reads, from a user's cues, those a care note may tell of
// (CareCue), Said set to when each was recorded. Someone else's words, a
// low finding, a lowered one and a resolved one are left out.
func CareCues(cues []CareCueRow) []CareCue {
	var out []CareCue
	for _, c := range cues {
		if c.Type != CueRisk || c.Resolved {
			continue
		}
		var d struct {
			Class    string `json:"class"`
			Severity string `json:"severity"`
			Actor    string `json:"actor"`
			Lowered  string `json:"lowered"`
		}
		if json.Unmarshal(c.Detail, &d) != nil || d.Lowered != "" || d.Actor != extract.ActorUser ||
			d.Severity != extract.SeverityHigh && d.Severity != extract.SeverityMedium {
			continue
		}
		out = append(out, CareCue{SessionID: c.SessionID, CreatedAt: c.CreatedAt, Class: d.Class, Severity: d.Severity, Said: c.CreatedAt})
	}
	return out
}

// CareCueRow is what CareCues reads of a stored cue.
type CareCueRow struct {
	Type      string
	Detail    json.RawMessage
	SessionID string
	CreatedAt time.Time
	Resolved  bool
}

// CareFindingOf is the finding the care note of a user of app tells of:
// of cues said within period before now (or later: a clock ahead of the
// server's), the gravest
// (high before medium, then by extract.RiskClasses' order), and of equals
// the newest; nil when there is none.
func CareFindingOf(app string, cues []CareCue, now time.Time, period time.Duration) *extract.CareFinding {
	var best *CareCue
	rank := func(c *CareCue) int {
		r := len(extract.RiskClasses) - slices.Index(extract.RiskClasses, c.Class) // an unknown class ranks last
		if c.Class == "" || !slices.Contains(extract.RiskClasses, c.Class) {
			r = 0
		}
		if c.Severity == extract.SeverityHigh {
			r += 100
		}
		return r
	}
	for i := range cues {
		c := &cues[i]
		if !c.Said.After(now.Add(-period)) {
			continue
		}
		if best == nil || rank(c) > rank(best) || rank(c) == rank(best) && c.Said.After(best.Said) {
			best = c
		}
	}
	if best == nil {
		return nil
	}
	return &extract.CareFinding{App: app, Class: best.Class, Severity: best.Severity, At: best.Said}
}
