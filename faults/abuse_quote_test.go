package faults

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/figures"
)

// TestQuotedSpeechBody (issue 34 §1): a handoff body of nearly 4 MiB made
// of `told me "` repeated, in messages of the longest length accepted.
// The risk screen read the whole sentence before each quote for its speech
// verb: about 4 s of CPU a message, some 6 minutes a body, past the job's
// timeout; five attempts, then the session was marked failed, and four such
// bodies held every extraction slot. With the job's timeout at a minute the
// worker now processes the session; the body shape is the abuse suite's.
func TestQuotedSpeechBody(t *testing.T) {
	skipShort(t, "extract TestRiskScreenWorkIsLinear (the same shapes, their work counted)")
	t.Parallel()
	db := filepath.Join(t.TempDir(), "mnemo.db")
	env := []string{"DATABASE_URL=sqlite://" + db, "MNEMO_API_TOKENS=service:" + token,
		"MNEMO_ENCRYPTION_KEY=f:quoted speech fault passphrase", "OPENAI_BASE_URL=", "MNEMO_LLM_MODEL=",
		"MNEMO_LOG_FORMAT=json", "MNEMO_LOG_LEVEL=info", "MNEMO_POLL_INTERVAL=50ms", "MNEMO_SHUTDOWN_GRACE=1s",
		"MNEMO_JOB_TIMEOUT=1m"}
	w := startWorker(t, env)
	now := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)
	const perMessage = 32 << 10 // handoff.MaxMessageBytes
	unit := `told me "`
	text := strings.Repeat(unit, perMessage/len(unit)+1)[:perMessage]
	// 112 messages: 3.5 MiB of text, under 4 MiB once each quote is
	// escaped in JSON.
	msgs := make([]map[string]any, 112)
	for i := range msgs {
		msgs[i] = map[string]any{"id": fmt.Sprintf("m%d", i+1), "role": "user", "content": text,
			"at": now.Add(time.Duration(i) * time.Second).Format(time.RFC3339)}
	}
	body := map[string]any{"user_id": "u-quotes", "app": "mona", "started_at": now.Format(time.RFC3339),
		"ended_at": now.Add(time.Duration(len(msgs)+1) * time.Second).Format(time.RFC3339), "messages": msgs}
	start := time.Now()
	if code, ans, err := call("POST", w.addr, "/v1/sessions/quotes-1/close", body); err != nil || code != 202 {
		t.Fatalf("handoff of the quoted-speech body: %d %v %v; want 202", code, ans, err)
	}
	status := ""
	pollUntil(t, "session quotes-1 processed or failed", func() bool {
		code, ans, err := call("GET", w.addr, "/v1/sessions/quotes-1", nil)
		if err == nil && code == 200 {
			status, _ = ans["status"].(string)
		}
		return status == "processed" || status == "failed"
	})
	if status != "processed" {
		t.Fatalf("the quoted-speech session ended %q; want processed\n%s", status, strings.Join(w.log(), "\n"))
	}
	figures.Report(t, "quoted speech: %d messages of 32 KiB of `told me \"` (3.5 MiB) handed off and processed in %s (job timeout 1 m)",
		len(msgs), time.Since(start).Round(100*time.Millisecond))
}
