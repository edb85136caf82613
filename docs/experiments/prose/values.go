package main

import (
	"context"
	"fmt"
	"io"
	"os"
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
	Values     int      // memories with a user source whose value was checked
	Located    int      // of those, the value said word for word in its source
	Incomplete int      // values that are not complete phrases by prose's tags (after the mode)
	Changed    int      // values the mode rewrote
	Dropped    int      // values the mode dropped (only pronouns and determiners left)
	Examples   []change // the values the mode changed or dropped
	Flagged    []change // the values left incomplete by prose's tags
}

type change struct {
	Key, Before, After, Tags, Source string
}

// skipKey are keys whose values are not meant to be noun phrases: names,
// which the rules read word by word (extract.completeValue leaves them
// alone too), and clause- or adjective-valued categories (events, plans,
// goals, feelings: "went for a run", "excited").
func skipKey(k string) bool {
	if k == "name" || k == "nickname" {
		return true
	}
	for _, p := range []string{"event", "plan", "goal", "feeling"} {
		if k == p || strings.HasPrefix(k, p+":") || strings.HasPrefix(k, p+"_") {
			return true
		}
	}
	return false
}

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
				st.note(mem.Key, mem.Value, "", sp, text)
				continue
			}
			if !strings.EqualFold(v, mem.Value) {
				st.Changed++
				st.note(mem.Key, mem.Value, v, sp, text)
				mem.Key = rekey(mem.Key, v)
				mem.Value = v
				sp = t.find(text, v)
			}
			if incomplete(sp.toks[sp.i:sp.j]) {
				st.Incomplete++
				n := len(st.Examples)
				st.note(mem.Key, mem.Value, v, sp, text)
				st.Flagged = append(st.Flagged, st.Examples[n])
				st.Examples = st.Examples[:n]
			}
			kept = append(kept, mem)
		}
		res.Memories = kept
		return res, nil
	}
}

func (st *valueStats) note(key, before, after string, sp span, source string) {
	var tags []string
	for _, tok := range sp.toks[sp.i:sp.j] {
		tags = append(tags, tok.Text+"/"+tok.Tag)
	}
	if !sp.located {
		tags = append(tags, "(not located)")
	}
	st.Examples = append(st.Examples, change{key, before, after, strings.Join(tags, " "), source})
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

// writeChanges writes every change a mode made (or, flagged, every value
// left incomplete by prose's tags), tab-separated, for hand-checking.
func writeChanges(w io.Writer, r valueRun, flagged bool) {
	fmt.Fprintln(w, "corpus\tkey\tbefore\tafter\ttags\tsource")
	for _, set := range []struct {
		name string
		st   valueStats
	}{{"persona", r.PersonaStats}, {"memorybank", r.MemoryBankStat}} {
		list := set.st.Examples
		if flagged {
			list = set.st.Flagged
		}
		for _, c := range list {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", set.name, c.Key, c.Before, c.After, c.Tags, strings.ReplaceAll(c.Source, "\t", " "))
		}
	}
}

// writeLabels counts a mode's changes by their hand labels (a file of
// before, after, label lines): how many made a value better, worse or no
// different, and how many are not labelled (the rules changed since).
func writeLabels(w io.Writer, r valueRun, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	labels := map[[2]string]string{}
	for l := range strings.SplitSeq(string(raw), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != 3 {
			return fmt.Errorf("%s: bad line %q", path, l)
		}
		labels[[2]string{f[0], f[1]}] = f[2]
	}
	n := map[string]int{}
	for _, st := range []valueStats{r.PersonaStats, r.MemoryBankStat} {
		for _, c := range st.Examples {
			l := labels[[2]string{c.Before, c.After}]
			if l == "" {
				l = "unlabelled"
			}
			n[l]++
		}
	}
	fmt.Fprintf(w, "%s changes by hand label (%s): better %d, same %d, worse %d, unlabelled %d\n",
		r.Mode, path, n["better"], n["same"], n["worse"], n["unlabelled"])
	return nil
}
