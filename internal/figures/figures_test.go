package figures

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportAppendsOneLinePerFigure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "figures.txt")
	t.Setenv(Env, path)
	Report(t, "%d sessions handed over, %d lost", 500, 0)
	Report(t, "two\nlines")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := t.Name() + ": 500 sessions handed over, 0 lost\n" + t.Name() + ": two lines\n"
	if string(b) != want {
		t.Fatalf("figures file:\n%s\nwant:\n%s", b, want)
	}
}

func TestReportWithoutFileOnlyLogs(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(Env, "")
	t.Chdir(dir)
	Report(t, "nothing to write")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		names := []string{}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("Report wrote files without %s: %s", Env, strings.Join(names, ", "))
	}
}
