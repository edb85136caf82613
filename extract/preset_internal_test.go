package extract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/golden"
	"github.com/mnemo-ai/mnemo/prompts"
)

// presetRulesNow is the time the preset tests extract at (the rules tests' rulesNow).
var presetRulesNow = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)

// runPresetRules runs one preset's rules on s the way Rules prepares the result.
func runPresetRules(fn func(*Result, prompts.Policy, Session, time.Time), app string, s Session) Result {
	res := Result{
		App:            app,
		Source:         SourceRules,
		PromptVersion:  RulesVersion,
		Memories:       []Memory{},
		ProfileUpdates: map[string]any{},
		SessionSummary: map[string]any{},
		Dropped:        []Dropped{},
	}
	fn(&res, prompts.Policy{}, s, presetRulesNow)
	return res
}

// presetRulesGolden compares a preset's result on testdata/rules/<app>.input.json
// with <app>.golden.json, printed as the extract command prints it.
func presetRulesGolden(t *testing.T, app string, fn func(*Result, prompts.Policy, Session, time.Time)) {
	t.Helper()
	in := filepath.Join("testdata", "rules", app+".input.json")
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var s Session
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.App != app {
		t.Fatalf("%s is a session of %q", in, s.App)
	}
	got, err := json.MarshalIndent(runPresetRules(fn, app, s), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	goldenFile := filepath.Join("testdata", "rules", app+".golden.json")
	if *golden.Update {
		if err := os.WriteFile(goldenFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from %s (run go test ./extract -run Golden -args -update and review the diff):\n%s", in, goldenFile, got)
	}
}
