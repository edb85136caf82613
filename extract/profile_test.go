package extract_test

import (
	"reflect"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
)

func TestProfileDiff(t *testing.T) {
	t.Parallel()
	current := map[string]any{
		"preferred_name":  "Dan",
		"current_step":    float64(3), // as read back from JSON
		"has_sponsor":     true,
		"sponsor_name":    "Bob",
		"known_triggers":  []any{"loneliness", "payday"},
		"fellowship_name": nil,
	}
	tests := []struct {
		name    string
		updates map[string]any
		want    map[string]any
	}{
		{"nothing new", map[string]any{"preferred_name": "Dan", "current_step": 3, "known_triggers": []string{"loneliness", "payday"}}, map[string]any{}},
		{"a changed field", map[string]any{"current_step": 4, "preferred_name": "Dan"}, map[string]any{"current_step": 4}},
		{"a new field", map[string]any{"addiction_type": "gambling"}, map[string]any{"addiction_type": "gambling"}},
		{"a field that was null", map[string]any{"fellowship_name": "GA"}, map[string]any{"fellowship_name": "GA"}},
		{"null never erases", map[string]any{"sponsor_name": nil, "has_sponsor": nil}, map[string]any{}},
		{"an explicit false is a change", map[string]any{"has_sponsor": false}, map[string]any{"has_sponsor": false}},
		{"a changed list", map[string]any{"known_triggers": []string{"loneliness"}}, map[string]any{"known_triggers": []string{"loneliness"}}},
		{"no updates", nil, map[string]any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := extract.ProfileDiff(current, tt.updates); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("diff %v, want %v", got, tt.want)
			}
		})
	}
	if got := extract.ProfileDiff(nil, map[string]any{"current_step": 1}); !reflect.DeepEqual(got, map[string]any{"current_step": 1}) {
		t.Errorf("empty profile: %v", got)
	}
}
