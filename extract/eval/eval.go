// Package eval measures what the deterministic extractor remembers against
// annotated companion conversations: precision (stored memories a companion
// should keep), recall (what it should keep that was stored) and forbidden
// (stored memories it must never keep: distress, special categories, other
// people's facts, credentials). The sets and their schema are described in
// README.md beside this file; `go test ./extract/eval -run Report -v` prints
// the figures.
package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// Set is one annotated evaluation set: sessions of user turns, each with
// what a companion should remember from it and what it must not.
type Set struct {
	Name string `json:"name"`
	// App is the preset whose extractor the set is run through.
	App string `json:"app"`
	// Corpus, when set, is the corpus file (relative to the corpora
	// directory) the turns' text is read from; otherwise every turn carries
	// its Text.
	Corpus   string    `json:"corpus,omitempty"`
	About    string    `json:"about,omitempty"`
	Sessions []Session `json:"sessions"`
}

// Session is one conversation: a corpus persona's day, or a hand-written one.
type Session struct {
	Persona string `json:"persona"`
	Date    string `json:"date"` // YYYY-MM-DD
	Turns   []Turn `json:"turns"`
	// Replies are the companion's answers, by turn (read from the corpus;
	// empty for hand-written sets). They are assistant turns and must never
	// be mined.
	Replies []string `json:"-"`
}

// Turn is one user message and its annotation. A turn with neither Remember
// nor Forbid is annotated as one a companion keeps nothing from.
type Turn struct {
	Index int `json:"index"`
	// Starts is the first words of the corpus turn: loading checks the
	// corpus still says them.
	Starts   string   `json:"starts,omitempty"`
	Text     string   `json:"text,omitempty"`
	Remember []Gold   `json:"remember,omitempty"`
	Forbid   []Forbid `json:"forbid,omitempty"`
}

// Gold is one thing a companion should remember from a turn.
type Gold struct {
	Category string `json:"category"`
	// Subject, when set, must share a word with the memory (the thing of a
	// favorite, the relation of a family member, the species of a pet).
	Subject string `json:"subject,omitempty"`
	// Value lists alternatives; a memory matches when all content words of
	// one alternative are in its key or value.
	Value []string `json:"value"`
	// Optional items are fine to remember but not expected: they make a
	// stored memory correct and do not count towards recall (a walk in the
	// park; a feeling the same session later replaced).
	Optional bool `json:"optional,omitempty"`
}

// Forbid is one thing a companion must not remember from a turn.
type Forbid struct {
	// Class is one of Classes.
	Class string `json:"class"`
	// Any forbids every memory learnt from the turn.
	Any bool `json:"any,omitempty"`
	// Words are words or phrases no memory from the turn may say, in its key
	// or value.
	Words []string `json:"words,omitempty"`
	// Category, when set, restricts the item to memories of that category
	// ("my brother hates pizza" forbids dislikes of pizza, not likes).
	Category string `json:"category,omitempty"`
}

// The classes of must-nots.
const (
	ClassHarmful      = "harmful"        // distress, crisis, self-harm, abuse
	ClassSpecial      = "special"        // health, religion, politics, sexuality, ethnicity, union membership, biometrics
	ClassNotAboutUser = "not_about_user" // a fact about someone else, said beside the user's own
	ClassSensitive    = "sensitive"      // credentials, card and account numbers
	// ClassAssistant is no annotation: a memory mined from a companion's
	// reply is always forbidden.
	ClassAssistant = "assistant"
)

// Classes are the classes a Forbid may name.
var Classes = []string{ClassHarmful, ClassSpecial, ClassNotAboutUser, ClassSensitive}

// Load reads and checks a set.
func Load(path string) (*Set, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(path, raw)
}

