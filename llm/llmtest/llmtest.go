// Package llmtest is a scripted, OpenAI-compatible chat completions server
// for tests of the llm client and of everything built on it.
//
//	s := llmtest.NewServer(t)
//	s.Push(llmtest.Content("```json\n{…}\n```"), llmtest.Valid(`{…}`))
//	c, _ := llm.New(llm.Config{BaseURL: s.URL(), Model: "gpt-4o-mini"})
//
// Each request to POST /v1/chat/completions takes the next scripted Reply;
// when the script is empty the default reply function answers, and without
// one the request fails the test. Every request is recorded. Requests to
// POST /v1/moderations have a script, a default and a record of their own
// (PushModeration, SetModerationDefault, ModerationRequests).
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Server is the fake endpoint. It is safe for concurrent use.
type Server struct {
	t       testing.TB
	srv     *httptest.Server
	latency time.Duration
	done    chan struct{} // closed at cleanup: releases hanging and delayed replies

	mu       sync.Mutex
	script   []Reply
	fallback func(Request) Reply
	requests []Request

	modScript   []Reply
	modFallback func(ModerationRequest) Reply
	modRequests []ModerationRequest
}

// Option configures a Server.
type Option func(*Server)

// Latency delays every reply by d, as a remote endpoint would (benchmarks).
func Latency(d time.Duration) Option { return func(s *Server) { s.latency = d } }

// NewServer starts a server that closes when the test ends.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := &Server{t: t, done: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /v1/moderations", s.moderate)
	s.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		close(s.done)
		s.srv.Close()
	})
	return s
}

// URL is the base URL for the client, ending in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Push appends replies to the script.
func (s *Server) Push(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, r...)
}

// SetDefault sets the reply for requests that find the script empty.
func (s *Server) SetDefault(f func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = f
}

// Requests returns every request received so far, in order of arrival.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Calls is how many requests arrived.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Remaining is how many scripted replies are still unused.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

// PushModeration appends replies to the moderation script.
func (s *Server) PushModeration(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modScript = append(s.modScript, r...)
}

// SetModerationDefault sets the reply for moderation requests that find
// their script empty.
func (s *Server) SetModerationDefault(f func(ModerationRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.modFallback = f
}

// ModerationRequests returns every moderation request received so far, in
// order of arrival.
func (s *Server) ModerationRequests() []ModerationRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ModerationRequest(nil), s.modRequests...)
}

// ModerationRequest is one moderation request as the server decoded it.
type ModerationRequest struct {
	Model string `json:"model"`
	Input string `json:"input"`
}

// Request is one chat completion request as the server decoded it.
type Request struct {
	Model          string          `json:"model"`
	Messages       []Message       `json:"messages"`
	ResponseFormat *ResponseFormat `json:"response_format"`
	Temperature    *float64        `json:"temperature"`
	// Authorization is the request's Authorization header.
	Authorization string `json:"-"`
	// Body is the raw request body.
	Body []byte `json:"-"`
}

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ResponseFormat is the requested answer format.
type ResponseFormat struct {
	Type       string      `json:"type"` // json_schema, json_object or text
	JSONSchema *JSONSchema `json:"json_schema"`
}

// JSONSchema is the schema of a json_schema response format.
type JSONSchema struct {
	Name   string          `json:"name"`
	Strict bool            `json:"strict"`
	Schema json.RawMessage `json:"schema"`
}

// Last is the content of the last message, the one a reply answers.
func (r Request) Last() string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}

// Reply is what the server does with one request.
type Reply struct {
	status     int
	header     http.Header
	content    string
	errMessage string
	hang       bool
	delay      time.Duration
	then       *Reply
	usage      [2]int
	mustBeJSON bool
	moderation map[string]float64 // the category scores of a Moderation reply
}

// defaultUsage is the usage every successful reply reports unless told otherwise.
var defaultUsage = [2]int{100, 20}

