package eval

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// PersonaCorpus is the Synthetic-Persona-Chat validation split, relative to
// the corpora directory (CC BY 4.0; see its README there).
const PersonaCorpus = "synthetic-persona-chat/Synthetic-Persona-Chat_valid.csv"

// PersonaThreshold is the share of a persona line's content words a memory
// must say for it to keep the line (see README.md, "Persona chat").
const PersonaThreshold = 0.5

// PersonaSampleSize is how many stored memories PersonaScore.Sample holds
// for hand-checking precision.
const PersonaSampleSize = 200

// PersonaChat is one two-person conversation: each speaker's persona lines
// (the gold facts about them) and the lines they said, in order.
type PersonaChat struct {
	Index   int         // row in the corpus, from 0
	Persona [2][]string // speaker 0 is "User 1", speaker 1 "User 2"
	Lines   []PersonaLine
}

// PersonaLine is one line of a conversation.
type PersonaLine struct {
	Speaker int
	Text    string
}

// speakerLine is a conversation line's speaker prefix, with the markdown
// emphasis some rows put around it ("*User 1:* Hi").
var speakerLine = regexp.MustCompile(`^[*\s]*User\s*([12])[*\s]*:[*\s]*(.*)$`)

// LoadPersonaChats reads the corpus's CSV: columns "user 1 personas",
// "user 2 personas" and "Best Generated Conversation" (lines "User 1: …",
// "User 2: …"; a line with neither prefix continues the one before, a line
// of only asterisks is left out).
func LoadPersonaChats(path string) ([]PersonaChat, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))] = i
	}
	need := []string{"user 1 personas", "user 2 personas", "Best Generated Conversation"}
	for _, n := range need {
		if _, ok := col[n]; !ok {
			return nil, fmt.Errorf("%s: no column %q", path, n)
		}
	}
	var chats []PersonaChat
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		c := PersonaChat{Index: len(chats)}
		for sp, n := range need[:2] {
			for l := range strings.SplitSeq(rec[col[n]], "\n") {
				if l = strings.TrimSpace(l); l != "" {
					c.Persona[sp] = append(c.Persona[sp], l)
				}
			}
		}
		for l := range strings.SplitSeq(rec[col[need[2]]], "\n") {
			l = strings.TrimSpace(l)
			if m := speakerLine.FindStringSubmatch(l); m != nil {
				c.Lines = append(c.Lines, PersonaLine{int(m[1][0] - '1'), strings.TrimSpace(m[2])})
			} else if strings.Trim(l, "* ") != "" && len(c.Lines) > 0 {
				c.Lines[len(c.Lines)-1].Text += " " + l
			}
		}
		if len(c.Persona[0]) == 0 || len(c.Persona[1]) == 0 || len(c.Lines) == 0 {
			return nil, fmt.Errorf("%s: row %d: a persona or the conversation is empty", path, c.Index+1)
		}
		chats = append(chats, c)
	}
	if len(chats) == 0 {
		return nil, fmt.Errorf("%s: no conversations", path)
	}
	return chats, nil
}

// personaStop are words that say how a persona line is phrased, not what it
// is about: "I love to bake" and likes:baking meet on "bake".
var personaStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`like love enjoy have has had am are do does did can could will would
		im ive dont also lot lots big fan just all just much many been get got go goe
		favorit favourit thing things time every one who what where when which but or as from
		not no out up all our we you your he she they them their his her its myself`) {
		for _, t := range Tokens(w) {
			personaStop[t] = true
		}
	}
}

