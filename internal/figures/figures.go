// Package figures lets a test suite report the figures it measured (sessions
// handed over and lost, kills survived, requests tried) where a quiet
// `go test ./...` run can still show them. go test prints a passing
// package's output only with -v, so each figure is also appended, one line,
// to the file named by MNEMO_FIGURES when that is set; .ci/run sets it and
// prints the file after the tests.
package figures

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Env names the file the figures are appended to.
const Env = "MNEMO_FIGURES"

// Report logs one figure line for t and appends it, prefixed with the test's
// name, to the MNEMO_FIGURES file. A file that cannot be written fails the
// test: a figure CI was asked for must not vanish silently.
func Report(t testing.TB, format string, args ...any) {
	t.Helper()
	line := fmt.Sprintf(format, args...)
	t.Log(line)
	path := os.Getenv(Env)
	if path == "" {
		return
	}
	line = t.Name() + ": " + strings.ReplaceAll(line, "\n", " ") + "\n"
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Errorf("figures: %v", err)
		return
	}
	// One write per line: O_APPEND keeps lines from parallel test binaries
	// whole.
	if _, err := f.WriteString(line); err != nil {
		t.Errorf("figures: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("figures: %v", err)
	}
}
