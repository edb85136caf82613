package llm

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/tokens"

	openai "github.com/sashabaranov/go-openai"
)

// TestFillDefaultsCopiesDefaults: the decoded schema is kept between
// answers, so a default must reach each answer as a value of its own.
func TestFillDefaultsCopiesDefaults(t *testing.T) {
	t.Parallel()
	schema := json.RawMessage(`{"type":"object","properties":{
	  "tags":{"type":"array","default":["none"]},
	  "meta":{"type":"object","default":{"seen":false,"list":[1]}},
	  "note":{"type":["string","null"],"default":null}}}`)
	first := map[string]any{}
	fillDefaults(schema, first)
	first["tags"].([]any)[0] = "changed"
	first["meta"].(map[string]any)["seen"] = true
	first["meta"].(map[string]any)["list"].([]any)[0] = 2.0
	second := map[string]any{}
	fillDefaults(schema, second)
	want := map[string]any{"tags": []any{"none"}, "meta": map[string]any{"seen": false, "list": []any{1.0}}, "note": nil}
	if !reflect.DeepEqual(second, want) {
		t.Errorf("second answer %v, want %v: a default was shared with the first", second, want)
	}
	// Not JSON: nothing filled, nothing failing.
	v := map[string]any{}
	fillDefaults(json.RawMessage(`{`), v)
	fillDefaults(json.RawMessage(`{`), v)
	if len(v) != 0 {
		t.Errorf("filled %v from no schema", v)
	}
}

// TestEstimateKeepsCounts: the tokens-per-minute estimate keeps the counts
// of the system prompt and the schema, and gives what counting them gives.
func TestEstimateKeepsCounts(t *testing.T) {
	t.Parallel()
	l, err := New(Config{Model: "gpt-4o-mini", TokensPerMinute: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	schema := json.RawMessage("{\n  \"type\": \"object\",\n  \"properties\": {\"summary\": {\"type\": \"string\"}}\n}")
	req := openai.ChatCompletionRequest{Messages: []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: "You extract memories. Answer with JSON only."},
		{Role: openai.ChatMessageRoleUser, Content: "<transcript>my name is Peggy and I love ramen</transcript>"},
	}, ResponseFormat: &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
		JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "mona", Schema: schema}}}
	compact, _ := json.Marshal(schema)
	want := 3 + 4 + tokens.Count(req.Messages[0].Content) + 4 + tokens.Count(req.Messages[1].Content) + tokens.Count(string(compact))
	for i := range 3 {
		if got := l.estimate(req); got != want {
			t.Fatalf("estimate %d: %d tokens, want %d", i+1, got, want)
		}
	}
	if n := len(l.counts.m); n != 2 {
		t.Errorf("%d counts kept, want 2 (the system prompt and the schema)", n)
	}
	// A user message is counted each time, never kept.
	req.Messages[1].Content += " and jazz"
	if got, want := l.estimate(req), want-tokens.Count("<transcript>my name is Peggy and I love ramen</transcript>")+tokens.Count(req.Messages[1].Content); got != want {
		t.Errorf("another user message: %d tokens, want %d", got, want)
	}
}
