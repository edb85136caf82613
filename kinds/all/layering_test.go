package all

import (
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/mnemo-ai/mnemo/extract"
)

// What "naming a kind" means here. Code names a kind with an identifier
// (lara.Name, eldertreeCues), a comment ("Elder Tree's cues"), or a string
// that is the name or builds on it: "coach", "prompts/coach/", "lara:x",
// "eldertree_weekly". Those are what must live in the kind's package. A
// string in which the name stands as a plain word among others is the
// engine's vocabulary, not a kind: the safety lexicon and the grammar must
// read "my coach said" whatever apps are configured. Such strings are
// counted and listed with -v, never allowed to grow silently: each must be
// a word list (words split by "|" or spaces, as the lexicons are) or prose.

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
// code outside kinds/ names a kind. It reads every non-test Go file outside
// kinds/ and docs/experiments/ token by token and fails on an identifier or a
// comment that holds a registered kind's name as a word (in any case, as
// `git grep -iw` finds it), and on a string literal that is a kind's name
// or joins it to a path, key or file-name separator. With -v it lists the
// strings where a kind's name is only a word of the vocabulary.
func TestEngineNamesNoKind(t *testing.T) {
	names := extract.KindNames()
	if len(names) < 5 {
		t.Fatalf("registered kinds %v; want the five built-in ones at least", names)
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	alt := strings.Join(quoted, "|")
	// word finds a kind's name as a word of a string.
	word := regexp.MustCompile(`(?i)\b(?:` + alt + `)\b`)
	// joined: the name as a whole literal, or next to a separator that
	// makes it part of a path, key, identifier or file name.
	joined := regexp.MustCompile(`(?i)^\s*(?:` + alt + `)\s*$|[/:_.\-](?:` + alt + `)\b|\b(?:` + alt + `)[/:_.\-]`)

	root, _ := moduleRoot(t)
	bad, vocabulary, files := 0, 0, 0
	engineFiles(t, root, func(rel, path string) {
		files++
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		file := fset.AddFile(rel, -1, len(src))
		var sc scanner.Scanner
		sc.Init(file, src, func(pos token.Position, msg string) { t.Errorf("%s: %s", pos, msg) }, scanner.ScanComments)
		for {
			pos, tok, lit := sc.Scan()
			if tok == token.EOF {
				break
			}
			switch tok {
			case token.IDENT, token.COMMENT:
				if found := namedIn(lit, names); found != nil {
					bad++
					t.Errorf("%s: names %s in %s; move it to the kind's package under kinds/",
						fset.Position(pos), strings.Join(found, ", "), strings.ToLower(tok.String()))
				}
			case token.STRING:
				text := lit
				if u, err := strconv.Unquote(lit); err == nil {
					text = u
				}
				// Two words that make a kind's name ("Elder Tree") are
				// its display name, never the vocabulary.
				if found := namedIn(text, names); found != nil && !word.MatchString(text) {
					bad++
					t.Errorf("%s: a string names kind %s; move it to the kind's package under kinds/",
						fset.Position(pos), strings.Join(found, ", "))
					continue
				}
				if !word.MatchString(text) {
					continue
				}
				if joined.MatchString(text) {
					bad++
					t.Errorf("%s: a string names kind %s; move it to the kind's package under kinds/",
						fset.Position(pos), strings.ToLower(strings.Join(joined.FindAllString(text, -1), ", ")))
					continue
				}
				vocabulary++
				t.Logf("%s: vocabulary: %s", fset.Position(pos), strings.ToLower(strings.Join(word.FindAllString(text, -1), ", ")))
			}
		}
	})
	if files == 0 {
		t.Fatalf("no Go files found under %s", root)
	}
	t.Logf("%d files read; %d places name a kind; %d strings hold a kind's name as a word of the vocabulary", files, bad, vocabulary)
}

// namedIn lists the kind names that text (an identifier or a comment)
// holds: a word of it, or two words next to each other, equals a name, in
// any case. Words end at anything but a letter and where a lower-case
// letter meets an upper-case one, so eldertreeCues, KindLaRa and "Elder
// Tree's" all name a kind.
func namedIn(text string, names []string) []string {
	var words []string
	start := -1
	runes := []rune(text)
	for i, r := range runes {
		letter := unicode.IsLetter(r)
		if start >= 0 && (!letter || (unicode.IsUpper(r) && unicode.IsLower(runes[i-1]))) {
			words = append(words, strings.ToLower(string(runes[start:i])))
			start = -1
		}
		if letter && start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, strings.ToLower(string(runes[start:])))
	}
	var found []string
	for i, w := range words {
		for _, n := range names {
			if w == n || (i+1 < len(words) && w+words[i+1] == n) {
				found = append(found, n)
			}
		}
	}
	return found
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
