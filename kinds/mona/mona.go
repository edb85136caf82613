// Package mona is the general companion kind (docs/presets.md, Mona): the
// default kind, which an app that names no kind it knows runs. Its rules are
// the engine's general rules (grammar.MineSession: the memory vocabulary and
// the statement patterns every kind may use); what is Mona's own is its
// context pack and its page. It registers itself (kinds/all).
package mona

import (
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/grammar"
	"github.com/mnemo-ai/mnemo/prompts"
)

// Mona is the general companion: the kind of apps whose rules are "mona",
// and of apps whose rules name no registered kind.
var Mona extract.Kind = kindMona{}

func init() { extract.RegisterDefault(Mona) }

type kindMona struct{ extract.BaseKind }

// defaultBudget is the context pack's budget, in tokens, when neither the
// request nor the app's policy sets one.
const defaultBudget = 400

func (kindMona) Name() string { return "mona" }
func (kindMona) PackPolicy() extract.PackPolicy {
	return extract.PackPolicy{Budget: defaultBudget}
}
func (kindMona) View() extract.View {
	return extract.View{Heading: "What Mona remembers", Page: extract.PageMemories}
}
func (kindMona) Rules(res *extract.Result, p prompts.Policy, s extract.Session, now time.Time) {
	grammar.MineSession(res, p, s, now)
}
func (kindMona) Pack(in extract.PackInput) *extract.PackPlan { return packMona(in) }
func (kindMona) PackBound(query string, now time.Time) extract.PackBound {
	return packBound(query, now)
}
