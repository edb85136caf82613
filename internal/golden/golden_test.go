package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeT records what Check reports instead of failing the test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true }
func (f *fakeT) Fatal(...any)          { f.failed = true }

// TestCheckComparesAndRewrites: a matching file passes, a different one
// fails and is left alone, and with Update the file is written (its
// directory too) and then matches.
func TestCheckComparesAndRewrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden.txt")
	f := &fakeT{TB: t}
	Check(f, path, []byte("a\n"))
	if !f.failed {
		t.Fatal("a missing golden file passed")
	}
	*Update = true
	t.Cleanup(func() { *Update = false })
	f = &fakeT{TB: t}
	Check(f, path, []byte("a\n"))
	if b, err := os.ReadFile(path); f.failed || err != nil || string(b) != "a\n" {
		t.Fatalf("with Update: failed %v, file %q, %v", f.failed, b, err)
	}
	*Update = false
	f = &fakeT{TB: t}
	if Check(f, path, []byte("a\n")); f.failed {
		t.Error("an equal output failed")
	}
	f = &fakeT{TB: t}
	if Check(f, path, []byte("b\n")); !f.failed {
		t.Error("a different output passed")
	}
	if b, _ := os.ReadFile(path); string(b) != "a\n" {
		t.Errorf("a failing check rewrote the file: %q", b)
	}
}
