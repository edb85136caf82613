package eval_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/extract/eval"
)

// holdout33Sets are the held-out per-app sets of issue 33, one per app,
// written by a helper who did not read the rules. They are report-only,
// like risk.holdout31: no floors, and not in contractSets (a forbidden
// memory stored is printed, not failed), so that nobody tunes the rules
// against them. Read their figures, never their misses.
var holdout33Sets = []string{
	"clara.holdout33.eval.json", "lara.holdout33.eval.json", "eldertree.holdout33.eval.json",
	"coach.holdout33.eval.json", "mona.holdout33.eval.json",
}

// TestReportHoldout33 prints the figures of the held-out sets of issue 33
// (go test ./extract/eval -run Report -v), each through its own app. It
// fails only when a set is malformed, not shipped, named apart from its
// file, or has fewer than minAppTurns annotated user turns.
func TestReportHoldout33(t *testing.T) {
	shipped := eval.ShippedSets()
	var b strings.Builder
	for _, name := range holdout33Sets {
		set := load(t, name)
		if want := strings.TrimSuffix(name, ".eval.json"); set.Name != want || !strings.HasPrefix(want, set.App+".") {
			t.Errorf("%s: name %q, app %q; want name %q and the app its file starts with", name, set.Name, set.App, want)
		}
		if !slices.Contains(shipped, set.Name) {
			t.Errorf("%s is not among the shipped sets %v", set.Name, shipped)
		}
		if n := set.Turns(); n < minAppTurns {
			t.Errorf("the %s set annotates %d user turns; it needs at least %d", set.Name, n, minAppTurns)
		}
		eval.WriteTable(&b, eval.Run(appOf(t, set), set).Measure())
		b.WriteString("\n")
	}
	t.Log("\n" + b.String())
}