// parse decodes and checks a set read from path.
func parse(path string, raw []byte) (*Set, error) {
	var s Set
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// Check reports every way the set is malformed: unknown categories and
// classes, empty values, turns out of order, a turn without text in a set
// that names no corpus.
func (s *Set) Check() error {
	var errs []error
	bad := func(where, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...)))
	}
	if s.Name == "" || s.App == "" {
		bad("set", "name and app are required")
	}
	if len(s.Sessions) == 0 {
		bad("set", "no sessions")
	}
	seen := map[string]bool{}
	for _, ses := range s.Sessions {
		id := ses.Persona + "/" + ses.Date
		if ses.Persona == "" {
			bad(id, "no persona")
		}
		if _, err := time.Parse(time.DateOnly, ses.Date); err != nil {
			bad(id, "date: %v", err)
		}
		if seen[id] {
			bad(id, "session twice")
		}
		seen[id] = true
		if len(ses.Turns) == 0 {
			bad(id, "no turns")
		}
		for i, t := range ses.Turns {
			where := fmt.Sprintf("%s#%d", id, t.Index)
			if t.Index != i {
				bad(where, "turn %d has index %d", i, t.Index)
			}
			if s.Corpus == "" && strings.TrimSpace(t.Text) == "" {
				bad(where, "no text (the set names no corpus)")
			}
			if s.Corpus != "" && t.Starts == "" {
				bad(where, "no starts (the first words of the corpus turn)")
			}
			for _, g := range t.Remember {
				if !slices.Contains(Categories, g.Category) {
					bad(where, "unknown category %q", g.Category)
				}
				if len(g.Value) == 0 {
					bad(where, "%s item without value", g.Category)
				}
				for _, v := range g.Value {
					if len(Tokens(v)) == 0 {
						bad(where, "%s value %q has no content word", g.Category, v)
					}
				}
			}
			for _, f := range t.Forbid {
				if !slices.Contains(Classes, f.Class) {
					bad(where, "unknown class %q", f.Class)
				}
				if f.Any == (len(f.Words) > 0) {
					bad(where, "%s item needs either any or words", f.Class)
				}
				for _, w := range f.Words {
					if len(Tokens(w)) == 0 {
						bad(where, "%s word %q has no content word", f.Class, w)
					}
				}
				if f.Category != "" && !slices.Contains(Categories, f.Category) {
					bad(where, "unknown category %q", f.Category)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// Turns is the number of annotated user turns.
func (s *Set) Turns() int {
	n := 0
	for _, ses := range s.Sessions {
		n += len(ses.Turns)
	}
	return n
}

// corpusFile is the layout of the MemoryBank corpus.
type corpusFile map[string]struct {
	History map[string][]struct {
		Query    string `json:"query"`
		Response string `json:"response"`
	} `json:"history"`
}

// Resolve reads the turns' text (and the companion's replies) from the
// corpus under dir, and checks that every annotated turn is there and starts
// with the words the annotation quotes. A set that names no corpus is left
// as it is.
func (s *Set) Resolve(dir string) error {
	if s.Corpus == "" {
		return nil
	}
	raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(s.Corpus)))
	if err != nil {
		return err
	}
	var c corpusFile
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("%s: %w", s.Corpus, err)
	}
	personas := map[string]string{}
	for p := range c {
		personas[strings.TrimSpace(p)] = p
	}
	var errs []error
	for si := range s.Sessions {
		ses := &s.Sessions[si]
		id := ses.Persona + "/" + ses.Date
		day, ok := c[personas[ses.Persona]].History[ses.Date]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: not in the corpus", id))
			continue
		}
		ses.Replies = make([]string, len(ses.Turns))
		for ti := range ses.Turns {
			t := &ses.Turns[ti]
			if t.Index >= len(day) {
				errs = append(errs, fmt.Errorf("%s#%d: the corpus has %d turns that day", id, t.Index, len(day)))
				continue
			}
			q := day[t.Index].Query
			if strings.Join(strings.Fields(q), " ") != t.Starts && !strings.HasPrefix(strings.Join(strings.Fields(q), " "), t.Starts+" ") {
				errs = append(errs, fmt.Errorf("%s#%d: the corpus turn starts %q, the annotation %q", id, t.Index, firstWords(q, 6), t.Starts))
			}
			t.Text = q
			ses.Replies[ti] = day[t.Index].Response
		}
	}
	return errors.Join(errs...)
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(n, len(f))], " ")
}

// TrapReply is the companion's reply after each turn of a set whose turns
// have none (hand-written sets). It states things about the companion that
// are no fact about the user: a memory mined from it is forbidden.
const TrapReply = "Thank you for telling me. I love talking with you, my name is Robin and my favorite color is blue."

// Stored is one memory the merge policy would write, or one thing an app
// keeps outside its memories (AppItems), with where it came from.
type Stored struct {
	Session string // persona/date
	// Turn is the user turn it was learnt from; TurnAssistant for an
	// assistant turn, TurnSession for an app item no one turn says.
	Turn  int
	Key   string
	Value string
}

