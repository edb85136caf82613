package prompts

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// FileEvents is the file of an app folder declaring the session events the
// app accepts: a JSON Schema (draft 2020-12) of an object whose properties
// are the event types, each property's schema being the schema of that
// kind's data. A folder without one accepts the built-in kinds of its app
// kind (its policy's "rules", or its name).
const FileEvents = "events.schema.json"

// builtinEvents holds the presets' event declarations.
//
//go:embed */events.schema.json
var builtinEvents embed.FS

// EventSchema is an app's declaration of its session events, compiled.
type EventSchema struct {
	// Raw is the schema file as written.
	Raw   json.RawMessage
	kinds map[string]*jsonschema.Schema
	doc   map[string]any
}

// EventError is an event that does not match its app's declaration. Path is
// where inside the event's data (empty for the kind itself), one name or
// index per element; Reason never quotes a string of the event.
type EventError struct {
	UnknownType bool
	Path        []string
	Reason      string
}

func (e *EventError) Error() string { return strings.Join(e.Path, ".") + ": " + e.Reason }

// CompileEventSchema compiles an events.schema.json: a schema of "type":
// "object" whose "properties" name each kind, every kind's schema compiled
// on its own. app names it in errors.
func CompileEventSchema(app string, raw []byte) (*EventSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	root, ok := doc.(map[string]any)
	if !ok || root["type"] != "object" {
		return nil, errors.New(`the root must be a schema with "type": "object" whose properties are the event kinds`)
	}
	props, ok := root["properties"].(map[string]any)
	if !ok || len(props) == 0 {
		return nil, errors.New(`"properties" must name at least one event kind`)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	url := "https://mnemo.invalid/apps/" + app + "/" + FileEvents
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("invalid schema: %w", err)
	}
	if _, err := c.Compile(url); err != nil {
		return nil, fmt.Errorf("invalid schema: %w", err)
	}
	s := &EventSchema{Raw: json.RawMessage(raw), kinds: map[string]*jsonschema.Schema{}, doc: root}
	for k, v := range props {
		if !eventKind(k) {
			return nil, fmt.Errorf("event kind %q must be a lower-case name such as emotion or urge", k)
		}
		if m, ok := v.(map[string]any); !ok || m["type"] != "object" {
			return nil, fmt.Errorf(`event kind %q: its data schema must have "type": "object"`, k)
		}
		sch, err := c.Compile(url + "#/properties/" + k)
		if err != nil {
			return nil, fmt.Errorf("event kind %q: invalid schema: %w", k, err)
		}
		s.kinds[k] = sch
	}
	return s, nil
}

