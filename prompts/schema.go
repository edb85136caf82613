package prompts

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

// compileSchema compiles an app's answer schema (draft 2020-12 unless it says
// otherwise) and derives the schema sent to the endpoint. References to other
// documents are refused: a schema is one self-contained file.
func compileSchema(app string, raw []byte) (*jsonschema.Schema, []byte, bool, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, false, fmt.Errorf("invalid JSON: %w", err)
	}
	root, ok := doc.(map[string]any)
	if !ok || root["type"] != "object" {
		return nil, nil, false, errors.New(`the root must be a schema with "type": "object"`)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	url := "https://mnemo.invalid/apps/" + app + "/schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, nil, false, fmt.Errorf("invalid schema: %w", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, nil, false, fmt.Errorf("invalid schema: %w", err)
	}
	wire, strict := wireSchema(doc)
	b, err := json.Marshal(wire)
	if err != nil {
		return nil, nil, false, fmt.Errorf("re-encode schema: %w", err)
	}
	return sch, b, strict, nil
}

// compileProfileSchema compiles the profile fields an app's answer schema
// declares (its profile_updates object); nil when it declares none.
func compileProfileSchema(app string, raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	root, _ := doc.(map[string]any)
	props, _ := root["properties"].(map[string]any)
	if _, ok := props["profile_updates"].(map[string]any); !ok {
		return nil, nil
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	url := "https://mnemo.invalid/apps/" + app + "/schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("invalid schema: %w", err)
	}
	sch, err := c.Compile(url + "#/properties/profile_updates")
	if err != nil {
		return nil, fmt.Errorf("invalid profile_updates schema: %w", err)
	}
	return sch, nil
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema references %s: references to other documents are not allowed", url)
}

// Keywords dropped from the schema sent to the endpoint: annotations, and
// limits that strict structured output refuses but that only narrow the
// answer, so that leaving them out loosens generation while Validate still
// enforces them.
var wireDropped = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "default": true, "examples": true,
	"readOnly": true, "writeOnly": true, "deprecated": true,
	"minLength": true, "maxLength": true, "uniqueItems": true,
	"minProperties": true, "maxProperties": true,
	"contentEncoding": true, "contentMediaType": true,
}

// Keywords kept but which strict structured output cannot express.
var wireUnstrict = map[string]bool{
	"allOf": true, "oneOf": true, "not": true, "if": true, "then": true, "else": true,
	"dependentSchemas": true, "dependentRequired": true, "patternProperties": true,
	"propertyNames": true, "unevaluatedProperties": true, "unevaluatedItems": true,
	"contains": true, "minContains": true, "maxContains": true, "prefixItems": true,
	"contentSchema": true,
}

// wireSchema returns the schema node as sent to the endpoint and whether it
// qualifies for strict mode: every object closed (additionalProperties false)
// with every property required, and no keyword from wireUnstrict.
func wireSchema(node any) (any, bool) {
	m, ok := node.(map[string]any)
	if !ok {
		return node, false // a boolean schema
	}
	strict := true
	out := make(map[string]any, len(m))
	for k, v := range m {
		if wireDropped[k] {
			continue
		}
		if wireUnstrict[k] {
			strict = false
		}
		switch k {
		case "properties", "$defs", "definitions", "dependentSchemas", "patternProperties":
			sub, ok := v.(map[string]any)
			if !ok {
				out[k] = v
				continue
			}
			o := make(map[string]any, len(sub))
			for name, s := range sub {
				w, st := wireSchema(s)
				o[name], strict = w, strict && st
			}
			out[k] = o
		case "allOf", "anyOf", "oneOf", "prefixItems":
			list, ok := v.([]any)
			if !ok {
				out[k] = v
				continue
			}
			o := make([]any, len(list))
			for i, s := range list {
				w, st := wireSchema(s)
				o[i], strict = w, strict && st
			}
			out[k] = o
		case "items", "not", "if", "then", "else", "contains", "propertyNames",
			"unevaluatedItems", "unevaluatedProperties", "contentSchema":
			w, st := wireSchema(v)
			out[k], strict = w, strict && st
		case "additionalProperties":
			if b, ok := v.(bool); ok {
				out[k] = b
				continue
			}
			out[k], _ = wireSchema(v)
			strict = false
		default:
			out[k] = v
		}
	}
	if isObjectSchema(m) {
		if m["additionalProperties"] != false {
			strict = false
		}
		props, _ := m["properties"].(map[string]any)
		required, _ := m["required"].([]any)
		have := make(map[string]bool, len(required))
		for _, r := range required {
			if s, ok := r.(string); ok {
				have[s] = true
			}
		}
		// A property with a default is required on the wire: writing its
		// default is the same answer as leaving it out (fillDefaults fills
		// the absent one in), and strict mode wants every property.
		wireRequired := slices.Clone(required)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if have[name] {
				continue
			}
			if p, ok := props[name].(map[string]any); ok {
				if _, ok := p["default"]; ok {
					wireRequired = append(wireRequired, name)
					continue
				}
			}
			strict = false
		}
		if len(wireRequired) > len(required) {
			out["required"] = wireRequired
		}
	}
	return out, strict
}

