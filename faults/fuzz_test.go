package faults

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/figures"
	"github.com/mnemo-ai/mnemo/internal/testwait"
)

var (
	fuzzFunc  = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)
	fuzzExecs = regexp.MustCompile(`execs: (\d+)`)
)

type fuzzTarget struct{ pkg, name string }

// fuzzTargets finds every fuzz target in the module's test files.
func fuzzTargets(t *testing.T, root string) []fuzzTarget {
	t.Helper()
	var targets []fuzzTarget
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		for _, m := range fuzzFunc.FindAllSubmatch(src, -1) {
			targets = append(targets, fuzzTarget{"./" + filepath.ToSlash(rel), string(m[1])})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return targets
}

// TestFuzzTargets runs every fuzz target of the module under Go's fuzzing
// engine for MNEMO_FUZZ_EXECS executions each, so that CI does some real
// fuzzing and prints how much. It runs only when that is set: .ci/run runs
// it as a step of its own (building a target's instrumented binary takes
// minutes on a busy 2-core machine), and every go test already replays each
// target's seed corpus. A crash is written to the package's testdata/fuzz,
// as `go test -fuzz` does, and fails this test with the fuzzer's output.
func TestFuzzTargets(t *testing.T) {
	v := os.Getenv("MNEMO_FUZZ_EXECS")
	if v == "" {
		t.Skip("MNEMO_FUZZ_EXECS is not set: the fuzzing engine runs in .ci/run's fuzz step; the seed corpora run in every go test")
	}
	execs, err := strconv.Atoi(v)
	if err != nil || execs < 1 {
		t.Fatalf("MNEMO_FUZZ_EXECS: %q is not a positive count", v)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	targets := fuzzTargets(t, root)
	// The targets the issue names must be among them: a renamed target
	// would otherwise drop out of the fuzzing unnoticed.
	found := map[string]bool{}
	for _, tg := range targets {
		found[tg.name] = true
	}
	for _, name := range []string{"FuzzCloseBody", "FuzzMessagesBody", "FuzzMergePatch", "FuzzParseAnswer", "FuzzParse", "FuzzRules"} {
		if !found[name] {
			t.Errorf("fuzz target %s is gone", name)
		}
	}
	total, failures := 0, 0
	var per []string
	for _, tg := range targets {
		// No clock of its own: a target that takes longer on a busy
		// machine is still given until the test binary's -timeout is near.
		ctx, cancel := context.WithCancel(context.Background())
		if at := testwait.GiveUpAt(t); !at.IsZero() {
			ctx, cancel = context.WithDeadline(context.Background(), at)
		}
		cmd := exec.CommandContext(ctx, "go", "test", "-run", "^$", "-fuzz", "^"+tg.name+"$", "-fuzztime", fmt.Sprintf("%dx", execs), tg.pkg)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("%s %s: %v\n%s", tg.pkg, tg.name, err, out)
			failures++
			continue
		}
		n := 0
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		for sc.Scan() {
			if m := fuzzExecs.FindStringSubmatch(sc.Text()); m != nil {
				n, _ = strconv.Atoi(m[1])
			}
		}
		if n < execs {
			t.Errorf("%s %s: the fuzzer reported %d executions, want %d:\n%s", tg.pkg, tg.name, n, execs, out)
		}
		total += n
		per = append(per, fmt.Sprintf("%s %d", tg.name, n))
	}
	figures.Report(t, "fuzz: %d targets, %d executions, %d failed (%s)", len(targets), total, failures, strings.Join(per, ", "))
}
