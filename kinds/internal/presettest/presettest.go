// Package presettest holds what the kinds' tests share: running one kind's
// rules on a session the way extract.Rules prepares the result, and the
// golden file of that result (testdata/rules/<kind>.golden.json).
package presettest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// Now is the time the kinds' rules tests extract at.
var Now = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)

// RulesFunc is a kind's deterministic extractor (extract.Kind's Rules).
type RulesFunc func(*extract.Result, prompts.Policy, extract.Session, time.Time)

// Run runs fn on s at Now under an empty policy, on a result prepared as
// extract.Rules prepares it.
func Run(fn RulesFunc, app string, s extract.Session) extract.Result {
	res := extract.Result{
		App:            app,
		Source:         extract.SourceRules,
		PromptVersion:  extract.RulesVersion,
		Memories:       []extract.Memory{},
		ProfileUpdates: map[string]any{},
		SessionSummary: map[string]any{},
		Dropped:        []extract.Dropped{},
	}
	fn(&res, prompts.Policy{}, s, Now)
	return res
}

// Golden compares fn's result on testdata/rules/<app>.input.json with
// <app>.golden.json, printed as the extract command prints it; update
// rewrites the golden file first.
func Golden(t *testing.T, app string, fn RulesFunc, update bool) {
	t.Helper()
	in := filepath.Join("testdata", "rules", app+".input.json")
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var s extract.Session
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.App != app {
		t.Fatalf("%s is a session of %q", in, s.App)
	}
	got, err := json.MarshalIndent(Run(fn, app, s), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "rules", app+".golden.json")
	if update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from %s (run go test ./kinds/%s -run Golden -args -update and review the diff):\n%s", in, golden, app, got)
	}
}

// Policy is the policy the engine's rules golden test extracts under: the
// general companion's lifetimes and a confidence floor of 0.5.
func Policy() prompts.Policy {
	return prompts.Policy{
		MemoryTTL: map[string]prompts.Duration{
			extract.CategoryFeeling: prompts.Duration(6 * time.Hour),
			extract.CategoryEvent:   prompts.Duration(7 * 24 * time.Hour),
			extract.CategoryOther:   prompts.Duration(24 * time.Hour),
		},
		MinConfidence: 0.5,
	}
}

// ExtractGolden runs extract.Rules, as the worker does, on every
// testdata/rules/*.input.json of the calling package at Now under Policy,
// and compares each result with its .golden.json; update rewrites them
// first.
func ExtractGolden(t *testing.T, update bool) {
	t.Helper()
	inputs, err := filepath.Glob(filepath.Join("testdata", "rules", "*.input.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no inputs: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			b, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var s extract.Session
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(extract.Rules(&prompts.App{Name: s.App, Policy: Policy()}, s, Now), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(in, ".input.json") + ".golden.json"
			if update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s differs from %s (run go test -run Golden -args -update and review the diff):\n%s", in, golden, got)
			}
		})
	}
}
