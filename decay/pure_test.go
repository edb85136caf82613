package decay_test

import (
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
)

// The functions over typed inputs, without a record: the record-level
// tests of this package run them through the learning kind's rules.

func TestDecayMasteryPure(t *testing.T) {
	t.Parallel()
	p := decay.DefaultPolicy()
	practiced := now.Add(-365 * day)
	next, changed := decay.DecayMastery(decay.Mastery{Level: 5, Practiced: practiced}, now, p)
	if !changed || next.Level != 3 || next.Base != 5 || next.Decayed == nil || *next.Decayed != 2.7083 || !next.Practiced.Equal(practiced) {
		t.Fatalf("a year idle: %+v %v", next, changed)
	}
	// Again from what it wrote: nothing moves.
	if again, changed := decay.DecayMastery(next, now, p); changed || again.Level != next.Level {
		t.Fatalf("not idempotent: %+v", again)
	}
	// A base of another practice (0) or out of range is none; a precise
	// value above the base is not one DecayMastery wrote.
	above := 9.0
	if n, _ := decay.DecayMastery(decay.Mastery{Level: 4, Practiced: practiced, Base: 6, Decayed: &above}, now, p); n.Base != 4 || *n.Decayed != 1.7083 {
		t.Fatalf("bad base: %+v", n)
	}
	for _, m := range []decay.Mastery{{Level: 0, Practiced: practiced}, {Level: 6, Practiced: practiced}, {Level: 5}, {Level: 5, Practiced: now.Add(-90 * day)}} {
		if n, changed := decay.DecayMastery(m, now, p); changed || n != m {
			t.Errorf("%+v decayed to %+v", m, n)
		}
	}
	if _, changed := decay.DecayMastery(decay.Mastery{Level: 5, Practiced: practiced}, now, decay.Policy{MasteryRate: -1}); changed {
		t.Error("decayed under an invalid policy")
	}
}

func TestEmotionalPure(t *testing.T) {
	t.Parallel()
	e := func(age time.Duration, f, a int) decay.MoodEntry {
		return decay.MoodEntry{At: now.Add(-age), Dated: true, Counts: decay.Moods[int]{Frustrated: f, Anxious: a}}
	}
	entries := []decay.MoodEntry{e(0, 2, 1), e(14*day, 4, 0), e(31*day, 9, 9), {Dated: false, Counts: decay.Moods[int]{Frustrated: 5}}, e(0, -3, 0)}
	n, ok := decay.Emotional(entries, now, decay.DefaultPolicy())
	if !ok {
		t.Fatal("refused a valid policy")
	}
	if want := []bool{true, true, false, true, true}; len(n.Keep) != len(want) || n.Keep[0] != want[0] || n.Keep[2] || !n.Keep[3] || !n.Keep[4] || !n.Dropped() {
		t.Fatalf("keep %v", n.Keep)
	}
	// 2 + 4×0.5 = 4 frustrated, 1 anxious; a negative count is none.
	if n.Decayed.Frustrated != 4 || n.Counts.Frustrated != 4 || n.Decayed.Anxious != 1 || n.Sessions != 3 ||
		n.Averages.Frustrated != 2 || n.Averages.Get(decay.MoodAnxious) != 0.3333 || n.Average != 2.3333 {
		t.Fatalf("normalised %+v", n)
	}
	if _, ok := decay.Emotional(entries, now, decay.Policy{EmotionalHalfLife: -day}); ok {
		t.Fatal("normalised under an invalid policy")
	}
}

func TestPreferencePure(t *testing.T) {
	t.Parallel()
	p := decay.DefaultPolicy()
	for _, tt := range []struct {
		age   time.Duration
		known bool
		want  bool
	}{{181 * day, true, true}, {180 * day, true, false}, {400 * day, false, false}} {
		if got := decay.Preference(now.Add(-tt.age), tt.known, now, p); got != tt.want {
			t.Errorf("age %v known %v: %v, want %v", tt.age, tt.known, got, tt.want)
		}
	}
	if decay.Preference(now.Add(-400*day), true, now, decay.Policy{PreferenceUnused: -1}) {
		t.Error("removed under an invalid policy")
	}
	if at, ok := decay.Instant("2026-03-15T09:30:00Z"); !ok || !at.Equal(now) || decay.Stamp(at) != "2026-03-15T09:30:00Z" {
		t.Error("Instant and Stamp disagree")
	}
	if _, ok := decay.Instant("last spring"); ok {
		t.Error("read a date from words")
	}
}
