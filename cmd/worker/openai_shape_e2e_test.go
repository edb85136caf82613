package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/transcript"
)

// openAITurns is a Mona exchange as a chat service built on OpenAI's chat
// completions API holds it: the developer prompt, the user's turn as text
// parts, the model's tool call (content null), the tool's output and the
// named answer; Mnemo's id and at added to each.
func openAITurns(start int) []any {
	return []any{
		map[string]any{"id": "m0", "role": "developer", "content": "You are Mona, a warm companion. Keep answers short."},
		map[string]any{"id": "m1", "role": "user", "name": "peggy", "at": at(start + 1), "content": []any{
			map[string]any{"type": "text", "text": "Hi, my name is Peggy. I love ramen."},
			map[string]any{"type": "text", "text": "Is the noodle bar on Kirkgate open tonight?"},
		}},
		map[string]any{"id": "m2", "role": "assistant", "content": nil, "refusal": nil, "at": at(start + 2), "tool_calls": []any{
			map[string]any{"id": "call_Qx81", "type": "function", "function": map[string]any{"name": "opening_hours", "arguments": `{"place":"noodle bar, Kirkgate"}`}},
		}},
		map[string]any{"id": "m3", "role": "tool", "tool_call_id": "call_Qx81", "at": at(start + 2), "content": `{"open":true,"closes":"22:00","owner_phone":"0113 496 0000"}`},
		map[string]any{"id": "m4", "role": "assistant", "name": "mona", "at": at(start + 3), "content": "It is, Peggy: open until ten tonight. Enjoy the ramen!"},
	}
}

// plainTurns is the same exchange in Mnemo's own shape.
func plainTurns(start int) []any {
	return []any{
		map[string]any{"id": "m0", "role": "system", "content": "You are Mona, a warm companion. Keep answers short."},
		map[string]any{"id": "m1", "role": "user", "at": at(start + 1), "content": "Hi, my name is Peggy. I love ramen.\nIs the noodle bar on Kirkgate open tonight?"},
		map[string]any{"id": "m4", "role": "assistant", "at": at(start + 3), "content": "It is, Peggy: open until ten tonight. Enjoy the ramen!"},
	}
}

// TestOpenAIShapedSessionEndToEnd (issue 35 §3): on each database, a
// session whose turns are OpenAI chat messages is accepted over HTTP and
// its memories come out as the plain shape's; the stored transcript (of a
// Coach session: Coach keeps them) holds the three turns, not the tool call
// or the tool's output; content null on
// a user's turn is refused, naming the field; streamed tool traffic alone
// adds nothing.
func TestOpenAIShapedSessionEndToEnd(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			hand := func(session, user, app string, msgs []any) {
				t.Helper()
				code, res := c.do("POST", "/v1/sessions/"+session+"/close", map[string]any{
					"user_id": user, "app": app, "started_at": at(0), "ended_at": at(20), "timezone": "Europe/London", "messages": msgs,
				})
				if code != 202 {
					t.Fatalf("close %s = %d %v", session, code, res)
				}
			}
			hand("s-openai", "u-openai", "mona", openAITurns(0))
			hand("s-plain", "u-plain", "mona", plainTurns(0))
			// Coach keeps transcripts (Mona keeps none once extracted).
			hand("s-coach", "u-coach", "coach", openAITurns(0))
			for _, id := range []string{"s-openai", "s-plain", "s-coach"} {
				if s := c.waitProcessed(id); s["status"] != "processed" || s["message_count"] != float64(3) {
					t.Fatalf("%s: status %v, %v turns; want processed, 3", id, s["status"], s["message_count"])
				}
			}
			memories := func(user string) []string {
				t.Helper()
				code, res := c.do("GET", "/v1/users/"+user+"/memories", nil)
				if code != 200 {
					t.Fatalf("memories of %s = %d %v", user, code, res)
				}
				list, _ := res["memories"].([]any)
				var out []string
				for _, m := range list {
					m := m.(map[string]any)
					v, _ := json.Marshal(m["value"])
					out = append(out, fmt.Sprintf("%v %v=%s (%v)", m["category"], m["key"], v, m["source_message_id"]))
				}
				slices.Sort(out)
				return out
			}
			got, want := memories("u-openai"), memories("u-plain")
			if len(want) == 0 || !strings.Contains(strings.Join(want, "\n"), "Peggy") {
				t.Fatalf("the plain shape's memories %q lack the name: the comparison proves nothing", want)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("memories of the OpenAI shape:\n%s\nof the plain shape:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}

			keys, err := seal.ParseKeys("e2e:a passphrase for the e2e tests")
			if err != nil {
				t.Fatal(err)
			}
			stored, err := transcript.Load(context.Background(), openTestStore(t, url), keys, "s-coach")
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, m := range stored {
				ids = append(ids, m.ID+"/"+m.Role)
				if strings.Contains(m.Content, "0113") || strings.Contains(m.Content, "opening_hours") {
					t.Errorf("the stored turn %s holds tool traffic", m.ID)
				}
			}
			if !slices.Equal(ids, []string{"m0/system", "m1/user", "m4/assistant"}) {
				t.Errorf("stored transcript %v; want m0/system, m1/user, m4/assistant", ids)
			}

			code, res := c.do("POST", "/v1/sessions/s-null/close", map[string]any{
				"user_id": "u-openai", "app": "mona", "started_at": at(30), "ended_at": at(40),
				"messages": []any{map[string]any{"id": "m1", "role": "user", "content": nil, "at": at(31)}},
			})
			if errObj, _ := res["error"].(map[string]any); code != 422 || !strings.Contains(fmt.Sprint(errObj["message"]), "messages[0].content") {
				t.Errorf("content null = %d %v; want 422 naming messages[0].content", code, res)
			}
			code, res = c.do("POST", "/v1/sessions/s-stream/messages", map[string]any{
				"user_id": "u-openai", "app": "mona", "messages": []any{openAITurns(40)[3]},
			})
			if code != 202 || res["added"] != float64(0) || res["buffered"] != float64(0) {
				t.Errorf("streamed tool output alone = %d %v; want 202, nothing added", code, res)
			}
			code, res = c.do("POST", "/v1/sessions/s-stream/messages", map[string]any{
				"user_id": "u-openai", "app": "mona", "messages": openAITurns(40)[1:4],
			})
			if code != 202 || res["added"] != float64(1) || res["buffered"] != float64(1) {
				t.Errorf("streamed OpenAI turns = %d %v; want 202, the user's turn alone added", code, res)
			}
		})
	}
}
