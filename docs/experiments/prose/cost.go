package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jdkato/prose/v2"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/eval"
	"github.com/mnemo-ai/mnemo/prompts"
)

// costChats is how many persona-chat conversations the cost benchmarks run
// (two sessions each, one per speaker).
const costChats = 200

// loadFigures are the one-off costs of prose's models.
type loadFigures struct {
	TagLoad, FullLoad, SegLoad time.Duration
	// Resident and heap memory (MiB) before loading, with the tagger
	// model held, and with the tagger and NER model held.
	RSS0, RSSTag, RSSFull    float64
	Heap0, HeapTag, HeapFull float64
}

// rssMiB is the process's resident set size from /proc/self/status (0
// where there is none).
func rssMiB() float64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(raw), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func heapMiB() float64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapInuse) / (1 << 20)
}

func measureLoad() loadFigures {
	var f loadFigures
	f.Heap0, f.RSS0 = heapMiB(), rssMiB()
	start := time.Now()
	tagDoc, _ := prose.NewDocument("x", prose.WithSegmentation(false), prose.WithExtraction(false))
	f.TagLoad = time.Since(start)
	f.HeapTag, f.RSSTag = heapMiB(), rssMiB()
	start = time.Now()
	fullDoc, _ := prose.NewDocument("x", prose.WithSegmentation(false))
	f.FullLoad = time.Since(start)
	f.HeapFull, f.RSSFull = heapMiB(), rssMiB()
	start = time.Now()
	_, _ = prose.NewDocument("x", prose.WithTagging(false), prose.WithExtraction(false))
	f.SegLoad = time.Since(start)
	runtime.KeepAlive(tagDoc)
	runtime.KeepAlive(fullDoc)
	return f
}

func writeLoad(w io.Writer, f loadFigures) {
	fmt.Fprintln(w, "== one-off model load (first NewDocument in a fresh process) ==")
	fmt.Fprintf(w, "tagger model load        %6.0f ms  heap %+.1f MiB  RSS %+.1f MiB (RSS %.1f → %.1f MiB)\n",
		ms(f.TagLoad), f.HeapTag-f.Heap0, f.RSSTag-f.RSS0, f.RSS0, f.RSSTag)
	fmt.Fprintf(w, "tagger+NER model load    %6.0f ms  heap %+.1f MiB  RSS %+.1f MiB (both held: RSS %.1f MiB)\n",
		ms(f.FullLoad), f.HeapFull-f.HeapTag, f.RSSFull-f.RSSTag, f.RSSFull)
	fmt.Fprintf(w, "segmenter (punkt) load   %6.0f ms  (paid again on every NewDocument with segmentation)\n", ms(f.SegLoad))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// costSessions are the persona-chat sessions the benchmarks run, built as
// eval.RunPersona builds them.
func costSessions(corpora string) ([]extract.Session, error) {
	chats, err := eval.LoadPersonaChats(corpora + "/" + eval.PersonaCorpus)
	if err != nil {
		return nil, err
	}
	chats = chats[:min(costChats, len(chats))]
	start := time.Date(2024, 3, 1, 19, 0, 0, 0, time.UTC)
	var out []extract.Session
	for _, c := range chats {
		for sp := range 2 {
			s := extract.Session{ID: fmt.Sprintf("persona-chat:%d:%d", c.Index, sp+1), App: "mona",
				UserID: fmt.Sprintf("u%d:%d", c.Index, sp+1), StartedAt: start, Timezone: "UTC"}
			at := start
			for i, l := range c.Lines {
				at = at.Add(time.Minute)
				role := "assistant"
				if l.Speaker == sp {
					role = "user"
				}
				s.Messages = append(s.Messages, extract.Message{ID: fmt.Sprintf("m%d", i), Role: role, Content: l.Text, At: at})
			}
			s.EndedAt = at.Add(time.Minute)
			out = append(out, s)
		}
	}
	return out, nil
}

func userTurns(s extract.Session) []string {
	var out []string
	for _, m := range s.Messages {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

func runCost(w io.Writer, corpora string) error {
	sessions, err := costSessions(corpora)
	if err != nil {
		return err
	}
	apps, err := prompts.Builtin()
	if err != nil {
		return err
	}
	mona := apps["mona"]
	turns, words := 0, 0
	joined := make([]string, len(sessions))
	for i, s := range sessions {
		u := userTurns(s)
		turns += len(u)
		joined[i] = strings.Join(u, "\n")
		words += len(strings.Fields(joined[i]))
	}
	tagDoc, _ := prose.NewDocument("x", prose.WithSegmentation(false), prose.WithExtraction(false))
	fullDoc, _ := prose.NewDocument("x", prose.WithSegmentation(false))
	tagModel, fullModel := tagDoc.Model, fullDoc.Model
	n := float64(len(sessions))
	fmt.Fprintf(w, "%d persona-chat sessions (first %d chats), %.1f user turns and %.0f words of user text a session; GOMAXPROCS %d\n",
		len(sessions), costChats, float64(turns)/n, float64(words)/n, runtime.GOMAXPROCS(0))
	type bench struct {
		name string
		run  func(i int)
		subs int // run only the first subs sessions (0: all)
	}
	benches := []bench{
		{"rules: extract.Rules (mona)", func(i int) { extract.Rules(mona, sessions[i], sessions[i].EndedAt) }, 0},
		{"prose: tag each user turn (model reused)", func(i int) {
			for _, t := range userTurns(sessions[i]) {
				_, _ = prose.NewDocument(t, prose.UsingModel(tagModel), prose.WithSegmentation(false), prose.WithExtraction(false))
			}
		}, 0},
		{"prose: tag session text (model reused)", func(i int) {
			_, _ = prose.NewDocument(joined[i], prose.UsingModel(tagModel), prose.WithSegmentation(false), prose.WithExtraction(false))
		}, 0},
		{"prose: tag+NER session text (model reused)", func(i int) {
			_, _ = prose.NewDocument(joined[i], prose.UsingModel(fullModel), prose.WithSegmentation(false))
		}, 0},
		{"prose: seg+tag+NER session text (model reused)", func(i int) {
			_, _ = prose.NewDocument(joined[i], prose.UsingModel(fullModel))
		}, 20},
		{"prose: NewDocument(text) defaults (loads models per call)", func(i int) {
			_, _ = prose.NewDocument(joined[i])
		}, 5},
	}
	fmt.Fprintln(w, "what                                                        ms/session  KiB alloc/session  allocs/session")
	for _, bm := range benches {
		k := len(sessions)
		if bm.subs > 0 {
			k = bm.subs
		}
		r := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := range k {
					bm.run(i)
				}
			}
		})
		per := float64(k)
		fmt.Fprintf(w, "%-58s  %10.3f  %17.0f  %14.0f   (%d sessions × %d)\n", bm.name,
			float64(r.NsPerOp())/per/1e6, float64(r.AllocedBytesPerOp())/per/1024, float64(r.AllocsPerOp())/per, k, r.N)
	}
	runtime.KeepAlive(tagModel)
	runtime.KeepAlive(fullModel)
	return nil
}