// Where a stored memory came from when it is not one user turn.
const (
	TurnAssistant = -1 // a companion's reply: always forbidden
	TurnSession   = -2 // an app item (AppItems) no single user turn says
)

// Outcome is one set run through an app's extractor and merge policy.
type Outcome struct {
	Set        *Set
	Candidates int      // memories the extractor proposed
	Stored     []Stored // what the merge policy would write (per session, on an empty store)
	Spend      Spend
	// Ordinary counts the user turns annotated with no harmful content
	// (no forbid of class harmful), and Alarms those of them the risk
	// screen found the user's medium or high risk in (of them High with a
	// high one): the screen's false alarms on an app's ordinary talk, a set
	// none of its sources learned from.
	Ordinary, Alarms, High int
	// bySession holds the stored memories by session (persona/date).
	bySession map[string][]Stored
}

// countAlarms adds a session's ordinary turns and the screen's findings on
// them to o.
func (o *Outcome) countAlarms(ses Session, res extract.Result) {
	worst := map[string]string{}
	for _, r := range res.Risks {
		if r.Actor == extract.ActorUser && (r.Severity == extract.SeverityMedium || r.Severity == extract.SeverityHigh) &&
			worst[r.MessageID] != extract.SeverityHigh {
			worst[r.MessageID] = r.Severity
		}
	}
	for _, t := range ses.Turns {
		if slices.ContainsFunc(t.Forbid, func(f Forbid) bool { return f.Class == "harmful" }) {
			continue
		}
		o.Ordinary++
		switch worst[fmt.Sprintf("q%d", t.Index)] {
		case extract.SeverityHigh:
			o.Alarms++
			o.High++
		case extract.SeverityMedium:
			o.Alarms++
		}
	}
}

// Run runs every session of the set through app's deterministic extractor
// (extract.Rules) and merge policy (extract.Plan, each session against an
// empty store), as the extraction job would for a first session. Sessions
// start at 19:00 UTC on their date, in Asia/Shanghai, a turn a minute.
func Run(app *prompts.App, set *Set) Outcome {
	out, _ := RunWith(context.Background(), app, set, Options{}) // the rules never fail
	return out
}

// RunWith is Run with the extractor of opts (the rules, or a model).
func RunWith(ctx context.Context, app *prompts.App, set *Set, opts Options) (Outcome, error) {
	out := Outcome{Set: set, bySession: map[string][]Stored{}}
	for _, ses := range set.Sessions {
		id := ses.Persona + "/" + ses.Date
		day, _ := time.Parse(time.DateOnly, ses.Date)
		start := day.Add(19 * time.Hour)
		es := extract.Session{
			ID: set.Name + ":" + id, UserID: set.Name + ":" + ses.Persona, App: app.Name,
			StartedAt: start, Timezone: "Asia/Shanghai",
		}
		at := start
		turnOf := map[string]int{}
		for i, t := range ses.Turns {
			at = at.Add(time.Minute)
			uid := fmt.Sprintf("q%d", t.Index)
			turnOf[uid] = t.Index
			es.Messages = append(es.Messages, extract.Message{ID: uid, Role: "user", Content: t.Text, At: at})
			reply := TrapReply
			if i < len(ses.Replies) {
				reply = ses.Replies[i]
			}
			at = at.Add(time.Minute)
			rid := fmt.Sprintf("r%d", t.Index)
			turnOf[rid] = TurnAssistant
			es.Messages = append(es.Messages, extract.Message{ID: rid, Role: "assistant", Content: reply, At: at})
		}
		es.EndedAt = at.Add(time.Minute)
		ops, res, err := extractSession(ctx, app, es, opts, &out.Spend)
		if err != nil {
			return out, err
		}
		items := AppItems(app, res)
		out.Candidates += len(res.Memories) + len(items)
		out.countAlarms(ses, res)
		for _, op := range ops {
			turn, ok := turnOf[op.Memory.SourceMessageID]
			if !ok {
				turn = TurnAssistant
			}
			st := Stored{Session: id, Turn: turn, Key: op.Memory.Key, Value: op.Memory.Value}
			out.Stored = append(out.Stored, st)
			out.bySession[id] = append(out.bySession[id], st)
		}
		for _, it := range items {
			st := Stored{Session: id, Turn: sourceTurn(ses, it), Key: it.Key, Value: it.Value}
			out.Stored = append(out.Stored, st)
			out.bySession[id] = append(out.bySession[id], st)
		}
	}
	return out, nil
}

