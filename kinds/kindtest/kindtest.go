// Package kindtest is a sixth app kind that exists only in tests: it shows
// what adding a kind takes. Its folder holds all it knows (its rules, its
// batch, its page, an app that names it under testdata/apps), and a test
// binary gets it with one import line; no engine package names it.
//
// Its rules keep what a user says after "note:" as a memory, and its
// summary counts the user's messages and notes. Its batch, kindtest-tally
// (tally.go, declared as batch.Batch), adds up each user's sessions and
// notes of the last 30 days daily into a record; its page (view.go,
// registered with views.RegisterPage) shows the notes and that tally.
package kindtest

import (
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/grammar"
	"github.com/mnemo-ai/mnemo/prompts"
)

// Name is the kind's name, as an app's policy.json names it ("rules").
const Name = "kindtest"

// Kind is the test kind.
var Kind extract.Kind = kind{}

func init() { extract.Register(Kind) }

type kind struct{ extract.BaseKind }

func (kind) Name() string { return Name }

// Rules keeps each user message that starts with "note:" as a memory under
// the key "plan:note" (a key of the engine's vocabulary, extract.ValidKey;
// the latest wins), and summarises the session by its counts.
func (kind) Rules(res *extract.Result, _ prompts.Policy, s extract.Session, _ time.Time) {
	said := 0
	for _, m := range s.Messages {
		if !extract.IsUser(m.Role) {
			continue
		}
		said++
		text := strings.TrimSpace(m.Content)
		if len(text) < len("note:") || !strings.EqualFold(text[:len("note:")], "note:") {
			continue
		}
		if v := grammar.Tidy(text[len("note:"):]); v != "" {
			res.Memories = append(res.Memories, extract.Memory{Key: "plan:note", Value: v, Category: "fact",
				Importance: 50, Confidence: 1, SourceMessageID: m.ID})
		}
	}
	res.SessionSummary["summary"] = extract.Count(said, "message from the user", "messages from the user") +
		", " + extract.Count(len(res.Memories), "note", "notes")
	res.SessionSummary["notes"] = len(res.Memories) // what the tally batch adds up
}

func (kind) View() extract.View {
	return extract.View{Heading: "Notes of the test kind", Page: Page}
}

func (kind) PackPolicy() extract.PackPolicy { return extract.PackPolicy{Budget: 200} }
