package decay

import (
	"maps"
	"math"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/num"
)

// emotionalFields are the emotional record's count fields by mood state,
// each with the field Emotional keeps its precise decayed value in.
var emotionalFields = []struct{ state, count, decayed string }{
	{MoodFrustrated, "frustration_count", "frustration_decayed"},
	{MoodRecovered, "recovery_count", "recovery_decayed"},
	{MoodStable, "stable_count", "stable_decayed"},
	{MoodAnxious, "anxious_count", "anxious_decayed"},
}

// Emotional is the weekly normalisation of an emotional record: its
// counts become recency-weighted sums over the per-session history in
// "recent", so that old distress fades and recent events weigh most.
//
// Each entry of recent (one session: at, session_id and a count per mood
// state) weighs 0.5^(age/EmotionalHalfLife), age = now − at (an entry later
// than now weighs 1). Entries older than MoodWindow (30 days) are
// dropped, as the rules drop them; an entry exactly 30 days old stays. Then,
// for each state (frustrated, recovered, stable, anxious):
//
//   - <state>_decayed (frustration_decayed, recovery_decayed, stable_decayed,
//     anxious_decayed) is the weighted sum, rounded to 2 decimals;
//   - <state>_count (frustration_count, …) is that sum rounded to the nearest
//     whole number. The counts stay whole because the kind's write guard refuses
//     a fractional count and the rules, which add the next session's events
//     to the stored count, would read a fraction as zero;
//   - last_30_day_averages, last_30_day_average (frustrated plus anxious per
//     session) and last_30_day_sessions are recomputed over the entries kept,
//     unweighted, exactly as the rules compute them.
//
// updated_at and decayed_at are set to now. Nothing else changes: user_id,
// last_session_id and the cumulative "sessions" stay, and entries that are
// kept are kept as they were stored, as are entries whose date cannot be
// read (they count for nothing). A record without a "recent" list, or of
// another kind, is returned unchanged: there is nothing to normalise from.
//
// Lifetime totals are not kept: the rules rebuild the record at every
// session from the stored counts, so after the first normalisation the
// counts are an intensity, not a tally (the *_decayed fields likewise last
// until the next session writes the record).
//
// changed is false, and rec is returned as it is, when the normalised values
// equal the stored ones; applying Emotional twice at the same now changes
// nothing the second time.
func Emotional(rec extract.Record, now time.Time, p Policy) (out extract.Record, changed bool) {
	if rec.Kind != RecordEmotional || rec.Delete || rec.Data == nil || p.Validate() != nil {
		return rec, false
	}
	p = p.withDefaults()
	list, ok := rec.Data["recent"].([]any)
	if !ok {
		return rec, false
	}

	kept := make([]any, 0, len(list))
	decayed := map[string]float64{}
	sums := map[string]int{}
	sessions := 0
	for _, item := range list {
		m, _ := item.(map[string]any)
		at, ok := instant(m["at"])
		if !ok {
			kept = append(kept, item)
			continue
		}
		age := now.Sub(at)
		if age > MoodWindow {
			continue
		}
		w := math.Exp2(-float64(max(age, 0)) / float64(p.EmotionalHalfLife))
		for _, f := range emotionalFields {
			n, _ := num.Whole(m[f.state], 1e12)
			n = max(n, 0)
			sums[f.state] += n
			decayed[f.state] += float64(n) * w
		}
		sessions++
		kept = append(kept, item)
	}

	avg := func(n int) float64 {
		if sessions == 0 {
			return 0
		}
		return round(float64(n)/float64(sessions), 4)
	}
	next := map[string]any{
		"last_30_day_average":  avg(sums[MoodFrustrated] + sums[MoodAnxious]),
		"last_30_day_sessions": sessions,
	}
	averages := map[string]any{}
	for _, f := range emotionalFields {
		d := round(decayed[f.state], 2)
		next[f.decayed] = d
		next[f.count] = int(math.Round(d))
		averages[f.state] = avg(sums[f.state])
	}
	next["last_30_day_averages"] = averages

	changed = len(kept) != len(list)
	for k, v := range next {
		if !changed && !sameValue(rec.Data[k], v) {
			changed = true
		}
	}
	if !changed {
		return rec, false
	}
	data := maps.Clone(rec.Data)
	maps.Copy(data, next)
	data["recent"] = kept
	data["updated_at"] = stamp(now)
	data["decayed_at"] = stamp(now)
	rec.Data = data
	return rec, true
}

