package jobs_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/llmtest"
	"github.com/mnemo-ai/mnemo/internal/figures"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestLLMChaos makes the fake LLM hang, fail with 500s, rate-limit with
// Retry-After, answer garbage or schema-violating JSON, or answer well, in a
// random mix: every session still ends processed with exactly one summary
// and one final, recorded outcome.
func TestLLMChaos(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			x := setupExtract(t, b, true)
			var mu sync.Mutex
			r := rand.New(rand.NewPCG(7, 11))
			x.llm.SetDefault(func(llmtest.Request) llmtest.Reply {
				mu.Lock()
				defer mu.Unlock()
				switch r.IntN(7) {
				case 0:
					return llmtest.Hang()
				case 1:
					return llmtest.Status(500, "")
				case 2:
					return llmtest.Status(429, "1")
				case 3:
					return llmtest.Content("Sure! Here is what I found: {\"memories\": [")
				case 4:
					return llmtest.Valid(`{"memories":[{"key":"password","value":"x","category":"fact","importance":1,"confidence":1,"source_message_id":"m1"}],"session_summary":{"summary":"","topics":[]}}`)
				default:
					return llmtest.Valid(monaAnswer)
				}
			})
			const n = 10
			ids := make([]int64, n)
			for i := range ids {
				ids[i] = x.closeSession(t, fmt.Sprintf("c-%d", i), monaSession(fmt.Sprintf("u-%d", i)))
			}
			outcomes := map[string]int{}
			for i, id := range ids {
				x.waitJob(t, id)
				s := x.state(t, fmt.Sprintf("c-%d", i), fmt.Sprintf("u-%d", i))
				run := s.final(t)
				outcomes[run.Source+"/"+run.Outcome]++
				if s.memories["name"] != "Peggy" {
					t.Fatalf("session c-%d (%s/%s) lost its memories: %v", i, run.Source, run.Outcome, s.memories)
				}
				if run.Source == extract.SourceFallback && !s.sess.TranscriptRetained {
					t.Fatalf("session c-%d fell back without keeping its transcript", i)
				}
			}
			figures.Report(t, "chaos outcomes over %d sessions and %d LLM calls: %v", n, x.llm.Calls(), outcomes)
		})
	}
}
