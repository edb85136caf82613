package extract

import "slices"

// RiskNone is the class of a model's entry for a message that only looks
// like a risk statement; with a frame code it lowers the rules' finding.
const RiskNone = "none"

// Frame codes: why words that look like a risk statement are not one. Only
// a model entry giving one of them may lower a rules finding.
const (
	FrameTopic       = "topic"
	FrameFiction     = "fiction"
	FrameHyperbole   = "hyperbole"
	FramePast        = "past"
	FrameOtherPerson = "other_person"
)

// RiskFrames lists the frame codes.
var RiskFrames = []string{FrameTopic, FrameFiction, FrameHyperbole, FramePast, FrameOtherPerson}

// RiskFindingCodes lists the reason codes of a model's finding.
var RiskFindingCodes = []string{"stated", "passive", "intent", "plan", "means", "act", "disclosure", "danger_now"}

// Reasons of a model's risk entry that CombineRisks ignored, reported in
// Result.Dropped with the entry's message id (empty when the id is not a
// user message of the session).
const (
	DropModelRiskClass   = "model_risk:unknown_class"
	DropModelRiskMessage = "model_risk:unknown_message"
	DropModelRiskCode    = "model_risk:unknown_code"
)

// ModelRisk is one entry of the model's own risk judgement (the answer's
// "risks"): a finding, or, with class none or a lower severity and a frame
// code as its reason, a claim that a message only looks like a risk.
type ModelRisk struct {
	MessageID string `json:"message_id"`
	Class     string `json:"class"`
	Severity  string `json:"severity"`
	Actor     string `json:"actor"`
	Reason    string `json:"reason"`
}

// Lowering records a rules finding the model lowered with a frame code:
// the message, the rules' class and severity, the model's (class none and
// no severity when it removed the finding) and the frame. Never the text.
type Lowering struct {
	MessageID    string `json:"message_id"`
	FromClass    string `json:"from_class"`
	FromSeverity string `json:"from_severity"`
	ToClass      string `json:"to_class"`
	ToSeverity   string `json:"to_severity,omitempty"`
	Frame        string `json:"frame"`
}

// CombineRisks merges the rules' findings with the model's judgement of the
// same session, per user message (docs/safety.md, "Rules and the model"):
//
//   - The rules never lower a model's finding: of the two, the one of
//     higher severity stands; a tie keeps the rules' finding. A model
//     finding on a message the rules found nothing in is taken as it is.
//   - The model lowers a rules finding only when its judgement of the
//     message (its strongest entry there) is of lower severity, or class
//     none, and gives a frame code as its reason. Then the model's finding
//     replaces the rules' (none removes it) and the lowering is returned.
//     A lower judgement without a frame code lowers nothing; silence (no
//     entry for the message) is not a lowering.
//   - An entry with an unknown class, severity, actor or reason code, or on
//     a message that is not one of the session's user messages, is ignored
//     and returned in ignored with why.
//
// out is in the order of the session's messages. CombineRisks is pure.
func CombineRisks(s Session, rules []Risk, model []ModelRisk) (out []Risk, lowered []Lowering, ignored []Dropped) {
	users := map[string]bool{}
	for _, m := range s.Messages {
		if isUser(m.Role) {
			users[m.ID] = true
		}
	}
	// The model's strongest valid entry per message.
	judged := map[string]ModelRisk{}
	for _, m := range model {
		switch {
		case !users[m.MessageID]:
			id := m.MessageID
			if !idOf(s, id) {
				id = "" // an id the model made up is not repeated
			}
			ignored = append(ignored, Dropped{MessageID: id, Reason: DropModelRiskMessage})
			continue
		case m.Class != RiskNone && !slices.Contains(RiskClasses, m.Class):
			ignored = append(ignored, Dropped{MessageID: m.MessageID, Reason: DropModelRiskClass})
			continue
		case m.Class != RiskNone && (severityRank[m.Severity] == 0 || (m.Actor != ActorUser && m.Actor != ActorOther)),
			!slices.Contains(RiskFrames, m.Reason) && !slices.Contains(RiskFindingCodes, m.Reason):
			ignored = append(ignored, Dropped{MessageID: m.MessageID, Reason: DropModelRiskCode})
			continue
		}
		if prev, ok := judged[m.MessageID]; !ok || modelRank(m) > modelRank(prev) {
			judged[m.MessageID] = m
		}
	}
	byRules := map[string]Risk{}
	for _, r := range rules {
		byRules[r.MessageID] = r
	}
	for _, msg := range s.Messages {
		r, hasRule := byRules[msg.ID]
		m, hasModel := judged[msg.ID]
		asRisk := Risk{Class: m.Class, Severity: m.Severity, MessageID: msg.ID, Actor: m.Actor}
		switch {
		case !hasModel:
			if hasRule {
				out = append(out, r)
			}
		case !hasRule:
			if m.Class != RiskNone {
				out = append(out, asRisk)
			}
		case modelRank(m) > severityRank[r.Severity]:
			out = append(out, asRisk) // the rules never lower a model's finding
		case modelRank(m) < severityRank[r.Severity] && slices.Contains(RiskFrames, m.Reason):
			l := Lowering{MessageID: msg.ID, FromClass: r.Class, FromSeverity: r.Severity, ToClass: RiskNone, Frame: m.Reason}
			if m.Class != RiskNone {
				l.ToClass, l.ToSeverity = m.Class, m.Severity
				out = append(out, asRisk)
			}
			lowered = append(lowered, l)
		default:
			out = append(out, r) // a tie, or a lower judgement without a frame
		}
	}
	return out, lowered, ignored
}

// modelRank is the severity rank of a model's entry, 0 for class none.
func modelRank(m ModelRisk) int {
	if m.Class == RiskNone {
		return 0
	}
	return severityRank[m.Severity]
}

// idOf reports whether id is a message of s.
func idOf(s Session, id string) bool {
	return slices.ContainsFunc(s.Messages, func(m Message) bool { return m.ID == id })
}

// modelRisksFrom reads the answer's "risks" list, already checked by the
// schema; an entry that is not an object is skipped.
func modelRisksFrom(v any) []ModelRisk {
	list, _ := v.([]any)
	out := make([]ModelRisk, 0, len(list))
	for _, it := range list {
		o, ok := it.(map[string]any)
		if !ok {
			continue
		}
		out = append(out, ModelRisk{
			MessageID: answerString(o["message_id"]),
			Class:     answerString(o["class"]),
			Severity:  answerString(o["severity"]),
			Actor:     answerString(o["actor"]),
			Reason:    answerString(o["reason"]),
		})
	}
	return out
}
