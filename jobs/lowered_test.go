package jobs_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

type loweringCounter struct {
	riskCounter
	mu      sync.Mutex
	lowered map[string]int
}

func (c *loweringCounter) RiskLowered(app, class, severity, frame string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lowered[app+" "+class+" "+severity+" "+frame]++
}

// When the model lowers a rules finding with a frame code, the lowering is
// stored with the session (message id, classes, severities, frame; never
// the text), counted once, and a re-run of the extraction records and
// counts nothing again.
func TestRiskLoweringIsStoredAndCounted(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtractWith(t, b, true, false)
			counter := &loweringCounter{riskCounter: riskCounter{counts: map[string]int{}}, lowered: map[string]int{}}
			x.deps.Metrics = counter
			const said = "i want to kill myself"
			if f, _ := extract.RiskOf(said); f.Severity != extract.SeverityHigh {
				t.Fatalf("precondition: the rules find %+v in %q, want high", f, said)
			}
			t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
			req := handoff.Request{UserID: "u-1", App: "mona", StartedAt: t0, EndedAt: t0.Add(20 * time.Minute), Timezone: "UTC",
				Messages: []extract.Message{
					{ID: "m1", Role: "user", Content: "My favorite food is ramen.", At: t0.Add(time.Minute)},
					{ID: "m2", Role: "user", Content: said, At: t0.Add(2 * time.Minute)},
				}}
			id := x.closeSession(t, "s-1", req)
			x.llm.SetDefault(func(llmtest.Request) llmtest.Reply {
				return llmtest.Valid(`{"memories":[{"key":"favorite_food","value":"ramen","category":"preference","importance":80,"confidence":0.9,"source_message_id":"m1"}],
				 "session_summary":{"summary":"The user talked about food.","topics":["food"]},
				 "risks":[{"message_id":"m2","class":"none","severity":"low","actor":"user","reason":"fiction"}]}`)
			})
			w := jobs.NewExtractWorker(x.deps)
			for attempt := 1; attempt <= 2; attempt++ {
				if err := w.Work(ctx, &river.Job[queue.ExtractArgs]{
					JobRow: &rivertype.JobRow{ID: id, Attempt: attempt, MaxAttempts: 5}, Args: queue.ExtractArgs{SessionID: "s-1"}}); err != nil {
					t.Fatal(err)
				}
			}
			got, err := x.st.ListRiskLowerings(ctx, "s-1")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("lowerings = %+v; want one", got)
			}
			l := got[0]
			if l.MessageID != "m2" || l.FromClass != extract.RiskSuicidal || l.FromSeverity != extract.SeverityHigh ||
				l.ToClass != extract.RiskNone || l.ToSeverity != "" || l.Frame != extract.FrameFiction || l.UserID != "u-1" || l.App != "mona" {
				t.Fatalf("lowering stored as %+v", l)
			}
			if strings.Contains(l.ID+l.MessageID+l.FromClass+l.ToClass+l.Frame, "kill") {
				t.Fatal("the lowering holds the message's text")
			}
			if n := counter.lowered["mona suicidal high fiction"]; n != 1 || len(counter.lowered) != 1 {
				t.Fatalf("lowerings counted %v; want mona suicidal high fiction once", counter.lowered)
			}
			// The lowered finding raised no risk cue.
			cues, err := x.st.ListCues(ctx, "u-1", false)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cues {
				if c.Type == memory.CueRisk {
					t.Fatalf("risk cue %+v recorded for a lowered finding", c)
				}
			}
		})
	}
}
