package decay_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/kinds/lara"
	"github.com/mnemo-ai/mnemo/prompts"
)

// emotionalAdded are the fields Emotional may add to a record.
var emotionalAdded = []string{"decayed_at", "frustration_decayed", "recovery_decayed", "stable_decayed", "anxious_decayed"}

func TestEmotional(t *testing.T) {
	t.Parallel()
	type counts struct{ frustration, recovery, stable, anxious int }
	tests := []struct {
		name     string
		rec      extract.Record
		p        decay.Policy
		changed  bool
		counts   counts
		decayed  [4]float64 // frustrated, recovered, stable, anxious
		sessions int        // last_30_day_sessions
		average  float64    // last_30_day_average
		kept     int        // entries left in recent
	}{
		{
			name:    "today's session weighs fully",
			rec:     emotional(entry("s-1", 0, 2, 1, 3, 0)),
			p:       decay.DefaultPolicy(),
			changed: true, counts: counts{2, 1, 3, 0}, decayed: [4]float64{2, 1, 3, 0},
			sessions: 1, average: 2, kept: 1,
		},
		{
			name:    "one half-life halves",
			rec:     emotional(entry("s-1", 14*day, 4, 2, 1, 6)),
			p:       decay.DefaultPolicy(),
			changed: true, counts: counts{2, 1, 1, 3}, decayed: [4]float64{2, 1, 0.5, 3},
			sessions: 1, average: 10, kept: 1,
		},
		{
			name: "recent events weigh more than old ones",
			rec:  emotional(entry("s-1", 28*day, 4, 0, 0, 0), entry("s-2", 0, 1, 0, 0, 0)),
			p:    decay.DefaultPolicy(),
			// 4 × 0.5² + 1 × 1
			changed: true, counts: counts{2, 0, 0, 0}, decayed: [4]float64{2, 0, 0, 0},
			sessions: 2, average: 2.5, kept: 2,
		},
		{
			name:    "exactly 30 days old stays",
			rec:     emotional(entry("s-1", 30*day, 8, 0, 0, 0)),
			p:       decay.DefaultPolicy(),
			changed: true, counts: counts{2, 0, 0, 0}, decayed: [4]float64{1.81, 0, 0, 0},
			sessions: 1, average: 8, kept: 1,
		},
		{
			name:    "30 days and a second is dropped",
			rec:     emotional(entry("s-1", 30*day+time.Second, 8, 0, 0, 0), entry("s-2", day, 0, 0, 1, 0)),
			p:       decay.DefaultPolicy(),
			changed: true, counts: counts{0, 0, 1, 0}, decayed: [4]float64{0, 0, 0.95, 0},
			sessions: 1, average: 0, kept: 1,
		},
		{
			name:    "nothing in 30 days fades to zero",
			rec:     emotional(entry("s-1", 45*day, 3, 3, 3, 3)),
			p:       decay.DefaultPolicy(),
			changed: true, counts: counts{}, sessions: 0, average: 0, kept: 0,
		},
		{
			name:    "an empty history fades to zero",
			rec:     emotional(),
			p:       decay.DefaultPolicy(),
			changed: true, counts: counts{}, sessions: 0, average: 0, kept: 0,
		},
		{
			name:    "a session later than now weighs fully",
			rec:     emotional(entry("s-1", -day, 1, 0, 0, 1)),
			p:       decay.DefaultPolicy(),
			changed: true, counts: counts{1, 0, 0, 1}, decayed: [4]float64{1, 0, 0, 1},
			sessions: 1, average: 2, kept: 1,
		},
		{
			name: "an entry without a date is kept and not counted",
			rec: emotional(entry("s-1", day, 0, 0, 2, 0),
				map[string]any{"session_id": "s-0", "at": "last week", "frustrated": 5}),
			p:       decay.Policy{EmotionalHalfLife: day},
			changed: true, counts: counts{0, 0, 1, 0}, decayed: [4]float64{0, 0, 1, 0},
			sessions: 1, average: 0, kept: 2,
		},
		{
			name:    "negative and fractional entry counts count as zero",
			rec:     emotional(map[string]any{"session_id": "s-1", "at": ts(now), "frustrated": -3, "anxious": 1.5, "stable": 2}),
			p:       decay.DefaultPolicy(),
			changed: true, counts: counts{0, 0, 2, 0}, decayed: [4]float64{0, 0, 2, 0},
			sessions: 1, average: 0, kept: 1,
		},
		{
			name:    "a shorter half-life fades faster",
			rec:     emotional(entry("s-1", 7*day, 8, 0, 0, 0)),
			p:       decay.Policy{EmotionalHalfLife: 7 * 24 * time.Hour / 2},
			changed: true, counts: counts{2, 0, 0, 0}, decayed: [4]float64{2, 0, 0, 0},
			sessions: 1, average: 8, kept: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := deepCopy(t, tt.rec)
			before := jsonOf(t, in)
			out, changed := emotionalDecay(in, now, tt.p)
			if jsonOf(t, in) != before {
				t.Fatal("Emotional modified its input record")
			}
			if changed != tt.changed {
				t.Fatalf("changed = %v, want %v", changed, tt.changed)
			}
			d := out.Data
			gotCounts := counts{int(number(d["frustration_count"])), int(number(d["recovery_count"])), int(number(d["stable_count"])), int(number(d["anxious_count"]))}
			if gotCounts != tt.counts {
				t.Errorf("counts = %+v, want %+v", gotCounts, tt.counts)
			}
			gotDecayed := [4]float64{number(d["frustration_decayed"]), number(d["recovery_decayed"]), number(d["stable_decayed"]), number(d["anxious_decayed"])}
			if gotDecayed != tt.decayed {
				t.Errorf("decayed = %v, want %v", gotDecayed, tt.decayed)
			}
			if number(d["last_30_day_sessions"]) != float64(tt.sessions) || d["last_30_day_average"] != tt.average {
				t.Errorf("last_30_day_sessions, average = %v, %v, want %v, %v", d["last_30_day_sessions"], d["last_30_day_average"], tt.sessions, tt.average)
			}
			if got := len(d["recent"].([]any)); got != tt.kept {
				t.Errorf("recent has %d entries, want %d", got, tt.kept)
			}
			if d["updated_at"] != ts(now) || d["decayed_at"] != ts(now) {
				t.Errorf("updated_at, decayed_at = %v, %v, want now", d["updated_at"], d["decayed_at"])
			}
			if d["sessions"] != 11.0 {
				t.Errorf("sessions = %v, want the cumulative 11 kept", d["sessions"])
			}
			requireGuardPasses(t, out, now)
			requireNoNewStrings(t, in, out, now, emotionalAdded...)
		})
	}
}

