package aggregate_test

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
)

var labelRE = regexp.MustCompile(`^[\p{L}\p{M}\p{N}]([\p{L}\p{M}\p{N}_]*[\p{L}\p{M}\p{N}])?$`)

// FuzzAggregate feeds event and summary values as chat services and LLMs
// might send them: nothing panics, output is valid JSON, labels are labels
// and no insight is ever shown for a single user.
func FuzzAggregate(f *testing.F) {
	f.Add("loneliness", "called sponsor, walked outside", "urge_passed", 7.0, "America/Chicago", "2026-11-22", "calming_story", 0.4)
	f.Add("", "", "relapsed", -3.0, "", "2026-11-22", "", 2.0)
	f.Add("  Work-Stress!! ", ";;,", "URGE_PASSED", 1e308, "Not/AZone", "2026-02-29", "A b c d e f", -1.0)
	f.Fuzz(func(t *testing.T, trigger, strategy, outcome string, intensity float64, zone, weekEnding, category string, distress float64) {
		start := time.Date(2026, 11, 18, 22, 0, 0, 0, time.UTC)
		u := aggregate.User{UserID: "u-fuzz", Timezone: zone, Profile: map[string]any{"recovery_start_date": weekEnding, "current_step": intensity},
			Sessions: []aggregate.Session{
				session("s1", start, 30, map[string]any{"urge_intensity": intensity, "primary_trigger": trigger, "resistance_strategy_used": strategy, "outcome": outcome}),
				session("s2", start.Add(time.Hour), 30, nil,
					urge(start.Add(time.Hour), intensity, trigger, strategy, outcome),
					emotion(start.Add(time.Hour), distress),
					narrative(start.Add(time.Hour+time.Minute), category),
					emotion(start.Add(time.Hour+2*time.Minute), distress/2),
					ev("zone", start, map[string]any{"zone": trigger})),
			}}
		w, ok := aggregate.Weekly(u, weekEnding)
		if ok {
			for _, c := range w.CommonTriggers {
				if !labelRE.MatchString(c.Trigger) {
					t.Errorf("trigger %q is not a label", c.Trigger)
				}
			}
			for _, s := range w.SuccessfulStrategies {
				if !labelRE.MatchString(s.Strategy) || s.SuccessRate < 0 || s.SuccessRate > 1 {
					t.Errorf("strategy %+v", s)
				}
			}
			if w.AverageUrgeIntensity != nil && (*w.AverageUrgeIntensity < 0 || *w.AverageUrgeIntensity > 10) || w.StreakLength < 0 {
				t.Errorf("out of range: %+v", w)
			}
			if msg := disagrees(w); msg != "" {
				t.Error(msg)
			}
			acc := aggregate.NewInsights("eldertree", weekEnding)
			acc.Add(u.UserID, w)
			if in := acc.Result(2); !in.Suppressed || in.AggregateMetrics != nil {
				t.Errorf("one user shown: %+v", in)
			}
			if _, err := json.Marshal(acc.Result(1)); err != nil {
				t.Error(err)
			}
		}
		tr := aggregate.Trends(u, start.Add(24*time.Hour))
		if _, err := json.Marshal(tr); err != nil {
			t.Error(err)
		}
		for _, n := range tr.NarrativeEffectiveness {
			if !labelRE.MatchString(n.Category) || n.MeanDistressChange < -1 || n.MeanDistressChange > 1 {
				t.Errorf("narrative effect %+v", n)
			}
		}
	})
}