// Valid answers with content json, which must be valid JSON (the test fails
// when the reply is used otherwise).
func Valid(json string) Reply {
	return Reply{status: http.StatusOK, content: json, usage: defaultUsage, mustBeJSON: true}
}

// Content answers with any content: fenced, wrapped in prose, truncated, empty.
func Content(text string) Reply {
	return Reply{status: http.StatusOK, content: text, usage: defaultUsage}
}

// Moderation answers a moderation request with one result whose category
// scores are scores, by the endpoint's names ("self-harm/intent",
// "violence", …; the others are 0). A category scored 0.5 or more is
// flagged, and so is the result when any is. A chat request that gets it
// fails the test; a moderation request that gets Content has that content
// as its body (a malformed answer).
func Moderation(scores map[string]float64) Reply {
	m := make(map[string]float64, len(scores))
	for k, v := range scores {
		m[k] = v
	}
	return Reply{status: http.StatusOK, moderation: m}
}

// moderationCategories are the categories of a moderation result.
var moderationCategories = []string{"harassment", "harassment/threatening", "hate", "hate/threatening", "illicit", "illicit/violent",
	"self-harm", "self-harm/intent", "self-harm/instructions", "sexual", "sexual/minors", "violence", "violence/graphic"}

// Status fails with an HTTP status and an OpenAI-style error body; a
// non-empty retryAfter is sent as the Retry-After header.
func Status(code int, retryAfter string) Reply {
	r := Reply{status: code, errMessage: http.StatusText(code)}
	if retryAfter != "" {
		r.header = http.Header{"Retry-After": {retryAfter}}
	}
	return r
}

// Error fails with an HTTP status and the given error message, e.g. an
// endpoint refusing response_format.
func Error(code int, message string) Reply {
	return Reply{status: code, errMessage: message}
}

// Hang never answers: it returns when the client gives up or the test ends.
func Hang() Reply { return Reply{hang: true} }

// Delay waits d, then replies r.
func Delay(d time.Duration, r Reply) Reply { return Reply{delay: d, then: &r} }

// WithUsage sets the token usage a successful reply reports (default 100 prompt, 20 completion).
func WithUsage(prompt, completion int, r Reply) Reply {
	if r.then != nil {
		inner := WithUsage(prompt, completion, *r.then)
		r.then = &inner
		return r
	}
	r.usage = [2]int{prompt, completion}
	return r
}

// Chaos is a default reply function for SetDefault that fails in every way
// an endpoint does, in a random mix from seed: one call in seven each hangs,
// fails with 500, is rate limited (429, Retry-After: 1), answers truncated
// JSON wrapped in prose, or answers the schema-violating JSON violating; the
// other two in seven answer valid. Safe for concurrent calls.
func Chaos(seed uint64, valid, violating string) func(Request) Reply {
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(seed, seed+1))
	return func(Request) Reply {
		mu.Lock()
		n := r.IntN(7)
		mu.Unlock()
		switch n {
		case 0:
			return Hang()
		case 1:
			return Status(http.StatusInternalServerError, "")
		case 2:
			return Status(http.StatusTooManyRequests, "1")
		case 3:
			return Content(`Sure! Here is what I found: {"memories": [`)
		case 4:
			return Valid(violating)
		default:
			return Valid(valid)
		}
	}
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		s.t.Errorf("llmtest: undecodable request: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Body, req.Authorization = body, r.Header.Get("Authorization")

	s.mu.Lock()
	s.requests = append(s.requests, req)
	n := len(s.requests)
	var (
		reply Reply
		ok    bool
	)
	if len(s.script) > 0 {
		reply, s.script, ok = s.script[0], s.script[1:], true
	} else if s.fallback != nil {
		reply, ok = s.fallback(req), true
	}
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("llmtest: request %d found the script empty and no default reply", n)
		reply = Error(http.StatusInternalServerError, "llmtest: no reply scripted")
	}

	if !s.wait(r, s.latency) {
		return
	}
	for reply.delay > 0 || reply.hang {
		if reply.hang {
			s.wait(r, -1)
			return
		}
		if !s.wait(r, reply.delay) {
			return
		}
		reply = *reply.then
	}
	s.write(w, req, n, reply)
}

