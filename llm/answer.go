package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// AnswerError is an LLM answer from which no JSON value could be read. Its
// message never quotes the answer.
type AnswerError struct {
	// Reason says what is wrong, without quoting the answer.
	Reason string
	// detail is the decoder's own message, which may quote a character of
	// the answer; it goes back to the model in the repair round.
	detail string
}

func (e *AnswerError) Error() string { return "answer holds no usable JSON: " + e.Reason }

// Detail is the message for the repair prompt.
func (e *AnswerError) Detail() string {
	if e.detail == "" {
		return e.Reason
	}
	return e.Reason + " (" + e.detail + ")"
}

// ParseAnswer reads the JSON value of an LLM answer. It accepts, in this
// order: the answer as a whole being JSON; one ```json or plain ``` fenced
// block holding JSON; or one JSON object with prose around it, taken from the
// first "{" to its balancing "}". Nothing else is guessed: a trailing comma,
// a missing brace or single quotes stay errors, which the repair round feeds
// back to the model. Numbers come back as json.Number. A failure is an
// *AnswerError.
func ParseAnswer(content string) (any, error) {
	s := strings.TrimSpace(content)
	if s == "" {
		return nil, &AnswerError{Reason: "the answer is empty"}
	}
	v, bareErr := decodeOne(s)
	if bareErr == nil {
		return v, nil
	}

	if blocks := fencedBlocks(s); len(blocks) > 0 {
		var (
			found    []any
			firstErr error
		)
		for _, b := range blocks {
			v, err := decodeOne(b)
			if err != nil {
				firstErr = cmpErr(firstErr, err)
				continue
			}
			found = append(found, v)
		}
		switch len(found) {
		case 0:
			return nil, syntaxError("the fenced block", firstErr)
		case 1:
			return found[0], nil
		default:
			return nil, &AnswerError{Reason: fmt.Sprintf("the answer holds %d fenced JSON blocks; it must hold one", len(found))}
		}
	}

	start := strings.IndexByte(s, '{')
	if start < 0 {
		if s[0] == '[' {
			return nil, syntaxError("the answer", bareErr)
		}
		return nil, &AnswerError{Reason: "the answer holds no JSON object"}
	}
	end, ok := balancedObject(s, start)
	if !ok {
		return nil, &AnswerError{Reason: "the JSON object is truncated: it never closes", detail: "unexpected end of JSON input"}
	}
	v, err := decodeOne(s[start:end])
	if err != nil {
		return nil, syntaxError("the JSON object", err)
	}
	if next := strings.IndexByte(s[end:], '{'); next >= 0 {
		if e2, ok := balancedObject(s, end+next); ok {
			if _, err := decodeOne(s[end+next : e2]); err == nil {
				return nil, &AnswerError{Reason: "the answer holds more than one JSON object; it must hold one"}
			}
		}
	}
	return v, nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// decodeOne decodes s as exactly one JSON value.
func decodeOne(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errTrailing
	}
	return v, nil
}

var errTrailing = errors.New("data after the JSON value")

// syntaxError describes a decoding failure of what without quoting it.
func syntaxError(what string, err error) *AnswerError {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &AnswerError{Reason: what + " is truncated", detail: "unexpected end of JSON input"}
	case errors.Is(err, errTrailing):
		return &AnswerError{Reason: what + " has data after its JSON value"}
	case errors.As(err, &se):
		return &AnswerError{Reason: fmt.Sprintf("%s is not valid JSON at byte %d", what, se.Offset), detail: se.Error()}
	default:
		return &AnswerError{Reason: what + " is not valid JSON"}
	}
}

// fencedBlocks returns the contents of the ``` fences in s whose info string
// is empty or "json". An unclosed fence runs to the end of s.
func fencedBlocks(s string) []string {
	var blocks []string
	for {
		i := strings.Index(s, "```")
		if i < 0 {
			return blocks
		}
		s = s[i+3:]
		nl := strings.IndexByte(s, '\n')
		if nl < 0 {
			return blocks // a fence with nothing after its info string
		}
		info := strings.TrimSpace(s[:nl])
		body := s[nl+1:]
		closing := strings.Index(body, "```")
		content := body
		if closing >= 0 {
			content = body[:closing]
			s = body[closing+3:]
		} else {
			s = ""
		}
		if info == "" || strings.EqualFold(info, "json") {
			blocks = append(blocks, strings.TrimSpace(content))
		}
		if closing < 0 {
			return blocks
		}
	}
}

// balanced returns the end (exclusive) of the object that opens at s[start],
// skipping braces inside strings, and false when it never closes.
func balancedObject(s string, start int) (int, bool) {
	depth := 0
	inString, escaped := false, false
	for i := start; i < len(s); i++ {
		c := s[i]
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
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

// MaxNumber bounds every number of an answer, as handoff.MaxNumber bounds
// every number of a client's body: beyond it a number would be stored (a
// profile's sobriety_days of 1e23) and summed by the batches.
const MaxNumber = 1e15

// checkNumbers refuses an answer that holds a number beyond ±MaxNumber, or
// one float64 cannot hold; the repair round tells the model where.
func checkNumbers(v any, path string) *AnswerError {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if err := checkNumbers(x[k], path+"/"+k); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := checkNumbers(e, path+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	case json.Number:
		if f, err := x.Float64(); err != nil || math.IsInf(f, 0) || math.Abs(f) > MaxNumber {
			return &AnswerError{Reason: "the answer holds a number beyond ±1e15",
				detail: "the number at " + cmpPath(path) + " is beyond ±1e15, the largest Mnemo keeps"}
		}
	}
	return nil
}

func cmpPath(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}
