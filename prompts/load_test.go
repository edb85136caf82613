package prompts_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/prompts"
)

func TestBuiltinPresets(t *testing.T) {
	t.Parallel()

	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mona", "eldertree"} {
		app := apps[name]
		if app == nil {
			t.Fatalf("builtin %s missing; have %v", name, prompts.Names(apps))
		}
		if app.Name != name || !strings.HasPrefix(app.PromptVersion, name+"-") {
			t.Errorf("%s: name %q, prompt version %q", name, app.Name, app.PromptVersion)
		}
	}

	mona, eldertree := apps["mona"].Policy, apps["eldertree"].Policy
	checks := []struct {
		name      string
		got, want any
	}{
		{"mona llm", mona.LLM, true},
		{"mona transcript retention", mona.TranscriptRetention, prompts.Duration(0)},
		{"mona fallback retention", mona.FallbackRetention, prompts.Duration(720 * time.Hour)},
		{"mona feeling ttl", mona.MemoryTTL["feeling"], prompts.Duration(6 * time.Hour)},
		{"mona event ttl", mona.MemoryTTL["event"], prompts.Duration(168 * time.Hour)},
		{"mona other ttl", mona.MemoryTTL["other"], prompts.Duration(24 * time.Hour)},
		{"mona ttl categories", len(mona.MemoryTTL), 3},
		{"mona min confidence", mona.MinConfidence, 0.5},
		{"mona context budget", mona.ContextBudgetTokens, 400},
		{"mona rolling summary", mona.RollingSummaryEvery, 20},
		{"mona max input", mona.MaxInputTokens, 6000},
		{"mona temperature (the worker's)", mona.Temperature, 0.0},
		{"clara temperature (low, for its summary)", apps["clara"].Policy.Temperature, 0.2},
		{"eldertree llm", eldertree.LLM, true},
		{"eldertree fallback retention", eldertree.FallbackRetention, prompts.Duration(720 * time.Hour)},
		{"eldertree ttl categories", len(eldertree.MemoryTTL), 0},
		{"eldertree context budget", eldertree.ContextBudgetTokens, 600},
		{"eldertree max input", eldertree.MaxInputTokens, 6000},
		{"eldertree significant fields", strings.Join(eldertree.SignificantFields, ","),
			"sobriety_days,recovery_start_date,in_fellowship,has_sponsor,sponsor_name"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}

	// The strict flag decides whether the endpoint enforces the schema while
	// generating: mona's schema qualifies, eldertree's optional profile
	// fields do not.
	for name, want := range map[string]bool{"mona": true, "eldertree": false} {
		schema, strict, err := apps[name].ResponseSchema()
		if err != nil {
			t.Fatal(err)
		}
		if strict != want {
			t.Errorf("%s strict = %t, want %t", name, strict, want)
		}
		for _, dropped := range []string{`"maxLength"`, `"$schema"`} {
			if strings.Contains(string(schema), dropped) {
				t.Errorf("%s wire schema keeps %s", name, dropped)
			}
		}
	}
}

func TestBuiltinReturnsIndependentApps(t *testing.T) {
	t.Parallel()

	a, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	a["mona"].Policy.MaxInputTokens = 1
	b, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if b["mona"].Policy.MaxInputTokens != 6000 {
		t.Fatal("a change to one Builtin result leaked into the next")
	}
}

// The example answer of Elder Tree's design (docs/presets.md, Elder Tree:
// extraction) is what its prompt asked for; the schema must take it.
func TestEldertreeSchemaAcceptsSeedExample(t *testing.T) {
	t.Parallel()

	app := builtin(t, "eldertree")
	seed := `{
	  "profile_updates": {"current_step": 3, "has_sponsor": true},
	  "session_summary": {
	    "urge_intensity": 7,
	    "primary_trigger": "loneliness after argument",
	    "resistance_strategy_used": "called sponsor, walked outside",
	    "outcome": "urge_passed",
	    "key_insights": ["Conflict avoidance feeds isolation"],
	    "emotional_state_start": "anxious, shame spiral",
	    "emotional_state_end": "calmer, hopeful",
	    "follow_up_needed": "Explore conflict avoidance in Step 4"
	  }
	}`
	if err := app.Validate(decode(t, seed)); err != nil {
		t.Fatal(err)
	}
	if n, ok := app.ArrayLimit("session_summary", "key_insights"); !ok || n != 3 {
		t.Fatalf("key_insights limit = %d, %t; want 3", n, ok)
	}
}