func TestEmotionalAverages(t *testing.T) {
	t.Parallel()
	rec := emotional(entry("s-1", 20*day, 3, 1, 0, 1), entry("s-2", 10*day, 0, 2, 4, 0), entry("s-3", 40*day, 9, 9, 9, 9))
	out, _ := emotionalDecay(rec, now, decay.DefaultPolicy())
	want := map[string]any{"frustrated": 1.5, "recovered": 1.5, "stable": 2.0, "anxious": 0.5}
	if got := out.Data["last_30_day_averages"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("last_30_day_averages = %v, want %v (the 40-day-old session left out)", got, want)
	}
	if got := out.Data["last_30_day_average"]; got != 2.0 {
		t.Fatalf("last_30_day_average = %v, want (3+1)/2 distress events per session", got)
	}
}

func TestEmotionalUnchanged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		rec  extract.Record
	}{
		{"no recent history", func() extract.Record { r := emotional(); delete(r.Data, "recent"); return r }()},
		{"recent is not a list", func() extract.Record { r := emotional(); r.Data["recent"] = "gone"; return r }()},
		{"a learning record", learning(4, 400*day)},
		{"a preference", preference("likes:dinosaurs", ts(now), ts(now))},
		{"no data", extract.Record{Type: lara.LaraEmotional, Key: lara.LaraCounts}},
	}
	for _, tt := range tests {
		out, changed := emotionalDecay(tt.rec, now, decay.DefaultPolicy())
		if changed || !reflect.DeepEqual(out, tt.rec) {
			t.Errorf("%s: Emotional changed the record: %s", tt.name, jsonOf(t, out))
		}
	}
}

