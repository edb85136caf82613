package memory

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/store"
)

// Forgetting is what a user asked to forget at once: memories (their keys
// and values) and, for a category, every key of it.
type Forgetting struct {
	Memories []extract.Mention
	// Category is a category forgotten whole ("" for none): a key of the
	// vocabulary in it is named wherever it stands, stored or not.
	Category string
}

// names is whether a text names what f forgets; the values of rolling
// facts of its keys are added first (a session in progress said them, and
// no memory of them may be stored yet).
func (f Forgetting) names(rolling []map[string]any) func(string) bool {
	ms := append([]extract.Mention(nil), f.Memories...)
	subjects := map[string]bool{}
	for _, m := range ms {
		subjects[extract.Subject(m.Key)] = true
	}
	ofCategory := func(key string) bool {
		key = strings.ToLower(strings.TrimSpace(key))
		return f.Category != "" && extract.ValidKey(key) && extract.KeyCategory(key) == f.Category
	}
	for _, doc := range rolling {
		facts, _ := doc["facts"].([]any)
		for _, x := range facts {
			fact, _ := x.(map[string]any)
			key, _ := fact["key"].(string)
			value, _ := fact["value"].(string)
			if key != "" && (subjects[extract.Subject(key)] || ofCategory(key)) {
				ms = append(ms, extract.Mention{Key: key, Value: value})
			}
		}
	}
	named := extract.Names(ms)
	return func(s string) bool { return named(s) || ofCategory(s) }
}

