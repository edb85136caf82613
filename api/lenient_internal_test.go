package api

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecodeLenient: the context pack's reader of stored documents agrees
// with json.Unmarshal on every document json.Unmarshal reads, and on any
// other input never panics and gives only what JSON can encode again (no
// number beyond float64 survives), counting what it left out.
func FuzzDecodeLenient(f *testing.F) {
	for _, s := range []string{`{"age":1e400}`, `{"a":[1,1e400,{"b":-1e999}],"c":"x"}`, `{"preferred_name":"Sam","age":41}`,
		`[]`, `{"a":1} x`, `nul`, `{"a":1e308,"b":-0,"c":[[]],"d":{"e":null}}`, `{"a":"1e400"}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, dropped, ok := decodeLenient(raw)
		var want map[string]any
		if json.Unmarshal(raw, &want) == nil && want != nil {
			if !ok || dropped != 0 || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: lenient %v (%d dropped, ok %v); json.Unmarshal %v", raw, got, dropped, ok, want)
			}
			return
		}
		if !ok {
			if got != nil {
				t.Fatalf("%q: not a document, yet %v", raw, got)
			}
			return
		}
		if _, err := json.Marshal(got); err != nil {
			t.Fatalf("%q: the lenient result cannot be encoded: %v", raw, err)
		}
	})
}