// An event memory carries the day it happens as YYYY-MM-DD, or null; the
// schema turns away any other shape, which sends the answer to repair.
func TestMonaSchemaEventDate(t *testing.T) {
	t.Parallel()

	mona := builtin(t, "mona")
	answer := func(date, wording string) any {
		return decode(t, `{"memories": [{"key": "event:sisters-wedding", "value": "sister's wedding", "category": "event",
		  "importance": 60, "confidence": 0.9, "source_message_id": "m1", "event_date": `+date+`, "wording": `+wording+`}],
		  "session_summary": {"summary": "ok", "topics": []}}`)
	}
	for _, ok := range [][2]string{{`"2026-11-27"`, `"next Friday"`}, {`null`, `null`}, {`"2028-02-29"`, `null`}} {
		if err := mona.Validate(answer(ok[0], ok[1])); err != nil {
			t.Errorf("event_date %s, wording %s: %v", ok[0], ok[1], err)
		}
	}
	for _, bad := range []string{`"next Friday"`, `"2026-11-27T00:00:00Z"`, `"27.11.2026"`, `"2026-13-01"`, `"2026-11-32"`, `"26-11-27"`, `20261127`} {
		err := mona.Validate(answer(bad, `null`))
		if err == nil || !strings.Contains(err.Error(), "/memories/0/event_date") {
			t.Errorf("event_date %s: %v, want a violation at /memories/0/event_date", bad, err)
		}
	}
	// Strict structured output needs every property required: the endpoint
	// then asks the model for the date of every memory.
	schema, strict, err := mona.ResponseSchema()
	if err != nil || !strict || !strings.Contains(string(schema), `"event_date"`) || !strings.Contains(string(schema), `"pattern"`) {
		t.Errorf("wire schema strict %t, %v: %s", strict, err, schema)
	}
	// "risks" is optional in the answer (it has a default) but required on
	// the wire, so that mona stays strict; an answer with an empty list is
	// the same as one without.
	var wire struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema, &wire); err != nil || !slices.Contains(wire.Required, "risks") {
		t.Errorf("wire schema required %v (%v), want risks in it", wire.Required, err)
	}
}

func TestValidationErrorNamesLocationNotValues(t *testing.T) {
	t.Parallel()

	mona := builtin(t, "mona")
	err := mona.Validate(decode(t, `{
	  "memories": [{"key": "password:hunter2", "value": "hunter2", "category": "secret",
	                "importance": 200, "confidence": 0.9, "source_message_id": "m1"}],
	  "session_summary": {"summary": "ok", "topics": [], "mood": "hunter2"}
	}`))
	var ve *prompts.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v, want a *ValidationError", err)
	}
	for _, want := range []string{
		"/memories/0/key: does not match pattern",
		"/memories/0/category: value must be one of 'fact', 'preference', 'event', 'feeling', 'other'",
		"/memories/0/importance: maximum: got 200, want 100",
		"/session_summary: an additional property is not allowed",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nlacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error quotes the answer: %q", err)
	}
	// The repair prompt needs the offending values.
	if !strings.Contains(ve.Detail(), "'password:hunter2' does not match pattern") || !strings.Contains(ve.Detail(), "'mood'") {
		t.Errorf("detail lacks the values: %q", ve.Detail())
	}
}

