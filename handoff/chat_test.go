package handoff_test

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/prompts"
)

// openAIBody is a session whose turns are OpenAI chat messages (with the
// ids and times Mnemo asks for): a system prompt, the user's text as text
// parts, a tool call and its output, a named assistant answer.
const openAIBody = `{"user_id":"u-1","app":"mona","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z",
 "timezone":"Europe/Berlin",
 "messages":[
  {"id":"m0","role":"developer","content":"You are Mona, a companion."},
  {"id":"m1","role":"user","name":"peggy","content":[{"type":"text","text":"my name is John"},{"type":"text","text":"what's the weather in Leeds?"}],"at":"2026-11-20T09:00:05Z"},
  {"id":"m2","role":"assistant","content":null,"refusal":null,"tool_calls":[{"id":"call_7f3a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Leeds\"}"}}],"at":"2026-11-20T09:00:06Z"},
  {"id":"m3","role":"tool","tool_call_id":"call_7f3a","content":"{\"temp_c\":9,\"sky\":\"rain\"}","at":"2026-11-20T09:00:07Z"},
  {"id":"m4","role":"assistant","name":"mona","content":"Rain in Leeds today, John: 9 degrees.","at":"2026-11-20T09:00:08Z"}],
 "events":[{"kind":"emotion","at":"2026-11-20T09:00:05Z","message_id":"m1","data":{"emotion":"anxious","confidence":0.8}}]}`

// plainBody is the same session in Mnemo's own shape, without the tool
// traffic.
const plainBody = `{"user_id":"u-1","app":"mona","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z",
 "timezone":"Europe/Berlin",
 "messages":[
  {"id":"m0","role":"system","content":"You are Mona, a companion."},
  {"id":"m1","role":"user","content":"my name is John\nwhat's the weather in Leeds?","at":"2026-11-20T09:00:05Z"},
  {"id":"m4","role":"assistant","content":"Rain in Leeds today, John: 9 degrees.","at":"2026-11-20T09:00:08Z"}],
 "events":[{"kind":"emotion","at":"2026-11-20T09:00:05Z","message_id":"m1","data":{"emotion":"anxious","confidence":0.8}}]}`

func decodeValid(t *testing.T, body string) handoff.Request {
	t.Helper()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	req, err := handoff.Decode([]byte(body))
	if err == nil {
		err = handoff.Validate("s-1", &req, apps, now)
	}
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	return req
}

// TestOpenAIMessages: an OpenAI-shaped session keeps what the plain shape
// keeps, turn for turn, and is the same body to the fingerprint; the tool
// call and the tool's output are not kept.
func TestOpenAIMessages(t *testing.T) {
	t.Parallel()
	openai, plain := decodeValid(t, openAIBody), decodeValid(t, plainBody)
	want := []extract.Message{
		{ID: "m0", Role: "system", Content: "You are Mona, a companion."},
		{ID: "m1", Role: "user", Content: "my name is John\nwhat's the weather in Leeds?", At: plain.Messages[1].At},
		{ID: "m4", Role: "assistant", Content: "Rain in Leeds today, John: 9 degrees.", At: plain.Messages[2].At},
	}
	if !reflect.DeepEqual(openai.Messages, want) || !reflect.DeepEqual(plain.Messages, want) {
		t.Fatalf("kept turns:\nopenai %+v\nplain  %+v\nwant   %+v", openai.Messages, plain.Messages, want)
	}
	if a, b := handoff.Fingerprint("s-1", openai), handoff.Fingerprint("s-1", plain); a != b {
		t.Errorf("fingerprints differ: %s, %s", a, b)
	}
	for _, m := range openai.Messages {
		if strings.Contains(m.Content, "temp_c") || strings.Contains(m.Content, "get_weather") {
			t.Errorf("tool traffic kept in %s: %q", m.ID, m.Content)
		}
	}
}

