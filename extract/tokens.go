package extract

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/tiktoken-go/tokenizer"
)

// tokenCodec is the o200k_base tokenizer (GPT-4o and later). Its vocabulary is
// embedded; building it takes a moment, so it is built once, on first use. A
// codec is safe for concurrent use.
var tokenCodec = sync.OnceValue(func() tokenizer.Codec {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		panic(fmt.Sprintf("extract: embedded tokenizer: %v", err))
	}
	return c
})

// CountTokens returns how many o200k_base tokens text takes. For models with
// another vocabulary it is an estimate, close enough for budgets.
func CountTokens(text string) int {
	if text == "" {
		return 0
	}
	n, err := tokenCodec().Count(text)
	if err != nil {
		// Count fails only in the strict UTF-8 mode, which is never set;
		// fall back to the usual four bytes per token.
		return (len(text) + 3) / 4
	}
	return n
}

// messageTokens is what a message takes in a rendered transcript: its line
// and the newline after it.
func messageTokens(m Message) int {
	return CountTokens(prompts.TranscriptLine(promptTurn(m)) + "\n")
}

// transcriptBytes is the length of msgs' rendered transcript, an upper
// bound of its tokens: every o200k_base token is at least one byte, and the
// fallback estimate is a quarter of that.
func transcriptBytes(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += len(prompts.TranscriptLine(promptTurn(m))) + 1
	}
	return n
}

// transcriptTokens is what msgs take as a rendered transcript.
func transcriptTokens(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += messageTokens(m)
	}
	return n
}

func promptTurn(m Message) prompts.Turn {
	return prompts.Turn{ID: m.ID, Role: m.Role, At: m.At, Content: m.Content}
}

// ChunkMessages splits a transcript into consecutive chunks whose rendered
// transcript (as the user templates render it) each takes at most budget
// tokens. A message too long for a chunk of its own is split on token
// boundaries, never inside a character, into parts that keep its ID, role and
// time; nothing is dropped, so the parts' contents joined give the message
// back. A budget of 0 or less keeps the transcript in one chunk; no messages
// give no chunks. It fails only when budget cannot hold even a message's
// framing, or a single character of it.
func ChunkMessages(msgs []Message, budget int) ([][]Message, error) {
	if len(msgs) == 0 {
		return nil, nil
	}
	if budget <= 0 {
		return [][]Message{msgs}, nil
	}
	var (
		chunks [][]Message
		cur    []Message
		used   int
	)
	add := func(m Message, n int) {
		if used+n > budget && len(cur) > 0 {
			chunks = append(chunks, cur)
			cur, used = nil, 0
		}
		cur = append(cur, m)
		used += n
	}
	for _, m := range msgs {
		n := messageTokens(m)
		if n <= budget {
			add(m, n)
			continue
		}
		parts, err := splitMessage(m, budget)
		if err != nil {
			return nil, err
		}
		for _, p := range parts {
			add(p, messageTokens(p))
		}
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks, nil
}

// splitMessage cuts m into parts that each render within budget tokens.
func splitMessage(m Message, budget int) ([]Message, error) {
	empty := m
	empty.Content = ""
	framing := messageTokens(empty)
	room := budget - framing
	if room <= 0 {
		return nil, fmt.Errorf("chunk transcript: a budget of %d tokens cannot hold message %q, whose framing alone takes %d", budget, m.ID, framing)
	}
	_, pieces, err := tokenCodec().Encode(m.Content)
	if err != nil {
		return nil, fmt.Errorf("chunk transcript: tokenize message %q: %w", m.ID, err)
	}
	// offs[i] is the byte offset where token i starts. A byte-level token may
	// hold part of a character; a part may end only where a character starts.
	offs := make([]int, len(pieces)+1)
	for i, p := range pieces {
		offs[i+1] = offs[i] + len(p)
	}
	cuttable := func(i int) bool {
		o := offs[i]
		return o >= len(m.Content) || utf8.RuneStart(m.Content[o])
	}

	var parts []Message
	for start := 0; start < len(pieces); {
		for n := room; ; {
			end := min(start+n, len(pieces))
			for end > start && !cuttable(end) {
				end--
			}
			oneChar := end == start
			if oneChar { // one character takes more than n tokens
				end = start + 1
				for end < len(pieces) && !cuttable(end) {
					end++
				}
			}
			part := m
			part.Content = m.Content[offs[start]:offs[end]]
			got := messageTokens(part)
			if got <= budget {
				parts = append(parts, part)
				start = end
				break
			}
			// Escaping inside the JSON line made the part bigger than its
			// tokens; shrink in proportion and try again.
			if oneChar || end-start <= 1 || n <= 1 {
				return nil, fmt.Errorf("chunk transcript: a budget of %d tokens cannot hold a single character of message %q", budget, m.ID)
			}
			n = max(1, min(end-start-1, (end-start)*room/max(1, got-framing)))
		}
	}
	return parts, nil
}
