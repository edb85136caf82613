// Command prose-experiment measures whether github.com/jdkato/prose/v2 (a
// pure-Go tokenizer, sentence segmenter, POS tagger and NE recogniser)
// should serve Mnemo's rules extractor for two problems of issue 23: values
// that are not complete noun phrases, and the tense of a fact. It prints
// the figures docs/nlp-decision.md quotes. Run it with run.sh beside it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	corpora := flag.String("corpora", "/work/shared/corpora", "directory of the shared corpora (synthetic-persona-chat/, memorybank/)")
	chats := flag.Int("chats", 0, "persona-chat conversations to score (0: all)")
	parts := flag.String("run", "values,tense,cost", "comma-separated parts to run: values, tense, cost")
	out := flag.String("out", "out", "directory for the change lists (created)")
	flag.Parse()
	want := map[string]bool{}
	for p := range strings.SplitSeq(*parts, ",") {
		want[strings.TrimSpace(p)] = true
	}
	ctx := context.Background()
	if want["cost"] {
		// First, while the process has loaded nothing: the model's load
		// time and resident memory.
		writeLoad(os.Stdout, measureLoad())
	}
	t := newTagger()
	if want["values"] {
		fmt.Println("\n== values (rules extractor, mona preset; prose tags on the source turn) ==")
		var runs []valueRun
		for _, m := range []mode{modeToday, modeTrim, modeChunk} {
			r, err := runValues(ctx, t, *corpora, *chats, m)
			if err != nil {
				fail(err)
			}
			runs = append(runs, r)
			if err := os.MkdirAll(*out, 0o755); err != nil {
				fail(err)
			}
			for _, flagged := range []bool{false, true} {
				name := "changes-"
				if flagged {
					name = "incomplete-"
				}
				f, err := os.Create(filepath.Join(*out, name+string(m)+".tsv"))
				if err != nil {
					fail(err)
				}
				writeChanges(f, r, flagged)
				if err := f.Close(); err != nil {
					fail(err)
				}
			}
		}
		writeValues(os.Stdout, runs)
		if err := writeLabels(os.Stdout, runs[1], "trim_labels.tsv"); err != nil {
			fail(err)
		}
	}
	if want["tense"] {
		fmt.Println("\n== tense (tense_sample.tsv, hand-labelled) ==")
		if err := runTense(os.Stdout, t, "tense_sample.tsv"); err != nil {
			fail(err)
		}
	}
	if want["cost"] {
		fmt.Println("\n== cost per session ==")
		if err := runCost(os.Stdout, *corpora); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "prose-experiment:", err)
	os.Exit(1)
}
