// Package docs holds no code: its test checks that the repository cites only
// documents a reader of the repository can open.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// missingDoc finds citations of documents that are not in the repository:
// the preset design documents (cited by number, or in the possessive) and a
// design file the repository never had. The character classes keep this
// file from matching itself.
var missingDoc = regexp.MustCompile(`(?i)\bseeds? 0\d\d\b|\bseed[']s\b|\bDESIGN\.md\b|shared/seed[s]\b`)

// knownCitations are files that still cite the design documents, each with
// why it is not fixed yet. They are temporary: the test fails when one of
// them no longer cites anything, so that the list only shrinks. A key ending
// in "/" is a directory.
var knownCitations = map[string]string{}

// scanned are the kinds of file whose text is checked.
var scanned = []string{".go", ".md", ".json", ".tmpl"}

// repoFiles returns the repository's scanned files, by slash path from the
// root, with their text. testdata folders are left out: they hold inputs and
// fuzz corpora, not prose.
func repoFiles(t *testing.T) map[string]string {
	t.Helper()
	root := ".."
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the repository root is not the parent of docs/: %v", err)
	}
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !slices.Contains(scanned, filepath.Ext(path)) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// known reports the knownCitations key that covers path, or "".
func known(path string) string {
	for k := range knownCitations {
		if path == k || strings.HasSuffix(k, "/") && strings.HasPrefix(path, k) {
			return k
		}
	}
	return ""
}

// TestNoCitationOfMissingDocuments: comments and documents cite files in the
// repository (docs/presets.md for the presets' design), never the design
// documents the presets were specified from, which are not in it.
func TestNoCitationOfMissingDocuments(t *testing.T) {
	t.Parallel()
	files := repoFiles(t)
	if len(files) < 50 {
		t.Fatalf("found %d files; the walk missed the repository", len(files))
	}
	stillCiting := map[string]bool{}
	for path, text := range files {
		for i, line := range strings.Split(text, "\n") {
			m := missingDoc.FindString(line)
			if m == "" {
				continue
			}
			if k := known(path); k != "" {
				stillCiting[k] = true
				continue
			}
			t.Errorf("%s:%d cites %q, a document not in the repository; cite docs/presets.md instead, e.g. (docs/presets.md, Elder Tree: session summary)", path, i+1, m)
		}
	}
	for k := range knownCitations {
		if !stillCiting[k] {
			t.Errorf("%s no longer cites a missing document: remove it from knownCitations", k)
		}
	}
}

// presetHeadings reads docs/presets.md: its presets ("## " headings), each
// with its sections ("### " headings), lower-cased, and the anchors GitHub
// gives every heading.
func presetHeadings(t *testing.T, doc string) (sections map[string]map[string]bool, anchors map[string]bool) {
	t.Helper()
	sections = map[string]map[string]bool{}
	anchors = map[string]bool{}
	seen := map[string]int{}
	var preset string
	for line := range strings.SplitSeq(doc, "\n") {
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if level == 0 || !strings.HasPrefix(line[level:], " ") {
			continue
		}
		title := strings.TrimSpace(line[level:])
		slug := githubSlug(title)
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
		switch level {
		case 2:
			preset = strings.ToLower(title)
			sections[preset] = map[string]bool{}
		case 3:
			if preset == "" {
				t.Fatalf("docs/presets.md: section %q comes before any preset", title)
			}
			sections[preset][strings.ToLower(title)] = true
		}
	}
	return sections, anchors
}

// githubSlug is the anchor GitHub makes of a heading: lower case, spaces to
// hyphens, punctuation other than hyphens and underscores dropped.
func githubSlug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

var (
	// commentBreak joins the lines of a // comment, so that a citation
	// wrapped over two lines reads as one.
	commentBreak = regexp.MustCompile(`\n[ \t]*//[ \t]?`)
	// presetCite is a citation such as (docs/presets.md, Clara: narratives;
	// Mona): what follows the comma, up to the closing parenthesis, is one
	// or more presets, each alone or with a section after a colon, separated
	// by semicolons.
	presetCite = regexp.MustCompile(`docs/presets\.md,\s+([^)]*)\)`)
	// presetLink is a Markdown link to a heading of docs/presets.md.
	presetLink = regexp.MustCompile(`docs/presets\.md#([A-Za-z0-9_-]+)`)
)

// TestPresetCitationsResolve: every citation of docs/presets.md names a
// preset and section it has, and every link to it an anchor it has, so that
// a reader who follows one finds the facts it points to.
func TestPresetCitationsResolve(t *testing.T) {
	t.Parallel()
	files := repoFiles(t)
	doc, ok := files["docs/presets.md"]
	if !ok {
		t.Fatal("docs/presets.md is missing")
	}
	sections, anchors := presetHeadings(t, doc)
	for _, p := range []string{"clara", "lara", "elder tree", "coach", "mona"} {
		if len(sections[p]) == 0 {
			t.Errorf("docs/presets.md has no sections for preset %q", p)
		}
	}

	cited := map[string]int{}
	for path, text := range files {
		if strings.HasSuffix(path, ".go") {
			text = commentBreak.ReplaceAllString(text, " ")
		}
		text = strings.Join(strings.Fields(text), " ")
		for _, m := range presetCite.FindAllStringSubmatch(text, -1) {
			for part := range strings.SplitSeq(m[1], ";") {
				part = strings.TrimRight(strings.TrimSpace(part), ".")
				preset, section, hasSection := strings.Cut(part, ":")
				preset = strings.ToLower(strings.TrimSpace(preset))
				section = strings.ToLower(strings.TrimSpace(section))
				secs, ok := sections[preset]
				switch {
				case !ok:
					t.Errorf("%s: %q names no preset of docs/presets.md: %q", path, part, m[0])
				case hasSection && !secs[section]:
					t.Errorf("%s: %q names no section of docs/presets.md: %q", path, part, m[0])
				default:
					cited[preset]++
				}
			}
		}
		for _, m := range presetLink.FindAllStringSubmatch(text, -1) {
			if !anchors[m[1]] {
				t.Errorf("%s: docs/presets.md#%s is no heading of docs/presets.md", path, m[1])
			}
		}
	}
	// Each preset's code cites its facts; a preset nobody cites means the
	// citations were not found, not that none are needed.
	for p := range sections {
		if cited[p] == 0 {
			t.Errorf("no file cites docs/presets.md for %q", p)
		}
	}
}
