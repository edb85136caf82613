package extract_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/llmextract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// processCPU is this process's CPU time so far, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cannedTransport answers every request at once with one chat completion,
// without a server: what an Extract costs the worker's CPU, the endpoint's
// work and the network left out.
type cannedTransport struct{ body []byte }

func newCannedTransport(content string) cannedTransport {
	body, err := json.Marshal(map[string]any{
		"id": "chatcmpl-canned", "object": "chat.completion", "created": 1764000000, "model": "gpt-4o-mini",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": 1900, "completion_tokens": 300, "total_tokens": 2200},
	})
	if err != nil {
		panic(err)
	}
	return cannedTransport{body}
}

func (c cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(string(c.body))),
		ContentLength: int64(len(c.body)), Request: req}, nil
}

// cpuSession is a Mona session of n messages of about 360 bytes each in
// Berlin time: at 20 messages its transcript is over 6 000 bytes but far
// under the policy's 6 000 tokens, like the sessions of bench's
// BenchmarkExtractionAt2s.
func cpuSession(n int) extract.Session {
	said := []string{
		"I finally have a quiet evening after a really long week at the office, and I thought it would be nice to talk to someone who is not asking me for a status update or a spreadsheet today.",
		"That sounds exhausting, especially being the person everyone comes to with questions. How are you holding up with all of it, and are you getting any support from your manager?",
		"My favorite food is ramen, the proper kind with a rich broth that has been cooking for hours, a soft egg, and far too much spring onion on top of everything I can find.",
		"Ramen is a wonderful comfort food, and a long-simmered broth really is something special. Do you have a favourite place you go to for it, or do you make it yourself?",
	}
	t0 := time.Date(2026, 11, 20, 18, 0, 0, 0, time.UTC)
	s := extract.Session{ID: "s-cpu", UserID: "u-cpu", App: "mona", StartedAt: t0, EndedAt: t0.Add(time.Duration(n) * time.Minute),
		Timezone: "Europe/Berlin", DisplayName: "Peggy"}
	for i := range n {
		s.Messages = append(s.Messages, extract.Message{ID: fmt.Sprintf("m%d", i+1), Role: []string{"user", "assistant"}[i%2],
			At: t0.Add(time.Duration(i) * time.Minute), Content: fmt.Sprintf("(%d) %s %s", i+1, said[i%len(said)], said[(i+1)%len(said)])})
	}
	return s
}

// cpuAnswer is a valid Mona answer for cpuSession.
const cpuAnswer = `{"memories":[
 {"key":"favorite_food","value":"ramen","category":"preference","importance":80,"confidence":0.9,"source_message_id":"m3","event_date":null,"wording":null},
 {"key":"feeling","value":"tired","category":"feeling","importance":50,"confidence":0.8,"source_message_id":"m1","event_date":null,"wording":null}],
 "session_summary":{"summary":"Peggy unwound after a long week at the office and talked about ramen.","topics":["work","food"]}}`

// BenchmarkLLMExtractCPU is one Extract's CPU in the worker: prompt
// rendering, the input budget, the request and its answer, validation and
// the safety screen, against a transport that answers at once. Sub-benchmarks:
// the bench's session shape (20 messages, one call), and a session of 200
// messages split into parts (the input budget cut to 2 000 tokens).
func BenchmarkLLMExtractCPU(b *testing.B) {
	apps, err := prompts.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		messages int
		maxIn    int
	}{{"20-messages", 20, 0}, {"200-messages-split", 200, 2000}} {
		b.Run(c.name, func(b *testing.B) {
			llm, err := llmextract.New(llmextract.Config{BaseURL: "http://llm.invalid/v1", Model: "gpt-4o-mini",
				MaxInputTokens: c.maxIn, HTTPClient: &http.Client{Transport: newCannedTransport(cpuAnswer)}})
			if err != nil {
				b.Fatal(err)
			}
			s := cpuSession(c.messages)
			b.ReportAllocs()
			cpu0 := processCPU(b)
			for b.Loop() {
				if _, err := llm.Extract(context.Background(), apps["mona"], s); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time, not wall time, is what a shared host distorts least.
			b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}
