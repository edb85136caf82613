// Package grammar is the general memory-mining grammar that kinds call: the
// statement patterns ("my favorite band is …", "I work at …", "I have two
// dogs"), the vocabulary they fill (names, places, items, feelings, events)
// and the value checks that keep only what a user said of themselves. It
// reads a session's user messages and fills an extract.Result.
//
// It imports the engine (package extract) for its types, sentences, dates
// and key vocabulary; the engine never imports it. A kind that mines the
// general memories calls MineSession or MineMessage from its own rules.
package grammar

import (
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// MineMessage runs the general statement rules on one user message: the
// memories it states, and why a sentence was dropped.
func MineMessage(text string) (found []extract.Memory, reasons []string) { return mineMessage(text) }

// FeelWords is the alternation of the words that name a feeling
// ("tired|sad|…"), for a pattern.
const FeelWords = feelWord

// MineSession runs the general rules on a session: the memories the user's
// own messages state, the feeling of the session, and its summary, under
// p's lifetimes and confidence floor. It is the general companion's whole
// extractor, and any kind's to call.
func MineSession(res *extract.Result, p prompts.Policy, s extract.Session, now time.Time) {
	mineSession(res, p, s, now)
}
