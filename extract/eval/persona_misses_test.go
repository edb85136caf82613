package eval

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/prompts"
)

var personaMisses = flag.String("eval.persona-misses", "", "TestPersonaMisses writes the persona lines no memory keeps, each with the speaker's lines that say most of its words and what was stored from them, to this file (a development aid)")

// TestPersonaMisses is a development aid: with -eval.persona-misses=FILE
// it lists every persona-chat line no memory keeps, with the turns of its
// speaker that share most of its content words and the memories stored
// from those turns, and then every stored memory that keeps no persona
// line, with its turn, so that misses and junk can be grouped by grammar.
// Without the flag it is skipped.
func TestPersonaMisses(t *testing.T) {
	if *personaMisses == "" {
		t.Skip("no -eval.persona-misses file")
	}
	dir := os.Getenv("MNEMO_CORPORA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpora")
	}
	chats, err := LoadPersonaChats(filepath.Join(dir, filepath.FromSlash(PersonaCorpus)))
	if err != nil {
		t.Skip(err)
	}
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	app := apps["mona"]
	sc, err := RunPersona(context.Background(), app, chats, Options{})
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ chat, speaker int }
	stored := map[key][]PersonaMemory{}
	kept := map[string]bool{}
	for _, m := range sc.Memories {
		k := key{m.Chat, m.Speaker}
		stored[k] = append(stored[k], m)
		for _, l := range m.Keeps {
			kept[fmt.Sprint(m.Chat, m.Speaker, l)] = true
		}
	}
	var b strings.Builder
	misses := 0
	// The ceiling: lines one turn of their speaker says enough of (as a
	// memory made of that turn's words would), and lines all the
	// speaker's turns together do.
	oneTurn, allTurns := 0, 0
	for _, c := range chats {
		for sp := range 2 {
			all := map[string]bool{}
			for _, cl := range c.Lines {
				if cl.Speaker == sp {
					for w := range tokenSet(cl.Text) {
						all[w] = true
					}
				}
			}
			for _, l := range c.Persona[sp] {
				lw := personaWords(l)
				if keeps(lw, all) {
					allTurns++
				}
				for _, cl := range c.Lines {
					if cl.Speaker == sp && keeps(lw, tokenSet(cl.Text)) {
						oneTurn++
						break
					}
				}
			}
		}
	}
	fmt.Fprintf(&b, "ceiling: %d of %d lines said by one turn of their speaker, %d by all their turns together\n", oneTurn, sc.Lines, allTurns)
	for _, c := range chats {
		for sp := range 2 {
			for _, l := range c.Persona[sp] {
				if kept[fmt.Sprint(c.Index, sp+1, l)] {
					continue
				}
				misses++
				lw := personaWords(l)
				fmt.Fprintf(&b, "MISS %d/%d %q %v\n", c.Index, sp+1, l, lw)
				best, bestN := []string{}, 0
				for _, cl := range c.Lines {
					if cl.Speaker != sp {
						continue
					}
					have := tokenSet(cl.Text)
					n := 0
					for _, w := range lw {
						if have[w] {
							n++
						}
					}
					switch {
					case n > bestN:
						best, bestN = []string{cl.Text}, n
					case n == bestN && n > 0:
						best = append(best, cl.Text)
					}
				}
				for _, s := range best {
					fmt.Fprintf(&b, "   turn(%d/%d): %s\n", bestN, len(lw), s)
					for _, m := range stored[key{c.Index, sp + 1}] {
						if m.Source == s {
							fmt.Fprintf(&b, "      stored %s = %q\n", m.Key, m.Value)
						}
					}
				}
			}
		}
	}
	fmt.Fprintf(&b, "\n%d misses\n\n", misses)
	for _, m := range sc.Memories {
		if len(m.Keeps) == 0 {
			fmt.Fprintf(&b, "UNMATCHED %d/%d %s = %q <- %s\n", m.Chat, m.Speaker, m.Key, m.Value, m.Source)
		}
	}
	if err := os.WriteFile(*personaMisses, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}
