package lara

import (
	"time"

	"github.com/mnemo-ai/mnemo/batch"
	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
)

// Batches are LaRa's batches (batch.Declarer): one decay batch per rule of
// DecayRules.
func (kindLara) Batches() []batch.Batch { return batch.Decays(DecayRules()) }

// DecayRules are the decay rules of LaRa's records: the weekly
// normalisation of the emotional counts, the removal of unused preferences
// and the slow decay of mastery. Each reads its record as the typed value,
// hands package decay what the decay reads and writes back only what it
// returns: a changed record keeps every other field as stored (its user,
// its last session, fields it does not know), gets updated_at and decayed_at
// set to now and still passes LaraGuard's shape and label checks, so that
// the rules can fold the next session into it. A record of another kind or
// a removal is left as it is.
func DecayRules() []decay.Rule {
	return []decay.Rule{
		{Batch: decay.BatchEmotional, Record: LaraEmotional,
			Apply: func(r extract.Record, now time.Time, p decay.Policy) (extract.Record, bool, bool) {
				next, changed := decayEmotional(r, now, p)
				return next, false, changed
			}},
		{Batch: decay.BatchPreference, Record: LaraPreference,
			Apply: func(r extract.Record, now time.Time, p decay.Policy) (extract.Record, bool, bool) {
				return r, preferenceUnused(r, now, p), false
			}},
		{Batch: decay.BatchMastery, Record: LaraLearning,
			Apply: func(r extract.Record, now time.Time, p decay.Policy) (extract.Record, bool, bool) {
				next, changed := decayMastery(r, now, p)
				return next, false, changed
			}},
	}
}

// decayEmotional normalises an emotional record's counts over its recent
// history (decay.Emotional). A record without a recent list has nothing to
// normalise from. changed is false, and r is returned as it is, when the
// normalised values equal the stored ones and no entry is dropped.
func decayEmotional(r extract.Record, now time.Time, p decay.Policy) (extract.Record, bool) {
	if r.Type != LaraEmotional || r.Delete || r.Data == nil {
		return r, false
	}
	e, st := extract.DecodeRecord[Emotional](r)
	if e.Recent == nil {
		return r, false // no list (or not one): nothing to normalise from
	}
	entries := make([]decay.MoodEntry, len(e.Recent))
	for i, m := range e.Recent {
		at, ok := decay.Instant(m.At)
		entries[i] = decay.MoodEntry{At: at, Dated: ok, Counts: m.counts()}
	}
	n, ok := decay.Emotional(entries, now, p)
	if !ok || (!n.Dropped() && e.holds(n)) {
		return r, false
	}
	kept := make([]MoodSession, 0, len(e.Recent))
	for i, m := range e.Recent {
		if n.Keep[i] {
			kept = append(kept, m) // as stored
		}
	}
	e.Recent = kept
	e.FrustrationCount, e.RecoveryCount, e.StableCount, e.AnxiousCount = n.Counts.Frustrated, n.Counts.Recovered, n.Counts.Stable, n.Counts.Anxious
	e.FrustrationDecayed, e.RecoveryDecayed, e.StableDecayed, e.AnxiousDecayed = &n.Decayed.Frustrated, &n.Decayed.Recovered, &n.Decayed.Stable, &n.Decayed.Anxious
	e.Last30DayAverages = map[string]float64{}
	for _, state := range moodStates {
		e.Last30DayAverages[state] = n.Averages.Get(state)
	}
	e.Last30DayAverage = &n.Average
	e.Last30DaySessions = n.Sessions
	e.UpdatedAt, e.DecayedAt = decay.Stamp(now), decay.Stamp(now)
	r.Data = extract.EncodeData(e, st)
	return r, true
}

// holds reports whether e stores exactly the values of n: counts, decayed
// values, averages over the four mood states, distress average and
// sessions.
func (e Emotional) holds(n decay.Normalised) bool {
	same := func(p *float64, v float64) bool { return p != nil && *p == v }
	if e.FrustrationCount != n.Counts.Frustrated || e.RecoveryCount != n.Counts.Recovered ||
		e.StableCount != n.Counts.Stable || e.AnxiousCount != n.Counts.Anxious ||
		!same(e.FrustrationDecayed, n.Decayed.Frustrated) || !same(e.RecoveryDecayed, n.Decayed.Recovered) ||
		!same(e.StableDecayed, n.Decayed.Stable) || !same(e.AnxiousDecayed, n.Decayed.Anxious) ||
		!same(e.Last30DayAverage, n.Average) || e.Last30DaySessions != n.Sessions || len(e.Last30DayAverages) != len(moodStates) {
		return false
	}
	for _, state := range moodStates {
		if v, ok := e.Last30DayAverages[state]; !ok || v != n.Averages.Get(state) {
			return false
		}
	}
	return true
}

// preferenceUnused reports whether a preference record has gone unused too
// long (decay.Preference): its last use is last_seen, or first_seen when
// it has no last_seen (none, or null).
func preferenceUnused(r extract.Record, now time.Time, p decay.Policy) bool {
	if r.Type != LaraPreference || r.Delete || r.Data == nil {
		return false
	}
	d, _ := extract.DecodeRecord[Preference](r)
	used := d.FirstSeen
	if d.LastSeen != nil {
		used = *d.LastSeen
	}
	at, ok := decay.Instant(used)
	return decay.Preference(at, ok, now, p)
}

// decayMastery decays a learning record's mastery (decay.DecayMastery),
// writing mastery_level, mastery_base, mastery_base_at (the last_practiced
// the base belongs to), mastery_decayed, updated_at and decayed_at. A base
// whose mastery_base_at is not the record's last_practiced is stale (the
// child practised since) and is read as none.
func decayMastery(r extract.Record, now time.Time, p decay.Policy) (extract.Record, bool) {
	if r.Type != LaraLearning || r.Delete || r.Data == nil {
		return r, false
	}
	l, st := extract.DecodeRecord[Learning](r)
	practiced, ok := decay.Instant(l.LastPracticed)
	if !ok {
		return r, false
	}
	m := decay.Mastery{Level: l.MasteryLevel, Practiced: practiced}
	if l.MasteryBase != nil && l.MasteryBaseAt == l.LastPracticed {
		m.Base, m.Decayed = *l.MasteryBase, l.MasteryDecayed
	}
	next, changed := decay.DecayMastery(m, now, p)
	if !changed {
		return r, false
	}
	l.MasteryLevel, l.MasteryBase, l.MasteryBaseAt, l.MasteryDecayed = next.Level, &next.Base, l.LastPracticed, next.Decayed
	l.UpdatedAt, l.DecayedAt = decay.Stamp(now), decay.Stamp(now)
	r.Data = extract.EncodeData(l, st)
	// The fields the decay writes are written in their own form, even where
	// the value equals one stored in another (a level stored as the text
	// "2" and still 2): EncodeData keeps such a field as it was stored.
	written := extract.EncodeData(l, extract.AsStored{})
	for _, k := range masteryWritten {
		if v, ok := written[k]; ok {
			r.Data[k] = v
		}
	}
	return r, true
}

// masteryWritten are the fields decayMastery writes.
var masteryWritten = []string{"mastery_level", "mastery_base", "mastery_base_at", "mastery_decayed", "updated_at", "decayed_at"}
