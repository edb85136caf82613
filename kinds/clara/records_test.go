package clara

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
)

// claraStored are Clara's records as the rules' golden file stores them.
func claraStored(t testing.TB) []extract.Record {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "rules", "clara.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct{ Records []extract.Record }
	if err := json.Unmarshal(b, &golden); err != nil {
		t.Fatal(err)
	}
	return golden.Records
}

// claraRoundTrip is r decoded into its struct and encoded again, as JSON:
// as a new record, and over its stored data.
func claraRoundTrip(r extract.Record) (typed, over string) {
	switch r.Type {
	case ClaraRepetition:
		return claraRoundTripAs[Repetition](r)
	case ClaraNarrativeUsage:
		return claraRoundTripAs[NarrativeUsage](r)
	}
	return "", ""
}

func claraRoundTripAs[T any](r extract.Record) (typed, over string) {
	v, st := extract.DecodeRecord[T](r)
	a, _ := json.Marshal(extract.NewRecord(r.Type, r.Key, v).Data)
	b, _ := json.Marshal(extract.EncodeData(v, st))
	return string(a), string(b)
}

// TestRecordsRoundTrip: each stored Clara record decodes into its struct
// and encodes back to the same JSON.
func TestRecordsRoundTrip(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range claraStored(t) {
		want, _ := json.Marshal(r.Data)
		typed, over := claraRoundTrip(r)
		if typed != string(want) || over != string(want) {
			t.Errorf("%s/%s:\n struct %s\n   over %s\n   want %s", r.Type, r.Key, typed, over, want)
		}
		seen[r.Type] = true
	}
	if !seen[ClaraRepetition] || !seen[ClaraNarrativeUsage] {
		t.Fatalf("the golden file lacks a record kind: %v", seen)
	}
}

// FuzzRecordRoundTrip: any stored Clara record encodes back over its
// stored data unchanged.
func FuzzRecordRoundTrip(f *testing.F) {
	for _, r := range claraStored(f) {
		b, _ := json.Marshal(r.Data)
		f.Add(r.Type, b)
	}
	f.Fuzz(func(t *testing.T, kind string, data []byte) {
		var m map[string]any
		if json.Unmarshal(data, &m) != nil || m == nil {
			return
		}
		want, _ := json.Marshal(m)
		if _, over := claraRoundTrip(extract.Record{Type: kind, Data: m}); over != "" && over != string(want) {
			t.Fatalf("\n got %s\nwant %s", over, want)
		}
	})
}
