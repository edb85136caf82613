// Package golden is the one mechanism behind Mnemo's golden files: a test
// compares what it produced with a file in testdata, and the same run
// rewrites the files instead when asked to, with
//
//	go test ./extract -update
//
// in a package whose tests import golden, or for any set of packages with
//
//	MNEMO_UPDATE_GOLDEN=1 go test ./...
//
// (a test binary that does not import golden refuses an unknown -update
// flag; the variable reaches them all). Review the diff of the rewritten
// files before committing them.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Update is true when the golden files are to be rewritten: set by the
// -update flag, or by MNEMO_UPDATE_GOLDEN=1 in the environment.
var Update = flag.Bool("update", os.Getenv("MNEMO_UPDATE_GOLDEN") == "1",
	"rewrite the golden files the tests compare against (or set MNEMO_UPDATE_GOLDEN=1)")

// Check compares got with the golden file at path and reports a difference
// through t. When Update is set it writes got to path (creating its
// directory) and reports nothing.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *Update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update, or MNEMO_UPDATE_GOLDEN=1, to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the test produced (rerun with -update, or MNEMO_UPDATE_GOLDEN=1, and review the diff):\n%s", path, got)
	}
}