func TestLoadDirRefusesMalformedApps(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name   string
		change func(dir string)
		file   string // the file the error must name
		want   string
	}{
		{"missing policy", remove("policy.json"), "policy.json", "file is missing"},
		{"missing schema", remove("schema.json"), "schema.json", "file is missing"},
		{"missing user template", remove("user.tmpl"), "user.tmpl", "file is missing"},
		{"policy not JSON", write("policy.json", `{"name": "mona",`), "policy.json", "invalid JSON"},
		{"unknown policy field", editPolicy(`"llm": true`, `"llm": true, "memory_tll": {}`), "policy.json", `unknown field "memory_tll"`},
		{"policy data after object", write("policy.json", `{"name":"mona","prompt_version":"v1","llm":false} {}`), "policy.json", "data after"},
		{"bad duration", editPolicy(`"6h"`, `"6 hours"`), "policy.json", `duration "6 hours"`},
		{"unknown ttl category", editPolicy(`"feeling": "6h"`, `"feelings": "6h"`), "policy.json", `unknown category "feelings"`},
		{"confidence out of range", editPolicy(`"min_confidence": 0.5`, `"min_confidence": 5`), "policy.json", "outside [0, 1]"},
		{"temperature out of range", editPolicy(`"min_confidence": 0.5`, `"min_confidence": 0.5, "temperature": 7`), "policy.json", "outside [0, 2]"},
		{"negative budget", editPolicy(`"max_input_tokens": 6000`, `"max_input_tokens": -1`), "policy.json", "negative"},
		{"name differs from folder", editPolicy(`"name": "mona"`, `"name": "mina"`), "policy.json", "differs from the folder name"},
		{"missing prompt version", editPolicy(`"prompt_version": "mona-2026-11-27.1"`, `"prompt_version": ""`), "policy.json", "prompt_version"},
		{"template syntax", write("system.tmpl", "You are {{.Name"), "system.tmpl", "unclosed action"},
		{"template unknown field", write("system.tmpl", "You are {{.Nmae}}"), "system.tmpl", "can't evaluate field Nmae"},
		{"template unknown function", write("user.tmpl", "{{transcript .Messages | shout}}"), "user.tmpl", `function "shout" not defined`},
		{"transcript left out", write("user.tmpl", "Extract from {{json .Session}}"), "user.tmpl", "does not render the transcript"},
		{"schema not JSON", write("schema.json", `{"type": "object",`), "schema.json", "invalid JSON"},
		{"schema invalid", write("schema.json", `{"type": "object", "properties": {"a": {"type": "strin"}}}`), "schema.json", "invalid schema"},
		{"schema root not object", write("schema.json", `{"type": "array"}`), "schema.json", `"type": "object"`},
		{"schema external ref", write("schema.json", `{"type": "object", "properties": {"a": {"$ref": "other.json"}}}`), "schema.json", "references to other documents are not allowed"},
		{"schema bad pattern", write("schema.json", `{"type": "object", "properties": {"a": {"type": "string", "pattern": "(["}}}`), "schema.json", "invalid schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()

			root := t.TempDir()
			dir := copyBuiltin(t, root, "mona")
			tt.change(dir)

			apps, err := prompts.LoadDir(root)
			if err == nil {
				t.Fatalf("loaded %v, want an error", prompts.Names(apps))
			}
			var le *prompts.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("got %T %v, want a *LoadError", err, err)
			}
			for _, want := range []string{dir, tt.file, tt.want} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q\nlacks %q", err, want)
				}
			}
		})
	}
}

func TestLoadDirReportsEveryBrokenFolder(t *testing.T) {
	t.Parallel()

	root := t.TempDir()
	a := copyBuiltin(t, root, "mona")
	b := copyBuiltin(t, root, "eldertree")
	remove("schema.json")(a)
	write("user.tmpl", "{{")(b)
	_, err := prompts.LoadDir(root)
	if err == nil || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) {
		t.Fatalf("error %v should name both %s and %s", err, a, b)
	}
}

