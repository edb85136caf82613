package riskml

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// DataDir is the training data's folder, relative to the repository root:
// one folder per source, each with items.jsonl (Example per line),
// LICENSE and SOURCE.md.
const DataDir = "extract/riskml/data"

// TeamSet is Mnemo's own risk set (hand-written, the rules' development
// set), which the model is also taught from. Its figures are therefore
// not evidence for the trained layer: the held-out sets are.
const TeamSet = "extract/eval/testdata/risk.eval.json"

// HeldOut matches the evaluation sets no training example may repeat.
const HeldOut = "extract/eval/testdata/risk.holdout*.eval.json"

// sourceWeight is how much an example of a source counts: the lexicon's
// short phrasings less than a sentence.
var sourceWeight = map[string]float64{"construct-tracker": 0.5}

// LoadData reads the training examples under root (the repository root):
// every source folder of DataDir and TeamSet, less any example that
// repeats a held-out item (the same text, or half of its six-word runs).
// It returns the examples in a fixed order and how many it left out.
func LoadData(root string) ([]Example, int, error) {
	dirs, err := os.ReadDir(filepath.Join(root, DataDir))
	if err != nil {
		return nil, 0, err
	}
	var out []Example
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		for _, need := range []string{"LICENSE", "SOURCE.md"} {
			if _, err := os.Stat(filepath.Join(root, DataDir, d.Name(), need)); err != nil {
				return nil, 0, fmt.Errorf("source %s: no %s beside its data", d.Name(), need)
			}
		}
		f, err := os.Open(filepath.Join(root, DataDir, d.Name(), "items.jsonl"))
		if err != nil {
			return nil, 0, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		line := 0
		for sc.Scan() {
			line++
			var e Example
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				f.Close()
				return nil, 0, fmt.Errorf("%s/items.jsonl:%d: %w", d.Name(), line, err)
			}
			if e.Class != "danger" && !slices.Contains(Classes, e.Class) {
				f.Close()
				return nil, 0, fmt.Errorf("%s/items.jsonl:%d: unknown class %q", d.Name(), line, e.Class)
			}
			e.Source, e.Weight = d.Name(), sourceWeight[d.Name()]
			out = append(out, e)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, 0, err
		}
	}
	team, err := readSet(filepath.Join(root, TeamSet))
	if err != nil {
		return nil, 0, err
	}
	for _, e := range team {
		e.Source = "mnemo-risk-eval"
		out = append(out, e)
	}
	held, err := filepath.Glob(filepath.Join(root, HeldOut))
	if err != nil {
		return nil, 0, err
	}
	seen := map[string]bool{}
	shingles := map[string]bool{}
	for _, p := range held {
		items, err := readSet(p)
		if err != nil {
			return nil, 0, err
		}
		for _, e := range items {
			n := string(normalize(nil, e.Text))
			seen[n] = true
			for _, s := range runs(n) {
				shingles[s] = true
			}
		}
	}
	kept := out[:0]
	left := 0
	for _, e := range out {
		if repeats(e.Text, seen, shingles) || (e.Key != "" && repeats(e.Key, seen, shingles)) {
			left++
			continue
		}
		kept = append(kept, e)
	}
	return kept, left, nil
}

// repeats reports whether text is a held-out item's, or shares half of its
// six-word runs with them.
func repeats(text string, seen, shingles map[string]bool) bool {
	n := string(normalize(nil, text))
	if seen[n] {
		return true
	}
	rs := runs(n)
	hit := 0
	for _, s := range rs {
		if shingles[s] {
			hit++
		}
	}
	return len(rs) > 0 && 2*hit >= len(rs)
}

// runs is the six-word runs of a normalised text.
func runs(n string) []string {
	w := strings.FieldsFunc(n, func(r rune) bool { return r == ' ' || r == '|' })
	var out []string
	for i := 0; i+6 <= len(w); i++ {
		out = append(out, strings.Join(w[i:i+6], " "))
	}
	return out
}

// readSet reads a risk evaluation set (extract/eval's schema) as examples:
// an item of two turns is its turns joined.
func readSet(path string) ([]Example, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var set struct {
		Items []struct {
			ID       string   `json:"id"`
			Class    string   `json:"class"`
			Severity string   `json:"severity"`
			Text     string   `json:"text"`
			Turns    []string `json:"turns"`
		} `json:"items"`
	}
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([]Example, 0, len(set.Items))
	for _, it := range set.Items {
		text := it.Text
		if len(it.Turns) > 0 {
			text = strings.Join(it.Turns, ". ")
		}
		out = append(out, Example{ID: "team-" + it.ID, Text: text, Class: it.Class, Severity: it.Severity})
	}
	return out, nil
}