// wait waits d (forever when negative) and reports whether the request is
// still wanted.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d == 0 {
		return true
	}
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

func (s *Server) write(w http.ResponseWriter, req Request, n int, reply Reply) {
	for k, v := range reply.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	if reply.status != http.StatusOK {
		w.WriteHeader(reply.status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"message": reply.errMessage,
			"type":    "invalid_request_error",
			"code":    nil,
		}})
		return
	}
	if reply.moderation != nil {
		s.t.Errorf("llmtest: a Moderation reply was used for chat request %d", n)
	}
	if reply.mustBeJSON && !json.Valid([]byte(reply.content)) {
		s.t.Errorf("llmtest: Valid reply for request %d is not valid JSON", n)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":      "chatcmpl-llmtest-" + strconv.Itoa(n),
		"object":  "chat.completion",
		"created": 1764000000,
		"model":   req.Model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": reply.content},
			"finish_reason": "stop",
		}},
		"usage": map[string]any{
			"prompt_tokens":     reply.usage[0],
			"completion_tokens": reply.usage[1],
			"total_tokens":      reply.usage[0] + reply.usage[1],
		},
	})
}

func (s *Server) moderate(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req ModerationRequest
	if err := json.Unmarshal(body, &req); err != nil {
		s.t.Errorf("llmtest: undecodable moderation request: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.modRequests = append(s.modRequests, req)
	n := len(s.modRequests)
	var (
		reply Reply
		ok    bool
	)
	if len(s.modScript) > 0 {
		reply, s.modScript, ok = s.modScript[0], s.modScript[1:], true
	} else if s.modFallback != nil {
		reply, ok = s.modFallback(req), true
	}
	s.mu.Unlock()
	if !ok {
		s.t.Errorf("llmtest: moderation request %d found the script empty and no default reply", n)
		reply = Error(http.StatusInternalServerError, "llmtest: no reply scripted")
	}
	if !s.wait(r, s.latency) {
		return
	}
	for reply.delay > 0 || reply.hang {
		if reply.hang {
			s.wait(r, -1)
			return
		}
		if !s.wait(r, reply.delay) {
			return
		}
		reply = *reply.then
	}
	if reply.status != http.StatusOK || reply.moderation == nil {
		if reply.status == http.StatusOK && reply.mustBeJSON {
			s.t.Errorf("llmtest: a chat reply was used for moderation request %d", n)
		}
		if reply.status == http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, reply.content)
			return
		}
		s.write(w, Request{Model: req.Model}, n, reply)
		return
	}
	cats, scores := map[string]bool{}, map[string]float64{}
	flagged := false
	for _, c := range moderationCategories {
		v := reply.moderation[c]
		scores[c], cats[c] = v, v >= 0.5
		flagged = flagged || v >= 0.5
	}
	for c := range reply.moderation {
		if _, known := scores[c]; !known {
			s.t.Errorf("llmtest: moderation reply %d scores an unknown category %q", n, c)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":    "modr-llmtest-" + strconv.Itoa(n),
		"model": req.Model,
		"results": []any{map[string]any{
			"flagged":         flagged,
			"categories":      cats,
			"category_scores": scores,
		}},
	})
}

// String describes a reply for test failure messages.
func (r Reply) String() string {
	switch {
	case r.hang:
		return "hang"
	case r.then != nil:
		return fmt.Sprintf("delay %s then %s", r.delay, *r.then)
	case r.status != http.StatusOK:
		return fmt.Sprintf("status %d", r.status)
	case r.moderation != nil:
		return fmt.Sprintf("moderation of %d categories", len(r.moderation))
	default:
		return fmt.Sprintf("content of %d bytes", len(r.content))
	}
}
