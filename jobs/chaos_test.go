package jobs_test

import (
	"fmt"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/figures"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
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
			x.llm.SetDefault(llmtest.Chaos(7, monaAnswer,
				`{"memories":[{"key":"password","value":"x","category":"fact","importance":1,"confidence":1,"source_message_id":"m1"}],"session_summary":{"summary":"","topics":[]}}`))
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
