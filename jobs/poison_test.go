package jobs_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/llmextract"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/metrics"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestPoisonedLLMNumbers is issue 22 item 7, on both databases, with the
// real Prometheus registry: a usage of prompt_tokens -1e9 panicked the
// extraction job and stored negative tokens, and an answer of 5,000
// memories stored them all. The run now stores the call's own counts, and
// the memories are capped with the cut recorded in the run.
func TestPoisonedLLMNumbers(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			x := setupExtractWith(t, b, true, false)
			x.deps.Metrics = metrics.New(metrics.Config{Queue: x.q})
			// The answer of 5,000 memories is large; on a busy machine it
			// may take longer than the bundle's 500 ms to arrive and be read,
			// which would make this a test of the timeout instead.
			var err error
			if x.deps.LLM, err = llmextract.New(llmextract.Config{BaseURL: x.llm.URL(), APIKey: "test-key", Model: "gpt-4o-mini",
				Timeout: time.Hour}); err != nil {
				t.Fatal(err)
			}
			if err := x.q.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = x.q.Stop(context.Background()) })

			x.llm.Push(llmtest.WithUsage(-1_000_000_000, -5, llmtest.Valid(monaAnswer)))
			x.waitJob(t, x.closeSession(t, "s-neg", monaSession("u-neg")))
			s := x.state(t, "s-neg", "u-neg")
			run := s.final(t)
			if run.Source != extract.SourceLLM || run.Outcome != jobs.OutcomeOK || run.InputTokens <= 0 || run.OutputTokens <= 0 || run.CostUSD < 0 {
				t.Fatalf("run %s/%s with %d/%d tokens, $%v; want llm/ok with the call's own counts", run.Source, run.Outcome, run.InputTokens, run.OutputTokens, run.CostUSD)
			}
			if s.memories["name"] != "Peggy" {
				t.Fatalf("memories = %v", s.memories)
			}

			items := make([]string, 5000)
			for i := range items {
				items[i] = fmt.Sprintf(`{"key":"likes:thing_%d","value":"thing %d","category":"preference","importance":%d,"confidence":0.9,"source_message_id":"m3"}`, i, i, i%100)
			}
			x.llm.Push(llmtest.Valid(`{"memories":[` + strings.Join(items, ",") + `],"session_summary":{"summary":"Things.","topics":[]}}`))
			x.waitJob(t, x.closeSession(t, "s-many", monaSession("u-many")))
			s = x.state(t, "s-many", "u-many")
			run = s.final(t)
			if run.Source != extract.SourceLLM || run.Outcome != jobs.OutcomeCapped || !strings.Contains(run.Error, "4950 beyond the cap of 50") {
				t.Fatalf("run %s/%s %q; want llm/capped naming the cut", run.Source, run.Outcome, run.Error)
			}
			all, err := x.st.ListMemories(context.Background(), "u-many", store.MemoryFilter{All: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != extract.DefaultMaxMemories {
				t.Fatalf("%d memories stored; want the cap, %d", len(all), extract.DefaultMaxMemories)
			}
		})
	}
}
