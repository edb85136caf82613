package aggregate_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
	_ "time/tzdata" // the tests name zones; do not depend on the machine's zone database

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/internal/golden"
)

// local is a wall-clock time "2006-01-02 15:04" in a zone.
func local(t testing.TB, zone, wall string) time.Time {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	at, err := time.ParseInLocation("2006-01-02 15:04", wall, loc)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func ev(kind string, at time.Time, data map[string]any) aggregate.Event {
	return aggregate.Event{Type: kind, At: at, Data: data}
}

// urge is an urge event as a chat service sends it (declared in
// prompts/eldertree/events.schema.json); numbers are float64, as they come
// out of the store's JSON.
func urge(at time.Time, intensity float64, trigger, strategy, outcome string) aggregate.Event {
	d := map[string]any{"intensity": intensity}
	if trigger != "" {
		d["trigger"] = trigger
	}
	if strategy != "" {
		d["strategy"] = strategy
	}
	if outcome != "" {
		d["outcome"] = outcome
	}
	return ev("urge", at, d)
}

func emotion(at time.Time, distress float64) aggregate.Event {
	return ev("emotion", at, map[string]any{"emotion": "anxious", "confidence": 0.8, "distress_score": distress, "trajectory": "stable"})
}

func question(at time.Time, qtype string, repeat float64) aggregate.Event {
	return ev("question", at, map[string]any{"fingerprint": "am where", "question_type": qtype, "repeat_count": repeat})
}

func narrative(at time.Time, category string) aggregate.Event {
	return ev("narrative", at, map[string]any{"narrative_id": "n-" + category, "mode": "seed", "category": category})
}

// session is a session that started at start and lasted minutes.
func session(id string, start time.Time, minutes int, summary map[string]any, events ...aggregate.Event) aggregate.Session {
	return aggregate.Session{
		SessionID: id,
		StartedAt: start,
		EndedAt:   start.Add(time.Duration(minutes) * time.Minute),
		Summary:   summary,
		Events:    events,
	}
}

// elderSummary is a stored Elder Tree session_summary (docs/presets.md, Elder
// Tree: session summary).
func elderSummary(intensity any, trigger, strategy, outcome string) map[string]any {
	return map[string]any{
		"urge_intensity":           intensity,
		"primary_trigger":          trigger,
		"resistance_strategy_used": strategy,
		"outcome":                  outcome,
		"key_insights":             []any{"Conflict avoidance feeds isolation"},
		"emotional_state_start":    "anxious, shame spiral",
		"emotional_state_end":      "calmer, hopeful",
		"follow_up_needed":         "Explore conflict avoidance in Step 4",
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// checkGolden compares v's JSON with testdata/name, or rewrites it with -update
// (package internal/golden).
func checkGolden(t *testing.T, name string, v any) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), mustJSON(t, v))
}