func TestLoadOverlaysOperatorApps(t *testing.T) {
	t.Parallel()

	root := t.TempDir()
	mona := copyBuiltin(t, root, "mona")
	editPolicy(`"mona-2026-11-27.1"`, `"mona-operator.7"`)(mona)

	// An app without the LLM needs nothing but its policy.
	lara := filepath.Join(root, "lara")
	mustMkdir(t, lara)
	write("policy.json", `{"name": "lara", "prompt_version": "lara-1", "llm": false, "transcript_retention": "0s",
	  "memory_ttl": {}, "min_confidence": 0.7}`)(lara)
	// Files and hidden folders beside the apps are not apps.
	write("README.md", "apps")(root)
	mustMkdir(t, filepath.Join(root, ".git"))

	apps, err := prompts.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := prompts.Names(apps); !slices.Equal(got, []string{"clara", "coach", "eldertree", "lara", "mona"}) {
		t.Fatalf("apps %v", got)
	}
	if v := apps["mona"].PromptVersion; v != "mona-operator.7" {
		t.Errorf("mona prompt version %q: the operator's folder should win", v)
	}
	if _, err := apps["lara"].RenderUser(prompts.UserData{}); err == nil {
		t.Error("lara has no prompts, yet RenderUser succeeded")
	}

	if _, err := prompts.Load(filepath.Join(root, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing apps dir: got %v", err)
	}
}

func TestCompileAppBuiltInCode(t *testing.T) {
	t.Parallel()

	mona := builtin(t, "mona")
	app := &prompts.App{Name: "custom", PromptVersion: "custom-1", Policy: mona.Policy,
		System: mona.System, User: mona.User, Schema: mona.Schema}
	if _, err := app.RenderSystem(); err == nil {
		t.Fatal("an uncompiled app rendered")
	}
	if err := app.Compile(); err != nil {
		t.Fatal(err)
	}
	if _, err := app.RenderSystem(); err != nil {
		t.Fatal(err)
	}
	bad := *app
	bad.Name = "Has Spaces"
	if err := bad.Compile(); err == nil || !strings.Contains(err.Error(), "policy.json") {
		t.Fatalf("bad name: %v", err)
	}
}

func builtin(t *testing.T, name string) *prompts.App {
	t.Helper()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return apps[name]
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// copyBuiltin writes the files of a built-in app to root/name.
func copyBuiltin(t *testing.T, root, name string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	mustMkdir(t, dir)
	for _, f := range []string{"policy.json", "system.tmpl", "user.tmpl", "schema.json"} {
		b, err := os.ReadFile(filepath.Join(name, f)) // tests run in the package folder
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

func remove(file string) func(dir string) {
	return func(dir string) {
		if err := os.Remove(filepath.Join(dir, file)); err != nil {
			panic(err)
		}
	}
}

func write(file, content string) func(dir string) {
	return func(dir string) {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(content), 0o600); err != nil {
			panic(err)
		}
	}
}

func editPolicy(old, new string) func(dir string) {
	return func(dir string) {
		p := filepath.Join(dir, "policy.json")
		b, err := os.ReadFile(p)
		if err != nil {
			panic(err)
		}
		if !strings.Contains(string(b), old) {
			panic("policy.json lacks " + old)
		}
		write("policy.json", strings.Replace(string(b), old, new, 1))(dir)
	}
}

// TestRuleSetIsRulesOrName: an app runs the rules its policy names, or
// else those of its own name; its built-in events follow, and a name that
// is no rule set gets the default's.
func TestRuleSetIsRulesOrName(t *testing.T) {
	named := &prompts.App{Name: "recovery", Policy: prompts.Policy{Rules: "eldertree"}}
	bare := &prompts.App{Name: "clara"}
	other := &prompts.App{Name: "my-companion"}
	if named.RuleSet() != "eldertree" || bare.RuleSet() != "clara" || other.RuleSet() != "my-companion" {
		t.Fatalf("rule sets %q, %q, %q", named.RuleSet(), bare.RuleSet(), other.RuleSet())
	}
	if named.EventSchema() != prompts.BuiltinEventSchema("eldertree") || bare.EventSchema() != prompts.BuiltinEventSchema("clara") ||
		other.EventSchema() != prompts.BuiltinEventSchema(prompts.DefaultRuleSet()) {
		t.Fatal("an app's built-in events are not those of its rule set")
	}
}
