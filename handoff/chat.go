package handoff

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
)

// A turn reaches the HTTP API in Mnemo's shape ({id, role, content, at}) or
// as an OpenAI chat message with an id (and, if known, at) added: the
// fields OpenAI defines for a message are accepted, and any other name is
// still refused. What Mnemo keeps of such a message (docs/api.md, "The
// session shape"):
//   - content as a string, or as an array of text parts
//     [{"type":"text","text":"…"}], joined by a line break;
//   - content null only on an assistant message that carries tool_calls
//     (or a refusal, which then is the turn's text), as OpenAI allows;
//     anywhere else null is refused, as a turn whose text was lost;
//   - role "developer" (OpenAI's newer name for system) as system;
//   - name, tool_calls and tool_call_id are read and not kept;
//   - a tool message (role "tool": a tool's output, not the user's words),
//     and an assistant message of tool calls alone, are dropped before
//     anything is stored: no transcript, extraction, count or screen sees
//     them. Their ids still count as the session's (no other turn may
//     reuse one), and an event may not point at one.
//
// wireMessage is such a turn as decoded.
type wireMessage struct {
	ID         string      `json:"id"`
	Role       string      `json:"role"`
	Content    chatContent `json:"content"`
	At         time.Time   `json:"at"`
	Name       string      `json:"name"`
	ToolCalls  []toolCall  `json:"tool_calls"`
	ToolCallID string      `json:"tool_call_id"`
	Refusal    string      `json:"refusal"`
}

// chatContent is a turn's content as the scanner reads it (strict.go):
// Text for a string, Parts for an array, kept as written, Null for null;
// all zero when absent.
type chatContent struct {
	Text  string
	Parts json.RawMessage
	Null  bool
}

// toolCall is an entry of an assistant message's tool_calls, as OpenAI
// writes it; it is checked, not kept.
type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// wireRequest is the session-close body as decoded: Request's fields, with
// the turns as they came (Request keeps Mnemo's turns, which Go callers
// build and fingerprints are computed over).
type wireRequest struct {
	UserID      string          `json:"user_id"`
	App         string          `json:"app"`
	StartedAt   time.Time       `json:"started_at"`
	EndedAt     time.Time       `json:"ended_at"`
	Timezone    string          `json:"timezone,omitempty"`
	DisplayName string          `json:"display_name,omitempty"`
	Messages    []wireMessage   `json:"messages"`
	Events      []extract.Event `json:"events,omitempty"`
}

// wireMessagesRequest is the messages body as decoded.
type wireMessagesRequest struct {
	UserID   string        `json:"user_id"`
	App      string        `json:"app"`
	Timezone string        `json:"timezone,omitempty"`
	Messages []wireMessage `json:"messages"`
}

// decodeWire reads a body of type W strictly and converts its turns.
func decodeWire[W any](body []byte, turnsOf func(*W) []wireMessage) (W, []extract.Message, toolTurns, error) {
	w, err := decodeStrict[W](body)
	if err != nil {
		return w, nil, nil, err
	}
	msgs, tools, err := turns(turnsOf(&w))
	return w, msgs, tools, err
}

// toolTurns marks the turns of a body that are not kept (tool messages
// and assistant messages of tool calls alone), by position; nil when none.
type toolTurns []bool

// turns converts decoded turns to Mnemo's, checking what only the wire
// shape can get wrong; the positions of the turns that are not kept come
// back marked.
func turns(in []wireMessage) ([]extract.Message, toolTurns, error) {
	if in == nil {
		return nil, nil, nil
	}
	out := make([]extract.Message, len(in))
	var tools toolTurns
	for i, w := range in {
		f := item{"messages", i}
		text, err := contentText(f, w.Content)
		if err != nil {
			return nil, nil, err
		}
		null := w.Content.Null
		role := w.Role
		if role == "developer" {
			role = "system"
		}
		switch {
		case len(w.ToolCalls) > 0 && role != "assistant":
			return nil, nil, invalid(f.dot("tool_calls"), "only an assistant message may carry tool_calls")
		case w.ToolCallID != "" && role != "tool":
			return nil, nil, invalid(f.dot("tool_call_id"), "only a tool message (role tool) carries tool_call_id")
		case w.Refusal != "" && role != "assistant":
			return nil, nil, invalid(f.dot("refusal"), "only an assistant message carries a refusal")
		}
		if text == "" && w.Content.Parts == nil && w.Refusal != "" {
			text, null = w.Refusal, false
		}
		drop := role == "tool" || len(w.ToolCalls) > 0 && text == ""
		if null && !drop {
			return nil, nil, invalid(f.dot("content"), `is null: send the turn's text as a string, "" for an empty turn, or an array of text parts; only an assistant message with tool_calls may have none`)
		}
		if drop {
			if tools == nil {
				tools = make(toolTurns, len(in))
			}
			tools[i] = true
		}
		out[i] = extract.Message{ID: w.ID, Role: role, Content: text, At: w.At}
	}
	return out, tools, nil
}

// contentText is the text of a turn's content: the string, or the text
// parts joined by line breaks; "" when absent or null.
func contentText(f item, c chatContent) (string, error) {
	if c.Parts == nil {
		return c.Text, nil
	}
	raw := c.Parts
	var parts []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", invalid(f.dot("content"), `must be a string or an array of text parts such as [{"type":"text","text":"Hello"}]`)
	}
	var b strings.Builder
	for j, p := range parts {
		part := item{f.dot("content"), j}
		if p == nil {
			return "", invalid(part.String(), `must be a text part such as {"type":"text","text":"Hello"}`)
		}
		if typ := p["type"]; len(typ) == 0 || typ[0] != '"' || jsonString(typ) != "text" {
			return "", invalid(part.dot("type"), `must be "text": only text parts are accepted`)
		}
		for _, name := range slices.Sorted(maps.Keys(p)) {
			if name != "type" && name != "text" {
				return "", invalid(part.dot(name), "is not a known field (a text part has type and text)")
			}
		}
		t := p["text"]
		if len(t) == 0 || t[0] != '"' {
			return "", invalid(part.dot("text"), "must be a string")
		}
		if j > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(jsonString(t))
	}
	return b.String(), nil
}

// jsonString unquotes a JSON string the scanner has checked.
func jsonString(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// dropped reports whether the i-th turn m is not kept: a tool message, or
// one Decode marked (an assistant message of tool calls alone).
func (tools toolTurns) dropped(i int, m extract.Message) bool {
	return m.Role == "tool" || i < len(tools) && tools[i]
}

// keep drops the turns that are not kept, once every check of the body has
// passed; dropped are their ids (nil when none).
func (tools toolTurns) keep(msgs []extract.Message) (kept []extract.Message, dropped map[string]bool) {
	n := 0
	for i, m := range msgs {
		if tools.dropped(i, m) {
			n++
		}
	}
	if n == 0 {
		return msgs, nil
	}
	kept = make([]extract.Message, 0, len(msgs)-n)
	dropped = make(map[string]bool, n)
	for i, m := range msgs {
		if tools.dropped(i, m) {
			dropped[m.ID] = true
			continue
		}
		kept = append(kept, m)
	}
	return kept, dropped
}