// ForgetDerived takes what the user asked to forget out of every text
// Mnemo derived from their sessions, in tx: each session summary (every
// prompt version) and each rolling summary of a session in progress are
// rewritten without the list items, lines and facts that name it; a record
// or a cue that names it, in its key or field or anywhere in its data, is
// deleted whole, as the pack leaves it out (a record is a fold the next
// session starts again, a cue one statement).
//
// The rolling buffer itself is left as it is: forgetting a fact is not
// deleting the conversation it was said in, any more than it deletes a
// closed session's kept transcript; the turns go with the buffer's age or
// memory off. What the buffer says is not summarised again: the forget
// marker keeps the rolling summary job, and the extraction when the
// session closes, from bringing it back (statements made before it).
func ForgetDerived(ctx context.Context, tx store.Tx, userID string, f Forgetting) error {
	rolling, err := tx.ListRollingSummaries(ctx, userID)
	if err != nil {
		return err
	}
	docs := make([]map[string]any, len(rolling))
	for i, r := range rolling {
		_ = json.Unmarshal(r.Summary, &docs[i]) // a summary that is not an object names nothing
	}
	names := f.names(docs)
	for i, r := range rolling {
		if !extract.Unmention(docs[i], names) {
			continue
		}
		if r.Summary, err = json.Marshal(docs[i]); err != nil {
			return err
		}
		if err := tx.ReplaceRollingSummary(ctx, r); err != nil {
			return err
		}
	}
	sums, err := tx.ListSummaries(ctx, userID, math.MaxInt32)
	if err != nil {
		return err
	}
	for _, s := range sums {
		var doc map[string]any
		if json.Unmarshal(s.Data, &doc) != nil || !extract.Unmention(doc, names) {
			continue
		}
		if s.Data, err = json.Marshal(doc); err != nil {
			return err
		}
		if err := tx.UpsertSummary(ctx, s); err != nil {
			return err
		}
	}
	recs, err := tx.ListRecords(ctx, userID, nil)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if names(r.Key) || namesIn(r.Data, names) {
			if err := tx.DeleteRecord(ctx, store.RecordKey{UserID: userID, Type: r.Type, Key: r.Key}); err != nil {
				return err
			}
		}
	}
	cues, err := tx.ListCues(ctx, userID, false)
	if err != nil {
		return err
	}
	for _, c := range cues {
		if names(c.Field) || namesIn(c.Detail, names) {
			if err := tx.DeleteCue(ctx, userID, c.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// namesIn is whether any text in a JSON document names: a string of it
// (a value or an object's key) anywhere. A document that does not parse
// is read as its raw text.
func namesIn(raw json.RawMessage, names func(string) bool) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return len(raw) > 0 && names(string(raw))
	}
	var walk func(any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			return names(x)
		case []any:
			return slices.ContainsFunc(x, walk)
		case map[string]any:
			for k, e := range x {
				if names(k) || walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

// Forgotten are a user's forget markers as a reader of derived text needs
// them: what was forgotten, and when.
type Forgotten struct{ f Forgets }

// LoadForgotten reads the user's forget markers.
func LoadForgotten(ctx context.Context, q store.Querier, userID string) (Forgotten, error) {
	changes, err := q.ListMemoryChangesOf(ctx, userID, "forget")
	if err != nil {
		return Forgotten{}, err
	}
	hash, err := q.ForgetKeyHasher(ctx)
	if err != nil {
		return Forgotten{}, err
	}
	return Forgotten{FoldForgets(changes, hash)}, nil
}

// Empty reports whether the user forgot no memory.
func (g Forgotten) Empty() bool { return len(g.f.keys) == 0 && len(g.f.categories) == 0 }

// Since is whether a text written at or before at names a key the user
// forgot after it, or a key of a category they forgot after it. Values
// are not known here (a marker keeps none): the routes that forget rewrite
// what names them (ForgetDerived); this catches what was written before
// they did, or raced them.
//
// A marker keeps a keyed hash of the key, not its text (store.KeyHasher),
// so a text is searched the other way round: each key it holds, and each
// run of up to maxPhraseWords of its words under each forgotten key's
// category, is hashed and looked up.
func (g Forgotten) Since(at time.Time) func(string) bool {
	named := g.f.namesSince(at)
	return func(s string) bool {
		if named(s) {
			return true
		}
		key := strings.ToLower(strings.TrimSpace(s))
		if !extract.ValidKey(key) {
			return false
		}
		t, ok := g.f.categories[extract.KeyCategory(key)]
		return ok && t.After(at)
	}
}

// Memory is whether a memory of key and category said at at was
// forgotten since.
func (g Forgotten) Memory(key, category string, at time.Time) bool {
	return g.f.Forgot(extract.Memory{Key: key, Category: category, StatedAt: at})
}

// MemoryOff deletes what a session in progress keeps of a user who turned
// memory off: their buffered turns and rolling summaries.
func MemoryOff(ctx context.Context, tx store.Tx, userID string) error {
	_, err := tx.DeleteUserRolling(ctx, userID)
	return err
}

// ProfileForgotten is the memory id under which a profile's fresh start
// (DELETE) is recorded in the memory audit.
const ProfileForgotten = "profile"

// Forgets are the times a user asked to forget: one memory's key, a
// category, the profile. A statement made before it, in a session handed
// over late, is not remembered again. Keys are known by their hash alone
// (store.KeyHasher): a key is looked up by hashing it.
type Forgets struct {
	keys, categories map[string]time.Time // keys: by hashed key
	profile          time.Time
	hash             store.KeyHasher
}

// LoadForgets reads the user's forget markers in tx.
func LoadForgets(ctx context.Context, tx store.Tx, userID string) (Forgets, error) {
	changes, err := tx.ListMemoryChangesOf(ctx, userID, "forget")
	if err != nil {
		return Forgets{keys: map[string]time.Time{}, categories: map[string]time.Time{}}, err
	}
	hash, err := tx.ForgetKeyHasher(ctx)
	if err != nil {
		return Forgets{keys: map[string]time.Time{}, categories: map[string]time.Time{}}, err
	}
	return FoldForgets(changes, hash), nil
}

// FoldForgets are the forget markers among changes, whose keys hash
// hashed.
func FoldForgets(changes []store.MemoryChange, hash store.KeyHasher) Forgets {
	f := Forgets{keys: map[string]time.Time{}, categories: map[string]time.Time{}, hash: hash}
	later := func(m map[string]time.Time, k string, t time.Time) {
		if t.After(m[k]) {
			m[k] = t
		}
	}
	for _, c := range changes {
		if c.Action != "forget" {
			continue
		}
		switch cat, isCat := strings.CutPrefix(c.MemoryID, "category:"); {
		case c.Key != "":
			later(f.keys, hash(c.Key), c.At)
		case isCat:
			later(f.categories, cat, c.At)
		case c.MemoryID == ProfileForgotten && c.At.After(f.profile):
			f.profile = c.At
		}
	}
	return f
}

// Forgot reports whether c was said before the user forgot its key or category.
func (f Forgets) Forgot(c extract.Memory) bool {
	key := strings.TrimSpace(c.Key)
	if k, ok := extract.CanonicalKey(key); ok {
		key = k
	}
	t := f.keyTime(key)
	if cat := f.categories[strings.ToLower(strings.TrimSpace(c.Category))]; cat.After(t) {
		t = cat
	}
	return !t.IsZero() && c.StatedAt.Before(t)
}

// keyTime is when the user last forgot key's subject (under any key of it,
// extract.SubjectKeys); zero if never.
func (f Forgets) keyTime(key string) time.Time {
	var t time.Time
	if len(f.keys) == 0 {
		return t
	}
	for _, k := range extract.SubjectKeys(extract.Subject(key)) {
		if at := f.keys[f.hash(k)]; at.After(t) {
			t = at
		}
	}
	return t
}

// maxPhraseWords is the most words of a run of text looked up as a
// forgotten key's subject (a key's words after its category).
const maxPhraseWords = 6

// namesSince is whether a text names a key forgotten after at: the text
// whole as a key, a key written in it ("goal:quit_drinking"), or the words
// of a key's subject under a forgotten key's category ("quit drinking"),
// as extract.Names finds them when it has the keys.
func (f Forgets) namesSince(at time.Time) func(string) bool {
	forgot := func(key string) bool { return f.keyTime(key).After(at) }
	cats, some := map[string]bool{}, false
	for h, t := range f.keys {
		if t.After(at) {
			some = true
			if c := store.HashedKeyCategory(h); c != "" {
				cats[c] = true
			}
		}
	}
	if !some {
		return func(string) bool { return false }
	}
	isKeyRune := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == ':' }
	return func(text string) bool {
		lower := strings.ToLower(text)
		if forgot(strings.TrimSpace(lower)) {
			return true
		}
		for _, tok := range strings.FieldsFunc(lower, func(r rune) bool { return !isKeyRune(r) }) {
			tok = strings.Trim(tok, ":_")
			if strings.ContainsAny(tok, ":_") && forgot(tok) {
				return true
			}
		}
		if len(cats) == 0 {
			return false
		}
		var words []string
		for _, w := range strings.FieldsFunc(lower, func(r rune) bool { return unicode.IsSpace(r) || r == '_' }) {
			if w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }); w != "" {
				words = append(words, w)
			}
		}
		for i := range words {
			for n := 1; n <= maxPhraseWords && i+n <= len(words); n++ {
				phrase := strings.Join(words[i:i+n], "_")
				if utf8.RuneCountInString(phrase) <= 2 {
					continue
				}
				for c := range cats {
					if forgot(c + ":" + phrase) {
						return true
					}
				}
			}
		}
		return false
	}
}

// Profile is when the user last forgot their profile; zero if never.
func (f Forgets) Profile() time.Time { return f.profile }
