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
	"time"

	"github.com/mnemo-ai/mnemo/internal/figures"
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
// engine for a bounded number of executions (MNEMO_FUZZ_EXECS, 5 000 each
// by default), so that the test command does some real fuzzing and CI can
// print how much: go test alone only replays the seed corpora. A crash is
// written to the package's testdata/fuzz, as `go test -fuzz` does, and fails
// this test with the fuzzer's output.
func TestFuzzTargets(t *testing.T) {
	t.Parallel()
	execs := 5000
	if v := os.Getenv("MNEMO_FUZZ_EXECS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("MNEMO_FUZZ_EXECS: %q is not a positive count", v)
		}
		execs = n
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
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
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