func TestEmotionalIdempotent(t *testing.T) {
	t.Parallel()
	recs := []extract.Record{
		emotional(entry("s-1", 3*day, 2, 1, 0, 1), entry("s-2", 16*day, 1, 1, 1, 0), entry("s-3", 31*day, 5, 0, 0, 0)),
		emotional(),
		emotional(entry("s-1", 0, 0, 0, 0, 0)),
	}
	for i, rec := range recs {
		once, _ := emotionalDecay(rec, now, decay.DefaultPolicy())
		twice, changed := emotionalDecay(once, now, decay.DefaultPolicy())
		if changed || !reflect.DeepEqual(once, twice) {
			t.Errorf("record %d: a second run at the same now changed it:\n%s\n%s", i, jsonOf(t, once), jsonOf(t, twice))
		}
		// The same holds once the record has been through the store's JSON,
		// where whole numbers come back as float64.
		stored := deepCopy(t, once)
		if again, changed := emotionalDecay(stored, now, decay.DefaultPolicy()); changed {
			t.Errorf("record %d: a run on the stored record changed it:\n%s\n%s", i, jsonOf(t, stored), jsonOf(t, again))
		}
	}
}

// TestEmotionalRunsDoNotCompound checks that the weekly runs before now
// leave the result at now as a single run would give it: the counts are
// recomputed from the history, not decayed again.
func TestEmotionalRunsDoNotCompound(t *testing.T) {
	t.Parallel()
	rec := emotional(entry("s-1", 40*day, 3, 0, 0, 0), entry("s-2", 25*day, 2, 2, 0, 1), entry("s-3", 9*day, 1, 0, 3, 0), entry("s-4", day, 0, 1, 1, 0))
	direct, _ := emotionalDecay(rec, now, decay.DefaultPolicy())
	chained := rec
	for at := now.Add(-21 * day); !at.After(now); at = at.Add(7 * day) {
		chained, _ = emotionalDecay(deepCopy(t, chained), at, decay.DefaultPolicy())
	}
	if jsonOf(t, chained) != jsonOf(t, direct) {
		t.Fatalf("weekly runs:\n%s\none run:\n%s", jsonOf(t, chained), jsonOf(t, direct))
	}
}

// TestEmotionalThenRules checks that the rules fold the next session into a
// normalised record: they add to the whole counts rather than reading a
// fraction as zero, and the guard accepts the result.
func TestEmotionalThenRules(t *testing.T) {
	t.Parallel()
	rec := emotional(entry("s-1", 10*day, 4, 0, 0, 0))
	normalised, _ := emotionalDecay(rec, now, decay.DefaultPolicy())
	// 4 × 0.5^(10/14) = 2.44
	if got := number(normalised.Data["frustration_count"]); got != 2 {
		t.Fatalf("frustration_count = %v, want 2", got)
	}
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	later := now.Add(time.Hour)
	mood, _ := json.Marshal(map[string]any{"state": "frustrated"})
	s := extract.Session{
		ID: "s-42", UserID: user, App: "lara", StartedAt: later.Add(-20 * time.Minute), EndedAt: later,
		Events:  []extract.Event{{Type: "mood", At: later.Add(-time.Minute), Data: mood}},
		History: extract.History{Records: []extract.Record{deepCopy(t, normalised)}},
	}
	res := extract.Rules(apps["lara"], s, later)
	for _, r := range res.Records {
		if r.Type == lara.LaraEmotional {
			if got := number(r.Data["frustration_count"]); got != 3 {
				t.Fatalf("frustration_count after the next session = %v, want 2 + 1", got)
			}
			return
		}
	}
	t.Fatalf("the rules wrote no emotional record: dropped %v", res.Dropped)
}
