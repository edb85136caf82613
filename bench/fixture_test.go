package bench

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/prompts"
)

// TestFixtures checks what the benchmarks' numbers rest on: the session is
// the advertised ~5 KB of transcript and a valid body, and the fake LLM's
// answer passes Mona's schema, so the LLM path does not fall back.
func TestFixtures(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	req := monaSession("u-1", time.Now().UTC().Add(-time.Hour))
	size := 0
	for _, m := range req.Messages {
		size += len(m.Content)
	}
	if len(req.Messages) != 20 || size < 4500 || size > 5500 {
		t.Fatalf("%d messages, %d bytes of transcript; want 20 and about 5 KB", len(req.Messages), size)
	}
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := handoff.Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	if err := handoff.Validate("s-1", &got, apps, time.Now()); err != nil {
		t.Fatal(err)
	}
	var answer any
	if err := json.Unmarshal([]byte(monaAnswer), &answer); err != nil {
		t.Fatal(err)
	}
	if err := apps["mona"].Validate(answer); err != nil {
		t.Fatalf("the fake LLM's answer fails Mona's schema: %v", err)
	}
	in := extract.Session{ID: "s-1", UserID: "u-1", App: "mona", StartedAt: got.StartedAt, EndedAt: got.EndedAt,
		Timezone: got.Timezone, Messages: got.Messages, Events: got.Events}
	if res := extract.Rules(apps["mona"], in, time.Now()); len(res.Memories) < 3 {
		t.Fatalf("the rules find %d memories in the session; want a realistic few", len(res.Memories))
	}
}
