package handoff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// This file keeps the token-by-token CheckJSON (encoding/json's
// Decoder.Token) that the byte scanner of strict.go replaced, as the
// reference the scanner is compared with (strict_diff_test.go): the same
// bodies must get the same answers, error for error.

// tokenCheckJSON walks body token by token against the shape of t (a struct
// type) before anything is decoded: it refuses names a struct does not have
// in exactly that case, a name given twice in any object, strings holding a
// NUL character, numbers that are not finite or beyond MaxNumber, values of
// the wrong JSON type and timestamps that are not RFC 3339, each error naming
// the JSON path (messages[3].at, events[0].data.intensity). Free-form values
// (json.RawMessage, any) get the same checks of names, strings and numbers.
// An error about the body as a whole has Field "body".
func tokenCheckJSON(body []byte, t reflect.Type) error {
	if !utf8.Valid(body) {
		return invalid("body", "is not valid UTF-8")
	}
	w := &tokenWalker{dec: json.NewDecoder(bytes.NewReader(body))}
	w.dec.UseNumber()
	tok, err := w.dec.Token()
	if err != nil {
		return w.syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return invalid("body", "must be a JSON object")
	}
	if err := w.valueTok(tok, t, "", 0); err != nil {
		return err
	}
	if _, err := w.dec.Token(); !errors.Is(err, io.EOF) {
		return invalid("body", "holds more than one JSON value")
	}
	return nil
}

type tokenWalker struct{ dec *json.Decoder }

// syntax describes a tokenizer error without echoing the input.
func (w *tokenWalker) syntax(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return invalid("body", "is not valid JSON (offset %d)", se.Offset)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return invalid("body", "is empty or truncated")
	}
	return invalid("body", "is not valid JSON (offset %d)", w.dec.InputOffset())
}

func (w *tokenWalker) next() (json.Token, error) {
	tok, err := w.dec.Token()
	if err != nil {
		return nil, w.syntax(err)
	}
	return tok, nil
}

// tokenFieldIndex maps a struct type's JSON names (exact case) to their types.
var tokenFieldIndex sync.Map // reflect.Type → map[string]reflect.Type

func tokenFieldsOf(t reflect.Type) map[string]reflect.Type {
	if m, ok := tokenFieldIndex.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	tokenFieldIndex.Store(t, m)
	return m
}

// valueTok checks the value that starts with tok, of Go type t (nil: free-form).
func (w *tokenWalker) valueTok(tok json.Token, t reflect.Type, path string, depth int) error {
	if depth > MaxDepth {
		return invalid(path, "is nested more than %d deep", MaxDepth)
	}
	if tok == nil {
		return nil // null: as if absent; Validate checks what is required
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == nil || t == rawType || t.Kind() == reflect.Interface || t.Kind() == reflect.Map:
		return w.free(tok, path, depth)
	case t == timeType:
		s, ok := tok.(string)
		var tm time.Time
		if !ok || tm.UnmarshalJSON([]byte(strconv.Quote(s))) != nil {
			return invalid(path, "must be an RFC 3339 timestamp such as 2026-11-20T09:00:00Z")
		}
		return nil
	case t.Kind() == reflect.Struct:
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return invalid(path, "must be a JSON object")
		}
		fields := tokenFieldsOf(t)
		seen := map[string]bool{}
		for w.dec.More() {
			name, err := w.name(path, seen)
			if err != nil {
				return err
			}
			ft, ok := fields[name]
			if !ok {
				reason := "is not a known field"
				for known := range fields {
					if strings.EqualFold(known, name) {
						reason += fmt.Sprintf(" (names are case-sensitive: %s)", known)
					}
				}
				return invalid(tokenJoin(path, name), "%s", reason)
			}
			tok, err := w.next()
			if err != nil {
				return err
			}
			if err := w.valueTok(tok, ft, tokenJoin(path, name), depth+1); err != nil {
				return err
			}
		}
		_, err := w.next()
		return err
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return invalid(path, "must be a JSON array")
		}
		for i := 0; w.dec.More(); i++ {
			tok, err := w.next()
			if err != nil {
				return err
			}
			if err := w.valueTok(tok, t.Elem(), fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return err
			}
		}
		_, err := w.next()
		return err
	case t.Kind() == reflect.String:
		s, ok := tok.(string)
		if !ok {
			return invalid(path, "must be a string")
		}
		return tokenCheckString(path, s)
	case t.Kind() == reflect.Bool:
		if _, ok := tok.(bool); !ok {
			return invalid(path, "must be true or false")
		}
		return nil
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		n, ok := tok.(json.Number)
		if !ok {
			return invalid(path, "must be a number")
		}
		f, err := tokenCheckNumber(path, n)
		if err != nil {
			return err
		}
		if t.Kind() < reflect.Float32 && f != math.Trunc(f) {
			return invalid(path, "must be a whole number")
		}
		return nil
	}
	return invalid(path, "cannot be decoded")
}

// free checks a free-form value: names unique and without NUL, strings
// without NUL, numbers finite and within MaxNumber.
func (w *tokenWalker) free(tok json.Token, path string, depth int) error {
	if depth > MaxDepth {
		return invalid(path, "is nested more than %d deep", MaxDepth)
	}
	switch v := tok.(type) {
	case string:
		return tokenCheckString(path, v)
	case json.Number:
		_, err := tokenCheckNumber(path, v)
		return err
	case json.Delim:
		switch v {
		case '{':
			seen := map[string]bool{}
			for w.dec.More() {
				name, err := w.name(path, seen)
				if err != nil {
					return err
				}
				tok, err := w.next()
				if err != nil {
					return err
				}
				if err := w.free(tok, tokenJoin(path, name), depth+1); err != nil {
					return err
				}
			}
		case '[':
			for i := 0; w.dec.More(); i++ {
				tok, err := w.next()
				if err != nil {
					return err
				}
				if err := w.free(tok, fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
					return err
				}
			}
		}
		_, err := w.next()
		return err
	}
	return nil // true, false, null
}

// name reads an object's next name, refusing a repeated one and a NUL.
func (w *tokenWalker) name(path string, seen map[string]bool) (string, error) {
	tok, err := w.next()
	if err != nil {
		return "", err
	}
	name, _ := tok.(string)
	if strings.ContainsRune(name, 0) {
		return "", invalid(tokenJoin(path, name), "is a field name containing a NUL character")
	}
	if seen[name] {
		return "", invalid(tokenJoin(path, name), "is given more than once")
	}
	seen[name] = true
	return name, nil
}

func tokenCheckString(path, s string) error {
	if strings.ContainsRune(s, 0) {
		return invalid(path, "contains a NUL character")
	}
	return nil
}

func tokenCheckNumber(path string, n json.Number) (float64, error) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || math.Abs(f) > MaxNumber || exponentBeyond([]byte(n)) {
		return 0, invalid(path, "is out of range (numbers are at most %.0e in magnitude)", MaxNumber)
	}
	return f, nil
}

var tokenPlainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_:@-]{0,63}$`)

// tokenJoin is join as it was, with a regular expression.
func tokenJoin(path, name string) string {
	if !tokenPlainName.MatchString(name) {
		if len(name) > 32 {
			cut := 32
			for cut > 0 && !utf8.RuneStart(name[cut]) {
				cut--
			}
			name = name[:cut] + "…"
		}
		return path + "[" + strconv.Quote(name) + "]"
	}
	if path == "" {
		return name
	}
	return path + "." + name
}
