package decay_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
)

func TestDefaultPolicy(t *testing.T) {
	t.Parallel()
	p := decay.DefaultPolicy()
	want := decay.Policy{
		EmotionalHalfLife: 14 * day,
		PreferenceUnused:  180 * day,
		MasteryIdle:       90 * day,
		MasteryRate:       0.25,
		MasteryFloor:      1,
	}
	if p != want {
		t.Fatalf("DefaultPolicy() = %+v, want %+v", p, want)
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("DefaultPolicy().Validate() = %v", err)
	}
	if err := (decay.Policy{}).Validate(); err != nil {
		t.Fatalf("zero Policy takes the defaults, Validate() = %v", err)
	}
}

func TestPolicyZeroFieldsTakeDefaults(t *testing.T) {
	t.Parallel()
	// A zero policy must decay exactly as the default one.
	rec := learning(5, 200*day)
	a, _ := masteryDecay(rec, now, decay.Policy{})
	b, _ := masteryDecay(rec, now, decay.DefaultPolicy())
	if jsonOf(t, a) != jsonOf(t, b) {
		t.Fatalf("zero policy: %s\ndefault policy: %s", jsonOf(t, a), jsonOf(t, b))
	}
}

func TestPolicyValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(*decay.Policy)
		want []string // substrings of the error; none means valid
	}{
		{"half-life negative", func(p *decay.Policy) { p.EmotionalHalfLife = -time.Hour }, []string{"emotional half-life -1h0m0s"}},
		{"unused negative", func(p *decay.Policy) { p.PreferenceUnused = -day }, []string{"preference unused period"}},
		{"idle negative", func(p *decay.Policy) { p.MasteryIdle = -day }, []string{"mastery idle period"}},
		{"rate negative", func(p *decay.Policy) { p.MasteryRate = -0.1 }, []string{"mastery rate -0.1"}},
		{"rate NaN", func(p *decay.Policy) { p.MasteryRate = math.NaN() }, []string{"mastery rate NaN"}},
		{"rate infinite", func(p *decay.Policy) { p.MasteryRate = math.Inf(1) }, []string{"mastery rate +Inf"}},
		{"floor below one", func(p *decay.Policy) { p.MasteryFloor = 0.5 }, []string{"mastery floor 0.5", "never takes a mastered concept to zero"}},
		{"floor negative", func(p *decay.Policy) { p.MasteryFloor = -1 }, []string{"mastery floor -1"}},
		{"floor above max", func(p *decay.Policy) { p.MasteryFloor = 6 }, []string{"mastery floor 6 must be between 1 and 5"}},
		{"floor NaN", func(p *decay.Policy) { p.MasteryFloor = math.NaN() }, []string{"mastery floor NaN"}},
		{"two at once", func(p *decay.Policy) { p.MasteryIdle = -day; p.MasteryFloor = 9 }, []string{"mastery idle period", "mastery floor 9"}},
		{"floor at max", func(p *decay.Policy) { p.MasteryFloor = 5 }, nil},
		{"fractional floor", func(p *decay.Policy) { p.MasteryFloor = 1.5 }, nil},
		{"steep rate", func(p *decay.Policy) { p.MasteryRate = 3 }, nil},
		{"one-hour half-life", func(p *decay.Policy) { p.EmotionalHalfLife = time.Hour }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := decay.DefaultPolicy()
			tt.edit(&p)
			err := p.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, decay.ErrInvalidPolicy) {
				t.Fatalf("Validate() = %v, want an error wrapping ErrInvalidPolicy", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q, want it to mention %q", err, w)
				}
			}
		})
	}
}

func TestInvalidPolicyChangesNothing(t *testing.T) {
	t.Parallel()
	bad := decay.Policy{EmotionalHalfLife: -day, PreferenceUnused: -day, MasteryIdle: -day}
	if _, changed := masteryDecay(learning(5, 400*day), now, bad); changed {
		t.Error("Mastery changed a record under an invalid policy")
	}
	if _, changed := emotionalDecay(emotional(entry("s-1", 3*day, 2, 0, 0, 0)), now, bad); changed {
		t.Error("Emotional changed a record under an invalid policy")
	}
	if preferenceRemoved(preference("likes:dinosaurs", ts(now.Add(-400*day)), ts(now.Add(-400*day))), now, bad) {
		t.Error("Preference removed a record under an invalid policy")
	}
}
