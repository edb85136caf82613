// The bounded read of a context pack: the few memories a kind's pack can
// tell (extract.PackBound), through the indexes of migration 0016, instead
// of every active memory of the user.

package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// PackRead is what ReadPackMemories asks for: a user's active memories not
// expired at Now that are
//
//   - of one of Keys (equal, byte for byte);
//   - last used at or after UsedSince (when not zero);
//   - holding one of Words: every memory whose value or key, lower-cased by
//     strings.ToLower, contains a word (and maybe more);
//   - among the Limit most important (importance, highest first, then
//     updated_at, newest first) of each of Tops, of its Category (equal) or
//     of any category when "";
//   - irregular (IrregularMemory): always, whatever else is asked.
type PackRead struct {
	Now       time.Time
	Keys      []string
	UsedSince time.Time
	Words     []string
	Tops      []PackTop
}

// PackTop is one list of the most important memories of a PackRead.
type PackTop struct {
	Category string
	Limit    int
}

// PackRows is what ReadPackMemories read.
type PackRows struct {
	// Memories are the memories read, each once, in no particular order:
	// what PackRead names and maybe more (all of them, for a user with
	// few: packSmallUser).
	Memories []PackMemory
	// Tops are the ids of each PackRead.Tops list, at most its Limit: fewer
	// when the list holds every memory of its category.
	Tops [][]string
	// Active is the number of the user's active memories not expired at
	// Now, read or not.
	Active int
}

// A memory is irregular when its key or category holds a character that
// strings.ToLower, strings.TrimSpace or strings.EqualFold read as another
// ASCII character or remove (an upper-case ASCII letter, white space, İ, ſ
// or the Kelvin sign), or its value holds none of packVisible, so that it
// may be blank. A regular memory's key equals, byte for byte, every
// lower-case ASCII key it matches as a kind's pack compares keys, and its
// category likewise; and its value is not blank. ReadPackMemories reads
// every irregular memory (through a partial index that is empty while the
// store writes only what extract cleans), so that equality in SQL decides
// the rest.
var (
	caseOrSpace = [][2]rune{{'A', 'Z'}, {'\t', '\r'}, {' ', ' '}, {0x85, 0x85}, {0xa0, 0xa0}, {0x130, 0x130},
		{0x17f, 0x17f}, {0x1680, 0x1680}, {0x2000, 0x200a}, {0x2028, 0x2029}, {0x202f, 0x202f}, {0x205f, 0x205f},
		{0x212a, 0x212a}, {0x3000, 0x3000}}
	// packVisible are characters that are neither space, control, format
	// (Cf) nor U+FFFD: letters and digits of the common scripts.
	packVisible = [][2]rune{{'0', '9'}, {'A', 'Z'}, {'a', 'z'}, {0xc0, 0x24f}, {0x370, 0x3ff}, {0x400, 0x4ff},
		{0x5d0, 0x5ea}, {0x620, 0x64a}, {0x904, 0x939}, {0x3041, 0x30ff}, {0x4e00, 0x9fff}, {0xac00, 0xd7a3}}
)

// IrregularMemory is the SQL condition of an irregular memory, as the
// partial index mnemo_memories_pack_irregular_idx (migration 0016) holds it
// for dialect.
func IrregularMemory(dialect string) string {
	if dialect == DialectPostgres {
		return "(key ~ '" + regexClass(caseOrSpace) + "' OR category ~ '" + regexClass(caseOrSpace) +
			"' OR value !~ '" + regexClass(packVisible) + "')"
	}
	return "(key GLOB " + globClass(caseOrSpace) + " OR category GLOB " + globClass(caseOrSpace) +
		" OR value NOT GLOB " + globClass(packVisible) + ")"
}

// regexClass is a Postgres regular expression matching a text that holds
// a character of rs.
func regexClass(rs [][2]rune) string {
	var b strings.Builder
	b.WriteString("[")
	for _, r := range rs {
		fmt.Fprintf(&b, `\u%04x`, r[0])
		if r[1] != r[0] {
			fmt.Fprintf(&b, `-\u%04x`, r[1])
		}
	}
	b.WriteString("]")
	return b.String()
}

// globClass is a SQLite GLOB pattern, written with char() so that the
// statement shows no invisible character, matching a text that holds a
// character of rs.
func globClass(rs [][2]rune) string {
	var cps []string
	for _, r := range rs {
		cps = append(cps, strconv.Itoa(int(r[0])))
		if r[1] != r[0] {
			cps = append(cps, strconv.Itoa('-'), strconv.Itoa(int(r[1])))
		}
	}
	return "('*[' || char(" + strings.Join(cps, ", ") + ") || ']*')"
}

