package decay_test

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/kinds/lara"
)

// fuzzValue turns fuzzer input into one of the shapes a stored field may
// have: a Go int, a JSON number, a string, nothing or something else.
func fuzzValue(kind uint8, f float64, s string) any {
	switch kind % 6 {
	case 0:
		return int(math.Max(math.Min(f, 1e9), -1e9))
	case 1:
		return f
	case 2:
		return s
	case 3:
		return nil
	case 4:
		return []any{f, s}
	}
	return map[string]any{"v": f}
}

func FuzzMastery(f *testing.F) {
	f.Add(uint8(0), 5.0, "", int64(400*day), uint8(0), 5.0, true, 4.5, 0.25, 1.0, int64(0))
	f.Add(uint8(1), 3.0, "", int64(91*day), uint8(3), 0.0, false, 0.0, 0.0, 0.0, int64(day))
	f.Add(uint8(2), 0.0, "4", int64(20*365*day), uint8(1), 5.0, true, 0.2, 50.0, 5.0, int64(-30*day))
	f.Add(uint8(1), 2.5, "x", int64(math.MaxInt64), uint8(2), 1.0, true, -1.0, -1.0, 0.5, int64(math.MinInt64))
	f.Fuzz(func(t *testing.T, levelKind uint8, levelF float64, levelS string, idle int64,
		baseKind uint8, baseF float64, baseAtPracticed bool, decayed, rate, floor float64, idleSetting int64) {
		rec := learning(0, time.Duration(idle))
		if idle%7 == 3 {
			rec.Data["last_practiced"] = levelS // unreadable dates too
		}
		rec.Data["mastery_level"] = fuzzValue(levelKind, levelF, levelS)
		if baseKind%7 != 6 {
			rec.Data["mastery_base"] = fuzzValue(baseKind, baseF, levelS)
			rec.Data["mastery_decayed"] = decayed
			rec.Data["mastery_base_at"] = levelS
			if baseAtPracticed {
				rec.Data["mastery_base_at"] = rec.Data["last_practiced"]
			}
		}
		in := deepCopy(t, rec)
		p := decay.Policy{MasteryRate: rate, MasteryFloor: floor, MasteryIdle: time.Duration(idleSetting)}

		out, changed := masteryDecay(rec, now, p)
		if !changed {
			if jsonOf(t, out) != jsonOf(t, rec) {
				t.Fatalf("unchanged, yet the record differs: %s", jsonOf(t, out.Data))
			}
			return
		}
		if p.Validate() != nil {
			t.Fatalf("changed a record under an invalid policy %+v", p)
		}
		var was float64
		switch v := in.Data["mastery_level"].(type) {
		case float64:
			was = v
		case string:
			was, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
		if was < 1 {
			t.Fatalf("decayed a level %#v that is not a mastered level", in.Data["mastery_level"])
		}
		level, ok := whole(out.Data["mastery_level"])
		if !ok || level < 1 || level > lara.LaraMaxMastery {
			t.Fatalf("mastery_level %#v out of [1, %d]", out.Data["mastery_level"], lara.LaraMaxMastery)
		}
		if float64(level) > was {
			t.Fatalf("mastery rose from %v to %d", was, level)
		}
		d := number(out.Data["mastery_decayed"])
		ok = !math.IsNaN(d)
		if !ok || d < 1-1e-4 || d > float64(lara.LaraMaxMastery) || math.Ceil(d) < float64(level) {
			t.Fatalf("mastery_decayed %v does not fit level %d", out.Data["mastery_decayed"], level)
		}
		if out.Data["user_id"] != user || out.Data["updated_at"] != ts(now) {
			t.Fatalf("user_id, updated_at = %v, %v", out.Data["user_id"], out.Data["updated_at"])
		}
		requireGuardPasses(t, out, now)
		if again, changed := masteryDecay(out, now, p); changed {
			t.Fatalf("not idempotent:\n%s\n%s", jsonOf(t, out.Data), jsonOf(t, again.Data))
		}
	})
}

func FuzzEmotional(f *testing.F) {
	f.Add(int64(3*day), uint8(2), 1.5, "s-1", int64(40*day), uint8(0), 2.0, int64(14*day))
	f.Add(int64(-day), uint8(1), -3.0, "", int64(0), uint8(5), 1e300, int64(1))
	f.Fuzz(func(t *testing.T, age1 int64, kind1 uint8, n1 float64, s string, age2 int64, kind2 uint8, n2 float64, halfLife int64) {
		at := func(age int64) any {
			if age%5 == 1 {
				return s
			}
			return ts(now.Add(-time.Duration(age)))
		}
		rec := emotional(
			map[string]any{"session_id": s, "at": at(age1), "frustrated": fuzzValue(kind1, n1, s), "anxious": fuzzValue(kind2, n2, s)},
			map[string]any{"session_id": "s-2", "at": at(age2), "stable": fuzzValue(kind2, n2, s), "recovered": 1},
		)
		if kind1%9 == 8 {
			rec.Data["recent"] = append(rec.Data["recent"].([]any), s, nil, 3.0)
		}
		p := decay.Policy{EmotionalHalfLife: time.Duration(halfLife)}
		out, changed := emotionalDecay(rec, now, p)
		if !changed {
			return
		}
		for _, field := range []string{"frustration_count", "recovery_count", "stable_count", "anxious_count"} {
			if n, ok := whole(out.Data[field]); !ok || n < 0 {
				t.Fatalf("%s = %#v", field, out.Data[field])
			}
		}
		requireGuardPasses(t, out, now)
		if again, changed := emotionalDecay(out, now, p); changed {
			t.Fatalf("not idempotent:\n%s\n%s", jsonOf(t, out.Data), jsonOf(t, again.Data))
		}
	})
}