// personaWords are a text's content words for persona matching: Tokens
// without personaStop, each once.
func personaWords(text string) []string {
	var out []string
	ts := Tokens(text)
	aged := ageLine(ts)
	for _, w := range ts {
		if aged && (w == "year" || w == "old") {
			continue // "I am 12 years old" is about 12: every age says "years old"
		}
		if !personaStop[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// ageLine reports whether tokens state an age: a number, then "year" and
// "old".
func ageLine(ts []string) bool {
	for i := 0; i+2 < len(ts); i++ {
		if (numberToken(ts[i])) && ts[i+1] == "year" && ts[i+2] == "old" {
			return true
		}
	}
	return false
}

// numberToken reports whether a token is a number, in digits or words.
func numberToken(t string) bool {
	if t != "" && t[0] >= '0' && t[0] <= '9' {
		return true
	}
	return ageNumbers[t]
}

var ageNumbers = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred") {
		for _, t := range Tokens(w) {
			m[t] = true
		}
	}
	return m
}()

// KeepsPersona reports whether a stored memory (key, value) keeps a persona
// line: its key (without the category prefix) and value say at least
// PersonaThreshold of the line's content words (stemmed, stopwords and
// phrasing words left out), and at least one.
func KeepsPersona(line, key, value string) bool {
	return keeps(personaWords(line), memoryWords(key, value))
}

// memoryWords are the words a memory says for persona matching: its key
// after the category prefix ("pet:" of pet:dog, all of lives_in) and its
// value. The prefix names a category, not a fact: pet:dog must not keep "I
// have a pet turtle".
func memoryWords(key, value string) map[string]bool {
	k := strings.ToLower(strings.TrimSpace(key))
	for _, p := range keyPrefixes {
		if strings.HasPrefix(k, p.prefix) {
			k = k[len(p.prefix):]
			break
		}
	}
	have := tokenSet(k, value)
	if ageLine(Tokens(value)) {
		delete(have, "year") // an age says its number; see personaWords
		delete(have, "old")
	}
	return have
}

func keeps(line []string, have map[string]bool) bool {
	if len(line) == 0 {
		return false
	}
	n := 0
	for _, w := range line {
		if have[w] {
			n++
		}
	}
	return n > 0 && float64(n) >= PersonaThreshold*float64(len(line))
}

// PersonaMemory is one memory stored for a speaker, with what it keeps.
type PersonaMemory struct {
	Chat    int    `json:"chat"`
	Speaker int    `json:"speaker"` // 1 or 2, as the corpus names them
	Key     string `json:"key"`
	Value   string `json:"value"`
	// Source is the line the memory was learnt from; FromOther says it was
	// the other speaker's (an assistant turn).
	Source    string `json:"source"`
	FromOther bool   `json:"from_other,omitempty"`
	// Keeps are the speaker's persona lines the memory keeps; OtherKeeps
	// the other speaker's.
	Keeps      []string `json:"keeps"`
	OtherKeeps []string `json:"other_keeps,omitempty"`
	// Echo says the memory keeps only the other speaker's persona but this
	// speaker said its words too ("I love dogs too"): theirs as well, not a
	// wrong attribution.
	Echo bool `json:"echo,omitempty"`
	// Persona is the speaker's persona, for the hand-checker.
	Persona []string `json:"persona"`
	// Special is the special category the memory's key or value holds.
	Special string `json:"special,omitempty"`
	// Correct is for the hand-checker: true when the memory is a fact about
	// the speaker that a companion should keep, worded as a usable value.
	Correct *bool `json:"correct"`
}

// WrongSpeaker reports whether the memory was learnt from the other
// speaker's line, or keeps only the other speaker's persona in words this
// speaker never said.
func (m PersonaMemory) WrongSpeaker() bool {
	return m.FromOther || (len(m.Keeps) == 0 && len(m.OtherKeeps) > 0 && !m.Echo)
}

// PersonaRow is one stored category's figures.
type PersonaRow struct {
	Category string `json:"category"`
	Stored   int    `json:"stored"`
	Matched  int    `json:"matched"` // keep a persona line of their speaker
	Wrong    int    `json:"wrong_speaker"`
	Echo     int    `json:"echo"` // keep only the other's persona, in this speaker's own words
}

// PersonaScore is the persona-chat set scored.
type PersonaScore struct {
	Set      string `json:"set"`
	App      string `json:"app"`
	Chats    int    `json:"chats"`
	Sessions int    `json:"sessions"`
	// Lines are the persona lines (gold facts), Kept those a memory of
	// their speaker keeps.
	Lines int `json:"persona_lines"`
	Kept  int `json:"persona_kept"`
	// StatedLines are the persona lines one user turn of their speaker
	// says (holds at least PersonaThreshold of the line's content words:
	// what a memory made of that turn's words could keep); StatedKept
	// those a memory keeps. Most persona lines are never said in the chat,
	// so StatedRecall, not Recall, says how much of what users say of
	// themselves is kept.
	StatedLines int `json:"persona_stated_lines"`
	StatedKept  int `json:"persona_stated_kept"`
	// SpecialLines are persona lines of a special category
	// (extract.SpecialCategory); SpecialKept those a memory keeps: a
	// companion under the default preset's policy must keep none.
	SpecialLines int          `json:"special_lines"`
	SpecialKept  int          `json:"special_kept"`
	Rows         []PersonaRow `json:"categories"`
	Total        PersonaRow   `json:"total"`
	// SpecialStored are memories whose key or value holds a special
	// category.
	SpecialStored int `json:"special_stored"`
	// Forbidden are memories learnt from the other speaker's line or
	// holding a special category.
	Forbidden int   `json:"forbidden"`
	Spend     Spend `json:"spend"`
	// Memories are every stored memory, in corpus order.
	Memories []PersonaMemory `json:"-"`
}

// Recall is Kept/Lines.
func (s PersonaScore) Recall() float64 { return ratio(s.Kept, s.Lines) }

// StatedRecall is StatedKept/StatedLines: the share of the persona lines a
// user states in one turn that a memory keeps.
func (s PersonaScore) StatedRecall() float64 { return ratio(s.StatedKept, s.StatedLines) }

// statedBy reports whether one of a speaker's lines (their token sets)
// says the persona line of words lw.
func statedBy(lines []map[string]bool, lw []string) bool {
	for _, l := range lines {
		if keeps(lw, l) {
			return true
		}
	}
	return false
}

// MatchedShare is the share of stored memories that keep a persona line of
// their speaker: a floor for precision (a chat says more than the persona).
func (s PersonaScore) MatchedShare() float64 { return ratio(s.Total.Matched, s.Total.Stored) }

// WrongShare is the share of stored memories attributed to the wrong
// speaker.
func (s PersonaScore) WrongShare() float64 { return ratio(s.Total.Wrong, s.Total.Stored) }

// personaStart is when every persona-chat session starts (the corpus has no
// dates); a line a minute.
var personaStart = time.Date(2024, 3, 1, 19, 0, 0, 0, time.UTC)

// RunPersona runs each conversation as two sessions, one per speaker (that
// speaker's lines as user turns, the other's as assistant turns), through
// the extractor of opts and app's merge policy (each session against an
// empty store), and scores the memories against the personas.
func RunPersona(ctx context.Context, app *prompts.App, chats []PersonaChat, opts Options) (PersonaScore, error) {
	sc := PersonaScore{Set: "persona-chat", App: app.Name, Chats: len(chats)}
	rows := map[string]*PersonaRow{}
	for _, c := range chats {
		words := [2][][]string{}
		said := [2][]map[string]bool{} // each speaker's lines, as token sets
		for sp := range 2 {
			for _, l := range c.Persona[sp] {
				words[sp] = append(words[sp], personaWords(l))
			}
		}
		for _, l := range c.Lines {
			if l.Speaker == 0 || l.Speaker == 1 {
				said[l.Speaker] = append(said[l.Speaker], tokenSet(l.Text))
			}
		}
		for sp := range 2 {
			es := extract.Session{
				ID:     fmt.Sprintf("persona-chat:%d:%d", c.Index, sp+1),
				UserID: fmt.Sprintf("persona-chat:%d:%d", c.Index, sp+1), App: app.Name,
				StartedAt: personaStart, Timezone: "UTC",
			}
			at := personaStart
			text := map[string]PersonaLine{}
			for i, l := range c.Lines {
				at = at.Add(time.Minute)
				role := "assistant"
				if l.Speaker == sp {
					role = "user"
				}
				id := fmt.Sprintf("m%d", i)
				text[id] = l
				es.Messages = append(es.Messages, extract.Message{ID: id, Role: role, Content: l.Text, At: at})
			}
			es.EndedAt = at.Add(time.Minute)
			ops, _, err := extractSession(ctx, app, es, opts, &sc.Spend)
			if err != nil {
				return sc, err
			}
			sc.Sessions++
			kept := make([]bool, len(c.Persona[sp]))
			for _, op := range ops {
				src := text[op.Memory.SourceMessageID]
				m := PersonaMemory{Chat: c.Index, Speaker: sp + 1, Key: op.Memory.Key, Value: op.Memory.Value,
					Source: src.Text, FromOther: src.Speaker != sp || src.Text == "", Persona: c.Persona[sp], Keeps: []string{}}
				have := memoryWords(m.Key, m.Value)
				for i, w := range words[sp] {
					if keeps(w, have) {
						m.Keeps = append(m.Keeps, c.Persona[sp][i])
						kept[i] = true
					}
				}
				for i, w := range words[1-sp] {
					if keeps(w, have) {
						m.OtherKeeps = append(m.OtherKeeps, c.Persona[1-sp][i])
					}
				}
				if len(m.Keeps) == 0 && len(m.OtherKeeps) > 0 {
					m.Echo = saidBy(es.Messages, have)
				}
				m.Special, _ = extract.SpecialCategory(m.Key + " " + m.Value)
				cat := KeyCategory(m.Key)
				if rows[cat] == nil {
					rows[cat] = &PersonaRow{Category: cat}
				}
				r := rows[cat]
				r.Stored++
				if len(m.Keeps) > 0 {
					r.Matched++
				}
				if m.WrongSpeaker() {
					r.Wrong++
				}
				if m.Echo {
					r.Echo++
				}
				if m.FromOther || m.Special != "" {
					sc.Forbidden++
				}
				if m.Special != "" {
					sc.SpecialStored++
				}
				sc.Memories = append(sc.Memories, m)
			}
			for i, l := range c.Persona[sp] {
				sc.Lines++
				_, special := extract.SpecialCategory(l)
				if special {
					sc.SpecialLines++
				}
				stated := statedBy(said[sp], words[sp][i])
				if stated {
					sc.StatedLines++
				}
				if kept[i] {
					sc.Kept++
					if stated {
						sc.StatedKept++
					}
					if special {
						sc.SpecialKept++
					}
				}
			}
		}
	}
	sc.Total = PersonaRow{Category: "all"}
	for _, c := range append(slices.Clone(Categories), CatOther) {
		if r := rows[c]; r != nil {
			sc.Rows = append(sc.Rows, *r)
			sc.Total.Stored += r.Stored
			sc.Total.Matched += r.Matched
			sc.Total.Wrong += r.Wrong
			sc.Total.Echo += r.Echo
		}
	}
	return sc, nil
}

// saidBy reports whether one of the session's user lines says every word
// of a memory.
func saidBy(msgs []extract.Message, words map[string]bool) bool {
	if len(words) == 0 {
		return false
	}
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		line := tokenSet(m.Content)
		all := true
		for w := range words {
			all = all && line[w]
		}
		if all {
			return true
		}
	}
	return false
}

