package decay_test

import (
	"encoding/json"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/kinds/lara"
	"github.com/mnemo-ai/mnemo/prompts"
)

// masteryAdded are the fields Mastery may add to a record.
var masteryAdded = []string{"decayed_at", "mastery_base", "mastery_base_at", "mastery_decayed"}

func TestMastery(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		level   int
		idle    time.Duration
		p       decay.Policy
		changed bool
		want    int     // mastery_level
		precise float64 // mastery_decayed, when changed
	}{
		{"practised yesterday", 5, day, decay.DefaultPolicy(), false, 5, 0},
		{"exactly 90 days", 5, 90 * day, decay.DefaultPolicy(), false, 5, 0},
		// A second's decay is below the 4 decimals kept: no cliff at 90 days.
		{"90 days and a second", 5, 90*day + time.Second, decay.DefaultPolicy(), false, 5, 0},
		{"91 days", 5, 91 * day, decay.DefaultPolicy(), true, 5, 4.9917},
		{"6 months", 5, 180 * day, decay.DefaultPolicy(), true, 5, 4.25},
		{"a day short of a whole level", 5, 209 * day, decay.DefaultPolicy(), true, 5, 4.0083},
		{"a whole level lost at 210 days", 5, 210 * day, decay.DefaultPolicy(), true, 4, 4},
		{"a year", 5, 365 * day, decay.DefaultPolicy(), true, 3, 2.7083},
		{"level 4 until 330 days", 5, 330*day - time.Hour, decay.DefaultPolicy(), true, 4, 3.0003},
		{"level 3 from 330 days", 5, 330 * day, decay.DefaultPolicy(), true, 3, 3},
		{"down to the floor at 570 days", 5, 570 * day, decay.DefaultPolicy(), true, 1, 1},
		{"20 years", 5, 20 * 365 * day, decay.DefaultPolicy(), true, 1, 1},
		{"level 3 after 250 days", 3, 250 * day, decay.DefaultPolicy(), true, 2, 1.6667},
		{"level 3 at the floor after a year", 3, 365 * day, decay.DefaultPolicy(), true, 1, 1},
		{"level 1 is at the floor", 1, 20 * 365 * day, decay.DefaultPolicy(), false, 1, 0},
		{"level 0 has nothing to lose", 0, 20 * 365 * day, decay.DefaultPolicy(), false, 0, 0},
		{"a higher floor", 5, 20 * 365 * day, decay.Policy{MasteryFloor: 3}, true, 3, 3},
		{"below a higher floor: untouched", 2, 20 * 365 * day, decay.Policy{MasteryFloor: 3}, false, 2, 0},
		{"a fractional floor", 5, 20 * 365 * day, decay.Policy{MasteryFloor: 2.5}, true, 3, 2.5},
		{"a steep rate", 5, 100 * day, decay.Policy{MasteryRate: 3}, true, 4, 4},
		{"a shorter idle", 4, 31 * day, decay.Policy{MasteryIdle: 30 * day}, true, 4, 3.9917},
		{"practised in the future", 5, -day, decay.DefaultPolicy(), false, 5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := deepCopy(t, learning(tt.level, tt.idle))
			before := jsonOf(t, in)
			out, changed := masteryDecay(in, now, tt.p)
			if jsonOf(t, in) != before {
				t.Fatal("Mastery modified its input record")
			}
			if changed != tt.changed {
				t.Fatalf("changed = %v, want %v: %s", changed, tt.changed, jsonOf(t, out.Data))
			}
			if !changed {
				if !reflect.DeepEqual(out, in) {
					t.Fatalf("unchanged, yet the record differs: %s", jsonOf(t, out.Data))
				}
				return
			}
			d := out.Data
			if number(d["mastery_level"]) != float64(tt.want) || number(d["mastery_decayed"]) != tt.precise {
				t.Errorf("mastery_level, mastery_decayed = %v, %v, want %v, %v", d["mastery_level"], d["mastery_decayed"], tt.want, tt.precise)
			}
			if number(d["mastery_base"]) != float64(tt.level) || d["mastery_base_at"] != in.Data["last_practiced"] {
				t.Errorf("mastery_base, mastery_base_at = %v, %v, want %v, %v", d["mastery_base"], d["mastery_base_at"], tt.level, in.Data["last_practiced"])
			}
			if d["difficulty"] != 7.0 || d["last_practiced"] != in.Data["last_practiced"] || d["total_attempts"] != 40.0 {
				t.Errorf("difficulty, last_practiced or attempts changed: %s", jsonOf(t, d))
			}
			if d["updated_at"] != ts(now) || d["decayed_at"] != ts(now) {
				t.Errorf("updated_at, decayed_at = %v, %v, want now", d["updated_at"], d["decayed_at"])
			}
			requireGuardPasses(t, out, now)
			requireNoNewStrings(t, in, out, now, masteryAdded...)
		})
	}
}

