package eval_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/extract/eval"
	"github.com/mnemo-ai/mnemo/prompts"
)

var detail = flag.Bool("eval.detail", false, "TestReport also lists forbidden, unexpected and missed memories with their turns")

// minCorpusTurns is the least number of annotated corpus turns the
// evaluation may rest on.
const minCorpusTurns = 300

// corpusDir is where the shared companion corpora are (outside the
// repository: ../shared/corpora beside the checkout); MNEMO_CORPORA
// overrides it. With MNEMO_REQUIRE_CORPORA=1 (CI) a missing corpus fails
// the tests that read it instead of skipping them. (The convention of
// jobs/corpus_test.go.)
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MNEMO_CORPORA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpora")
	}
	if _, err := os.Stat(filepath.Join(dir, "memorybank", "memory_bank_en.json")); err != nil {
		if os.Getenv("MNEMO_REQUIRE_CORPORA") == "1" {
			t.Fatalf("MNEMO_REQUIRE_CORPORA=1 but the MemoryBank corpus is not in %s: %v", dir, err)
		}
		t.Skipf("the MemoryBank corpus is not in %s (set MNEMO_CORPORA): %v", dir, err)
	}
	return dir
}

func mona(t *testing.T) *prompts.App {
	t.Helper()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return apps["mona"]
}

func load(t *testing.T, name string) *eval.Set {
	t.Helper()
	set, err := eval.Load(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Resolve(corpusDirIfNeeded(t, set)); err != nil {
		t.Fatal(err)
	}
	return set
}

func corpusDirIfNeeded(t *testing.T, set *eval.Set) string {
	if set.Corpus == "" {
		return ""
	}
	return corpusDir(t)
}

// TestNoForbiddenStored is the contract: nothing a companion must not keep
// (distress, special categories, other people's facts, credentials, the
// companion's own words) is stored from any annotated turn.
func TestNoForbiddenStored(t *testing.T) {
	app := mona(t)
	for _, name := range []string{"adversarial.eval.json", "memorybank.eval.json"} {
		t.Run(strings.TrimSuffix(name, ".eval.json"), func(t *testing.T) {
			set := load(t, name)
			sc := eval.Run(app, set).Measure()
			for _, v := range sc.Violations {
				t.Errorf("%s#%d (%s): stored %s = %q from %q", v.Session, v.Turn, v.Class, v.Key, v.Value, v.Text)
			}
		})
	}
}

// TestReport prints precision, recall and forbidden per set and category
// (go test ./extract/eval -run Report -v; add -eval.detail for the
// memories behind them). It fails only when a set is malformed or the
// corpus set is too small to say anything.
func TestReport(t *testing.T) {
	app := mona(t)
	adv := load(t, "adversarial.eval.json")
	mb := load(t, "memorybank.eval.json")
	if n := mb.Turns(); n < minCorpusTurns {
		t.Fatalf("the memorybank set annotates %d user turns; it needs at least %d", n, minCorpusTurns)
	}
	var scores []eval.Score
	var b strings.Builder
	for _, set := range []*eval.Set{mb, adv} {
		sc := eval.Run(app, set).Measure()
		scores = append(scores, sc)
		eval.WriteTable(&b, sc)
		b.WriteString("\n")
	}
	eval.WriteTable(&b, eval.Combine("mona (all sets)", scores...))
	if *detail {
		for _, sc := range scores {
			b.WriteString("\n")
			eval.WriteDetail(&b, sc)
		}
	}
	t.Log("\n" + b.String())
}
