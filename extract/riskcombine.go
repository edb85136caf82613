package extract

import "slices"

// RiskNone is the class of a model's entry for a message that only looks
// like a risk statement; with a frame code it asks to lower the screen's
// finding (docs/safety.md, "Sources and the policy").
const RiskNone = "none"

// Frame codes: why words that look like a risk statement are not one. Only
// a model entry giving one of them may lower a finding, and never one of
// high severity.
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
	// DropModelRiskLowersHigh: the entry gave a frame code to lower a
	// finding of high severity, which no model answer may do; the finding
	// stands.
	DropModelRiskLowersHigh = "model_risk:lowers_high"
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

// Lowering records a screen finding of medium or low severity that the
// model lowered with a frame code: the message, the finding's class,
// severity, actor and source, the model's class and severity (class none
// and no severity when it asked to remove the finding) and the frame.
// Never the text. The lowered finding is still recorded as a risk cue,
// marked lowered, and its message's memories are still dropped; it is not
// posted to a webhook.
type Lowering struct {
	MessageID    string `json:"message_id"`
	FromClass    string `json:"from_class"`
	FromSeverity string `json:"from_severity"`
	ToClass      string `json:"to_class"`
	ToSeverity   string `json:"to_severity,omitempty"`
	Frame        string `json:"frame"`
	// Actor and Source are the lowered finding's.
	Actor  string `json:"actor"`
	Source string `json:"source"`
}

// CombineRisks applies the one policy for risk findings from different
// sources (docs/safety.md, "Sources and the policy") to a session's user
// messages. screen holds the screen's findings (Source rules or trained),
// model the model's judgement of the same session; nil model combines the
// screen's findings alone.
//
//   - Screen findings stand. Several on one message join into one: the
//     higher severity (a tie keeps the earlier), never turning the user's
//     into someone else's (see join).
//   - A model entry may add a finding (Source model) on a message the
//     screen found nothing in, or raise one: a higher severity, or the
//     user's own risk where the screen saw someone else's. It joins the
//     screen's finding the same way, so a raised finding the screen gave
//     to the user stays the user's, and it records Source model.
//   - No model answer lowers a finding of high severity: a frame code
//     against one is ignored and returned in ignored as
//     DropModelRiskLowersHigh. No model answer changes a finding's actor
//     from user to other.
//   - A finding of medium or low severity is lowered only when the model's
//     judgement of the message (its strongest entry there) is of lower
//     severity, or class none, with a frame code as its reason. The
//     finding then leaves out and is returned in lowered, with its class,
//     severity, actor and source, for the caller to record and to keep
//     dropping the message's memories. A lower judgement without a frame
//     lowers nothing; silence (no entry for the message) is not a
//     lowering.
//   - An entry with an unknown class, severity, actor or reason code, or on
//     a message that is not one of the session's user messages, is ignored
//     and returned in ignored with why.
//
// out has at most one finding per message, in the order of the session's
// messages. CombineRisks is pure.
func CombineRisks(s Session, screen []Risk, model []ModelRisk) (out []Risk, lowered []Lowering, ignored []Dropped) {
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
	found := map[string]Risk{}
	var order []string // message ids of screen findings, first seen first
	for _, r := range screen {
		if prev, ok := found[r.MessageID]; ok {
			found[r.MessageID] = join(prev, r)
			continue
		}
		found[r.MessageID] = r
		order = append(order, r.MessageID)
	}
	seen := map[string]bool{}
	for _, msg := range s.Messages {
		if seen[msg.ID] {
			continue
		}
		seen[msg.ID] = true
		r, hasScreen := found[msg.ID]
		m, hasModel := judged[msg.ID]
		switch {
		case !hasModel:
			if hasScreen {
				out = append(out, r)
			}
		case !hasScreen:
			if m.Class != RiskNone {
				out = append(out, modelFinding(msg.ID, m))
			}
		case modelRank(m) < severityRank[r.Severity] && slices.Contains(RiskFrames, m.Reason):
			if r.Severity == SeverityHigh {
				out = append(out, r) // no model answer lowers a high finding
				ignored = append(ignored, Dropped{MessageID: msg.ID, Reason: DropModelRiskLowersHigh})
				continue
			}
			l := Lowering{MessageID: msg.ID, FromClass: r.Class, FromSeverity: r.Severity, ToClass: RiskNone,
				Frame: m.Reason, Actor: r.Actor, Source: r.Source}
			if m.Class != RiskNone {
				l.ToClass, l.ToSeverity = m.Class, m.Severity
			}
			lowered = append(lowered, l)
		case m.Class == RiskNone:
			out = append(out, r) // a none without a frame lowers nothing
		default:
			out = append(out, join(r, modelFinding(msg.ID, m)))
		}
	}
	// A screen finding is never lost, even on a message the session does
	// not list (the screen reads only the session's messages: defensive).
	for _, id := range order {
		if !seen[id] {
			out = append(out, found[id])
		}
	}
	return out, lowered, ignored
}

// join is the one finding standing on a message when added (a later
// screen finding, or a model's) meets standing: the fields of the one of
// higher severity (a tie keeps standing's), with the user as actor when
// standing is the user's (no source turns the user's risk into someone
// else's) or when added is the user's own of medium or high severity.
// Source names who gave what changed: added's source when it raised the
// severity or made the finding the user's.
func join(standing, added Risk) Risk {
	out := standing
	if severityRank[added.Severity] > severityRank[standing.Severity] {
		out = added
		out.MessageID = standing.MessageID
	}
	switch {
	case standing.Actor == ActorUser:
		out.Actor = ActorUser
	case added.Actor == ActorUser && severityRank[added.Severity] >= severityRank[SeverityMedium]:
		out.Actor, out.Source = ActorUser, added.Source
	}
	return out
}

// modelFinding is a model's entry as a finding of its own.
func modelFinding(id string, m ModelRisk) Risk {
	return Risk{Class: m.Class, Severity: m.Severity, MessageID: id, Actor: m.Actor, Source: RiskSourceModel}
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