// Sample is a deterministic random sample of n stored memories (all of
// them when fewer), in corpus order, for hand-checking precision: the same
// memories give the same sample.
func (s PersonaScore) Sample(n int) []PersonaMemory {
	r := rand.New(rand.NewPCG(23, 200))
	idx := r.Perm(len(s.Memories))
	idx = idx[:min(n, len(idx))]
	slices.Sort(idx)
	out := make([]PersonaMemory, len(idx))
	for i, j := range idx {
		out[i] = s.Memories[j]
	}
	return out
}

// WriteSample writes Sample(n) as indented JSON.
func (s PersonaScore) WriteSample(w io.Writer, n int) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s.Sample(n))
}

// WritePersonaTable prints the persona-chat figures.
func WritePersonaTable(w io.Writer, s PersonaScore) {
	fmt.Fprintf(w, "%s (app %s): %d chats, %d sessions, %d stored: persona recall %.2f (%d of %d lines), of the lines a user turn states %.3f (%d of %d), persona-matched %.2f, wrong speaker %.3f (%d; echoes %d), special lines kept %d of %d, special stored %d, forbidden %d\n",
		s.Set, s.App, s.Chats, s.Sessions, s.Total.Stored, s.Recall(), s.Kept, s.Lines, s.StatedRecall(), s.StatedKept, s.StatedLines, s.MatchedShare(), s.WrongShare(), s.Total.Wrong, s.Total.Echo,
		s.SpecialKept, s.SpecialLines, s.SpecialStored, s.Forbidden)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "category\tstored\tmatched\tshare\twrong speaker\techo\t")
	for _, r := range append(slices.Clone(s.Rows), s.Total) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%d\t\n", r.Category, r.Stored, r.Matched, fig(r.Stored, ratio(r.Matched, r.Stored)), r.Wrong, r.Echo)
	}
	tw.Flush()
}
