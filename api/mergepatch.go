package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// MaxPatchDepth bounds the nesting of a JSON body: deeper documents are refused.
const MaxPatchDepth = 32

// DecodeObject reads a body holding exactly one JSON object, valid UTF-8,
// nested at most MaxPatchDepth deep.
func DecodeObject(body []byte) (map[string]any, error) {
	if !utf8.Valid(body) {
		return nil, errors.New("the body is not valid UTF-8")
	}
	if depth(body) > MaxPatchDepth {
		return nil, errors.New("the body is nested too deeply")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, errors.New("the body must be one JSON object")
	}
	if dec.More() {
		return nil, errors.New("the body holds more than one JSON value")
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
