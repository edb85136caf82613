package lara

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// storedRecords are LaRa records as they are stored: those of the rules'
// golden file, those the decays' golden file shows decayed, and those the
// rules write when they fold the demo sessions one after the other
// (removals included).
func storedRecords(t testing.TB) []extract.Record {
	t.Helper()
	var out []extract.Record
	var rules struct{ Records []extract.Record }
	readJSON(t, filepath.Join("testdata", "rules", "lara.golden.json"), &rules)
	out = append(out, rules.Records...)
	var decayed struct {
		Records []struct {
			Kind, Key string
			Data      map[string]any
		}
	}
	readJSON(t, filepath.Join("..", "..", "decay", "testdata", "lara.golden.json"), &decayed)
	for _, r := range decayed.Records {
		if r.Data != nil {
			out = append(out, extract.Record{Type: r.Kind, Key: r.Key, Data: r.Data})
		}
	}
	out = append(out, demoRecords(t)...)
	// A removal, as the rules write one when a dislike contradicts a like.
	b := laraBuilder{user: "u-1", session: "s-2", now: time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)}
	return append(out, throughJSON(t, b.remove(LaraPreference, "likes:spiders", "contradicted")))
}

// throughJSON is r as the store hands it back.
func throughJSON(t testing.TB, r extract.Record) extract.Record {
	t.Helper()
	var back extract.Record
	b, _ := json.Marshal(r)
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// demoRecords folds the demo sessions (demo.json) in order, each over the
// records the ones before left, and returns every record written, as the
// store would hand it back (through JSON).
func demoRecords(t testing.TB) []extract.Record {
	t.Helper()
	var demo []struct {
		ID       string `json:"session_id"`
		User     string `json:"user_id"`
		Offset   int    `json:"offset_minutes"`
		Duration int    `json:"duration_minutes"`
		Messages []struct {
			Role, Content string
		}
		Events []struct {
			Kind   string
			Offset int `json:"offset_minutes"`
			Data   json.RawMessage
		}
	}
	if err := json.Unmarshal(demoSessions, &demo); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	stored := map[string][]extract.Record{} // by user
	var written []extract.Record
	for _, d := range demo {
		began := start.Add(time.Duration(d.Offset) * time.Minute)
		s := extract.Session{ID: d.ID, UserID: d.User, App: "lara", StartedAt: began, EndedAt: began.Add(time.Duration(d.Duration) * time.Minute)}
		for i, m := range d.Messages {
			s.Messages = append(s.Messages, extract.Message{ID: "m" + string(rune('a'+i)), Role: m.Role, Content: m.Content, At: began.Add(time.Duration(i) * time.Second)})
		}
		for _, e := range d.Events {
			s.Events = append(s.Events, extract.Event{Type: e.Kind, At: began.Add(time.Duration(e.Offset) * time.Minute), Data: e.Data})
		}
		s.History.Records = stored[d.User]
		res := extract.Result{ProfileUpdates: map[string]any{}, SessionSummary: map[string]any{}}
		laraRules(&res, prompts.Policy{MinConfidence: 0.6}, s, s.EndedAt.Add(time.Minute))
		for _, r := range res.Records {
			back := throughJSON(t, r)
			written = append(written, back)
			kept := stored[d.User][:0:0]
			for _, o := range stored[d.User] {
				if o.Type != r.Type || o.Key != r.Key {
					kept = append(kept, o)
				}
			}
			if !r.Delete {
				kept = append(kept, back)
			}
			stored[d.User] = kept
		}
	}
	if len(written) == 0 {
		t.Fatal("the demo sessions wrote no record")
	}
	return written
}

// roundTrip decodes r into its type and encodes that again twice: as a new
// record (the type alone, which must hold every stored field) and over
// what was stored (EncodeData, which must change nothing). Each as JSON.
func roundTrip(r extract.Record) (typed, over string) {
	switch {
	case r.Delete:
		return roundTripAs[Removal](r)
	case r.Type == LaraLearning:
		return roundTripAs[Learning](r)
	case r.Type == LaraEmotional:
		return roundTripAs[Emotional](r)
	case r.Type == LaraPreference:
		return roundTripAs[Preference](r)
	case r.Type == LaraReinforcement:
		return roundTripAs[Reinforcement](r)
	case r.Type == LaraReinforcementState:
		return roundTripAs[ReinforcementState](r)
	case r.Type == LaraSkill:
		return roundTripAs[Skill](r)
	}
	return "", ""
}

func roundTripAs[T any](r extract.Record) (typed, over string) {
	v, st := extract.DecodeRecord[T](r)
	a, _ := json.Marshal(extract.NewRecord(r.Type, r.Key, v).Data)
	b, _ := json.Marshal(extract.EncodeData(v, st))
	return string(a), string(b)
}

// TestRecordsRoundTrip: every stored LaRa record decodes into its struct
// and encodes back to the same JSON (field names, numbers, nulls), so the
// structs are the stored format.
func TestRecordsRoundTrip(t *testing.T) {
	t.Parallel()
	kinds := map[string]bool{}
	for _, r := range storedRecords(t) {
		want, _ := json.Marshal(r.Data)
		typed, over := roundTrip(r)
		if typed != string(want) {
			t.Errorf("%s/%s (delete %v) through its struct:\n got %s\nwant %s", r.Type, r.Key, r.Delete, typed, want)
		}
		if over != string(want) {
			t.Errorf("%s/%s over its stored data:\n got %s\nwant %s", r.Type, r.Key, over, want)
		}
		kinds[r.Type] = true
	}
	for _, k := range laraKindOrder {
		if !kinds[k] {
			t.Errorf("no %s record among the seeds", k)
		}
	}
}

// FuzzRecordRoundTrip: whatever a stored record holds (fields no struct
// knows, values of the wrong type), decoding it and encoding it over what
// was stored gives it back unchanged, and encoding the decoded value alone
// twice gives the same JSON.
func FuzzRecordRoundTrip(f *testing.F) {
	for _, r := range storedRecords(f) {
		b, _ := json.Marshal(r.Data)
		f.Add(r.Type, r.Delete, b)
	}
	f.Add(LaraEmotional, false, []byte(`{"recent":["x",null,{"at":"2026-01-01T00:00:00Z","frustrated":"2","extra":[1]}],"frustration_count":"3","note":{"a":1}}`))
	f.Add(LaraLearning, false, []byte(`{"mastery_level":2.5,"difficulty":"hard","mastery_base":null,"Mastery_Level":4}`))
	f.Fuzz(func(t *testing.T, kind string, del bool, data []byte) {
		var m map[string]any
		if json.Unmarshal(data, &m) != nil || m == nil {
			return
		}
		r := extract.Record{Type: kind, Key: "k", Data: m, Delete: del}
		want, _ := json.Marshal(m)
		typed, over := roundTrip(r)
		if typed == "" {
			return // not a LaRa record
		}
		if over != string(want) {
			t.Fatalf("changed over its stored data:\n got %s\nwant %s", over, want)
		}
		var again map[string]any
		if err := json.Unmarshal([]byte(typed), &again); err != nil {
			t.Fatal(err)
		}
		if typed2, _ := roundTrip(extract.Record{Type: kind, Data: again, Delete: del}); typed2 != typed {
			t.Fatalf("not stable through the struct:\n%s\n%s", typed, typed2)
		}
	})
}
