package eval_test

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
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

func builtin(t *testing.T) map[string]*prompts.App {
	t.Helper()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return apps
}

func mona(t *testing.T) *prompts.App { return builtin(t)["mona"] }

// appOf is the preset a set names: each set runs through its own app's
// extractor and merge policy.
func appOf(t *testing.T, set *eval.Set) *prompts.App {
	t.Helper()
	app := builtin(t)[set.App]
	if app == nil {
		t.Fatalf("set %s names app %q, which is no built-in preset", set.Name, set.App)
	}
	return app
}

// contractSets are the sets TestNoForbiddenStored holds to nothing
// forbidden stored: Mona's, and the per-app sets, which store nothing
// forbidden today (README, "The per-app sets"). Should an app's rules need
// to store some of it for a while, its set leaves this list: TestReport
// still prints its forbidden count.
var contractSets = []string{"adversarial.eval.json", "memorybank.eval.json",
	"eldertree.eval.json", "coach.eval.json", "clara.eval.json", "lara.eval.json"}

// appSets are the hand-written sets of the apps other than Mona, each with
// at least minAppTurns annotated user turns.
var appSets = []string{"eldertree.eval.json", "coach.eval.json", "clara.eval.json", "lara.eval.json"}

const minAppTurns = 100

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
// companion's own words) is stored from any annotated turn of contractSets,
// each run through its own app.
func TestNoForbiddenStored(t *testing.T) {
	for _, name := range contractSets {
		t.Run(strings.TrimSuffix(name, ".eval.json"), func(t *testing.T) {
			set := load(t, name)
			sc := eval.Run(appOf(t, set), set).Measure()
			for _, v := range sc.Violations {
				t.Errorf("%s#%d (%s): stored %s = %q from %q", v.Session, v.Turn, v.Class, v.Key, v.Value, v.Text)
			}
		})
	}
}

// TestReport prints precision, recall and forbidden per set and category
// (go test ./extract/eval -run Report -v; add -eval.detail for the
// memories behind them), each set through its own app: Mona's sets, then
// the per-app sets, then each app's sets together. It fails only when a set
// is malformed or too small to say anything (the corpus set under 300
// annotated user turns, an app set under 100); low figures are reported,
// not failed (forbidden ones fail TestNoForbiddenStored).
func TestReport(t *testing.T) {
	mb := load(t, "memorybank.eval.json")
	if n := mb.Turns(); n < minCorpusTurns {
		t.Fatalf("the memorybank set annotates %d user turns; it needs at least %d", n, minCorpusTurns)
	}
	sets := []*eval.Set{mb, load(t, "adversarial.eval.json")}
	for _, name := range appSets {
		set := load(t, name)
		if n := set.Turns(); n < minAppTurns {
			t.Errorf("the %s set annotates %d user turns; it needs at least %d", set.Name, n, minAppTurns)
		}
		sets = append(sets, set)
	}
	var b strings.Builder
	byApp := map[string][]eval.Score{}
	var apps []string
	var scores []eval.Score
	for _, set := range sets {
		sc := eval.Run(appOf(t, set), set).Measure()
		scores = append(scores, sc)
		if byApp[set.App] == nil {
			apps = append(apps, set.App)
		}
		byApp[set.App] = append(byApp[set.App], sc)
		eval.WriteTable(&b, sc)
		b.WriteString("\n")
	}
	for _, app := range apps {
		if len(byApp[app]) > 1 {
			eval.WriteTable(&b, eval.Combine(app+" (all sets)", byApp[app]...))
			b.WriteString("\n")
		}
	}
	if *detail {
		for _, sc := range scores {
			b.WriteString("\n")
			eval.WriteDetail(&b, sc)
		}
	}
	t.Log("\n" + b.String())
}

// TestShippedAppSets: every hand-written set is shipped in the binary and
// names the app whose preset it is scored under, so that worker eval runs
// it as TestReport does.
func TestShippedAppSets(t *testing.T) {
	shipped := eval.ShippedSets()
	for _, name := range appSets {
		set := load(t, name)
		if want := strings.TrimSuffix(name, ".eval.json"); set.Name != want || set.App != want {
			t.Errorf("%s: name %q, app %q; want both %q", name, set.Name, set.App, want)
		}
		if !slices.Contains(shipped, set.Name) {
			t.Errorf("%s is not among the shipped sets %v", set.Name, shipped)
		}
	}
}
