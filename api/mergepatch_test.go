package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/api"
)

func TestMergePatch(t *testing.T) {
	t.Parallel()
	// Cases from the RFC 7396 appendix, in our own words where it matters:
	// null removes, objects merge, anything else replaces.
	cases := []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	}
	for _, c := range cases {
		var target, patch any
		_ = json.Unmarshal([]byte(c.target), &target)
		_ = json.Unmarshal([]byte(c.patch), &patch)
		got, _ := json.Marshal(api.MergePatch(target, patch))
		if string(got) != c.want {
			t.Errorf("MergePatch(%s, %s) = %s; want %s", c.target, c.patch, got, c.want)
		}
	}
}

// FuzzMergePatch: any body either is refused by DecodeObject or patches any
// document without panicking, and patching twice changes nothing more.
func FuzzMergePatch(f *testing.F) {
	for _, s := range []string{`{"a":null}`, `{"a":{"b":[1,2,{"c":null}]}}`, `[]`, `{`, "\xff", `{"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		patch, err := api.DecodeObject(body)
		if err != nil {
			return
		}
		doc := map[string]any{"a": map[string]any{"b": 1.0}, "c": []any{"x"}}
		once := api.MergePatch(doc, patch)
		twice := api.MergePatch(once, patch)
		a, _ := json.Marshal(once)
		b, _ := json.Marshal(twice)
		if string(a) != string(b) {
			t.Fatalf("a merge patch is not idempotent: %s vs %s", a, b)
		}
	})
}
