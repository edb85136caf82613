package decay_test

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/kinds/lara"
)

// now is the instant most tests judge records at.
var now = time.Date(2026, 3, 15, 9, 30, 0, 0, time.UTC)

const (
	user    = "u-1"
	session = "s-41"
	day     = 24 * time.Hour
)

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// learning is a learning record as the lara rules write it, last practised
// idle before now.
func learning(level int, idle time.Duration) extract.Record {
	practiced := now.Add(-idle)
	return extract.Record{Type: lara.LaraLearning, Key: "counting", Data: map[string]any{
		"user_id":             user,
		"last_session_id":     session,
		"updated_at":          ts(practiced),
		"mastery_level":       level,
		"total_attempts":      40,
		"successful_attempts": 31,
		"success_streak":      1,
		"failure_streak":      0,
		"difficulty":          7,
		"last_practiced":      ts(practiced),
	}}
}

// entry is one session of an emotional record's recent history, age before now.
func entry(id string, age time.Duration, frustrated, recovered, stable, anxious int) map[string]any {
	return map[string]any{
		"session_id": id, "at": ts(now.Add(-age)),
		lara.MoodFrustrated: frustrated, lara.MoodRecovered: recovered,
		lara.MoodStable: stable, lara.MoodAnxious: anxious,
	}
}

// emotional is an emotional record as the lara rules write it, with the
// given recent history and cumulative counts.
func emotional(recent ...map[string]any) extract.Record {
	list := make([]any, len(recent))
	for i, e := range recent {
		list[i] = e
	}
	return extract.Record{Type: lara.LaraEmotional, Key: lara.LaraCounts, Data: map[string]any{
		"user_id":              user,
		"last_session_id":      session,
		"updated_at":           ts(now.Add(-2 * day)),
		"frustration_count":    9,
		"recovery_count":       7,
		"stable_count":         12,
		"anxious_count":        3,
		"sessions":             11,
		"last_30_day_average":  1.1,
		"last_30_day_averages": map[string]any{"frustrated": 0.8, "recovered": 0.7, "stable": 1.2, "anxious": 0.3},
		"last_30_day_sessions": len(recent),
		"recent":               list,
	}}
}

func preference(key string, firstSeen, lastSeen any) extract.Record {
	d := map[string]any{"user_id": user, "last_session_id": session, "updated_at": ts(now.Add(-300 * day)), "value": "dinosaurs", "polarity": "likes"}
	if firstSeen != nil {
		d["first_seen"] = firstSeen
	}
	if lastSeen != nil {
		d["last_seen"] = lastSeen
	}
	return extract.Record{Type: lara.LaraPreference, Key: key, Data: d}
}

// deepCopy copies a record through JSON, the way the store hands it back.
func deepCopy(t testing.TB, r extract.Record) extract.Record {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var out extract.Record
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// requireGuardPasses checks that rec, written by a batch at at, passes
// lara.LaraGuard's user, timestamp, shape and label checks. The guard
// also wants the write's session in last_session_id; a batch has none, so
// the check stamps a fresh one on a copy.
func requireGuardPasses(t testing.TB, rec extract.Record, at time.Time) {
	t.Helper()
	if got := rec.Data["user_id"]; got != user {
		t.Fatalf("user_id = %v, want %q", got, user)
	}
	if got := rec.Data["last_session_id"]; got != session {
		t.Fatalf("last_session_id = %v, want it kept as %q", got, session)
	}
	c := rec
	c.Data = maps.Clone(rec.Data)
	c.Data["last_session_id"] = "decay-check"
	ok, dropped := lara.LaraGuard(user, "decay-check", nil, []extract.Record{c}, at)
	if len(ok) != 1 || len(dropped) != 0 {
		t.Fatalf("LaraGuard refused the decayed record: %v\n%s", dropped, jsonOf(t, rec))
	}
}

// collectStrings collects every string in v, map keys included.
func collectStrings(v any, into map[string]bool) {
	switch x := v.(type) {
	case string:
		into[x] = true
	case map[string]any:
		for k, e := range x {
			into[k] = true
			collectStrings(e, into)
		}
	case []any:
		for _, e := range x {
			collectStrings(e, into)
		}
	}
}

// requireNoNewStrings checks that out holds no string that in did not,
// except the documented field names and the timestamp of at: decay never
// writes words, so it cannot write a label.
func requireNoNewStrings(t testing.TB, in, out extract.Record, at time.Time, fields ...string) {
	t.Helper()
	had := map[string]bool{}
	collectStrings(in.Data, had)
	got := map[string]bool{}
	collectStrings(out.Data, got)
	allowed := append(slices.Clone(fields), ts(at))
	for s := range got {
		if !had[s] && !slices.Contains(allowed, s) {
			t.Errorf("decay introduced the string %q", s)
		}
	}
}

// rule is the lara kind's decay rule run by batch: the record-level tests
// of this package judge LaRa's records through it, as the batches do.
func rule(batch string) decay.Rule {
	for _, r := range lara.DecayRules() {
		if r.Batch == batch {
			return r
		}
	}
	panic("lara has no rule for " + batch)
}

// emotionalDecay is the weekly normalisation of an emotional record.
func emotionalDecay(rec extract.Record, now time.Time, p decay.Policy) (extract.Record, bool) {
	next, _, changed := rule(decay.BatchEmotional).Apply(rec, now, p)
	return next, changed
}

// masteryDecay is the slow decay of a learning record's mastery.
func masteryDecay(rec extract.Record, now time.Time, p decay.Policy) (extract.Record, bool) {
	next, _, changed := rule(decay.BatchMastery).Apply(rec, now, p)
	return next, changed
}

// preferenceRemoved reports whether an unused preference record goes.
func preferenceRemoved(rec extract.Record, now time.Time, p decay.Policy) bool {
	_, remove, _ := rule(decay.BatchPreference).Apply(rec, now, p)
	return remove
}

// number is a record field's number, whether a Go int (a record built in a
// test) or a JSON number (one a decay wrote); NaN for anything else.
func number(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// whole is a record field's whole number: ok is false for anything but a
// whole number (number).
func whole(v any) (int, bool) {
	f := number(v)
	return int(f), f == math.Trunc(f)
}
