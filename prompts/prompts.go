// Package prompts holds every app preset: for each app a directory with its
// policy, its versioned prompt templates and its JSON Schemas. The built-in
// presets are embedded; an operator adds apps from a directory at start.
//
// An app folder holds four files:
//
//	policy.json  the Policy, plus "name" (the folder name) and "prompt_version"
//	system.tmpl  the system prompt (text/template; receives the *App)
//	user.tmpl    the user prompt (text/template; receives a UserData)
//	schema.json  the JSON Schema (draft 2020-12) of the answer, an object
//
// The last three may be left out when the policy says "llm": false. Adding a
// built-in preset is a matter of adding a folder; an operator's folder of the
// same name replaces the built-in one (see Load).
//
// The user template must render the session through the template functions
// transcript, events and json, which encode every value as JSON with <, > and
// & escaped, so that nothing said in a session can close the data delimiters
// the template puts around it. Loading refuses a template that renders
// session text any other way.
package prompts

import (
	"encoding/json"
	"fmt"
	"text/template"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Duration is a time.Duration that reads and writes as a Go duration string ("6h", "168h").
type Duration time.Duration

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string such as \"6h\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: %w", s, err)
	}
	if v < 0 {
		return fmt.Errorf("duration %q is negative", s)
	}
	*d = Duration(v)
	return nil
}

// Policy is what an app decides about storage, retention and extraction.
type Policy struct {
	// LLM is false for apps where the LLM must never decide what is stored.
	LLM bool `json:"llm"`
	// Rules names the deterministic extractor, the app's kind: one of
	// RuleSets (the kinds registered in the binary; DefaultRuleSet, the
	// general companion's key/value memories, when unset or unknown).
	// Operator apps pick one.
	Rules string `json:"rules,omitempty"`
	// TranscriptRetention is how long a processed transcript is kept; 0 deletes it
	// once processing succeeded. A transcript whose extraction fell back is kept
	// for FallbackRetention so that it can be re-run.
	TranscriptRetention Duration `json:"transcript_retention"`
	FallbackRetention   Duration `json:"fallback_retention"`
	// MemoryTTL is the lifetime of a memory by category; a missing category never expires.
	MemoryTTL map[string]Duration `json:"memory_ttl"`
	// MinConfidence is the confidence below which a candidate memory is not stored.
	MinConfidence float64 `json:"min_confidence"`
	// ContextBudgetTokens is the default budget of the context pack.
	ContextBudgetTokens int `json:"context_budget_tokens"`
	// SignificantFields are profile fields whose change becomes a cue for the next session.
	SignificantFields []string `json:"significant_fields,omitempty"`
	// RollingSummaryEvery is M: a rolling summary is made every M buffered turns (0: never).
	RollingSummaryEvery int `json:"rolling_summary_every"`
	// MaxInputTokens is the transcript budget of one LLM call; longer transcripts are chunked.
	MaxInputTokens int `json:"max_input_tokens"`
	// Temperature is the sampling temperature of this app's LLM calls, in
	// (0, 2]; 0 or absent leaves the worker's MNEMO_LLM_TEMPERATURE.
	Temperature float64 `json:"temperature,omitempty"`
	// SpecialCategories is what becomes of special categories of personal
	// data (health, sex life or orientation, religion, politics, ethnicity,
	// union membership, biometrics): "drop" stores nothing of them, "keep"
	// stores them like any other data (an app whose purpose they are),
	// "keep_sealed" keeps them only in the session's sealed (encrypted)
	// transcript, never in memories, profiles, summaries or packs. Unset,
	// the kind decides (extract.SpecialPolicy, from the kind's SpecialDefault).
	SpecialCategories string `json:"special_categories,omitempty"`
	// RiskWebhook is an http(s) URL that receives every medium or high risk
	// cue of the app's users (no text, only class, severity and IDs); empty
	// posts nothing.
	RiskWebhook string `json:"risk_webhook,omitempty"`
	// SealDerived seals what the app's sessions leave beside the transcript
	// (session summaries, the profile and its history, the display name)
	// with the transcripts' keyring; they are opened only in the worker and
	// on reads. Memories' keys and values, event types, records and the
	// numbers batches aggregate stay plaintext (see docs/api.md, "Sealed derived data").
	SealDerived bool `json:"seal_derived,omitempty"`
	// Notes keeps a disclosure the rules cannot give a key (a first-person
	// present statement about the user, not a question, not hedged) as a
	// short note memory (note:<slug>) in the user's own terms, in the third
	// person; the context pack ranks notes below every keyed memory
	// (docs/evaluation.md, "Notes").
	Notes bool `json:"notes,omitempty"`
	// CorrectSpelling has the rules read the user's messages with their
	// misspelt words corrected against an English word list (names, chat
	// words and what the user's memory holds stay as written): for apps
	// whose users are children ("i dont like speling" is read as "i don't
	// like spelling"). The kinds that read it call
	// extract.Session.SpellingCorrected; the risk screen reads the words as
	// written.
	CorrectSpelling bool `json:"correct_spelling,omitempty"`
}

// Special-category policies.
const (
	SpecialDrop       = "drop"
	SpecialKeep       = "keep"
	SpecialKeepSealed = "keep_sealed"
)

// App is one loaded preset.
type App struct {
	Name          string
	PromptVersion string
	Policy        Policy
	// System and User are the extraction prompt templates (text/template).
	System string
	User   string
	// Schema is the JSON Schema the LLM answer must satisfy.
	Schema json.RawMessage
	// Events declares the session events the app accepts (its folder's
	// events.schema.json); nil means the built-in declaration of its app
	// kind (see EventSchema).
	Events *EventSchema

	// The fields below are filled by Compile (Builtin, LoadDir and Load call
	// it). They are shared, never mutated, by copies of the App.
	compiled   bool
	schema     *jsonschema.Schema // Schema, compiled
	profile    *jsonschema.Schema // Schema's profile_updates, compiled; nil when it declares none
	wireSchema json.RawMessage    // Schema as sent to the endpoint (see ResponseSchema)
	strict     bool               // whether wireSchema qualifies for strict structured output
	system     *template.Template
	user       *template.Template
}
