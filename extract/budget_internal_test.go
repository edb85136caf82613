package extract

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/prompts"
)

// TestFitsBudgetIsExact: counting only some lines decides as counting them
// all would, at every budget around the transcript's tokens and bytes, and
// the counts it returns are the lines' own.
func TestFitsBudgetIsExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 4))
	words := []string{"ramen", "jazz", "Lisbon", "tired", "my", "sister", "is", "a", "the", "<b>", "&", "ünïcödé", "日本語", "🙂", "  ", "\n", `"quoted"`, "1234567"}
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	for trial := range 40 {
		msgs := make([]Message, 1+rng.IntN(12))
		for i := range msgs {
			var b strings.Builder
			for range rng.IntN(60) {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteByte(' ')
			}
			msgs[i] = Message{ID: fmt.Sprintf("m%d", i+1), Role: []string{"user", "assistant"}[i%2], Content: b.String(), At: at.Add(time.Duration(i) * time.Minute)}
		}
		tokens, bytes := 0, 0
		for _, m := range msgs {
			tokens += messageTokens(m)
			bytes += len(prompts.TranscriptLine(promptTurn(m))) + 1
		}
		for _, budget := range []int{1, tokens / 2, tokens - 1, tokens, tokens + 1, (tokens + bytes) / 2, bytes - 1, bytes, bytes + 1} {
			if budget <= 0 {
				continue
			}
			fits, lines, counts := fitsBudget(msgs, budget)
			if want := tokens <= budget; fits != want {
				t.Fatalf("trial %d, %d tokens, %d bytes, budget %d: fits %t, want %t", trial, tokens, bytes, budget, fits, want)
			}
			for i, m := range msgs {
				if lines[i] != prompts.TranscriptLine(promptTurn(m)) {
					t.Fatalf("trial %d: line %d is not the message's", trial, i)
				}
				if counts != nil && counts[i] != 0 && counts[i] != messageTokens(m) {
					t.Fatalf("trial %d: line %d counted %d, takes %d", trial, i, counts[i], messageTokens(m))
				}
			}
		}
	}
}
