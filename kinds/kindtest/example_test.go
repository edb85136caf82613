package kindtest_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/grammar"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/prompts"
)

// goals is a minimal app kind: its rules keep each goal a user states as
// "Goal: …" as a memory, and its summary counts them. A real kind is a
// package kinds/<name>/ with this in it, and one blank import line in
// kinds/all; the engine asks the registry for it by the name an app's
// policy gives.
type goals struct{ extract.BaseKind } // BaseKind: no pack, no batch, no fold

func (goals) Name() string { return "example-goals" }

func (goals) Rules(res *extract.Result, _ prompts.Policy, s extract.Session, _ time.Time) {
	for _, m := range s.Messages {
		if !extract.IsUser(m.Role) {
			continue
		}
		goal, ok := strings.CutPrefix(strings.TrimSpace(m.Content), "Goal:")
		if !ok {
			continue
		}
		if v := grammar.Tidy(goal); v != "" {
			res.Memories = append(res.Memories, extract.Memory{Key: "goal:" + extract.Slug(v, true), Value: v,
				Category: extract.CategoryFact, Importance: 60, Confidence: 1, SourceMessageID: m.ID})
		}
	}
	res.SessionSummary["summary"] = extract.Count(len(res.Memories), "goal", "goals")
}

// A kind registers itself from its package's init function.
func init() { extract.Register(goals{}) }

// Adding an app kind: a kind registered with extract.Register, an app whose
// policy.json names it in "rules", and a session extracted by extract.Rules,
// the deterministic path every extraction completes with. A kind that runs
// a batch over its users' data also declares it (batch.Declarer, as this
// package's kind declares kindtest-tally in tally.go): the worker lists and
// schedules it beside the built-in ones, ready-made batches first, then the
// kinds' own by name, then the engine's.
func Example() {
	app := &prompts.App{Name: "running-club"}
	if err := json.Unmarshal([]byte(`{"rules": "example-goals", "llm": false}`), &app.Policy); err != nil {
		fmt.Println(err)
		return
	}

	at := time.Date(2026, 11, 20, 18, 0, 0, 0, time.UTC)
	session := extract.Session{ID: "s-1", UserID: "u-1", App: app.Name, StartedAt: at, EndedAt: at.Add(10 * time.Minute),
		Messages: []extract.Message{
			{ID: "m1", Role: "user", Content: "Goal: run a 10k before spring", At: at},
			{ID: "m2", Role: "assistant", Content: "Goal: this line is the assistant's, not the user's.", At: at.Add(time.Minute)},
			{ID: "m3", Role: "user", Content: "Goal: stretch after every run", At: at.Add(2 * time.Minute)},
			{ID: "m4", Role: "user", Content: "That's all for today.", At: at.Add(3 * time.Minute)},
		}}

	res := extract.Rules(app, session, at.Add(time.Hour))
	fmt.Println("kind:", extract.KindOfApp(app).Name())
	for _, m := range res.Memories {
		fmt.Printf("%s = %q (from %s)\n", m.Key, m.Value, m.SourceMessageID)
	}
	fmt.Println("summary:", res.SessionSummary["summary"])
	fmt.Println("batches:", strings.Join(jobs.BatchNames(), " "))

	// Output:
	// kind: example-goals
	// goal:run_10k_before_spring = "run a 10k before spring" (from m1)
	// goal:stretch_after_every_run = "stretch after every run" (from m3)
	// summary: 2 goals
	// batches: weekly-analytics trends insights emotional-decay preference-decay mastery-decay kindtest-tally memory-ttl buffer-cleanup session-expiry retention
}
