package extract

import "github.com/mnemo-ai/mnemo/extract/riskml"

// withTrained joins the trained layer's findings (extract/riskml) to the
// rules' findings of a session, per user message (docs/safety.md,
// "Sources and the policy"):
//
//   - a message the rules found nothing in takes the trained layer's
//     finding (medium, or high with an intent, plan, means, time or act
//     signal), with source trained, actor user;
//   - a message the rules found the user's medium risk in is raised to
//     high when the trained layer finds high there (source trained);
//   - a finding of the trained layer alone gives way to the rules' frames
//     (trainedFramed): a topic, a joke, play, an accident, hyperbole, a
//     title, the past;
//   - the trained layer never lowers a finding, and never touches one the
//     rules gave to someone else or to the user's resolved past (low):
//     those are the rules' frames, which it does not read.
//
// rules is in the order of the session's messages, and so is the result.
func withTrained(s Session, rules []Risk) []Risk {
	m := riskml.Default()
	byMsg := make(map[string]int, len(rules))
	for i, r := range rules {
		byMsg[r.MessageID] = i
	}
	out := make([]Risk, 0, len(rules))
	for _, msg := range s.Messages {
		if !isUser(msg.Role) {
			continue
		}
		i, has := byMsg[msg.ID]
		if has && (rules[i].Actor != ActorUser || rules[i].Severity != SeverityMedium) {
			out = append(out, rules[i])
			continue
		}
		f := m.Judge(msg.Content)
		switch {
		case f.Class == "":
			if has {
				out = append(out, rules[i])
			}
		case !has && trainedFramed(msg.Content, f.Severity):
			// The rules' frames qualify what the trained layer reads.
		case !has:
			out = append(out, Risk{Class: f.Class, Severity: f.Severity, MessageID: msg.ID, Actor: ActorUser, Source: RiskSourceTrained})
		case f.Severity == SeverityHigh:
			r := rules[i]
			r.Severity, r.Source = SeverityHigh, RiskSourceTrained
			if r.Class != f.Class && f.Class != RiskHopelessness && f.Class != RiskDistress {
				r.Class = f.Class
			}
			out = append(out, r)
		default:
			out = append(out, rules[i])
		}
	}
	return out
}

// trainedFramed reports whether the rules read a frame in a message that
// the trained layer found a risk in and the rules found none: the frames
// of docs/safety.md, which a bag of words does not see. A medium finding
// gives way to any of them; a high one (an intent, plan, means or act
// signal) only to the past, a joke, play or an accident, not to a topic
// word beside it ("everyone in my class hates me and I have the pills").
func trainedFramed(text, severity string) bool {
	t := riskFold(text)
	if historyMarks.MatchString(t) || resolvedPast.MatchString(t) || otherPast.MatchString(t) ||
		jokeFrame.MatchString(t) || playFrame.MatchString(t) || (accidentFrame.MatchString(t) && !deliberate.MatchString(t)) {
		return true
	}
	return severity != SeverityHigh && (topicFrame.MatchString(t) || hyperbole.MatchString(t) || titleContext.MatchString(t))
}
