package decay

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"time"
)

// day is 24 hours, the unit the policy's defaults are written in.
const day = 24 * time.Hour

// MasteryRatePeriod is the span Policy.MasteryRate is given per.
const MasteryRatePeriod = 30 * day

// ErrInvalidPolicy is wrapped by every error Policy.Validate returns.
var ErrInvalidPolicy = errors.New("invalid decay policy")

// Policy sets how fast the decaying records fade. A zero field takes its default
// (see DefaultPolicy), so an operator's configuration only names what it
// changes.
type Policy struct {
	// EmotionalHalfLife is the age at which a mood event weighs half as much
	// in the normalised emotional counts. Default 14 days.
	EmotionalHalfLife time.Duration
	// PreferenceUnused is how long a preference may go unmentioned before it
	// is removed. Default 180 days (six months: docs/presets.md: decay).
	PreferenceUnused time.Duration
	// MasteryIdle is how long a concept may go unpractised before its
	// mastery starts to decay. Default 90 days.
	MasteryIdle time.Duration
	// MasteryRate is how many mastery levels a concept loses per
	// MasteryRatePeriod (30 days) of idleness beyond MasteryIdle, linearly.
	// Default 0.25: a level every 120 days, so level 5 reaches 1 after 570
	// days without practice.
	MasteryRate float64
	// MasteryFloor is the level decay never goes below, in [1,
	// MaxMastery]. A concept below the floor is not decayed at
	// all, and one at level 0 stays at 0: decay never raises and never
	// brings a mastered concept to zero. Default 1.
	MasteryFloor float64
}

// DefaultPolicy is the design's policy (docs/presets.md: decay): a 14-day
// emotional half-life, preferences removed after 180 days unused, mastery
// decaying by a quarter level a month after 90 days without practice, never
// below level 1.
func DefaultPolicy() Policy {
	return Policy{
		EmotionalHalfLife: 14 * day,
		PreferenceUnused:  180 * day,
		MasteryIdle:       90 * day,
		MasteryRate:       0.25,
		MasteryFloor:      1,
	}
}

// withDefaults fills p's zero fields from DefaultPolicy.
func (p Policy) withDefaults() Policy {
	d := DefaultPolicy()
	return Policy{
		EmotionalHalfLife: cmp.Or(p.EmotionalHalfLife, d.EmotionalHalfLife),
		PreferenceUnused:  cmp.Or(p.PreferenceUnused, d.PreferenceUnused),
		MasteryIdle:       cmp.Or(p.MasteryIdle, d.MasteryIdle),
		MasteryRate:       cmp.Or(p.MasteryRate, d.MasteryRate),
		MasteryFloor:      cmp.Or(p.MasteryFloor, d.MasteryFloor),
	}
}

// Validate reports every field of p that is out of range once the defaults
// are filled in, each error wrapping ErrInvalidPolicy. Call it once at
// start; the decay functions refuse to change anything under an invalid
// policy rather than decay by a negative half-life.
func (p Policy) Validate() error {
	p = p.withDefaults()
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidPolicy}, args...)...))
	}
	if p.EmotionalHalfLife < 0 {
		bad("emotional half-life %s must be positive", p.EmotionalHalfLife)
	}
	if p.PreferenceUnused < 0 {
		bad("preference unused period %s must be positive", p.PreferenceUnused)
	}
	if p.MasteryIdle < 0 {
		bad("mastery idle period %s must be positive", p.MasteryIdle)
	}
	if math.IsNaN(p.MasteryRate) || math.IsInf(p.MasteryRate, 0) || p.MasteryRate < 0 {
		bad("mastery rate %v must be a positive number of levels per 30 days", p.MasteryRate)
	}
	if math.IsNaN(p.MasteryFloor) || p.MasteryFloor < 1 || p.MasteryFloor > MaxMastery {
		bad("mastery floor %v must be between 1 and %d: decay never takes a mastered concept to zero", p.MasteryFloor, MaxMastery)
	}
	return errors.Join(errs...)
}
