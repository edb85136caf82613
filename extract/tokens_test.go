package extract_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

func TestCountTokens(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]int{
		"":                0,
		"hello world":     2,
		"my name is John": 4,
	} {
		if got := extract.CountTokens(text); got != want {
			t.Errorf("CountTokens(%q) = %d, want %d", text, got, want)
		}
	}
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 200)
	if n := extract.CountTokens(long); n < 1500 || n > 2500 {
		t.Errorf("%d tokens for 1800 words", n)
	}

	// One codec serves every goroutine.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := extract.CountTokens(long); got != extract.CountTokens(long) {
				t.Error("counts differ")
			}
		})
	}
	wg.Wait()
}

// tokMessages builds a transcript with the given contents.
func tokMessages(contents ...string) []extract.Message {
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	msgs := make([]extract.Message, len(contents))
	for i, c := range contents {
		msgs[i] = extract.Message{ID: fmt.Sprintf("m%d", i+1), Role: []string{"user", "assistant"}[i%2], Content: c, At: at.Add(time.Duration(i) * time.Second)}
	}
	return msgs
}

// renderedTokens is what a chunk takes in the user prompt's transcript block.
func renderedTokens(chunk []extract.Message) int {
	lines := make([]string, len(chunk))
	for i, m := range chunk {
		lines[i] = prompts.TranscriptLine(prompts.Turn{ID: m.ID, Role: m.Role, At: m.At, Content: m.Content})
	}
	return extract.CountTokens(strings.Join(lines, "\n"))
}

func TestChunkMessagesProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"garden", "weather", "my", "name", "is", "John", "<3", "</transcript>", "\"quoted\"", "line\nbreak",
		"🙂", "日本語", "naïve", "&", "tab\there", "1234567", "…"}
	randomText := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String()
	}
	tests := []struct {
		name   string
		msgs   []extract.Message
		budget int
	}{
		{"short messages", tokMessages("hi", "hello", "how are you", "fine thanks", "bye"), 60},
		{"one long message", tokMessages(strings.Repeat("word ", 2000)), 300},
		{"escaping-heavy", tokMessages(strings.Repeat(`<"&>`, 500), "ok"), 120},
		{"multibyte", tokMessages(strings.Repeat("日本語のテキスト🙂", 300)), 80},
		{"mixed", tokMessages(randomText(50), randomText(800), randomText(3), randomText(400), randomText(10)), 150},
		{"random small budget", tokMessages(randomText(300), randomText(300)), 45},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			chunks, err := extract.ChunkMessages(tt.msgs, tt.budget)
			if err != nil {
				t.Fatal(err)
			}
			var flat []extract.Message
			for i, c := range chunks {
				if len(c) == 0 {
					t.Errorf("chunk %d is empty", i)
				}
				if n := renderedTokens(c); n > tt.budget {
					t.Errorf("chunk %d renders to %d tokens, budget %d", i, n, tt.budget)
				}
				for _, m := range c {
					if !utf8.ValidString(m.Content) {
						t.Errorf("chunk %d: message %s was cut inside a character", i, m.ID)
					}
				}
				flat = append(flat, c...)
			}
			// Gluing the parts of each message back gives the transcript:
			// nothing dropped, nothing reordered, IDs kept.
			var back []extract.Message
			for _, m := range flat {
				if n := len(back); n > 0 && back[n-1].ID == m.ID {
					back[n-1].Content += m.Content
					continue
				}
				back = append(back, m)
			}
			if len(back) != len(tt.msgs) {
				t.Fatalf("%d messages after chunking, want %d", len(back), len(tt.msgs))
			}
			for i := range back {
				if back[i] != tt.msgs[i] {
					t.Errorf("message %d changed: %q… vs %q…", i, clipTest(back[i].Content), clipTest(tt.msgs[i].Content))
				}
			}
		})
	}
}

func TestChunkMessagesKeepsShortTranscriptWhole(t *testing.T) {
	t.Parallel()
	msgs := tokMessages("hi", "hello")
	for _, budget := range []int{0, -1, 10_000} {
		chunks, err := extract.ChunkMessages(msgs, budget)
		if err != nil || len(chunks) != 1 || len(chunks[0]) != 2 {
			t.Errorf("budget %d: %d chunks, %v", budget, len(chunks), err)
		}
	}
	if chunks, err := extract.ChunkMessages(nil, 100); err != nil || len(chunks) != 0 {
		t.Errorf("no messages: %v, %v", chunks, err)
	}
	long := tokMessages(strings.Repeat("word ", 100))
	if chunks, _ := extract.ChunkMessages(long, 0); len(chunks) != 1 || chunks[0][0].Content != long[0].Content {
		t.Error("budget 0 must keep even a long message whole")
	}
}

func TestChunkMessagesRefusesImpossibleBudget(t *testing.T) {
	t.Parallel()
	msgs := tokMessages(strings.Repeat("word ", 100))
	_, err := extract.ChunkMessages(msgs, 10)
	if err == nil || !strings.Contains(err.Error(), `"m1"`) {
		t.Fatalf("got %v, want an error naming the message", err)
	}
}

func clipTest(s string) string {
	if len(s) > 40 {
		return s[:40]
	}
	return s
}

// TestTokensNeverExceedBytes holds the bound the chunker's fast path rests
// on: a text takes no more tokens than it has bytes, whatever its script.
func TestTokensNeverExceedBytes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	alphabets := []string{"abc XYZ 123.,!?\n", "éüßñç ", "日本語の文章です。", "🙂🎉👨‍👩‍👧", "\x00\x01\t\r ", "ab\xff\xfe"}
	for i := range 2000 {
		var b strings.Builder
		for range r.IntN(200) {
			a := []rune(alphabets[r.IntN(len(alphabets))])
			b.WriteRune(a[r.IntN(len(a))])
		}
		if i%7 == 0 {
			b.WriteString(strings.Repeat(" ", r.IntN(50)))
		}
		text := b.String()
		if n := extract.CountTokens(text); n > len(text) {
			t.Fatalf("%q: %d tokens for %d bytes", text, n, len(text))
		}
	}
}
