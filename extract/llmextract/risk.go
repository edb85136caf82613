package llmextract

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/llm"
	"github.com/mnemo-ai/mnemo/prompts"
)

// RiskModel is which second looks at the risk screen's findings an
// Extractor takes on the rules path (MNEMO_RISK_MODEL; docs/safety.md,
// "Escalation to a model"). The zero value takes none.
type RiskModel struct {
	// Escalate: one risk-only chat call per session (prompts.RiskCheck).
	Escalate bool
	// Moderation: the provider's moderation endpoint (llm.Client.Moderate).
	Moderation bool
}

// The words of MNEMO_RISK_MODEL.
const (
	RiskModelOff        = "off"
	RiskModelEscalate   = "escalate"
	RiskModelModeration = "moderation"
)

// ParseRiskModel reads MNEMO_RISK_MODEL: off (or empty), escalate,
// moderation, or both comma-separated.
func ParseRiskModel(s string) (RiskModel, error) {
	var r RiskModel
	s = strings.TrimSpace(s)
	if s == "" || s == RiskModelOff {
		return r, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		switch strings.TrimSpace(part) {
		case RiskModelEscalate:
			r.Escalate = true
		case RiskModelModeration:
			r.Moderation = true
		default:
			return RiskModel{}, fmt.Errorf("%q is not off, escalate, moderation or escalate,moderation", s)
		}
	}
	return r, nil
}

// On reports whether any second look is taken.
func (r RiskModel) On() bool { return r.Escalate || r.Moderation }

// String is the setting's value: off, escalate, moderation or escalate,moderation.
func (r RiskModel) String() string {
	var parts []string
	if r.Escalate {
		parts = append(parts, RiskModelEscalate)
	}
	if r.Moderation {
		parts = append(parts, RiskModelModeration)
	}
	if len(parts) == 0 {
		return RiskModelOff
	}
	return strings.Join(parts, ",")
}

// RiskModel is the configured second looks (Config.RiskModel).
func (x *Extractor) RiskModel() RiskModel { return x.risk }

// Escalation is what Escalate did: never any text.
type Escalation struct {
	// Asked is how many messages were asked about (0: no call was made).
	Asked int
	// Usage is what the risk check took; a moderation call takes no tokens.
	Usage extract.Usage
	// Moderations is how many moderation calls were answered.
	Moderations int
	// Entries is how many model entries the answers gave, before the policy.
	Entries int
}

// Escalate gives the messages the risk screen flagged or could not decide
// about in a result of the rules (extract.RiskQuestions) the second looks
// the configured RiskModel takes, and passes res through extract.Screen
// again with what they found as res.ModelRisks: the one policy combines
// them (they may add and raise; they never lower a high finding nor make
// the user's someone else's), with source model.
//
//   - Escalate: one risk-only call (prompts.RiskCheck) listing those
//     messages, each with the user's previous turn, through llm.Client.Ask
//     (the answer checked against the risk check's schema, with one
//     repair round). Entries on messages it was not asked about are
//     ignored (extract.DropModelRiskNotAsked).
//   - Moderation: the moderation endpoint, one call per message (the
//     client's moderation call takes one text), mapped by
//     ModerationRisks; the first failure ends them.
//
// Nothing is asked when app's policy allows no model (its words never go
// to one), when res is the model's own (its answer judged the risks in
// the same call), or when no message is flagged or grey. When a call
// fails, what the others found still applies and the error is returned,
// joined: the screen's findings stand. Escalation reports the calls'
// Usage in every case, for the caller to count.
func (x *Extractor) Escalate(ctx context.Context, app *prompts.App, s extract.Session, res *extract.Result) (Escalation, error) {
	esc := Escalation{Usage: extract.Usage{Model: x.client.Model()}}
	if app == nil || !app.Policy.LLM || !x.risk.On() || res.Source == extract.SourceLLM {
		return esc, nil
	}
	qs := extract.RiskQuestions(s, *res)
	if len(qs) == 0 {
		return esc, nil
	}
	esc.Asked = len(qs)
	var found []extract.ModelRisk
	var errs []error
	if x.risk.Escalate {
		got, dropped, err := x.riskCheck(ctx, s, qs, &esc.Usage)
		if err != nil {
			errs = append(errs, fmt.Errorf("risk check: %w", err))
		}
		found = append(found, got...)
		res.Dropped = append(res.Dropped, dropped...)
	}
	if x.risk.Moderation {
		screen := map[string]extract.Risk{}
		for _, r := range res.Risks {
			screen[r.MessageID] = r
		}
		for _, q := range qs {
			m, err := x.client.Moderate(ctx, q.Text)
			if err != nil {
				errs = append(errs, fmt.Errorf("moderation: %w", err))
				break
			}
			esc.Moderations++
			r, has := screen[q.ID]
			var at *extract.Risk
			if has {
				at = &r
			}
			found = append(found, ModerationRisks(q.ID, at, m)...)
		}
	}
	esc.Entries = len(found)
	if len(found) > 0 {
		res.ModelRisks = append(res.ModelRisks, found...)
		extract.Screen(res, app.Policy, s)
	}
	return esc, errors.Join(errs...)
}