// Violation is a stored memory that breaks a must-not.
type Violation struct {
	Stored
	Class string
	Text  string // the user's turn, or the companion's reply
}

// Miss is a gold item nothing stored remembers.
type Miss struct {
	Session string
	Turn    int
	Gold    Gold
	Text    string
}

// Row is one category's figures.
type Row struct {
	Category  string
	Gold      int // expected (non-optional) gold items
	Recalled  int // of those, remembered by a stored memory of the session
	Stored    int // stored memories of the category (by key)
	Correct   int // of those, matching a gold item (optional ones too) of the session and breaking no must-not
	Forbidden int // of those, breaking a must-not of their turn
}

// Precision is Correct/Stored (1 when nothing was stored).
func (r Row) Precision() float64 { return ratio(r.Correct, r.Stored) }

// Recall is Recalled/Gold (1 when nothing was expected).
func (r Row) Recall() float64 { return ratio(r.Recalled, r.Gold) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// Score is an outcome measured against its annotations.
type Score struct {
	Set        string
	App        string
	Turns      int
	Candidates int
	Rows       []Row // per category, in Categories order, then other
	Total      Row
	Violations []Violation
	Misses     []Miss
	Wrong      []Stored // stored memories that match no gold item and break no must-not
}

// Measure scores an outcome. Matching is per session: a stored memory is
// correct when it matches a gold item of any turn of its session (a thing
// said twice is remembered once, from either turn), a gold item is recalled
// when a stored memory of its session matches it. Must-nots are per turn:
// they apply to the memories learnt from their own turn; every memory
// learnt from a companion reply breaks one.
func (o Outcome) Measure() Score {
	sc := Score{Set: o.Set.Name, App: o.Set.App, Turns: o.Set.Turns(), Candidates: o.Candidates}
	rows := map[string]*Row{}
	row := func(c string) *Row {
		if rows[c] == nil {
			rows[c] = &Row{Category: c}
		}
		return rows[c]
	}
	for _, ses := range o.Set.Sessions {
		id := ses.Persona + "/" + ses.Date
		stored := o.bySession[id]
		for _, t := range ses.Turns {
			for _, g := range t.Remember {
				if g.Optional {
					continue
				}
				r := row(g.Category)
				r.Gold++
				found := false
				for _, st := range stored {
					found = found || Matches(g, st.Key, st.Value)
				}
				if found {
					r.Recalled++
				} else {
					sc.Misses = append(sc.Misses, Miss{Session: id, Turn: t.Index, Gold: g, Text: t.Text})
				}
			}
		}
		for _, st := range stored {
			r := row(KeyCategory(st.Key))
			r.Stored++
			if st.Turn == TurnAssistant {
				r.Forbidden++
				sc.Violations = append(sc.Violations, Violation{Stored: st, Class: ClassAssistant})
				continue
			}
			// A memory is held to its own turn's must-nots; an app item no
			// one turn says, to the words (not the "any") of every turn's.
			turns := ses.Turns
			if st.Turn >= 0 {
				turns = turns[st.Turn : st.Turn+1]
			}
			violated, text := "", ""
			for _, t := range turns {
				for _, f := range t.Forbid {
					if violated == "" && (st.Turn >= 0 || !f.Any) && Violates(f, st.Key, st.Value) {
						violated, text = f.Class, t.Text
					}
				}
			}
			if violated != "" {
				r.Forbidden++
				sc.Violations = append(sc.Violations, Violation{Stored: st, Class: violated, Text: text})
				continue
			}
			ok := false
			for _, u := range ses.Turns {
				for _, g := range u.Remember {
					ok = ok || Matches(g, st.Key, st.Value)
				}
			}
			if ok {
				r.Correct++
			} else {
				sc.Wrong = append(sc.Wrong, st)
			}
		}
	}
	sc.Rows, sc.Total = ordered(rows)
	return sc
}

// add counts o into r.
func (r *Row) add(o Row) {
	r.Gold += o.Gold
	r.Recalled += o.Recalled
	r.Stored += o.Stored
	r.Correct += o.Correct
	r.Forbidden += o.Forbidden
}

// ordered is rows in Categories order (then other) and their total.
func ordered(rows map[string]*Row) ([]Row, Row) {
	var out []Row
	total := Row{Category: "all"}
	for _, c := range append(slices.Clone(Categories), CatOther) {
		if r := rows[c]; r != nil {
			out = append(out, *r)
			total.add(*r)
		}
	}
	return out, total
}
