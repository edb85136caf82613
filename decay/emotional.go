package decay

import (
	"math"
	"time"
)

// Moods is one number per mood state of an emotional record: a session's
// moments, the normalised counts, their precise decayed values or the
// 30-day averages.
type Moods[N int | float64] struct {
	Frustrated, Recovered, Stable, Anxious N
}

// Get is m's number for state (MoodFrustrated, …); 0 for another state.
func (m Moods[N]) Get(state string) N {
	switch state {
	case MoodFrustrated:
		return m.Frustrated
	case MoodRecovered:
		return m.Recovered
	case MoodStable:
		return m.Stable
	case MoodAnxious:
		return m.Anxious
	}
	return 0
}

// MoodEntry is one session of an emotional record's recent history: when
// it was (Dated is false when the stored time cannot be read) and its
// moments of each mood, none negative.
type MoodEntry struct {
	At     time.Time
	Dated  bool
	Counts Moods[int]
}

// Normalised is what the weekly normalisation makes of an emotional
// record's recent history (Emotional).
type Normalised struct {
	// Keep says, entry by entry, whether the history keeps it.
	Keep []bool
	// Counts are the recency-weighted sums, rounded to whole numbers: the
	// record's <state>_count.
	Counts Moods[int]
	// Decayed are the same sums rounded to 2 decimals: <state>_decayed.
	Decayed Moods[float64]
	// Averages are each state's moments per kept session, unweighted, to 4
	// decimals: last_30_day_averages.
	Averages Moods[float64]
	// Average is the distress states' (frustrated plus anxious) moments per
	// kept session: last_30_day_average.
	Average float64
	// Sessions is how many dated entries are kept: last_30_day_sessions.
	Sessions int
}

// Dropped reports whether the normalisation drops any entry.
func (n Normalised) Dropped() bool {
	for _, k := range n.Keep {
		if !k {
			return true
		}
	}
	return false
}

// Emotional is the weekly normalisation of an emotional record: its counts
// become recency-weighted sums over its per-session history, so that old
// distress fades and recent events weigh most.
//
// Each entry of recent weighs 0.5^(age/EmotionalHalfLife), age = now − At
// (an entry later than now weighs 1). Entries older than MoodWindow (30
// days) are dropped, as the rules drop them; an entry exactly 30 days old
// stays, as does an entry that is not Dated (it counts for nothing). Then,
// for each state (frustrated, recovered, stable, anxious), Decayed is the
// weighted sum rounded to 2 decimals and Counts that sum rounded to the
// nearest whole number. The counts stay whole because the kind's write guard
// refuses a fractional count and the rules, which add the next session's
// events to the stored count, would read a fraction as zero. Averages,
// Average and Sessions are recomputed over the dated entries kept,
// unweighted, exactly as the rules compute them.
//
// The record that holds the history keeps everything else as it is (its
// user, its cumulative sessions, the entries kept as they were stored) and
// gets updated_at and decayed_at set to now, in RFC 3339 (Stamp). Lifetime
// totals are not kept: the rules rebuild the record at every session from
// the stored counts, so after the first normalisation the counts are an
// intensity, not a tally (the decayed values likewise last until the next
// session writes the record).
//
// ok is false under an invalid policy: nothing is to change. Emotional is
// idempotent at a given now: normalising a history it kept again gives the
// same values, so a record holding them need not be written.
func Emotional(recent []MoodEntry, now time.Time, p Policy) (n Normalised, ok bool) {
	if p.Validate() != nil {
		return Normalised{}, false
	}
	p = p.withDefaults()
	n.Keep = make([]bool, len(recent))
	var decayed Moods[float64]
	var sums Moods[int]
	for i, e := range recent {
		if !e.Dated {
			n.Keep[i] = true
			continue
		}
		age := now.Sub(e.At)
		if age > MoodWindow {
			continue
		}
		n.Keep[i] = true
		w := math.Exp2(-float64(max(age, 0)) / float64(p.EmotionalHalfLife))
		c := Moods[int]{max(e.Counts.Frustrated, 0), max(e.Counts.Recovered, 0), max(e.Counts.Stable, 0), max(e.Counts.Anxious, 0)}
		sums = Moods[int]{sums.Frustrated + c.Frustrated, sums.Recovered + c.Recovered, sums.Stable + c.Stable, sums.Anxious + c.Anxious}
		decayed = Moods[float64]{decayed.Frustrated + float64(c.Frustrated)*w, decayed.Recovered + float64(c.Recovered)*w,
			decayed.Stable + float64(c.Stable)*w, decayed.Anxious + float64(c.Anxious)*w}
		n.Sessions++
	}
	avg := func(k int) float64 {
		if n.Sessions == 0 {
			return 0
		}
		return round(float64(k)/float64(n.Sessions), 4)
	}
	n.Decayed = Moods[float64]{round(decayed.Frustrated, 2), round(decayed.Recovered, 2), round(decayed.Stable, 2), round(decayed.Anxious, 2)}
	n.Counts = Moods[int]{int(math.Round(n.Decayed.Frustrated)), int(math.Round(n.Decayed.Recovered)),
		int(math.Round(n.Decayed.Stable)), int(math.Round(n.Decayed.Anxious))}
	n.Averages = Moods[float64]{avg(sums.Frustrated), avg(sums.Recovered), avg(sums.Stable), avg(sums.Anxious)}
	n.Average = avg(sums.Frustrated + sums.Anxious)
	return n, true
}
