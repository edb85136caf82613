package llmtest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/llm/llmtest"
)

func post(t *testing.T, s *llmtest.Server, content string) (*http.Response, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"model":           "m",
		"messages":        []any{map[string]any{"role": "user", "content": content}},
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{"name": "app", "strict": true, "schema": map[string]any{"type": "object"}}},
	})
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("undecodable reply %s: %v", raw, err)
	}
	return resp, out
}

func TestScriptThenDefault(t *testing.T) {
	t.Parallel()
	s := llmtest.NewServer(t)
	s.Push(llmtest.Status(429, "7"), llmtest.Delay(5*time.Millisecond, llmtest.WithUsage(3, 4, llmtest.Valid(`{"a":1}`))))
	s.SetDefault(func(r llmtest.Request) llmtest.Reply { return llmtest.Content("echo " + r.Last()) })

	resp, _ := post(t, s, "one")
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "7" {
		t.Errorf("status %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	_, out := post(t, s, "two")
	choice := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
	if choice["content"] != `{"a":1}` || out["usage"].(map[string]any)["prompt_tokens"] != 3.0 {
		t.Errorf("reply %v", out)
	}
	_, out = post(t, s, "three")
	if got := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"]; got != "echo three" {
		t.Errorf("default reply %v", got)
	}

	reqs := s.Requests()
	if s.Calls() != 3 || len(reqs) != 3 || s.Remaining() != 0 {
		t.Fatalf("calls %d, requests %d, remaining %d", s.Calls(), len(reqs), s.Remaining())
	}
	rf := reqs[0].ResponseFormat
	if reqs[1].Last() != "two" || rf == nil || rf.Type != "json_schema" || rf.JSONSchema.Name != "app" || !rf.JSONSchema.Strict {
		t.Errorf("recorded %+v", reqs[0])
	}
}

func TestConcurrentRequests(t *testing.T) {
	t.Parallel()
	s := llmtest.NewServer(t, llmtest.Latency(time.Millisecond))
	s.SetDefault(func(llmtest.Request) llmtest.Reply { return llmtest.Valid(`{}`) })
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() { post(t, s, "x") })
	}
	wg.Wait()
	if s.Calls() != 16 {
		t.Fatalf("%d calls", s.Calls())
	}
}

// TestChaosMixesEveryFault: over a few hundred calls the mix holds every
// kind of reply, and one seed always gives the same sequence.
func TestChaosMixesEveryFault(t *testing.T) {
	valid, violating := `{"ok":true}`, `{"ok":"yes and more"}`
	a, b := llmtest.Chaos(3, valid, violating), llmtest.Chaos(3, valid, violating)
	kinds := map[string]int{}
	for i := range 350 {
		ra, rb := a(llmtest.Request{}).String(), b(llmtest.Request{}).String()
		if ra != rb {
			t.Fatalf("call %d: %s and %s from the same seed", i, ra, rb)
		}
		kinds[ra]++
	}
	for _, want := range []string{"hang", "status 500", "status 429",
		"content of 42 bytes", // the truncated answer in prose
		"content of 11 bytes", // valid
		"content of 21 bytes", // schema-violating
	} {
		if kinds[want] < 20 {
			t.Errorf("%q came %d times in 350 calls: %v", want, kinds[want], kinds)
		}
	}
}
