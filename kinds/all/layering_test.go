package all

import (
	"bufio"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
)

// kindNamesRatchet is how many lines of non-test Go code outside kinds/ (and
// docs/experiments/) may still name a registered kind. It only goes down:
// when code moves into its kind's package, lower it to the count the test
// logs. The goal is 0.
const kindNamesRatchet = 11

// kindImportExceptions are the non-test files outside kinds/ that still
// import a kind's package, each with the one package it may import. The
// list only shrinks.
var kindImportExceptions = map[string]string{}

// moduleRoot is the directory of go.mod above the test's working directory
// (the package's directory, under go test), and the module's path.
func moduleRoot(t *testing.T) (dir, module string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			for line := range strings.Lines(string(b)) {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(rest), `"`)
				}
			}
			t.Fatalf("%s/go.mod names no module", dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// engineFiles calls fn with the slash path (from the module root) of every
// non-test Go file outside kinds/ and docs/experiments/.
func engineFiles(t *testing.T, root string, fn func(rel, path string)) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || rel == "kinds" || rel == "docs/experiments") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") {
			fn(rel, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEngineNamesNoKind enforces the rule of this package's doc comment: no
// code outside kinds/ names a kind. It counts the lines of non-test Go
// files outside kinds/ and docs/experiments/ that hold a registered kind's
// name as a word, in any case (as `git grep -iw` does), and fails when there
// are more than kindNamesRatchet. With -v it lists them.
func TestEngineNamesNoKind(t *testing.T) {
	names := extract.KindNames()
	if len(names) < 5 {
		t.Fatalf("registered kinds %v; want the five built-in ones at least", names)
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	word := regexp.MustCompile(`(?i)\b(?:` + strings.Join(quoted, "|") + `)\b`)

	root, _ := moduleRoot(t)
	count, files := 0, 0
	engineFiles(t, root, func(rel, path string) {
		files++
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
		for line := 1; sc.Scan(); line++ {
			if found := word.FindAllString(sc.Text(), -1); found != nil {
				count++
				t.Logf("%s:%d: %s", rel, line, strings.ToLower(strings.Join(found, ", ")))
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
	})
	if files == 0 {
		t.Fatalf("no Go files found under %s", root)
	}
	switch {
	case count > kindNamesRatchet:
		t.Errorf("%d lines of non-test Go code outside kinds/ name a kind (%v); at most %d may. "+
			"Move what only a kind knows into its package under kinds/ (go test -v lists the lines)",
			count, names, kindNamesRatchet)
	case count < kindNamesRatchet:
		t.Logf("%d lines name a kind: lower kindNamesRatchet from %d to %d", count, kindNamesRatchet, count)
	}
}

// TestEngineImportsNoKind checks the imports behind the same rule: outside
// kinds/, no non-test file imports a kind's package, and only commands
// (package main) import kinds/all; tests may import either.
func TestEngineImportsNoKind(t *testing.T) {
	root, module := moduleRoot(t)
	kindsPrefix, all := module+"/kinds/", module+"/kinds/all"
	used := map[string]bool{}
	fset := token.NewFileSet()
	engineFiles(t, root, func(rel, path string) {
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for _, spec := range f.Imports {
			imp, err := strconv.Unquote(spec.Path.Value)
			if err != nil || !strings.HasPrefix(imp, kindsPrefix) {
				continue
			}
			switch short := strings.TrimPrefix(imp, module+"/"); {
			case imp == all && f.Name.Name == "main":
			case imp == all:
				t.Errorf("%s: package %s imports kinds/all; only commands and tests choose the kinds", rel, f.Name.Name)
			case kindImportExceptions[rel] == short:
				used[rel] = true
			default:
				t.Errorf("%s: imports %s; outside kinds/ code asks the registry (extract.KindOf) instead", rel, short)
			}
		}
	})
	for rel, imp := range kindImportExceptions {
		if !used[rel] {
			t.Logf("%s no longer imports %s: remove it from kindImportExceptions", rel, imp)
		}
	}
}
