package store_test

import (
	"io/fs"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/migrations"
	"github.com/mnemo-ai/mnemo/store"
)

// TestIrregularMemoryIsTheIndexCondition: the bounded pack read says the
// condition of the partial index of irregular memories word for word, as a
// partial index serves only such a query, on both databases.
func TestIrregularMemoryIsTheIndexCondition(t *testing.T) {
	for _, d := range []string{store.DialectPostgres, store.DialectSQLite} {
		up, err := fs.ReadFile(migrations.FS, d+"/0016_pack_bound.up.sql")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(up), "WHERE status = 'active' AND "+store.IrregularMemory(d)+";") {
			t.Errorf("%s: migration 0016 does not hold the condition %s", d, store.IrregularMemory(d))
		}
	}
}

func inClass(rs [][2]rune, r rune) bool {
	for _, c := range rs {
		if r >= c[0] && r <= c[1] {
			return true
		}
	}
	return false
}

// TestRegularTextIsComparedExactly: over every character, one outside the
// irregular class of keys and categories is no white space, lowers
// (strings.ToLower) to an ASCII character only when it is that lower-case
// character, and is equal under simple folding (strings.EqualFold) to no
// ASCII character but itself when outside ASCII: so a key or category
// without one equals, byte for byte, every lower-case ASCII text it
// matches as a pack compares them. And every character of the visible
// class is one that PlainText keeps (not blank).
func TestRegularTextIsComparedExactly(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if inClass(store.PackVisible, r) && extract.PackBlank(string(r)) {
			t.Errorf("U+%04X is in the visible class, and blank", r)
		}
		if inClass(store.CaseOrSpace, r) || !utf8.ValidRune(r) {
			continue
		}
		if unicode.IsSpace(r) {
			t.Errorf("U+%04X is white space outside the irregular class", r)
		}
		if l := unicode.ToLower(r); l < utf8.RuneSelf && l != r {
			t.Errorf("U+%04X lowers to %q outside the irregular class", r, l)
		}
		if r >= utf8.RuneSelf {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if f < utf8.RuneSelf {
					t.Errorf("U+%04X folds to %q outside the irregular class", r, f)
				}
			}
		}
	}
}

// TestWordPatternMatchesTheLowerCase: a word's patterns leave as any
// character what another character lowers to, and its wild pattern the
// ASCII letters a character outside ASCII lowers to (i, k).
func TestWordPatternMatchesTheLowerCase(t *testing.T) {
	for _, c := range []struct {
		w                                  string
		like, likeWild, regexp, regexpWild string
	}{
		{"tea", "%tea%", "", "tea", ""},
		{"king", "%king%", "%__ng%", "king", "..ng"},
		{"café", "%caf_%", "", "caf.", ""},
		{"東京", "%東京%", "", "東京", ""},
		{"50%", "%50_%", "", "50.", ""},
		{"a.b_c", "%a.b_c%", "", "a.b.c", ""},
	} {
		if p, x := store.WordPattern(c.w, false); p != c.like || x != c.likeWild {
			t.Errorf("WordPattern(%q) = %q, %q; want %q, %q", c.w, p, x, c.like, c.likeWild)
		}
		if p, x := store.WordPattern(c.w, true); p != c.regexp || x != c.regexpWild {
			t.Errorf("WordPattern(%q) on Postgres = %q, %q; want %q, %q", c.w, p, x, c.regexp, c.regexpWild)
		}
	}
}
