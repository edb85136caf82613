package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/handoff"
)

// MaxPatchDepth bounds the nesting of a JSON body: deeper documents are refused.
const MaxPatchDepth = 32

// DecodeObject reads a body holding exactly one JSON object, valid UTF-8,
// nested at most MaxPatchDepth deep, checked as handoff.CheckJSON checks a
// session body: no name twice in an object, no NUL character, no number
// beyond handoff.MaxNumber (1e400 would overflow float64 and break the
// user's pack later). An error is a *handoff.ValidationError naming the
// field, or "body" when the body as a whole is not one JSON object.
func DecodeObject(body []byte) (map[string]any, error) {
	if !utf8.Valid(body) {
		return nil, &handoff.ValidationError{Field: "body", Reason: "is not valid UTF-8"}
	}
	if depth(body) > MaxPatchDepth {
		return nil, &handoff.ValidationError{Field: "body", Reason: "is nested too deeply"}
	}
	if err := handoff.CheckJSON(body, reflect.TypeFor[map[string]any]()); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, &handoff.ValidationError{Field: "body", Reason: "must be one JSON object"}
	}
	return obj, nil
}

// depth is the deepest nesting of brackets in a JSON text, strings skipped.
func depth(b []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

// MergePatch applies a JSON merge patch (RFC 7396) to target: objects merge
// key by key, null removes a key, anything else replaces. target is not
// modified.
func MergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	out := map[string]any{}
	if ok {
		for k, v := range t {
			out[k] = v
		}
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = MergePatch(out[k], v)
	}
	return out
}