func TestMasteryUnreadable(t *testing.T) {
	t.Parallel()
	edit := func(f func(map[string]any)) extract.Record {
		r := learning(5, 400*day)
		f(r.Data)
		return r
	}
	tests := []struct {
		name string
		rec  extract.Record
	}{
		{"level above 5", edit(func(d map[string]any) { d["mastery_level"] = 6 })},
		{"negative level", edit(func(d map[string]any) { d["mastery_level"] = -1 })},
		{"fractional level", edit(func(d map[string]any) { d["mastery_level"] = 4.5 })},
		{"level a word", edit(func(d map[string]any) { d["mastery_level"] = "high" })},
		{"no level", edit(func(d map[string]any) { delete(d, "mastery_level") })},
		{"last_practiced a date only", edit(func(d map[string]any) { d["last_practiced"] = "2024-01-01" })},
		{"last_practiced a number", edit(func(d map[string]any) { d["last_practiced"] = 1700000000 })},
		{"no last_practiced", edit(func(d map[string]any) { delete(d, "last_practiced") })},
		{"an emotional record", emotional(entry("s-1", day, 1, 0, 0, 0))},
		{"a delete", func() extract.Record { r := learning(5, 400*day); r.Delete = true; return r }()},
		{"no data", extract.Record{Type: lara.LaraLearning, Key: "counting"}},
	}
	for _, tt := range tests {
		if out, changed := masteryDecay(tt.rec, now, decay.DefaultPolicy()); changed || !reflect.DeepEqual(out, tt.rec) {
			t.Errorf("%s: Mastery changed the record: %s", tt.name, jsonOf(t, out.Data))
		}
	}
}

func TestMasteryReadsStoredNumbers(t *testing.T) {
	t.Parallel()
	// Levels written by Go, decoded from JSON or kept as numeric strings all
	// read the same, as extract's lara rules read them.
	for _, level := range []any{4, 4.0, int64(4), json.Number("4"), "4"} {
		r := learning(0, 365*day)
		r.Data["mastery_level"] = level
		out, changed := masteryDecay(r, now, decay.DefaultPolicy())
		if !changed || number(out.Data["mastery_level"]) != 2 || number(out.Data["mastery_base"]) != 4 || number(out.Data["mastery_decayed"]) != 1.7083 {
			t.Errorf("level %#v: %v %s", level, changed, jsonOf(t, out.Data))
		}
	}
}

func TestMasteryIdempotent(t *testing.T) {
	t.Parallel()
	for _, idle := range []time.Duration{91 * day, 210 * day, 365 * day, 20 * 365 * day} {
		once, _ := masteryDecay(learning(5, idle), now, decay.DefaultPolicy())
		twice, changed := masteryDecay(once, now, decay.DefaultPolicy())
		if changed || !reflect.DeepEqual(once, twice) {
			t.Errorf("idle %v: a second run at the same now changed the record", idle)
		}
		if _, changed := masteryDecay(deepCopy(t, once), now, decay.DefaultPolicy()); changed {
			t.Errorf("idle %v: a run on the stored record changed it", idle)
		}
	}
}

// TestMasteryDoesNotCompound: a run at day 100 then one at day 130 gives the
// record a single run at day 130 gives, and so do daily and weekly runs.
func TestMasteryDoesNotCompound(t *testing.T) {
	t.Parallel()
	practiced := now
	rec := learning(5, 0)
	at := func(days int) time.Time { return practiced.Add(time.Duration(days) * day) }
	p := decay.DefaultPolicy()

	first, _ := masteryDecay(rec, at(100), p)
	chained, _ := masteryDecay(deepCopy(t, first), at(130), p)
	direct, _ := masteryDecay(rec, at(130), p)
	if jsonOf(t, chained) != jsonOf(t, direct) {
		t.Fatalf("day 100 then 130:\n%s\nday 130 at once:\n%s", jsonOf(t, chained), jsonOf(t, direct))
	}
	if number(direct.Data["mastery_decayed"]) != 4.6667 {
		t.Fatalf("mastery_decayed at day 130 = %v, want 5 − 0.25 × 40/30", direct.Data["mastery_decayed"])
	}

	daily, weekly := rec, rec
	for d := 1; d <= 800; d++ {
		daily, _ = masteryDecay(deepCopy(t, daily), at(d), p)
		if d%7 == 0 {
			weekly, _ = masteryDecay(deepCopy(t, weekly), at(d), p)
			direct, _ := masteryDecay(rec, at(d), p)
			// Once at the floor a run changes nothing and writes nothing, so
			// only the stamps of the last write may differ.
			if values(t, daily) != values(t, direct) || values(t, weekly) != values(t, direct) {
				t.Fatalf("day %d:\ndaily  %s\nweekly %s\ndirect %s", d, jsonOf(t, daily.Data), jsonOf(t, weekly.Data), jsonOf(t, direct.Data))
			}
		}
	}
	if number(daily.Data["mastery_level"]) != 1.0 {
		t.Fatalf("after 800 days mastery_level = %v, want the floor 1", daily.Data["mastery_level"])
	}
}

