package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/eval"
	"github.com/mnemo-ai/mnemo/prompts"
)

// mode is what happens to a rules value.
type mode string

const (
	modeToday mode = "today" // extract.Rules as it is
	modeTrim  mode = "trim"  // + trimValue (prose tags, conservative)
	modeChunk mode = "chunk" // + chunkValue (prose tags, NP chunk of the head)
)

// valueStats counts what a mode did to the rules' values.
type valueStats struct {
	Values     int // memories with a user source whose value was checked
	Located    int // of those, the value said word for word in its source
	Incomplete int // values that are not complete phrases by prose's tags (after the mode)
	Changed    int // values the mode rewrote
	Dropped    int // values the mode dropped (nothing nominal left)
	Examples   []change
}

type change struct {
	Key, Before, After, Source string
}

// skipKey are keys whose values the rules read word by word (names), left
// alone as extract.completeValue leaves them.
func skipKey(k string) bool { return k == "name" || k == "nickname" }

// valueExtractor is extract.Rules with each value passed through the mode's
// prose-based rewrite, counting what changed.
func valueExtractor(t *tagger, m mode, st *valueStats) eval.Extractor {
	return func(_ context.Context, app *prompts.App, s extract.Session, now time.Time) (extract.Result, error) {
		res := extract.Rules(app, s, now)
		src := map[string]string{}
		for _, msg := range s.Messages {
			if msg.Role == "user" {
				src[msg.ID] = msg.Content
			}
		}
		kept := res.Memories[:0]
		for _, mem := range res.Memories {
			text, ok := src[mem.SourceMessageID]
			if !ok || skipKey(mem.Key) {
				kept = append(kept, mem)
				continue
			}
			st.Values++
			sp := t.find(text, mem.Value)
			if sp.located {
				st.Located++
			}
			v := mem.Value
			switch m {
			case modeTrim:
				v = trimValue(sp)
			case modeChunk:
				v = chunkValue(sp)
			}
			if v == "" {
				st.Dropped++
				st.note(mem.Key, mem.Value, "", text)
				continue
			}
			if !strings.EqualFold(v, mem.Value) {
				st.Changed++
				st.note(mem.Key, mem.Value, v, text)
				mem.Key = rekey(mem.Key, v)
				mem.Value = v
				sp = t.find(text, v)
			}
			if incomplete(sp.toks[sp.i:sp.j]) {
				st.Incomplete++
			}
			kept = append(kept, mem)
		}
		res.Memories = kept
		return res, nil
	}
}

func (st *valueStats) note(key, before, after, source string) {
	st.Examples = append(st.Examples, change{key, before, after, source})
}

// rekey keys a like or dislike by its new value, as extract.completeValue
// does for a value it cut.
func rekey(key, value string) string {
	for _, p := range []string{"likes:", "dislikes:"} {
		if strings.HasPrefix(key, p) {
			var b strings.Builder
			under := false
			for _, r := range strings.ToLower(value) {
				switch {
				case r == '\'':
				case unicode.IsLetter(r) || unicode.IsDigit(r):
					b.WriteRune(r)
					under = false
				case !under && b.Len() > 0:
					b.WriteByte('_')
					under = true
				}
			}
			if k, ok := extract.CanonicalKey(p + strings.Trim(b.String(), "_")); ok {
				return k
			}
		}
	}
	return key
}

// valueRun is one mode's figures on both corpora.
type valueRun struct {
	Mode           mode
	Persona        eval.PersonaScore
	PersonaStats   valueStats
	MemoryBank     eval.Score
	MemoryBankStat valueStats
}

func runValues(ctx context.Context, t *tagger, corpora string, chats int, m mode) (valueRun, error) {
	r := valueRun{Mode: m}
	apps, err := prompts.Builtin()
	if err != nil {
		return r, err
	}
	mona := apps["mona"]
	all, err := eval.LoadPersonaChats(corpora + "/" + eval.PersonaCorpus)
	if err != nil {
		return r, err
	}
	if chats > 0 && chats < len(all) {
		all = all[:chats]
	}
	r.Persona, err = eval.RunPersona(ctx, mona, all, eval.Options{Extract: valueExtractor(t, m, &r.PersonaStats)})
	if err != nil {
		return r, err
	}
	set, err := eval.LoadShipped("memorybank")
	if err != nil {
		return r, err
	}
	if err := set.Resolve(corpora); err != nil {
		return r, err
	}
	out, err := eval.RunWith(ctx, apps[set.App], set, eval.Options{Extract: valueExtractor(t, m, &r.MemoryBankStat)})
	if err != nil {
		return r, err
	}
	r.MemoryBank = out.Measure()
	return r, nil
}

func writeValues(w io.Writer, runs []valueRun) {
	fmt.Fprintln(w, "mode   | persona: stored  recall  matched  incomplete/checked (located)  changed dropped | memorybank: stored  P     R     incomplete/checked changed dropped")
	for _, r := range runs {
		p, ps, mb, ms := r.Persona, r.PersonaStats, r.MemoryBank, r.MemoryBankStat
		fmt.Fprintf(w, "%-6s | %6d  %.3f   %.3f    %4d/%4d (%4d)  %5d %5d | %5d  %.3f %.3f  %3d/%3d  %3d %3d\n",
			r.Mode, p.Total.Stored, p.Recall(), p.MatchedShare(), ps.Incomplete, ps.Values, ps.Located, ps.Changed, ps.Dropped,
			mb.Total.Stored, mb.Total.Precision(), mb.Total.Recall(), ms.Incomplete, ms.Values, ms.Changed, ms.Dropped)
	}
}

// writeChanges writes every change a mode made, tab-separated, for
// hand-checking.
func writeChanges(w io.Writer, r valueRun) {
	fmt.Fprintln(w, "corpus\tkey\tbefore\tafter\tsource")
	for _, set := range []struct {
		name string
		st   valueStats
	}{{"persona", r.PersonaStats}, {"memorybank", r.MemoryBankStat}} {
		for _, c := range set.st.Examples {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", set.name, c.Key, c.Before, c.After, strings.ReplaceAll(c.Source, "\t", " "))
		}
	}
}
