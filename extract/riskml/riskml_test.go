package riskml

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestShippedWeightsAreRebuilt holds the shipped weights to what the data
// in the repository builds (`go run ./cmd/risktrain`): a change of the
// data, the features or the training that is not followed by a rebuild
// fails here, and so does a training that is not deterministic.
func TestShippedWeightsAreRebuilt(t *testing.T) {
	if testing.Short() {
		t.Skip("trains the model (a few seconds)")
	}
	ex, _, err := LoadData("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, meta, err := Train(ex, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, Shipped()) {
		t.Fatalf("weights.bin (%d bytes) is not what the data builds (%d bytes, dev recall %.3f): run go run ./cmd/risktrain",
			len(Shipped()), len(b), meta.Dev.Recall)
	}
}

// TestShippedWeightsLoad: the embedded file loads, its thresholds name
// every class, and it stays well under the 8 MB the binary may grow by.
func TestShippedWeightsLoad(t *testing.T) {
	m := Default()
	for _, c := range Classes[1:] {
		if th := m.Meta.Threshold[c]; th <= 0 || th >= 1 {
			t.Errorf("threshold of %s = %v", c, th)
		}
	}
	if n := len(Shipped()); n > 4<<20 {
		t.Errorf("weights are %d bytes", n)
	}
	if m.Meta.AcuteThreshold <= 0.5 {
		t.Errorf("acute threshold %v: high would need no signal", m.Meta.AcuteThreshold)
	}
}

// TestLoadRefusesBadFiles: a truncated or foreign file is an error, not a
// model of zeros.
func TestLoadRefusesBadFiles(t *testing.T) {
	good := Shipped()
	for name, b := range map[string][]byte{
		"empty":     nil,
		"foreign":   []byte("PK\x03\x04 not ours"),
		"truncated": good[:len(good)-1],
		"header":    good[:len(magic)+2],
	} {
		if _, err := Load(b); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

// TestJudgeNeverSeesTextItDoesNotRead: the same message gives the same
// finding however often and concurrently it is read (the buffers are
// pooled), and an empty or enormous message is no panic.
func TestJudgeIsPureAndBounded(t *testing.T) {
	m := Default()
	msg := "I have the pills ready and I'm taking them tonight"
	want := m.Judge(msg)
	done := make(chan Finding, 8)
	for range 8 {
		go func() { done <- m.Judge(msg) }()
	}
	for range 8 {
		if got := <-done; got != want {
			t.Fatalf("concurrent judge %+v, want %+v", got, want)
		}
	}
	m.Judge("")
	m.Judge(string(bytes.Repeat([]byte("word. "), 100000)))
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"I DON'T know.  Really?!": "i dont know|really",
		"  a,b;c  ":               "a b|c",
		"...":                     "",
		"tonight\n\npills":        "tonight|pills",
	} {
		if got := string(normalize(nil, in)); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkJudge(b *testing.B) {
	m := Default()
	msgs := []string{
		"Hey Mona! I went hiking with my sister on Saturday and we saw a deer.",
		"honestly i'm so tired of everything, work is killing me and i can't sleep",
		"I've been thinking about it a lot and I have the pills saved up for Friday.",
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m.Judge(msgs[i%len(msgs)])
	}
}

func TestEachWindow(t *testing.T) {
	for in, want := range map[string][]string{
		"a b":     {"a b"},
		"a|b":     {"a|b", "a", "b"},
		"a|b|c d": {"a|b|c d", "a", "b", "a|b", "c d", "b|c d"},
	} {
		var got []string
		eachWindow([]byte(in), func(w []byte) { got = append(got, string(w)) })
		if !slices.Equal(got, want) {
			t.Errorf("eachWindow(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJudgeReadsALongMessageToItsEnd: one sentence of crisis after a
// hundred ordinary ones is read as it would be alone.
func TestJudgeReadsALongMessageToItsEnd(t *testing.T) {
	m := Default()
	crisis := "I have the pills ready and I'm taking all of them tonight."
	alone := m.Judge(crisis)
	if alone.Class == "" {
		t.Fatalf("the shipped model finds nothing in %q alone", crisis)
	}
	long := strings.Repeat("We went to the market and bought some apples. ", 100) + crisis
	if got := m.Judge(long); got.Class != alone.Class || got.Severity != alone.Severity {
		t.Errorf("after 100 sentences: %+v; alone: %+v", got, alone)
	}
}

// TestNoEvaluationTextIsTrainedOn: no training example's text or key is,
// word for word, a text of an evaluation set (extract/eval/testdata, all
// but TeamSet, which the model learns from by design): the memory sets'
// turns and the risk sets' items. LoadData also drops near repeats of the
// risk sets; this holds the data files themselves apart.
func TestNoEvaluationTextIsTrainedOn(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "extract", "eval", "testdata", "*.eval.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no evaluation sets: %v", err)
	}
	eval := map[string]string{}
	for _, p := range files {
		if filepath.Base(p) == filepath.Base(TeamSet) {
			continue
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var set struct {
			Items []struct {
				Text  string   `json:"text"`
				Turns []string `json:"turns"`
			} `json:"items"`
			Sessions []struct {
				Turns []struct {
					Text string `json:"text"`
				} `json:"turns"`
			} `json:"sessions"`
		}
		if err := json.Unmarshal(raw, &set); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		add := func(s string) {
			if n := string(normalize(nil, s)); len(n) > 15 {
				eval[n] = filepath.Base(p)
			}
		}
		for _, it := range set.Items {
			add(it.Text)
			for _, s := range it.Turns {
				add(s)
			}
		}
		for _, s := range set.Sessions {
			for _, tu := range s.Turns {
				add(tu.Text)
			}
		}
	}
	ex, _, err := LoadData("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ex {
		for _, s := range []string{e.Text, e.Key} {
			if set, ok := eval[string(normalize(nil, s))]; ok {
				t.Errorf("%s %s: %q is a text of %s", e.Source, e.ID, s, set)
			}
		}
	}
}