func TestMasteryNeverRaises(t *testing.T) {
	t.Parallel()
	late, _ := masteryDecay(learning(5, 400*day), now, decay.DefaultPolicy())
	// A back-filled run for an earlier period must not undo decay.
	early, changed := masteryDecay(deepCopy(t, late), now.Add(-200*day), decay.DefaultPolicy())
	if changed {
		t.Fatalf("a run at an earlier now changed the record: %s", jsonOf(t, early.Data))
	}
}

func TestMasteryStaleBase(t *testing.T) {
	t.Parallel()
	// A base left over from before the last practice is not the level at last
	// practice: the current level is.
	r := learning(3, 250*day)
	r.Data["mastery_base"] = 5
	r.Data["mastery_base_at"] = ts(now.Add(-900 * day))
	r.Data["mastery_decayed"] = 4.5
	out, changed := masteryDecay(r, now, decay.DefaultPolicy())
	if !changed || number(out.Data["mastery_base"]) != 3 || number(out.Data["mastery_level"]) != 2 || number(out.Data["mastery_decayed"]) != 1.6667 {
		t.Fatalf("stale base: %s", jsonOf(t, out.Data))
	}
}

// TestMasteryNeverToZero sweeps idle times up to 20 years under policies
// from gentle to harsh: a concept once mastered stays at least at the floor.
func TestMasteryNeverToZero(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		level := 1 + rng.IntN(lara.LaraMaxMastery)
		idle := time.Duration(rng.Int64N(int64(20 * 365 * day)))
		p := decay.Policy{
			MasteryIdle:  time.Duration(1 + rng.Int64N(int64(365*day))),
			MasteryRate:  rng.Float64() * 50,
			MasteryFloor: 1 + rng.Float64()*4,
		}
		out, _ := masteryDecay(learning(level, idle), now, p)
		got, _ := whole(out.Data["mastery_level"])
		if got < 1 || got > level {
			t.Fatalf("case %d: level %d idle %v policy %+v: mastery_level %v", i, level, idle, p, out.Data["mastery_level"])
		}
		if got < min(int(math.Ceil(p.MasteryFloor)), level) {
			t.Fatalf("case %d: level %d fell to %d, below the floor %v", i, level, got, p.MasteryFloor)
		}
		if d := number(out.Data["mastery_decayed"]); !math.IsNaN(d) && d < min(p.MasteryFloor, float64(level))-1e-4 {
			t.Fatalf("case %d: mastery_decayed %v below the floor %v", i, d, p.MasteryFloor)
		}
	}
}

// TestMasteryThenRules checks that the rules carry on from a decayed record:
// practice raises mastery from the decayed level, and the rebuilt record
// drops the decay fields, so the next decay starts from the new practice.
func TestMasteryThenRules(t *testing.T) {
	t.Parallel()
	decayed, _ := masteryDecay(learning(5, 300*day), now, decay.DefaultPolicy())
	if number(decayed.Data["mastery_level"]) != 4 {
		t.Fatalf("mastery_level = %v, want 4", decayed.Data["mastery_level"])
	}
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	later := now.Add(time.Hour) // past the rules' cooldown after the decay's updated_at
	var events []extract.Event
	for range lara.LaraMasteryStreak {
		b, _ := json.Marshal(map[string]any{"concept": "counting", "difficulty": 7, "success": true})
		events = append(events, extract.Event{Type: "attempt", At: later.Add(-time.Minute), Data: b})
	}
	s := extract.Session{
		ID: "s-42", UserID: user, App: "lara", StartedAt: later.Add(-20 * time.Minute), EndedAt: later,
		Events: events, History: extract.History{Records: []extract.Record{deepCopy(t, decayed)}},
	}
	res := extract.Rules(apps["lara"], s, later)
	for _, r := range res.Records {
		if r.Type == lara.LaraLearning {
			if number(r.Data["mastery_level"]) != 5 {
				t.Fatalf("mastery_level after practice = %v, want 4 + 1", r.Data["mastery_level"])
			}
			if _, ok := r.Data["mastery_base"]; ok {
				t.Fatalf("the rebuilt record kept mastery_base: %s", jsonOf(t, r.Data))
			}
			return
		}
	}
	t.Fatalf("the rules wrote no learning record: dropped %v", res.Dropped)
}

// values is r's data without the stamps of when it was last written.
func values(t testing.TB, r extract.Record) string {
	d := maps.Clone(r.Data)
	delete(d, "updated_at")
	delete(d, "decayed_at")
	return jsonOf(t, d)
}