// sameValue reports whether stored holds want, a number or a map of numbers
// as Emotional writes them, whatever numeric type stored uses.
func sameValue(stored, want any) bool {
	switch w := want.(type) {
	case int:
		return sameNumber(stored, float64(w))
	case float64:
		return sameNumber(stored, w)
	case map[string]any:
		m, ok := stored.(map[string]any)
		if !ok || len(m) != len(w) {
			return false
		}
		for k, v := range w {
			if !sameValue(m[k], v) {
				return false
			}
		}
		return true
	}
	return false
}

// Preference reports whether a preference record has gone unused for
// longer than PreferenceUnused and should be removed. Its last use is
// last_seen, or first_seen when the record has no last_seen. A record
// exactly PreferenceUnused old is kept. Bad data is never removed: a date
// that is not RFC 3339 (including a last_seen that is present but
// unreadable), a record of another kind, or an invalid policy all give
// false.
func Preference(rec extract.Record, now time.Time, p Policy) (remove bool) {
	if rec.Kind != RecordPreference || rec.Delete || rec.Data == nil || p.Validate() != nil {
		return false
	}
	p = p.withDefaults()
	v, ok := rec.Data["last_seen"]
	if !ok || v == nil {
		v = rec.Data["first_seen"]
	}
	seen, ok := instant(v)
	return ok && now.Sub(seen) > p.PreferenceUnused
}

// Mastery decays a learning record's mastery after MasteryIdle without
// practice. The decay is linear in the idle time beyond MasteryIdle and is
// always computed from the level the concept had when last practised, so it
// depends only on now − last_practiced: running the batch daily, weekly or
// twice at the same now gives the same record.
//
//	idle    = now − last_practiced           (no decay while idle ≤ MasteryIdle)
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
// Fields it writes, beside mastery_level (still a whole number, now in
// [1, 5], as the rules and the kind's write guard require), updated_at and
// decayed_at:
//
//   - mastery_base: the level at last practice, set from mastery_level the
//     first time the concept decays;
//   - mastery_base_at: the last_practiced the base belongs to. A base whose
//     mastery_base_at is not the record's last_practiced is stale (the child
//     practised since) and is replaced by the current level;
//   - mastery_decayed: precise, the fractional level.
//
// The rules rebuild the record when the concept is practised, which drops
// these fields and restarts the clock. difficulty and every other field are
// untouched. A record of another kind, at level 0, with a level that is not
// a whole number in [0, 5] or a last_practiced that is not RFC 3339 is
// returned unchanged, as is any record under an invalid policy. changed is
// false when neither the level nor the precise value moves.
func Mastery(rec extract.Record, now time.Time, p Policy) (out extract.Record, changed bool) {
	if rec.Kind != RecordLearning || rec.Delete || rec.Data == nil || p.Validate() != nil {
		return rec, false
	}
	p = p.withDefaults()
	level, ok := num.Whole(rec.Data["mastery_level"], 1e12)
	if !ok || level < 1 || level > MaxMastery {
		return rec, false
	}
	practicedAt, _ := rec.Data["last_practiced"].(string)
	practiced, ok := instant(practicedAt)
	if !ok {
		return rec, false
	}
	idle := now.Sub(practiced)
	if idle <= p.MasteryIdle {
		return rec, false
	}

	base, current := level, float64(level)
	if b, ok := num.Whole(rec.Data["mastery_base"], 1e12); ok && b >= level && b <= MaxMastery {
		if at, _ := rec.Data["mastery_base_at"].(string); at == practicedAt {
			base = b
			// A precise value below the floor or above the base is not one
			// Mastery wrote; the level stands in for it.
			if d, ok := num.Float(rec.Data["mastery_decayed"]); ok && d >= min(p.MasteryFloor, float64(b)) && d <= float64(b) {
				current = d
			}
		}
	}
	lost := p.MasteryRate * float64(idle-p.MasteryIdle) / float64(MasteryRatePeriod)
	floor := min(p.MasteryFloor, float64(base))
	precise := round(max(float64(base)-lost, floor), 4)
	if precise < floor {
		// Rounded to 4 places below a floor that has more: the floor, rounded
		// up, so that the next run reads it as a value Mastery wrote.
		precise = math.Ceil(floor*1e4) / 1e4
	}
	precise = min(precise, current)
	next := min(level, int(math.Ceil(precise)))
	if next == level && precise == current {
		return rec, false
	}

	data := maps.Clone(rec.Data)
	data["mastery_level"] = next
	data["mastery_base"] = base
	data["mastery_base_at"] = practicedAt
	data["mastery_decayed"] = precise
	data["updated_at"] = stamp(now)
	data["decayed_at"] = stamp(now)
	rec.Data = data
	return rec, true
}
