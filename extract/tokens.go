package extract

import (
	"fmt"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/internal/tokens"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/tiktoken-go/tokenizer"
)

// CountTokens returns how many o200k_base tokens text takes. For models with
// another vocabulary it is an estimate, close enough for budgets.
func CountTokens(text string) int { return tokens.Count(text) }

// tokenCodec is the tokenizer CountTokens counts with.
func tokenCodec() tokenizer.Codec { return tokens.Codec() }

// messageTokens is what a message takes in a rendered transcript: its line
// and the newline after it.
func messageTokens(m Message) int {
	return CountTokens(prompts.TranscriptLine(promptTurn(m)) + "\n")
}

// fitsBudget reports whether msgs' rendered transcript takes at most budget
// tokens, counting as few of them as it can: every o200k_base token is at
// least one byte (and the fallback estimate a quarter of that), so a line
// takes at most its bytes in tokens. The lines are counted in order until
// the tokens counted and the bytes of the lines left fit the budget (the
// rest need not be counted) or the tokens counted alone exceed it. Most
// sessions are decided by their bytes alone, or after a few of their lines.
// The counts made are returned by index (0: not counted; a line takes at
// least one token), for ChunkMessages not to count them again.
func fitsBudget(msgs []Message, budget int) (bool, []string, []int) {
	lines := make([]string, len(msgs))
	left := 0 // bytes of the lines not counted, newlines included
	for i, m := range msgs {
		lines[i] = prompts.TranscriptLine(promptTurn(m))
		left += len(lines[i]) + 1
	}
	if left <= budget {
		return true, lines, nil
	}
	counts := make([]int, len(msgs))
	used := 0
	for i, line := range lines {
		counts[i] = CountTokens(line + "\n")
		used += counts[i]
		left -= len(line) + 1
		if used > budget {
			return false, lines, counts
		}
		if used+left <= budget {
			return true, lines, counts
		}
	}
	return true, lines, counts // not reached: the last line leaves no bytes
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
	return chunkMessages(msgs, budget, func(i int) int { return messageTokens(msgs[i]) })
}

// chunkMessages is ChunkMessages with the tokens of message i given by
// tokensOf(i), called once per message.
func chunkMessages(msgs []Message, budget int, tokensOf func(i int) int) ([][]Message, error) {
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
	for i, m := range msgs {
		n := tokensOf(i)
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