// wordPattern is a pattern that matches every text whose strings.ToLower
// contains w, but for the rare texts that hold a character lowered to an
// ASCII letter (İ to i, the Kelvin sign to k: foldsToASCII), which wild
// matches: a LIKE pattern, or on Postgres a regular expression to match
// case-insensitively (~*). In both, a character that another character
// than its ASCII upper case lowers to (é, from É) is any character, and so
// is one the pattern would read otherwise (a wildcard, punctuation in a
// regular expression); in wild, so is an ASCII letter that a character
// outside ASCII lowers to. wild is "" when it is pattern.
func wordPattern(w string, pg bool) (pattern, wild string) {
	var p, x strings.Builder
	anyChar, special := "_", func(r rune) bool { return r == '%' || r == '_' || r == '\\' }
	if pg {
		anyChar, special = ".", func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }
	} else {
		p.WriteString("%")
		x.WriteString("%")
	}
	for _, r := range w {
		switch {
		case special(r) || r == utf8.RuneError || r >= utf8.RuneSelf && lowered().from[r]:
			p.WriteString(anyChar)
			x.WriteString(anyChar)
		case lowered().from[r]:
			p.WriteRune(r)
			x.WriteString(anyChar)
		default:
			p.WriteRune(r)
			x.WriteRune(r)
		}
	}
	if !pg {
		p.WriteString("%")
		x.WriteString("%")
	}
	if x.String() == p.String() {
		return p.String(), ""
	}
	return p.String(), x.String()
}

// lowered is, computed once, what strings.ToLower makes of characters:
// from, the characters that a character other than themselves and their
// ASCII upper case lowers to (unicode.ToLower); toASCII, the characters
// outside ASCII that it lowers to an ASCII letter.
var lowered = sync.OnceValue(func() (l struct{ from, toASCII map[rune]bool }) {
	l.from, l.toASCII = map[rune]bool{}, map[rune]bool{}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		low := unicode.ToLower(r)
		if low == r || (r >= 'A' && r <= 'Z') {
			continue
		}
		l.from[low] = true
		if low < utf8.RuneSelf {
			l.toASCII[r] = true
		}
	}
	return l
})