// riskCheck makes the risk-only call about qs and returns the answer's
// entries on the messages asked, and the others as dropped.
func (x *Extractor) riskCheck(ctx context.Context, s extract.Session, qs []prompts.RiskMessage, u *extract.Usage) ([]extract.ModelRisk, []extract.Dropped, error) {
	system, err := x.riskApp.RenderSystem()
	if err != nil {
		return nil, nil, &llm.PermanentError{Err: err}
	}
	user, err := prompts.RiskCheckUser(qs)
	if err != nil {
		return nil, nil, &llm.PermanentError{Err: err}
	}
	lu := llm.Usage(*u)
	ans, err := x.client.Ask(ctx, x.riskApp, system, user, &lu)
	*u = extract.Usage(lu)
	if err != nil {
		return nil, nil, err
	}
	entries := extract.ModelRisksOf(ans)
	asked := map[string]bool{}
	for _, q := range qs {
		asked[q.ID] = true
	}
	users := map[string]bool{}
	for _, m := range s.Messages {
		if strings.EqualFold(strings.TrimSpace(m.Role), "user") {
			users[m.ID] = true
		}
	}
	var kept []extract.ModelRisk
	var dropped []extract.Dropped
	for _, e := range entries {
		if users[e.MessageID] && !asked[e.MessageID] {
			d := extract.Dropped{MessageID: e.MessageID, Reason: extract.DropModelRiskNotAsked}
			if !slices.Contains(dropped, d) {
				dropped = append(dropped, d)
			}
			continue
		}
		kept = append(kept, e) // a made-up id is CombineRisks' to report
	}
	return kept, dropped, nil
}

// ModerationThreshold is the score at which a moderation category counts
// when the endpoint did not flag it.
const ModerationThreshold = 0.5

// ModerationRisks maps what the moderation endpoint said of user message
// id to model entries (actor user, source model once combined); screen is
// the screen's finding on the message, nil when it is grey. The endpoint
// reads one text: it cannot tell whose words, nor a frame (the past, a
// story, someone else's), nor, for violence, who does what to whom. So:
//
//   - a message whose finding the screen gave to someone else (actor other)
//     or to the user's resolved past (severity low) gets nothing;
//   - self-harm/intent: suicidal, high, reason intent (self_harm when the
//     screen's finding is self_harm);
//   - self-harm/instructions: self_harm, medium, reason means (suicidal
//     when the screen's finding is);
//   - self-harm: self_harm, medium, reason stated (suicidal when the
//     screen's finding is);
//   - violence, violence/graphic, harassment, harassment/threatening:
//     abuse, medium, reason disclosure, on a grey message only (the user
//     is then taken to be the one hurt); on a message the screen found a
//     risk in, these say nothing the finding does not (a statement of
//     suicide scores violence too).
//
// A category counts when the endpoint flagged it or scored it at least
// ModerationThreshold.
func ModerationRisks(id string, screen *extract.Risk, m llm.Moderation) []extract.ModelRisk {
	if screen != nil && (screen.Actor != extract.ActorUser || screen.Severity == extract.SeverityLow) {
		return nil
	}
	hit := func(names ...string) bool {
		for _, n := range names {
			if c := m.Categories[n]; c.Flagged || c.Score >= ModerationThreshold {
				return true
			}
		}
		return false
	}
	class := func(def string) string {
		if screen != nil && (screen.Class == extract.RiskSuicidal || screen.Class == extract.RiskSelfHarm) {
			return screen.Class
		}
		return def
	}
	entry := func(class, severity, reason string) extract.ModelRisk {
		return extract.ModelRisk{MessageID: id, Class: class, Severity: severity, Actor: extract.ActorUser, Reason: reason}
	}
	var out []extract.ModelRisk
	if hit(llm.ModSelfHarmIntent) {
		out = append(out, entry(class(extract.RiskSuicidal), extract.SeverityHigh, "intent"))
	}
	if hit(llm.ModSelfHarmInstructions) {
		out = append(out, entry(class(extract.RiskSelfHarm), extract.SeverityMedium, "means"))
	}
	if hit(llm.ModSelfHarm) {
		out = append(out, entry(class(extract.RiskSelfHarm), extract.SeverityMedium, "stated"))
	}
	if screen == nil && hit(llm.ModViolence, llm.ModViolenceGraphic, llm.ModHarassment, llm.ModHarassmentThreatening) {
		out = append(out, entry(extract.RiskAbuse, extract.SeverityMedium, "disclosure"))
	}
	return out
}
