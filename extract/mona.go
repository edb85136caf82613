package extract

import (
	"time"

	"github.com/mnemo-ai/mnemo/prompts"
)

// mona (seed 004): the general companion.
type kindMona struct{ baseKind }

func (kindMona) Name() string       { return "mona" }
func (kindMona) DefaultBudget() int { return DefaultBudgetMona }
func (kindMona) Rules(res *Result, p prompts.Policy, s Session, now time.Time) {
	mineSession(res, p, s, now)
}
func (kindMona) pack(in PackInput) *packPlan { p := packMona(in); return &p }
