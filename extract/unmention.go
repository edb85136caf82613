package extract

import (
	"strings"
	"unicode"
)

// Mention is a memory a summary must no longer name: one extraction did
// not store, or one the user forgot. Value may be empty (a forget marker
// keeps the key only).
type Mention struct {
	Key, Value string
}

// Names reports whether text names one of ms: it holds a prefixed or
// compound key (any case), the item a prefixed key names ("bazzlefizz" of
// likes:bazzlefizz) or a value, each as whole words; or it is a plain key
// ("name", "feeling"). A plain key is not looked for inside free text: it
// says what, not who or which.
func Names(ms []Mention) func(text string) bool {
	plain := map[string]bool{}
	var keys, phrases []string
	for _, m := range ms {
		k := strings.ToLower(strings.TrimSpace(m.Key))
		switch {
		case k == "":
		case strings.ContainsAny(k, ":_"):
			keys = append(keys, k)
			if i := strings.IndexByte(k, ':'); i >= 0 && len([]rune(k[i+1:])) > 2 {
				phrases = append(phrases, keyWords(k))
			}
		default:
			plain[k] = true
		}
		if v := strings.Join(strings.Fields(strings.ToLower(m.Value)), " "); len([]rune(v)) > 1 {
			phrases = append(phrases, v)
		}
	}
	return func(text string) bool {
		lower := strings.ToLower(text)
		if plain[strings.TrimSpace(lower)] {
			return true
		}
		for _, k := range keys {
			if hasWord(lower, k) {
				return true
			}
		}
		if len(phrases) == 0 {
			return false
		}
		flat := strings.Join(strings.FieldsFunc(lower, func(r rune) bool { return unicode.IsSpace(r) || r == '_' }), " ")
		for _, p := range phrases {
			if hasWord(flat, p) {
				return true
			}
		}
		return false
	}
}

// hasWord reports whether s holds w with no letter or digit either side.
func hasWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before, after := j == 0, j+len(w) == len(s)
		if !before {
			r := lastRune(s[:j])
			before = !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}
		if !after {
			r := []rune(s[j+len(w):])[0]
			after = !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}
		if before && after {
			return true
		}
		i = j + 1
	}
}

func lastRune(s string) rune {
	r := []rune(s)
	return r[len(r)-1]
}

// Unmention takes out of a summary document every part that names: a list
// loses the items (an object in a list goes whole when any of it names),
// a text the lines, an object the fields whose text names. A count of
// "memories" at the top is lowered by the distinct memory keys taken out
// of its lists, so that it still counts the memories the summary names.
// It reports whether doc changed.
func Unmention(doc map[string]any, names func(string) bool) bool {
	if len(doc) == 0 {
		return false
	}
	keys := map[string]bool{}
	changed := false
	for k, v := range doc {
		if nv, ok := unmention(v, names, keys); ok {
			changed = true
			if nv == nil {
				delete(doc, k)
			} else {
				doc[k] = nv
			}
		}
	}
	if n, ok := doc["memories"].(float64); ok && len(keys) > 0 {
		doc["memories"] = max(0, n-float64(len(keys)))
	} else if n, ok := doc["memories"].(int); ok && len(keys) > 0 {
		doc["memories"] = max(0, n-len(keys))
	}
	return changed
}

// unmention is Unmention of one value: the value left (nil: nothing is)
// and whether it changed. keys collects the memory keys taken out of lists.
func unmention(v any, names func(string) bool, keys map[string]bool) (any, bool) {
	switch x := v.(type) {
	case string:
		if !names(x) {
			return v, false
		}
		lines := strings.Split(x, "\n")
		kept := lines[:0]
		for _, l := range lines {
			if !names(l) {
				kept = append(kept, l)
			}
		}
		if len(kept) == 0 || strings.TrimSpace(strings.Join(kept, "")) == "" {
			return nil, true
		}
		return strings.Join(kept, "\n"), true
	case []any:
		out := make([]any, 0, len(x))
		changed := false
		for _, it := range x {
			nv, ok := unmention(it, names, map[string]bool{})
			if !ok {
				out = append(out, it)
				continue
			}
			changed = true
			switch o := it.(type) {
			case string:
				if ValidKey(strings.TrimSpace(o)) {
					keys[strings.TrimSpace(o)] = true
				}
				if nv == nil {
					continue
				}
			case map[string]any:
				continue // an item that names goes whole
			}
			if nv != nil {
				out = append(out, nv)
			}
		}
		return out, changed
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return unmention(out, names, keys)
	case map[string]any:
		changed := false
		for k, e := range x {
			if nv, ok := unmention(e, names, keys); ok {
				changed = true
				if nv == nil {
					delete(x, k)
				} else {
					x[k] = nv
				}
			}
		}
		return x, changed
	}
	return v, false
}

// UnmentionDropped takes out of a summary the memories dropped, except
// where a memory kept shares the key or value (the summary names that one).
func UnmentionDropped(doc map[string]any, dropped []Mention, kept []Memory) {
	if len(dropped) == 0 || len(doc) == 0 {
		return
	}
	keys, values := map[string]bool{}, map[string]bool{}
	for _, m := range kept {
		keys[strings.ToLower(m.Key)] = true
		values[strings.ToLower(strings.TrimSpace(m.Value))] = true
	}
	var ms []Mention
	for _, d := range dropped {
		if keys[strings.ToLower(d.Key)] {
			d.Key = ""
		}
		if values[strings.ToLower(strings.TrimSpace(d.Value))] {
			d.Value = ""
		}
		if d.Key != "" || d.Value != "" {
			ms = append(ms, d)
		}
	}
	if len(ms) > 0 {
		Unmention(doc, Names(ms))
	}
}
