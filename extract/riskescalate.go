package extract

import (
	"slices"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/prompts"
)

// Escalation to a model (docs/safety.md, "Escalation to a model"): on the
// rules path of an app that allows a model, the messages the screen
// flagged or could not decide about may get a second, risk-only look. The
// answer is a model judgement like an LLM answer's "risks": set as
// Result.ModelRisks, it passes Screen again, under the one policy.

// MaxRiskQuestions is the most messages one risk check asks about.
const MaxRiskQuestions = 20

// The most of a message's text, and of its previous turn's, a risk check
// sends: a message is cut at its end, the previous turn keeps its end (what
// the message answers).
const (
	maxRiskQuestionBytes = 4000
	maxRiskContextBytes  = 600
)

// DropModelRiskNotAsked is the Dropped reason of a risk check's entry on a
// user message of the session it was not asked about: the model never saw
// that message, so its entry is no judgement of it.
const DropModelRiskNotAsked = "model_risk:not_asked"

// RiskQuestions lists the user messages of s a risk check asks about once
// Screen ran on res: every message with a finding (res.Risks, whatever its
// source, severity or actor) and every message in res.RiskGrey, in the
// session's order, each with the user's previous turn as context. Of more
// than MaxRiskQuestions, the messages with a finding come first. A text is
// cut to 4,000 bytes, a previous turn to its last 600. None: no call is
// worth making.
func RiskQuestions(s Session, res Result) []prompts.RiskMessage {
	flagged := map[string]bool{}
	for _, r := range res.Risks {
		flagged[r.MessageID] = true
	}
	grey := map[string]bool{}
	for _, id := range res.RiskGrey {
		grey[id] = !flagged[id]
	}
	var found, unsure []prompts.RiskMessage
	prev := ""
	seen := map[string]bool{}
	for _, m := range s.Messages {
		if !isUser(m.Role) {
			continue
		}
		before := prev
		prev = m.Content
		if seen[m.ID] || (!flagged[m.ID] && !grey[m.ID]) {
			continue
		}
		seen[m.ID] = true
		q := prompts.RiskMessage{ID: m.ID, Text: headUTF8(m.Content, maxRiskQuestionBytes), Before: tailUTF8(before, maxRiskContextBytes)}
		if flagged[m.ID] {
			found = append(found, q)
		} else {
			unsure = append(unsure, q)
		}
	}
	out := append(found, unsure...)
	if len(out) > MaxRiskQuestions {
		out = out[:MaxRiskQuestions]
	}
	order := map[string]int{}
	for i, m := range s.Messages {
		if _, ok := order[m.ID]; !ok {
			order[m.ID] = i
		}
	}
	slices.SortStableFunc(out, func(a, b prompts.RiskMessage) int { return order[a.ID] - order[b.ID] })
	return out
}

// headUTF8 is s cut to at most n bytes on a character boundary.
func headUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// tailUTF8 is the last n bytes of s at most, from a character boundary.
func tailUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}

// ModelRisksOf reads the "risks" of a model's answer checked against its
// schema (an app's, or the risk check's).
func ModelRisksOf(answer map[string]any) []ModelRisk { return modelRisksFrom(answer["risks"]) }
