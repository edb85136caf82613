package decay

import (
	"math"
	"time"
)

// Mastery is what the slow decay of mastery reads of a learning record and
// writes back to it.
type Mastery struct {
	// Level is mastery_level, a whole number in [0, MaxMastery].
	Level int
	// Practiced is last_practiced, when the concept was last practised.
	Practiced time.Time
	// Base is mastery_base, the level at last practice, when an earlier
	// decay set it for this Practiced; 0 when it has none or the base is
	// stale (the concept was practised since).
	Base int
	// Decayed is mastery_decayed, the precise level an earlier decay left;
	// nil when it has none.
	Decayed *float64
}

// DecayMastery decays a concept's mastery after MasteryIdle without
// practice. The decay is linear in the idle time beyond MasteryIdle and is
// always computed from the level the concept had when last practised, so it
// depends only on now − Practiced: running the batch daily, weekly or twice
// at the same now gives the same record.
//
//	idle    = now − Practiced                (no decay while idle ≤ MasteryIdle)
//	floor   = min(MasteryFloor, base)
//	precise = max(base − MasteryRate × (idle − MasteryIdle) / 30 days, floor)
//	level   = ceil(precise)
//
// precise is rounded to 4 decimals before ceil. The level drops one step
// only once a whole level is lost: with the defaults a level 5 concept stays
// 5 until 210 days without practice, is 4 until 330 days, reaches 1 at 570
// days and never falls below it. (Flooring instead would take a level away one
// second after the 90 days: a cliff, not the very slow decay the design
// asks for; docs/presets.md: decay.)
// Decay never raises: level and precise are never above the stored ones.
//
// next holds the new Level (still a whole number, now in [1, MaxMastery], as
// the rules and the kind's write guard require), Base (the level at last
// practice: m.Base when it is valid, else m.Level) and Decayed (precise).
// The record also gets mastery_base_at, the last_practiced the base belongs
// to, and updated_at and decayed_at (Stamp); the rules rebuild the record
// when the concept is practised, which drops these fields and restarts the
// clock. A Base outside [Level, MaxMastery] or a Decayed outside [min(floor,
// Base), Base] is not one DecayMastery wrote and is read as none.
//
// changed is false, and next is m, when neither the level nor the precise
// value moves: at level 0, a level out of range, a Practiced that is zero
// (unreadable), idle no longer than MasteryIdle, or an invalid policy.
func DecayMastery(m Mastery, now time.Time, p Policy) (next Mastery, changed bool) {
	if m.Level < 1 || m.Level > MaxMastery || m.Practiced.IsZero() || p.Validate() != nil {
		return m, false
	}
	p = p.withDefaults()
	idle := now.Sub(m.Practiced)
	if idle <= p.MasteryIdle {
		return m, false
	}

	base, current := m.Level, float64(m.Level)
	if b := m.Base; b >= m.Level && b <= MaxMastery {
		base = b
		// A precise value below the floor or above the base is not one
		// DecayMastery wrote; the level stands in for it.
		if d := m.Decayed; d != nil && *d >= min(p.MasteryFloor, float64(b)) && *d <= float64(b) {
			current = *d
		}
	}
	lost := p.MasteryRate * float64(idle-p.MasteryIdle) / float64(MasteryRatePeriod)
	floor := min(p.MasteryFloor, float64(base))
	precise := round(max(float64(base)-lost, floor), 4)
	if precise < floor {
		// Rounded to 4 places below a floor that has more: the floor, rounded
		// up, so that the next run reads it as a value DecayMastery wrote.
		precise = math.Ceil(floor*1e4) / 1e4
	}
	precise = min(precise, current)
	level := min(m.Level, int(math.Ceil(precise)))
	if level == m.Level && precise == current {
		return m, false
	}
	return Mastery{Level: level, Practiced: m.Practiced, Base: base, Decayed: &precise}, true
}
