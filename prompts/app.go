package prompts

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"
	"time"
)

// UserData is what user.tmpl receives: one session, or one part of a session
// that was split to fit the input budget.
type UserData struct {
	Session  SessionMeta
	Messages []Turn
	Events   []EventNote
	// Part and Parts number this part of the session: 1 of 1 when it was not split.
	Part, Parts int
	// Earlier is the session_summary the model gave for the part before this
	// one, or nil. It is session data like the transcript.
	Earlier map[string]any
}

// SessionMeta is what a prompt may know about a session besides its turns.
// It deliberately holds no user ID.
type SessionMeta struct {
	ID          string    `json:"session_id"`
	App         string    `json:"app"`
	StartedAt   time.Time `json:"started_at,omitzero"`
	EndedAt     time.Time `json:"ended_at,omitzero"`
	Timezone    string    `json:"timezone,omitempty"`
	DisplayName string    `json:"display_name,omitempty"`
}

// Turn is one message of a transcript as a prompt renders it.
type Turn struct {
	ID      string    `json:"id"`
	Role    string    `json:"role"`
	At      time.Time `json:"at,omitzero"`
	Content string    `json:"content"`
}

// EventNote is one structured session event as a prompt renders it.
type EventNote struct {
	Type      string          `json:"kind"`
	At        time.Time       `json:"at,omitzero"`
	MessageID string          `json:"message_id,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
}

// Memory categories a policy may give a TTL (docs/presets.md#memories).
var memoryCategories = []string{"fact", "preference", "event", "feeling", "other"}

// appName is what an app may be called: it names a folder and the schema sent
// to the endpoint, which allows at most 64 of [a-zA-Z0-9_-].
var appName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// TranscriptLine renders one turn the way the transcript template function
// does: a single line of JSON in which <, > and & are escaped, so that no text
// of the turn can close a delimiter around the transcript.
func TranscriptLine(t Turn) string {
	b, err := json.Marshal(t) // json.Marshal escapes <, > and &.
	if err != nil {
		// A Turn holds only strings and a time; the only failure is a year
		// outside [0,9999], which a session never has. Render it without the time.
		t.At = time.Time{}
		b, _ = json.Marshal(t)
	}
	return string(b)
}

// funcs are the template functions as parsing knows them; a rendering
// replaces them by those of funcsFor its session.
var funcs = funcsFor(&UserData{})

// funcsFor are the template functions transcript, events and json over the
// session d, whose view (newUserView) the template receives: they print
// d's values as JSON with <, > and & escaped.
func funcsFor(d *UserData) template.FuncMap {
	turn := func(t turnView) Turn {
		if t.i < len(d.Messages) {
			return d.Messages[t.i]
		}
		return Turn{}
	}
	event := func(e eventView) EventNote {
		if e.i < len(d.Events) {
			return d.Events[e.i]
		}
		return EventNote{}
	}
	return template.FuncMap{
		"transcript": func(turns []turnView) string {
			lines := make([]string, len(turns))
			for i, t := range turns {
				lines[i] = TranscriptLine(turn(t))
			}
			return strings.Join(lines, "\n")
		},
		"events": func(events []eventView) (string, error) {
			lines := make([]string, len(events))
			for i, ev := range events {
				e := event(ev)
				b, err := json.Marshal(e)
				if err != nil {
					return "", fmt.Errorf("event %d (%s): %w", i, e.Type, err)
				}
				lines[i] = string(b)
			}
			return strings.Join(lines, "\n"), nil
		},
		// json prints a value of the data as JSON. A Text is JSON already
		// (an empty one is null); the views of the session give the JSON of
		// what they show.
		"json": func(v any) (string, error) {
			switch x := v.(type) {
			case Text:
				if x == "" {
					return "null", nil
				}
				return string(x), nil
			case sessionView:
				v = d.Session
			case turnView:
				v = turn(x)
			case eventView:
				v = event(x)
			case []turnView:
				turns := make([]Turn, len(x))
				for i, t := range x {
					turns[i] = turn(t)
				}
				v = turns
			case []eventView:
				events := make([]EventNote, len(x))
				for i, e := range x {
					events[i] = event(e)
				}
				v = events
			case *userView:
				v = d
			}
			b, err := json.Marshal(v)
			if err != nil {
				return "", err
			}
			return string(b), nil
		},
	}
}

// errNotCompiled is returned by the methods that need Compile to have run.
var errNotCompiled = errors.New("app is not compiled: call Compile (Builtin, LoadDir and Load do)")

// Compile checks the app and prepares its templates and schema. Builtin,
// LoadDir and Load return compiled apps; an App built in code must be compiled
// before RenderSystem, RenderUser, Validate or ResponseSchema are used. An
// error is a *LoadError naming the file at fault.
func (a *App) Compile() error {
	fail := func(file string, err error) error { return &LoadError{App: a.Name, File: file, Err: err} }

	if !appName.MatchString(a.Name) {
		return fail(filePolicy, fmt.Errorf("name %q must match %s", a.Name, appName))
	}
	if strings.TrimSpace(a.PromptVersion) == "" {
		return fail(filePolicy, errors.New(`"prompt_version" is missing`))
	}
	if err := a.Policy.check(); err != nil {
		return fail(filePolicy, err)
	}

	if !a.Policy.LLM && a.System == "" && a.User == "" && len(a.Schema) == 0 {
		a.compiled = true
		return nil
	}
	for _, f := range []struct {
		name  string
		empty bool
	}{{fileSystem, a.System == ""}, {fileUser, a.User == ""}, {fileSchema, len(a.Schema) == 0}} {
		if f.empty {
			return fail(f.name, errors.New("is missing or empty (required when the policy says llm: true)"))
		}
	}

	sch, wire, strict, err := compileSchema(a.Name, a.Schema)
	if err != nil {
		return fail(fileSchema, err)
	}
	profile, err := compileProfileSchema(a.Name, a.Schema)
	if err != nil {
		return fail(fileSchema, err)
	}
	system, err := parseTemplate(fileSystem, a.System)
	if err != nil {
		return fail(fileSystem, err)
	}
	if _, err := execute(system, newSystemView(a), maxSystemBytes, loadTimeLimit); err != nil {
		return fail(fileSystem, err)
	}
	user, err := parseTemplate(fileUser, a.User)
	if err != nil {
		return fail(fileUser, err)
	}
	if err := probeUser(user, a.Name); err != nil {
		return fail(fileUser, err)
	}

	a.schema, a.wireSchema, a.strict, a.profile = sch, wire, strict, profile
	a.system, a.user = system, user
	a.compiled = true
	return nil
}

// parseTemplate parses a prompt template and refuses what could make its
// rendering run away (see checkTemplate).
func parseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Funcs(funcs).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, err
	}
	if err := checkTemplate(t); err != nil {
		return nil, err
	}
	if t.Tree != nil {
		guardRanges(t.Tree.Root)
	}
	return t, nil
}

// probe marks every string of the sample session probeUser renders; the
// closing tag must never come out verbatim.
const (
	probe      = "mnemo-probe"
	probeClose = "</" + probe + ">"
)

// probeUser renders a sample session through the user template and refuses a
// template that leaves the transcript out or prints session text unescaped,
// where it could close the data delimiters.
func probeUser(t *template.Template, app string) error {
	turn := Turn{ID: "m1" + probeClose, Role: "user" + probeClose, Content: probe + " " + probeClose}
	data := UserData{
		Session: SessionMeta{
			ID: "s1" + probeClose, App: app, Timezone: "UTC" + probeClose, DisplayName: "Sam" + probeClose,
			StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), EndedAt: time.Date(2026, 1, 2, 4, 4, 5, 0, time.UTC),
		},
		Messages: []Turn{turn},
		Events: []EventNote{{
			Type: "emotion" + probeClose, MessageID: "m1" + probeClose,
			Data: json.RawMessage(`{"emotion":"` + probeClose + `"}`),
		}},
		Part: 2, Parts: 2,
		Earlier: map[string]any{"summary": probeClose},
	}
	out, err := renderUser(t, data, loadTimeLimit)
	if err != nil {
		return err
	}
	if !strings.Contains(out, TranscriptLine(turn)) {
		return errors.New("the template does not render the transcript: use {{transcript .Messages}}")
	}
	if strings.Contains(out, probeClose) {
		return errors.New("the template prints session text unescaped: render it with transcript, events or json")
	}
	return nil
}

// ruleSets are the deterministic extractors an app may name in "rules":
// the app kinds registered with the engine (extract.Register), which is
// the one registry of kinds. prompts holds their names only, so that a
// policy naming a kind no binary registered fails to load.
var ruleSets struct {
	mu    sync.RWMutex
	names []string // sorted
	def   string
}

// RegisterRuleSet records name as a rule set an app may name in "rules",
// the default one (what an app that names none it knows runs) when def. It
// is called by extract.Register and extract.RegisterDefault only; it panics
// on a name registered twice or on a second default.
func RegisterRuleSet(name string, def bool) {
	ruleSets.mu.Lock()
	defer ruleSets.mu.Unlock()
	i, found := slices.BinarySearch(ruleSets.names, name)
	if found || name == "" {
		panic(fmt.Sprintf("prompts: rule set %q registered twice or empty", name))
	}
	if def && ruleSets.def != "" {
		panic(fmt.Sprintf("prompts: default rule set %q, then %q", ruleSets.def, name))
	}
	ruleSets.names = slices.Insert(ruleSets.names, i, name)
	if def {
		ruleSets.def = name
	}
}

// RuleSets are the deterministic extractors an app may name in "rules",
// sorted: the kinds registered in this binary.
func RuleSets() []string {
	ruleSets.mu.RLock()
	defer ruleSets.mu.RUnlock()
	return slices.Clone(ruleSets.names)
}

// DefaultRuleSet is the rule set an app that names none it knows runs.
func DefaultRuleSet() string {
	ruleSets.mu.RLock()
	defer ruleSets.mu.RUnlock()
	return ruleSets.def
}

// RuleSet is the deterministic extractor a runs, which is its app kind:
// its policy's "rules", or else its own name (an app named after a kind is
// an app of that kind). A name that is not one of RuleSets means the default (DefaultRuleSet).
func (a *App) RuleSet() string {
	if a.Policy.Rules != "" {
		return a.Policy.Rules
	}
	return a.Name
}

func (p Policy) check() error {
	if p.MinConfidence < 0 || p.MinConfidence > 1 {
		return fmt.Errorf(`"min_confidence" %v is outside [0, 1]`, p.MinConfidence)
	}
	if p.Temperature < 0 || p.Temperature > 2 {
		return fmt.Errorf(`"temperature" %v is outside [0, 2]`, p.Temperature)
	}
	for _, f := range []struct {
		name string
		v    int
	}{
		{"context_budget_tokens", p.ContextBudgetTokens},
		{"rolling_summary_every", p.RollingSummaryEvery},
		{"max_input_tokens", p.MaxInputTokens},
	} {
		if f.v < 0 {
			return fmt.Errorf("%q %d is negative", f.name, f.v)
		}
	}
	for cat := range p.MemoryTTL {
		if !contains(memoryCategories, cat) {
			return fmt.Errorf(`"memory_ttl" has unknown category %q (known: %s)`, cat, strings.Join(memoryCategories, ", "))
		}
	}
	if sets := RuleSets(); p.Rules != "" && !contains(sets, p.Rules) {
		return fmt.Errorf(`"rules" %q is not one of %s`, p.Rules, strings.Join(sets, ", "))
	}
	switch p.SpecialCategories {
	case "", SpecialDrop, SpecialKeep:
	case SpecialKeepSealed:
		if p.TranscriptRetention <= 0 {
			return errors.New(`"special_categories" keep_sealed keeps them in the sealed transcript only: it needs a "transcript_retention" above 0s`)
		}
	default:
		return fmt.Errorf(`"special_categories" %q is not one of drop, keep, keep_sealed`, p.SpecialCategories)
	}
	if p.RiskWebhook != "" {
		u, err := url.Parse(p.RiskWebhook)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return fmt.Errorf(`"risk_webhook" %q is not an http(s) URL without credentials`, p.RiskWebhook)
		}
	}
	for i, f := range p.SignificantFields {
		if strings.TrimSpace(f) == "" {
			return fmt.Errorf(`"significant_fields" entry %d is empty`, i)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// RenderSystem renders the system prompt. The template receives the app's
// name, prompt version, schema and policy (see systemView); the rendering is
// bounded in size and time.
func (a *App) RenderSystem() (string, error) {
	if !a.compiled || a.system == nil {
		return "", a.notReady()
	}
	out, err := execute(a.system, newSystemView(a), maxSystemBytes, renderTimeLimit)
	if err != nil {
		return "", fmt.Errorf("render %s %s: %w", a.Name, fileSystem, err)
	}
	return out, nil
}

// RenderUser renders the user prompt for data, a UserData or *UserData. The
// template receives it with every string of the session escaped (see Text);
// the rendering is bounded in size and time.
func (a *App) RenderUser(data any) (string, error) {
	if !a.compiled || a.user == nil {
		return "", a.notReady()
	}
	var d UserData
	switch x := data.(type) {
	case UserData:
		d = x
	case *UserData:
		d = *x
	default:
		return "", fmt.Errorf("render %s %s: want a prompts.UserData, not %T", a.Name, fileUser, data)
	}
	out, err := renderUser(a.user, d, renderTimeLimit)
	if err != nil {
		return "", fmt.Errorf("render %s %s: %w", a.Name, fileUser, err)
	}
	return out, nil
}

// Validate checks a decoded JSON value (maps, slices, strings, float64 or
// json.Number, bools, nil) against the app's schema. A mismatch is a
// *ValidationError.
func (a *App) Validate(v any) error {
	if !a.compiled || a.schema == nil {
		return a.notReady()
	}
	return validate(a.Name, a.schema, v)
}

// ValidateProfile checks a profile document (a user's, or an edit's
// merged result) against the profile fields the app declares: its schema's
// profile_updates, with their types and ranges (a step of a twelve-step
// programme is 1 to 12). An app that declares none accepts any document. A mismatch is a
// *ValidationError.
func (a *App) ValidateProfile(doc map[string]any) error {
	if a == nil || a.profile == nil {
		return nil
	}
	return validate(a.Name, a.profile, doc)
}

// ResponseSchema is the schema to send as the endpoint's structured-output
// format, and whether it qualifies for strict mode. It is Schema without the
// annotations and length limits strict mode refuses (Validate still enforces
// them); strict is false when an object leaves a property optional or allows
// additional ones, or a keyword strict mode cannot express is used.
func (a *App) ResponseSchema() (schema json.RawMessage, strict bool, err error) {
	if !a.compiled || a.wireSchema == nil {
		return nil, false, a.notReady()
	}
	return a.wireSchema, a.strict, nil
}

// ArrayLimit returns the maxItems the schema sets on the array reached from
// the root through the named properties, e.g. ArrayLimit("session_summary",
// "key_insights").
func (a *App) ArrayLimit(path ...string) (int, bool) {
	var node any
	if err := json.Unmarshal(a.Schema, &node); err != nil {
		return 0, false
	}
	for _, p := range path {
		m, _ := node.(map[string]any)
		props, _ := m["properties"].(map[string]any)
		if node = props[p]; node == nil {
			return 0, false
		}
	}
	m, _ := node.(map[string]any)
	n, ok := m["maxItems"].(float64)
	if !ok || n < 0 || n != float64(int(n)) {
		return 0, false
	}
	return int(n), true
}

func (a *App) notReady() error {
	if a.compiled {
		return fmt.Errorf("app %s has no LLM prompts (policy llm is %t)", a.Name, a.Policy.LLM)
	}
	return fmt.Errorf("app %s: %w", a.Name, errNotCompiled)
}