func isObjectSchema(m map[string]any) bool {
	if _, ok := m["properties"]; ok {
		return true
	}
	switch t := m["type"].(type) {
	case string:
		return t == "object"
	case []any:
		for _, v := range t {
			if v == "object" {
				return true
			}
		}
	}
	return false
}

// Violation is one way a value breaks an app's schema.
type Violation struct {
	// Location is the JSON pointer of the failing value, e.g.
	// "/session_summary/outcome"; "" is the whole value.
	Location string
	// Keyword is the schema keyword that failed: "enum", "required", "pattern", …
	Keyword string
	// Message says what is wrong. It may quote the offending value, which
	// comes from the model and may repeat session text: feed it back to the
	// model, never to a log.
	Message string
	// safe is Message without any quoted value.
	safe string
}

// ValidationError is a value that does not match its app's schema.
type ValidationError struct {
	App        string
	Violations []Violation
}

// maxListed bounds how many violations an error message lists.
const maxListed = 10

// Error lists where and how the value fails, never the failing values
// themselves, so that it is safe to log.
func (e *ValidationError) Error() string {
	return fmt.Sprintf("does not match the %s schema: %s", e.App, e.list(func(v Violation) string { return v.safe }))
}

// Detail lists every violation with its full message, for the repair prompt.
func (e *ValidationError) Detail() string {
	return e.list(func(v Violation) string { return v.Message })
}

func (e *ValidationError) list(msg func(Violation) string) string {
	var parts []string
	for i, v := range e.Violations {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.Violations)-maxListed))
			break
		}
		parts = append(parts, cmp.Or(v.Location, "/")+": "+msg(v))
	}
	return strings.Join(parts, "; ")
}

func validate(app string, sch *jsonschema.Schema, v any) error {
	err := sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	out := &ValidationError{App: app}
	seen := map[string]bool{}
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		loc := pointer(e.InstanceLocation)
		full := e.ErrorKind.LocalizedString(printer)
		if seen[loc+"\x00"+full] {
			return
		}
		seen[loc+"\x00"+full] = true
		out.Violations = append(out.Violations, Violation{
			Location: loc,
			Keyword:  strings.Join(e.ErrorKind.KeywordPath(), "/"),
			Message:  full,
			safe:     safeMessage(e.ErrorKind, full),
		})
	}
	walk(ve)
	slices.SortStableFunc(out.Violations, func(a, b Violation) int {
		return cmp.Or(cmp.Compare(a.Location, b.Location), cmp.Compare(a.Message, b.Message))
	})
	return out
}

// safeMessage is the message of an error kind without any part of the
// instance that could carry session text: strings and property names the
// model wrote. Numbers, sizes and what the schema wants are kept.
func safeMessage(k jsonschema.ErrorKind, full string) string {
	switch k := k.(type) {
	case *kind.Type, *kind.Enum, *kind.Const, *kind.Required, *kind.MinItems, *kind.MaxItems,
		*kind.MinLength, *kind.MaxLength, *kind.Minimum, *kind.Maximum, *kind.ExclusiveMinimum,
		*kind.ExclusiveMaximum, *kind.MultipleOf, *kind.MinProperties, *kind.MaxProperties,
		*kind.AdditionalItems, *kind.FalseSchema, *kind.UniqueItems, *kind.Dependency,
		*kind.DependentRequired:
		return full
	case *kind.Pattern:
		return fmt.Sprintf("does not match pattern %q", k.Want)
	case *kind.Format:
		return fmt.Sprintf("is not a valid %s", k.Want)
	case *kind.AdditionalProperties:
		if len(k.Properties) == 1 {
			return "an additional property is not allowed"
		}
		return fmt.Sprintf("%d additional properties are not allowed", len(k.Properties))
	default:
		return "fails " + strings.Join(k.KeywordPath(), "/")
	}
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
