package prompts_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/prompts"
)

// TestDocsShowEventKinds: docs/apps.md's events table is the one the
// presets' events.schema.json files give.
func TestDocsShowEventKinds(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../docs/apps.md")
	if err != nil {
		t.Fatal(err)
	}
	want := prompts.EventsTable(apps)
	if !strings.Contains(string(doc), want) {
		t.Fatalf("docs/apps.md does not hold the events table of the presets; put this in its events section:\n%s", want)
	}
}

// TestEventSchemas: every preset declares its kinds, and an operator's
// folder without events.schema.json gets its rules kind's.
func TestEventSchemas(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for name, kinds := range map[string]string{"eldertree": "emotion escalation urge zone", "clara": "emotion escalation narrative question",
		"lara": "attempt emotion mood reinforcement", "mona": "emotion", "coach": "emotion"} {
		if got := strings.Join(apps[name].EventSchema().Types(), " "); got != kinds {
			t.Errorf("%s kinds %q; want %q", name, got, kinds)
		}
	}
	op := &prompts.App{Name: "recovery2", Policy: prompts.Policy{Rules: "eldertree"}}
	if got := strings.Join(op.EventSchema().Types(), " "); got != "emotion escalation urge zone" {
		t.Errorf("an operator app with eldertree rules and no file: %q", got)
	}
	if _, err := prompts.CompileEventSchema("x", []byte(`{"type":"object","properties":{"Bad Kind":{"type":"object"}}}`)); err == nil {
		t.Error("a kind name that is not lower-case was accepted")
	}
	own, err := prompts.CompileEventSchema("x", []byte(`{"type":"object","properties":{"checkin":{"type":"object","additionalProperties":false,"properties":{"score":{"type":"integer","minimum":1,"maximum":5}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := own.Validate("checkin", map[string]any{"score": 3.0}); err != nil {
		t.Errorf("valid own event refused: %v", err)
	}
	if err := own.Validate("checkin", map[string]any{"score": 9.0}); err == nil {
		t.Error("an out-of-range own event accepted")
	}
}
