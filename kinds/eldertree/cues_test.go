package eldertree_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/kinds/eldertree"
)

func TestCues(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 20, 22, 0, 0, 0, time.UTC)
	days := func(n int) time.Time { return now.Add(-time.Duration(n) * 24 * time.Hour) }
	seen := func(trigger string, ds ...int) []eldertree.TriggerSeen {
		var out []eldertree.TriggerSeen
		for _, d := range ds {
			out = append(out, eldertree.TriggerSeen{Trigger: trigger, At: days(d)})
		}
		return out
	}
	profile := map[string]any{
		"sobriety_days": float64(120), "recovery_start_date": "2026-07-23",
		"in_fellowship": true, "fellowship_name": "AA", "has_sponsor": true, "sponsor_name": "Bob",
	}
	with := func(changes map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range profile {
			m[k] = v
		}
		for k, v := range changes {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name        string
		after       map[string]any
		summary     map[string]any
		triggers    []eldertree.TriggerSeen
		significant []string
		want        []extract.Cue
	}{
		{"nothing changed", with(nil), map[string]any{"outcome": "urge_passed"}, nil, nil, []extract.Cue{}},
		{
			"the summary tells of a relapse", with(nil), map[string]any{"outcome": "relapsed"}, nil, nil,
			[]extract.Cue{{Type: "relapse", Detail: map[string]any{"outcome": "relapsed"}}},
		},
		{
			"sobriety days fell", with(map[string]any{"sobriety_days": 2}), nil, nil, nil,
			[]extract.Cue{{Type: "relapse", Field: "sobriety_days", Detail: map[string]any{"before": float64(120), "after": 2}}},
		},
		{"sobriety days grew", with(map[string]any{"sobriety_days": 121}), nil, nil, nil, []extract.Cue{}},
		{"sobriety days fell a little (a correction)", with(map[string]any{"sobriety_days": 100}), nil, nil, nil, []extract.Cue{}},
		{
			"the recovery start moved later", with(map[string]any{"recovery_start_date": "2026-11-19"}), nil, nil, nil,
			[]extract.Cue{{Type: "relapse", Field: "recovery_start_date", Detail: map[string]any{"before": "2026-07-23", "after": "2026-11-19"}}},
		},
		{
			"fellowship dropped", with(map[string]any{"in_fellowship": false}), nil, nil, nil,
			[]extract.Cue{{Type: "fellowship_dropped", Field: "in_fellowship", Detail: map[string]any{"fellowship_name": "AA"}}},
		},
		{"fellowship not mentioned", func() map[string]any { m := with(nil); delete(m, "in_fellowship"); return m }(), nil, nil, nil, []extract.Cue{}},
		{
			"a new sponsor", with(map[string]any{"sponsor_name": "Jim"}), nil, nil, nil,
			[]extract.Cue{{Type: "sponsor_change", Field: "sponsor_name", Detail: map[string]any{"previous_sponsor_name": "Bob", "sponsor_name": "Jim"}}},
		},
		{"the sponsor's name in other case", with(map[string]any{"sponsor_name": "bob"}), nil, nil, nil, []extract.Cue{}},
		{
			"no sponsor any more", with(map[string]any{"has_sponsor": false}), nil, nil, nil,
			[]extract.Cue{{Type: "sponsor_change", Field: "has_sponsor", Detail: map[string]any{"has_sponsor": false, "previous_sponsor_name": "Bob"}}},
		},
		{
			"only significant fields count, the summary always does",
			with(map[string]any{"sponsor_name": "Jim", "in_fellowship": false, "sobriety_days": 1}),
			map[string]any{"outcome": "relapsed"}, nil, []string{"in_fellowship"},
			[]extract.Cue{
				{Type: "relapse", Detail: map[string]any{"outcome": "relapsed"}},
				{Type: "fellowship_dropped", Field: "in_fellowship", Detail: map[string]any{"fellowship_name": "AA"}},
			},
		},
		{
			"a trigger seen for the fifth time in 30 days", with(nil), map[string]any{"primary_trigger": "Work stress"},
			append(seen("work_stress", 1, 5, 12, 29), seen("loneliness", 2, 3)...), nil,
			[]extract.Cue{{Type: "recurring_trigger", Field: "primary_trigger", Detail: map[string]any{"trigger": "Work stress", "count": 5, "window_days": 30}}},
		},
		{"a trigger seen for the sixth time", with(nil), map[string]any{"primary_trigger": "work stress"}, seen("work stress", 1, 2, 3, 4, 5), nil, []extract.Cue{}},
		{"a trigger seen four times", with(nil), map[string]any{"primary_trigger": "work stress"}, seen("work stress", 1, 2, 3), nil, []extract.Cue{}},
		{"older sightings do not count", with(nil), map[string]any{"primary_trigger": "payday"}, seen("payday", 1, 2, 3, 31), nil, []extract.Cue{}},
		{
			"everything at once, in a fixed order",
			with(map[string]any{"has_sponsor": false, "in_fellowship": false, "sobriety_days": 0}),
			map[string]any{"outcome": "relapsed", "primary_trigger": "payday"}, seen("payday", 1, 2, 3, 4), nil,
			[]extract.Cue{
				{Type: "relapse", Field: "sobriety_days", Detail: map[string]any{"outcome": "relapsed", "before": float64(120), "after": 0}},
				{Type: "fellowship_dropped", Field: "in_fellowship", Detail: map[string]any{"fellowship_name": "AA"}},
				{Type: "sponsor_change", Field: "has_sponsor", Detail: map[string]any{"has_sponsor": false, "previous_sponsor_name": "Bob"}},
				{Type: "recurring_trigger", Field: "primary_trigger", Detail: map[string]any{"trigger": "payday", "count": 5, "window_days": 30}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := eldertree.Cues(profile, tt.after, tt.summary, tt.triggers, tt.significant, now)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cues\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}
