package llm_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/llm"
)

func TestParseAnswer(t *testing.T) {
	t.Parallel()
	const obj = `{"memories":[{"key":"likes:pizza","value":"pizza {with} \"cheese\""}],"n":7}`
	tests := []struct {
		name    string
		content string
		ok      bool
		reason  string // part of the error when !ok
	}{
		{"bare", obj, true, ""},
		{"bare with space", "\n  " + obj + "\n", true, ""},
		{"json fence", "```json\n" + obj + "\n```", true, ""},
		{"JSON fence", "```JSON\n" + obj + "\n```", true, ""},
		{"plain fence in prose", "Here it is:\n```\n" + obj + "\n```\nHope that helps {smile}", true, ""},
		{"prose around", "Sure! " + obj + " Anything else?", true, ""},
		{"braces in strings", `Result: {"a":"}{","b":"\"}"}.`, true, ""},
		{"other fences ignored", "```python\nprint(1)\n```\n```json\n" + obj + "\n```", true, ""},
		{"empty", "  \n", false, "empty"},
		{"no json", "I cannot help with that.", false, "no JSON object"},
		{"truncated", obj[:30], false, "truncated"},
		{"truncated fence", "```json\n" + obj[:30], false, "truncated"},
		{"trailing comma", `{"a":1,}`, false, "not valid JSON"},
		{"single quotes", `{'a':1}`, false, "not valid JSON"},
		{"two objects", `{"a":1} and also {"b":2}`, false, "more than one"},
		{"two fences", "```json\n{\"a\":1}\n```\n```json\n{\"b\":2}\n```", false, "2 fenced JSON blocks"},
		{"truncated array", `[1, 2`, false, "truncated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := llm.ParseAnswer(tt.content)
			if !tt.ok {
				var ae *llm.AnswerError
				if !errors.As(err, &ae) {
					t.Fatalf("got %v, %v; want an *AnswerError", v, err)
				}
				if !strings.Contains(err.Error(), tt.reason) {
					t.Errorf("error %q lacks %q", err, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := v.(map[string]any); !ok {
				t.Fatalf("got %T", v)
			}
		})
	}
}

func TestParseAnswerKeepsNumbersExact(t *testing.T) {
	t.Parallel()
	v, err := llm.ParseAnswer(`{"importance": 90, "big": 12345678901234567890}`)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["importance"] != json.Number("90") || m["big"] != json.Number("12345678901234567890") {
		t.Errorf("numbers %v", m)
	}
}

// The error goes to logs and job records: it never quotes the answer.
func TestParseAnswerErrorsDoNotQuote(t *testing.T) {
	t.Parallel()
	for _, content := range []string{
		`{"memories": [{"value": "my pin is 4711"`,
		`{"value": "my pin is 4711",}`,
		`my pin is 4711`,
	} {
		_, err := llm.ParseAnswer(content)
		if err == nil || strings.Contains(err.Error(), "4711") || strings.Contains(err.Error(), "pin") {
			t.Errorf("error %v for %q", err, content)
		}
	}
}

func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		`{"a":1}`, "```json\n{\"a\":[1,2]}\n```", `text {"a":"}"} more`, `{"a":`, `[]`, `"x"`, "```\n```", `{{{{`, `}{`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		v, err := llm.ParseAnswer(content)
		if err != nil {
			var ae *llm.AnswerError
			if !errors.As(err, &ae) {
				t.Fatalf("error %T %v is not an *AnswerError", err, err)
			}
			return
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("parsed value does not marshal: %v", err)
		}
		back, err := llm.ParseAnswer(string(b))
		if err != nil {
			t.Fatalf("re-marshalled answer %s does not parse: %v", b, err)
		}
		if !reflect.DeepEqual(back, v) {
			t.Fatalf("round trip changed the value: %v vs %v", back, v)
		}
	})
}
