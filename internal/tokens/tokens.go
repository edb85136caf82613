// Package tokens counts a chat model's tokens. It is shared by the model
// client (rate limits, usage checks) and the extraction engine (budgets),
// which must not import each other.
package tokens

import (
	"fmt"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// codec is the o200k_base tokenizer (GPT-4o and later). Its vocabulary is
// embedded; building it takes a moment, so it is built once, on first use. A
// codec is safe for concurrent use.
var codec = sync.OnceValue(func() tokenizer.Codec {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		panic(fmt.Sprintf("tokens: embedded tokenizer: %v", err))
	}
	return c
})

// Count returns how many o200k_base tokens text takes. For models with
// another vocabulary it is an estimate, close enough for budgets.
func Count(text string) int {
	if text == "" {
		return 0
	}
	n, err := codec().Count(text)
	if err != nil {
		// Count fails only in the strict UTF-8 mode, which is never set;
		// fall back to the usual four bytes per token.
		return (len(text) + 3) / 4
	}
	return n
}

// Codec is the o200k_base tokenizer itself, built once.
func Codec() tokenizer.Codec { return codec() }
