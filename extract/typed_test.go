package extract_test

import (
	"encoding/json"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
)

type typedProbe struct {
	Count   int      `json:"count"`
	Rate    float64  `json:"rate"`
	Name    string   `json:"name"`
	Maybe   *float64 `json:"maybe,omitempty"`
	Nullish *string  `json:"nullish"`
	Inner   struct {
		N int `json:"n"`
	} `json:"inner"`
	List []int `json:"list"`
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDecodeEncodeData(t *testing.T) {
	t.Parallel()
	stored := map[string]any{
		"count": " 4 ", "rate": 0.25, "name": 7.0, "unknown": map[string]any{"a": []any{1.0}},
		"inner": map[string]any{"n": "2"}, "list": []any{"3", 1.0},
	}
	v, st := extract.DecodeData[typedProbe](stored)
	// Numeric text reads as the number; a value of the wrong type as zero.
	if v.Count != 4 || v.Rate != 0.25 || v.Name != "" || v.Inner.N != 2 || len(v.List) != 2 || v.List[0] != 3 || v.Nullish != nil {
		t.Fatalf("decoded %+v", v)
	}
	// Nothing changed: the stored data comes back as it was, with no null
	// for the pointer it lacked.
	if got, want := jsonText(t, extract.EncodeData(v, st)), jsonText(t, stored); got != want {
		t.Fatalf("unchanged value:\n got %s\nwant %s", got, want)
	}
	// What the caller changes is written; the rest stays as stored.
	v.Count, v.Maybe = 5, new(float64)
	got := extract.EncodeData(v, st)
	if got["count"] != 5.0 || got["maybe"] != 0.0 || got["name"] != 7.0 || got["inner"].(map[string]any)["n"] != "2" || got["unknown"] == nil {
		t.Fatalf("changed value: %s", jsonText(t, got))
	}
	// An omitempty field set to zero is dropped.
	v2, st2 := extract.DecodeData[typedProbe](map[string]any{"maybe": 1.5})
	v2.Maybe = nil
	if _, ok := extract.EncodeData(v2, st2)["maybe"]; ok {
		t.Fatal("a cleared omitempty field stayed")
	}
	// A new record holds the value's fields only.
	r := extract.NewRecord("probe", "k", typedProbe{Count: 1})
	if r.Type != "probe" || r.Key != "k" || jsonText(t, r.Data) != `{"count":1,"inner":{"n":0},"list":null,"name":"","nullish":null,"rate":0}` {
		t.Fatalf("NewRecord = %+v %s", r, jsonText(t, r.Data))
	}
	if d := extract.DecodeJSON[typedProbe]([]byte(`{"count":"6","rate":"x"}`)); d.Count != 6 || d.Rate != 0 {
		t.Fatalf("DecodeJSON = %+v", d)
	}
}

// FuzzEncodeDataUnchanged: decoding any JSON object and encoding the value
// back over it, unchanged, gives the object back.
func FuzzEncodeDataUnchanged(f *testing.F) {
	f.Add([]byte(`{"count":3,"rate":"0.5","extra":[null,{"x":1}],"nullish":null}`))
	f.Add([]byte(`{"Count":2,"count":"two","inner":[],"list":{"a":1}}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]any
		if json.Unmarshal(data, &m) != nil || m == nil {
			return
		}
		v, st := extract.DecodeData[typedProbe](m)
		if got, want := jsonText(t, extract.EncodeData(v, st)), jsonText(t, m); got != want {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	})
}