// TestOpenAIMessagesRefused: content null is refused unless the assistant
// message carries tool_calls; names nobody defines are refused, inside
// text parts and tool calls too; only text parts are read.
func TestOpenAIMessagesRefused(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	swap := func(old, new string) string {
		if !strings.Contains(openAIBody, old) {
			t.Fatalf("%q is not in the body", old)
		}
		return strings.Replace(openAIBody, old, new, 1)
	}
	userParts := `[{"type":"text","text":"my name is John"},{"type":"text","text":"what's the weather in Leeds?"}]`
	for _, c := range []struct{ name, body, field, says string }{
		{"user content null", swap(userParts, "null"), "messages[1].content", "is null"},
		{"assistant content null without tool calls", swap(`"content":"Rain in Leeds today, John: 9 degrees."`, `"content":null`), "messages[4].content", "is null"},
		{"content a number", swap(userParts, "7"), "messages[1].content", "must be a string or an array of text parts"},
		{"content an object", swap(userParts, `{"type":"text","text":"hi"}`), "messages[1].content", "must be a string or an array of text parts"},
		{"image part", swap(`{"type":"text","text":"my name is John"}`, `{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}`), "messages[1].content[0].type", `must be "text"`},
		{"part of another type", swap(`{"type":"text","text":"my name is John"}`, `{"type":"input_audio","text":"x"}`), "messages[1].content[0].type", `must be "text"`},
		{"part without text", swap(`{"type":"text","text":"my name is John"}`, `{"type":"text"}`), "messages[1].content[0].text", "must be a string"},
		{"part text null", swap(`{"type":"text","text":"my name is John"}`, `{"type":"text","text":null}`), "messages[1].content[0].text", "must be a string"},
		{"part a string", swap(`{"type":"text","text":"my name is John"}`, `"my name is John"`), "messages[1].content", "must be a string or an array of text parts"},
		{"part field nobody defines", swap(`{"type":"text","text":"my name is John"}`, `{"type":"text","text":"my name is John","colour":"red"}`), "messages[1].content[0].colour", "not a known field"},
		{"part name twice", swap(`{"type":"text","text":"my name is John"}`, `{"type":"text","text":"a","text":"b"}`), "messages[1].content[0].text", "more than once"},
		{"message field nobody defines", swap(`"name":"peggy"`, `"nickname":"peggy"`), "messages[1].nickname", "not a known field"},
		{"name in another case", swap(`"name":"peggy"`, `"Name":"peggy"`), "messages[1].Name", "case-sensitive"},
		{"tool call field nobody defines", swap(`"type":"function","function"`, `"type":"function","index":0,"function"`), "messages[2].tool_calls[0].index", "not a known field"},
		{"function field nobody defines", swap(`"name":"get_weather",`, `"name":"get_weather","strict":true,`), "messages[2].tool_calls[0].function.strict", "not a known field"},
		{"tool calls on a user message", swap(`"role":"user","name":"peggy",`, `"role":"user","name":"peggy","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}],`), "messages[1].tool_calls", "only an assistant message"},
		{"tool_call_id on a user message", swap(`"role":"user","name":"peggy",`, `"role":"user","tool_call_id":"call_7f3a",`), "messages[1].tool_call_id", "only a tool message"},
		{"function role", swap(`"role":"tool","tool_call_id":"call_7f3a"`, `"role":"function","name":"get_weather"`), "messages[3].role", "must be user, assistant or system"},
		{"event on the tool output", swap(`"message_id":"m1"`, `"message_id":"m3"`), "events[0].message_id", "does not keep"},
		{"tool output reuses an id", swap(`"id":"m3"`, `"id":"m1"`), "messages[3].id", "repeats"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := handoff.Decode([]byte(c.body))
			if err == nil {
				err = handoff.Validate("s-1", &req, apps, now)
			}
			var ve *handoff.ValidationError
			if !errors.As(err, &ve) || ve.Field != c.field || !strings.Contains(ve.Reason, c.says) {
				t.Fatalf("error %v; want %s: …%s…", err, c.field, c.says)
			}
		})
	}
}

// TestOpenAIStreamedTurns: the messages body reads the same shape; a
// request of tool traffic alone keeps no turn.
func TestOpenAIStreamedTurns(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		body string
		kept []string
	}{
		{`{"user_id":"u-1","app":"mona","messages":[{"id":"m1","role":"user","content":[{"type":"text","text":"hi"}]},{"id":"m2","role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"id":"m3","role":"tool","tool_call_id":"c1","content":"42"}]}`, []string{"m1:hi"}},
		{`{"user_id":"u-1","app":"mona","messages":[{"id":"m3","role":"tool","tool_call_id":"c1","content":[{"type":"text","text":"42"}]}]}`, nil},
		{`{"user_id":"u-1","app":"mona","messages":[{"id":"m5","role":"assistant","content":null,"refusal":"I can't help with that."}]}`, []string{"m5:I can't help with that."}},
	} {
		req, err := handoff.DecodeMessages([]byte(c.body))
		if err == nil {
			err = handoff.ValidateMessages("s-1", &req, apps, now)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		var kept []string
		for _, m := range req.Messages {
			kept = append(kept, m.ID+":"+m.Content)
		}
		if !reflect.DeepEqual(kept, c.kept) {
			t.Errorf("%s: kept %q; want %q", c.body, kept, c.kept)
		}
	}
	req, err := handoff.DecodeMessages([]byte(`{"user_id":"u-1","app":"mona","messages":[{"id":"m1","role":"user","content":null}]}`))
	if err == nil {
		err = handoff.ValidateMessages("s-1", &req, apps, now)
	}
	var ve *handoff.ValidationError
	if !errors.As(err, &ve) || ve.Field != "messages[0].content" {
		t.Fatalf("content null in a messages body: %v; want a refusal on messages[0].content", err)
	}
}

// TestOpenAIExampleOfTheDocument: the OpenAI-shaped example of the
// session-close body in api/openapi.json is accepted, and keeps the
// developer prompt (as system), the user's text parts and the answer.
func TestOpenAIExampleOfTheDocument(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	var op struct {
		RequestBody struct {
			Content map[string]struct {
				Examples map[string]struct {
					Value json.RawMessage `json:"value"`
				} `json:"examples"`
			} `json:"content"`
		} `json:"requestBody"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc.Paths["/v1/sessions/{session_id}/close"]["post"], &op); err != nil {
		t.Fatal(err)
	}
	ex := op.RequestBody.Content["application/json"].Examples["openai"].Value
	if ex == nil {
		t.Fatal("api/openapi.json has no openai example of the session-close body")
	}
	req := decodeValid(t, string(ex))
	var kept []string
	for _, m := range req.Messages {
		kept = append(kept, m.ID+"/"+m.Role)
	}
	if !reflect.DeepEqual(kept, []string{"m0/system", "m1/user", "m4/assistant"}) {
		t.Fatalf("the example keeps %v; want m0/system, m1/user, m4/assistant", kept)
	}
}
