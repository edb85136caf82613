package aggregate

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestInsightsBoundedLabels: an app whose users each name a trigger of
// their own keeps at most maxInsightLabels of them, and the trigger every
// user names is still counted exactly.
func TestInsightsBoundedLabels(t *testing.T) {
	t.Parallel()
	const users = 3 * maxInsightLabels
	acc := NewInsights("eldertree", "2026-11-22")
	for i := range users {
		acc.Add(fmt.Sprint("u-", i), WeeklyAnalytics{
			WeekEnding:             "2026-11-22",
			TotalSessionsCompleted: 1,
			CommonTriggers:         []TriggerCount{{"loneliness", 1}, {fmt.Sprintf("own_trigger_%d", i), 1}},
		})
		if n := len(acc.triggers); n > maxInsightLabels {
			t.Fatalf("after %d users the accumulator holds %d triggers", i+1, n)
		}
	}
	if st := acc.triggers["loneliness"]; st == nil || st.users != users || st.count != users {
		t.Fatalf("loneliness: %+v, want %d users and sessions", st, users)
	}
	got := acc.Result(DefaultK).AggregateMetrics.MostCommonTriggers
	if len(got) != 1 || got[0] != (TriggerCount{"loneliness", users}) {
		t.Errorf("most_common_triggers = %+v", got)
	}
}

func TestLabel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want string
	}{
		{"loneliness", "loneliness"},
		{"Work Stress", "work_stress"},
		{"  late-night   phone!! ", "late_night_phone"},
		{"HALT: hungry/angry", "halt_hungry_angry"},
		{"__x__", "x"},
		{"prayer/meditation", "prayer_meditation"},
		{"Einsamkeit Ärger", "einsamkeit_ärger"},
		{"cafe\u0301 visit", "cafe\u0301_visit"}, // a combining accent stays in its word
		{strings.Repeat("a", 45), strings.Repeat("a", 40)},
		{strings.Repeat("a", 39) + " bc", strings.Repeat("a", 39)}, // never ends on "_"
		{strings.Repeat("a", 38) + " bc", strings.Repeat("a", 38) + "_b"},
		{"!!!", ""},
		{"", ""},
		{7.0, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := label(tt.in); got != tt.want {
			t.Errorf("label(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := label(tt.in); label(got) != got {
			t.Errorf("label(%q) = %q is not stable", tt.in, got)
		}
	}
	if got := labels("called sponsor, walked outside; Called Sponsor\nprayer"); !slices.Equal(got, []string{"called_sponsor", "walked_outside", "prayer"}) {
		t.Errorf("labels = %q", got)
	}
}