// foldsToASCII is a pattern (GLOB on SQLite, a regular expression on
// Postgres) of a text that holds a character outside ASCII that
// strings.ToLower lowers to an ASCII letter.
func foldsToASCII(dialect string) string {
	var rs []rune
	for r := range lowered().toASCII {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	if dialect == DialectPostgres {
		var b strings.Builder
		for _, r := range rs {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		return "[" + b.String() + "]"
	}
	return "*[" + string(rs) + "]*"
}

// packSmallUser is how many active memories a user may have for
// ReadPackMemories to read them all with one short statement: below it
// that costs less than the bounded read's longer one (whose preparation,
// about a third of a millisecond on SQLite, is most of a small user's
// read).
const packSmallUser = 16

func (q queries) ReadPackMemories(ctx context.Context, userID string, pr PackRead) (PackRows, error) {
	// The user's first active memories by key: the order is that of the
	// index on (user_id, key), which the LIMIT then stops early (without
	// it, Postgres chose to walk another index of every user's memories
	// for the LIMIT, all of it for a user with fewer).
	all, err := queryAll(ctx, q, "SELECT "+packMemoryCols+" FROM mnemo_memories WHERE user_id = $1 AND status = '"+MemoryActive+
		"' ORDER BY key LIMIT "+strconv.Itoa(packSmallUser+1), []any{userID}, scanPackMemory)
	if err != nil {
		return PackRows{}, fmt.Errorf("read pack memories: %w", err)
	}
	if len(all) <= packSmallUser {
		// Every active memory: the ones not expired at Now (cut to
		// microseconds, which the stored times are, as packReadSQL), and
		// the lists made here, in the order the statement would make them.
		now := pr.Now.Truncate(time.Microsecond)
		small := []PackMemory{}
		for _, m := range all {
			if m.ExpiresAt == nil || m.ExpiresAt.After(now) {
				small = append(small, m)
			}
		}
		out := PackRows{Memories: small, Tops: make([][]string, len(pr.Tops)), Active: len(small)}
		byRank := slices.Clone(small)
		slices.SortFunc(byRank, func(a, b PackMemory) int {
			return cmp.Or(cmp.Compare(b.Importance, a.Importance), b.UpdatedAt.Compare(a.UpdatedAt))
		})
		for i, t := range pr.Tops {
			for _, m := range byRank {
				if len(out.Tops[i]) < t.Limit && (t.Category == "" || m.Category == t.Category) {
					out.Tops[i] = append(out.Tops[i], m.ID)
				}
			}
		}
		return out, nil
	}
	sql, args := packReadSQL(q.e.dialect(), userID, pr)
	r, err := q.e.query(ctx, sql, args...)
	if err != nil {
		return PackRows{}, fmt.Errorf("read pack memories: %w", err)
	}
	defer r.Close()
	out := PackRows{Memories: []PackMemory{}, Tops: make([][]string, len(pr.Tops))}
	seen := map[string]bool{}
	for r.Next() {
		var (
			tag        string
			m          PackMemory
			importance int64
		)
		if err := r.Scan(&tag, &m.ID, &m.Key, &m.Value, &m.Category, &importance, scanNullTime{&m.ExpiresAt},
			scanNullTime{&m.LastUsedAt}, scanTime{&m.UpdatedAt}, scanTime{&m.StatedAt}, &m.EventDate); err != nil {
			return PackRows{}, translate(err)
		}
		m.Importance = int(importance)
		if tag == "n" {
			out.Active = m.Importance
			continue
		}
		if tag[0] == 't' {
			i, _ := strconv.Atoi(tag[1:])
			out.Tops[i] = append(out.Tops[i], m.ID)
		}
		if !seen[m.ID] {
			seen[m.ID] = true
			out.Memories = append(out.Memories, m)
		}
	}
	if err := r.Err(); err != nil {
		return PackRows{}, fmt.Errorf("read pack memories: %w", err)
	}
	return out, nil
}

// packReadSQL is ReadPackMemories' statement for dialect, one part per
// kind of memory asked, each tagged, and its arguments.
func packReadSQL(dialect, userID string, pr PackRead) (string, []any) {
	pg := dialect == DialectPostgres
	// The databases hold microseconds: Now cut to them (not rounded, as a
	// driver might) leaves out what expired at or before Now, as Go's
	// !ExpiresAt.After(Now) does, whatever the nanoseconds.
	args := []any{userID, pr.Now.Truncate(time.Microsecond)}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	// Every part reads the user's active memories not expired at Now; the
	// status is a literal, so that the partial indexes serve it.
	from := " FROM mnemo_memories WHERE user_id = $1 AND status = '" + MemoryActive + "' AND (expires_at IS NULL OR expires_at > $2)"
	part := func(tag, where string) string {
		return "SELECT '" + tag + "' AS part, " + packMemoryCols + from + where
	}
	var parts []string
	if len(pr.Keys) > 0 {
		var in []string
		for _, k := range pr.Keys {
			in = append(in, arg(k))
		}
		parts = append(parts, part("k", " AND key IN ("+strings.Join(in, ", ")+")"))
	}
	for i, t := range pr.Tops {
		where := ""
		if t.Category != "" {
			where = " AND category = " + arg(t.Category)
		}
		parts = append(parts, "SELECT * FROM ("+part("t"+strconv.Itoa(i), where)+
			" ORDER BY importance DESC, updated_at DESC LIMIT "+strconv.Itoa(max(t.Limit, 0))+") AS t"+strconv.Itoa(i))
	}
	if !pr.UsedSince.IsZero() {
		parts = append(parts, part("u", " AND last_used_at >= "+arg(pr.UsedSince)))
	}
	parts = append(parts, part("i", " AND "+IrregularMemory(dialect)))
	if len(pr.Words) > 0 {
		// The exact patterns, then the wild ones for the texts that hold a
		// character lowered to an ASCII letter (checked once a row). On
		// Postgres one regular expression of them all, matched once a row
		// (ILIKE, a lower() of both texts at each call, took five times as
		// long).
		var exact, wild []string
		for _, w := range pr.Words {
			p, x := wordPattern(w, pg)
			exact = append(exact, p)
			if x != "" {
				wild = append(wild, x)
			}
		}
		var cond string
		if pg {
			text := "(value || chr(10) || key)"
			cond = text + " ~* " + arg(strings.Join(exact, "|"))
			if len(wild) > 0 {
				cond += " OR (" + text + " ~ " + arg(foldsToASCII(dialect)) + " AND " + text + " ~* " + arg(strings.Join(wild, "|")) + ")"
			}
		} else {
			var or []string
			for _, p := range exact {
				p := arg(p)
				or = append(or, "value LIKE "+p, "key LIKE "+p)
			}
			cond = strings.Join(or, " OR ")
			if len(wild) > 0 {
				f := arg(foldsToASCII(dialect))
				or = or[:0]
				for _, x := range wild {
					x := arg(x)
					or = append(or, "value LIKE "+x, "key LIKE "+x)
				}
				cond += " OR ((value GLOB " + f + " OR key GLOB " + f + ") AND (" + strings.Join(or, " OR ") + "))"
			}
		}
		parts = append(parts, part("w", " AND ("+cond+")"))
	}
	// The count comes last, as a row of its own.
	parts = append(parts, "SELECT 'n', '', '', '', '', count(*), NULL, NULL, NULL, NULL, ''"+from)
	return strings.Join(parts, " UNION ALL "), args
}