func eventKind(k string) bool {
	if k == "" || len(k) > 64 || k[0] < 'a' || k[0] > 'z' {
		return false
	}
	for _, c := range k {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// Types lists the declared event types, sorted.
func (s *EventSchema) Types() []string { return slices.Sorted(maps.Keys(s.kinds)) }

// Validate checks one event: its kind is declared and data (nil or a decoded
// JSON object, numbers as json.Number or float64) matches the kind's schema.
func (s *EventSchema) Validate(k string, data any) error {
	sch, ok := s.kinds[k]
	if !ok {
		return &EventError{UnknownType: true, Reason: fmt.Sprintf("is not an event kind of this app (known: %s)", strings.Join(s.Types(), ", "))}
	}
	if data == nil {
		data = map[string]any{}
	}
	err := sch.Validate(data)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &EventError{Reason: "could not be validated"}
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	loc := slices.Clone(ve.InstanceLocation)
	if ap, ok := ve.ErrorKind.(*kind.AdditionalProperties); ok && len(ap.Properties) > 0 {
		p := slices.Sorted(slices.Values(ap.Properties))
		return &EventError{Path: append(loc, p[0]), Reason: "is not a field of this event kind (known: " + strings.Join(s.Fields(k), ", ") + ")"}
	}
	return &EventError{Path: loc, Reason: safeMessage(ve.ErrorKind, ve.ErrorKind.LocalizedString(printer))}
}

// Fields lists the data fields a kind declares, sorted.
func (s *EventSchema) Fields(k string) []string {
	props, _ := s.kindDoc(k)["properties"].(map[string]any)
	return slices.Sorted(maps.Keys(props))
}

func (s *EventSchema) kindDoc(k string) map[string]any {
	props, _ := s.doc["properties"].(map[string]any)
	m, _ := props[k].(map[string]any)
	return m
}

// FieldNote describes a declared field for people: its type and range or
// values, e.g. "number 0–10" or "one of seed, fallback".
func (s *EventSchema) FieldNote(k, field string) string {
	props, _ := s.kindDoc(k)["properties"].(map[string]any)
	f, _ := props[field].(map[string]any)
	if enum, ok := f["enum"].([]any); ok {
		vals := make([]string, len(enum))
		for i, v := range enum {
			vals[i] = fmt.Sprint(v)
		}
		return "one of " + strings.Join(vals, ", ")
	}
	t, _ := f["type"].(string)
	if ts, ok := f["type"].([]any); ok {
		parts := make([]string, len(ts))
		for i, x := range ts {
			parts[i] = fmt.Sprint(x)
		}
		t = strings.Join(parts, " or ")
		if n, ok := f["maxItems"]; ok {
			t += fmt.Sprintf(", ≤ %v items", n)
		}
		return t
	}
	lo, hasLo := f["minimum"]
	hi, hasHi := f["maximum"]
	switch {
	case hasLo && hasHi:
		return fmt.Sprintf("%s %v–%v", t, lo, hi)
	case t == "string":
		if n, ok := f["maxLength"]; ok {
			return fmt.Sprintf("string ≤ %v chars", n)
		}
	}
	return t
}

// builtinEventSchemas are the presets' declarations by app kind.
var builtinEventSchemas = sync.OnceValues(func() (map[string]*EventSchema, error) {
	out := map[string]*EventSchema{}
	files, err := fs.Glob(builtinEvents, "*/"+FileEvents)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		name := path.Dir(f)
		raw, err := builtinEvents.ReadFile(f)
		if err != nil {
			return nil, err
		}
		s, err := CompileEventSchema(name, raw)
		if err != nil {
			return nil, &LoadError{App: name, File: FileEvents, Err: err}
		}
		out[name] = s
	}
	return out, nil
})

// BuiltinEventSchema is the declaration of the built-in app kind (one of
// RuleSets); an unknown kind is the default's (DefaultRuleSet).
func BuiltinEventSchema(appKind string) *EventSchema {
	all, err := builtinEventSchemas()
	if err != nil {
		panic(err) // the embedded files are tested
	}
	if s, ok := all[strings.ToLower(strings.TrimSpace(appKind))]; ok {
		return s
	}
	return all[DefaultRuleSet()]
}

// EventSchema is the app's declaration of its session events: its own
// events.schema.json, or the built-in one of its app kind.
func (a *App) EventSchema() *EventSchema {
	if a.Events != nil {
		return a.Events
	}
	return BuiltinEventSchema(a.RuleSet())
}

// loadEvents reads an app folder's events.schema.json, when it has one.
func loadEvents(fsys fs.FS, name string) (*EventSchema, error) {
	raw, err := fs.ReadFile(fsys, path.Join(name, FileEvents))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return CompileEventSchema(name, raw)
}

// EventsTable is docs/apps.md's table of the presets' session events: one row
// per app and kind, with the kind's fields, their types and ranges.
func EventsTable(apps map[string]*App) string {
	var b strings.Builder
	b.WriteString("| app | kind | data fields |\n| --- | --- | --- |\n")
	for _, name := range Names(apps) {
		s := apps[name].EventSchema()
		for _, k := range s.Types() {
			var fs []string
			for _, f := range s.Fields(k) {
				fs = append(fs, fmt.Sprintf("`%s` (%s)", f, s.FieldNote(k, f)))
			}
			fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", name, k, strings.Join(fs, ", "))
		}
	}
	return b.String()
}
