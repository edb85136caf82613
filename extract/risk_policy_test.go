package extract_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
)

// The tests of the one combination policy (docs/safety.md, "Sources and
// the policy"): what a model answer may do to the screen's findings, and
// what none can.

// policySession: u1 and u3 are the user's, a1 the companion's.
var policySession = extract.Session{ID: "s-1", UserID: "u-1", App: "mona", Messages: []extract.Message{
	{ID: "u1", Role: "user"}, {ID: "a1", Role: "assistant"}, {ID: "u2", Role: "user"}, {ID: "u3", Role: "user"},
}}

func rulesRisk(id, class, severity, actor string) extract.Risk {
	return extract.Risk{MessageID: id, Class: class, Severity: severity, Actor: actor, Source: extract.RiskSourceRules}
}

func modelEntry(id, class, severity, actor, reason string) extract.ModelRisk {
	return extract.ModelRisk{MessageID: id, Class: class, Severity: severity, Actor: actor, Reason: reason}
}

func TestCombineRisksPolicy(t *testing.T) {
	t.Parallel()
	const (
		user, other          = extract.ActorUser, extract.ActorOther
		high, medium, low    = extract.SeverityHigh, extract.SeverityMedium, extract.SeverityLow
		suicidal, distress   = extract.RiskSuicidal, extract.RiskDistress
		rules, trained, mdl  = extract.RiskSourceRules, extract.RiskSourceTrained, extract.RiskSourceModel
		fiction, hyperbole   = extract.FrameFiction, extract.FrameHyperbole
		lowersHigh, unknownM = extract.DropModelRiskLowersHigh, extract.DropModelRiskMessage
	)
	crisis := rulesRisk("u2", suicidal, high, user) // "I want to kill myself tonight, I have the pills ready."
	hurt := rulesRisk("u2", distress, medium, user) // "I hate my life."
	cases := []struct {
		name    string
		screen  []extract.Risk
		model   []extract.ModelRisk
		want    []extract.Risk
		lowered []extract.Lowering
		ignored []extract.Dropped
	}{{
		name:    "story injection: fiction on a high finding",
		screen:  []extract.Risk{crisis},
		model:   []extract.ModelRisk{modelEntry("u2", extract.RiskNone, low, user, fiction)},
		want:    []extract.Risk{crisis},
		ignored: []extract.Dropped{{MessageID: "u2", Reason: lowersHigh}},
	}, {
		name:    "severity swap: low with a frame on a high finding",
		screen:  []extract.Risk{crisis},
		model:   []extract.ModelRisk{modelEntry("u2", suicidal, low, user, hyperbole)},
		want:    []extract.Risk{crisis},
		ignored: []extract.Dropped{{MessageID: "u2", Reason: lowersHigh}},
	}, {
		name:    "actor and severity swap: someone else's medium with a frame on a high finding",
		screen:  []extract.Risk{crisis},
		model:   []extract.ModelRisk{modelEntry("u2", suicidal, medium, other, extract.FrameOtherPerson)},
		want:    []extract.Risk{crisis},
		ignored: []extract.Dropped{{MessageID: "u2", Reason: lowersHigh}},
	}, {
		name:   "actor swap: someone else's high on the user's medium stays the user's, raised",
		screen: []extract.Risk{hurt},
		model:  []extract.ModelRisk{modelEntry("u2", suicidal, high, other, "intent")},
		want:   []extract.Risk{{MessageID: "u2", Class: suicidal, Severity: high, Actor: user, Source: mdl}},
	}, {
		name:   "actor swap at the same severity changes nothing",
		screen: []extract.Risk{crisis},
		model:  []extract.ModelRisk{modelEntry("u2", suicidal, high, other, "stated")},
		want:   []extract.Risk{crisis},
	}, {
		name:   "a weaker entry without a frame changes nothing",
		screen: []extract.Risk{crisis},
		model:  []extract.ModelRisk{modelEntry("u2", distress, low, other, "stated")},
		want:   []extract.Risk{crisis},
	}, {
		name:   "the strongest entry of a message decides: a second entry's frame lowers nothing",
		screen: []extract.Risk{hurt},
		model: []extract.ModelRisk{modelEntry("u2", extract.RiskNone, low, user, fiction),
			modelEntry("u2", distress, medium, user, "stated")},
		want: []extract.Risk{hurt},
	}, {
		name:   "findings naming other messages or made-up ids lower nothing",
		screen: []extract.Risk{crisis},
		model: []extract.ModelRisk{modelEntry("a1", extract.RiskNone, low, user, fiction),
			modelEntry("u9", extract.RiskNone, low, user, fiction), modelEntry("U2", extract.RiskNone, low, user, fiction),
			modelEntry("", extract.RiskNone, low, user, fiction), modelEntry("u1", extract.RiskNone, low, user, fiction)},
		want: []extract.Risk{crisis},
		ignored: []extract.Dropped{{MessageID: "a1", Reason: unknownM}, {MessageID: "", Reason: unknownM},
			{MessageID: "", Reason: unknownM}, {MessageID: "", Reason: unknownM}},
	}, {
		name:    "a medium lowered with a frame leaves the findings and is recorded with its actor and source",
		screen:  []extract.Risk{hurt},
		model:   []extract.ModelRisk{modelEntry("u2", extract.RiskNone, low, user, fiction)},
		lowered: []extract.Lowering{{MessageID: "u2", FromClass: distress, FromSeverity: medium, ToClass: extract.RiskNone, Frame: fiction, Actor: user, Source: rules}},
	}, {
		name:    "a medium lowered to someone else's low keeps the user as the lowered finding's actor",
		screen:  []extract.Risk{hurt},
		model:   []extract.ModelRisk{modelEntry("u2", distress, low, other, extract.FrameOtherPerson)},
		lowered: []extract.Lowering{{MessageID: "u2", FromClass: distress, FromSeverity: medium, ToClass: distress, ToSeverity: low, Frame: extract.FrameOtherPerson, Actor: user, Source: rules}},
	}, {
		name:   "a medium with a lower entry but no frame stands",
		screen: []extract.Risk{hurt},
		model:  []extract.ModelRisk{modelEntry("u2", extract.RiskNone, low, user, "stated")},
		want:   []extract.Risk{hurt},
	}, {
		name:   "the model adds what the screen missed",
		screen: []extract.Risk{crisis},
		model:  []extract.ModelRisk{modelEntry("u1", suicidal, high, user, "plan")},
		want:   []extract.Risk{{MessageID: "u1", Class: suicidal, Severity: high, Actor: user, Source: mdl}, crisis},
	}, {
		name:   "the model makes someone else's words the user's own",
		screen: []extract.Risk{rulesRisk("u2", distress, medium, other)},
		model:  []extract.ModelRisk{modelEntry("u2", distress, medium, user, "stated")},
		want:   []extract.Risk{{MessageID: "u2", Class: distress, Severity: medium, Actor: user, Source: mdl}},
	}, {
		name:   "the model raises a trained finding",
		screen: []extract.Risk{{MessageID: "u3", Class: distress, Severity: medium, Actor: user, Source: trained}},
		model:  []extract.ModelRisk{modelEntry("u3", suicidal, high, other, "plan")},
		want:   []extract.Risk{{MessageID: "u3", Class: suicidal, Severity: high, Actor: user, Source: mdl}},
	}, {
		name: "rules and trained on one message join: the higher severity, the user's",
		screen: []extract.Risk{rulesRisk("u2", distress, medium, user),
			{MessageID: "u2", Class: suicidal, Severity: high, Actor: other, Source: trained}},
		want: []extract.Risk{{MessageID: "u2", Class: suicidal, Severity: high, Actor: user, Source: trained}},
	}, {
		name:    "a trained high is no more lowered than the rules' high",
		screen:  []extract.Risk{{MessageID: "u3", Class: suicidal, Severity: high, Actor: user, Source: trained}},
		model:   []extract.ModelRisk{modelEntry("u3", extract.RiskNone, low, user, fiction)},
		want:    []extract.Risk{{MessageID: "u3", Class: suicidal, Severity: high, Actor: user, Source: trained}},
		ignored: []extract.Dropped{{MessageID: "u3", Reason: lowersHigh}},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, lowered, ignored := extract.CombineRisks(policySession, c.screen, c.model)
			if !slices.Equal(out, c.want) {
				t.Errorf("findings %+v\nwant     %+v", out, c.want)
			}
			if !slices.Equal(lowered, c.lowered) {
				t.Errorf("lowered %+v\nwant    %+v", lowered, c.lowered)
			}
			if !slices.Equal(ignored, c.ignored) {
				t.Errorf("ignored %+v\nwant    %+v", ignored, c.ignored)
			}
		})
	}
}

// TestNoModelAnswerWeakensTheScreen tries every model entry the schema
// allows (and some it does not), alone and in pairs, against every kind
// of screen finding: none turns the user's finding into someone else's,
// lowers a high one, lowers anything without a frame code, or loses a
// finding without recording it.
func TestNoModelAnswerWeakensTheScreen(t *testing.T) {
	t.Parallel()
	sev := map[string]int{extract.SeverityLow: 1, extract.SeverityMedium: 2, extract.SeverityHigh: 3}
	classes := append([]string{extract.RiskNone, "murder"}, extract.RiskClasses...)
	reasons := append(append([]string{"because"}, extract.RiskFindingCodes...), extract.RiskFrames...)
	var entries []extract.ModelRisk
	for _, id := range []string{"u2", "a1", "zz"} {
		for _, class := range classes {
			for _, s := range []string{extract.SeverityLow, extract.SeverityMedium, extract.SeverityHigh, "critical"} {
				for _, actor := range []string{extract.ActorUser, extract.ActorOther, "nobody"} {
					for _, reason := range reasons {
						entries = append(entries, modelEntry(id, class, s, actor, reason))
					}
				}
			}
		}
	}
	// Pairs: each entry that tries to lower the screened message's finding
	// or to give it to someone else, before and after a valid one.
	var firsts, seconds []extract.ModelRisk
	for _, e := range entries {
		if e.MessageID == "u2" && (slices.Contains(extract.RiskFrames, e.Reason) || e.Actor == extract.ActorOther) && e.Severity != "critical" &&
			slices.Contains([]string{extract.RiskNone, extract.RiskSuicidal, extract.RiskSelfHarm, extract.RiskDistress}, e.Class) {
			firsts = append(firsts, e)
		}
		if e.MessageID == "u2" && slices.Contains([]string{extract.RiskNone, extract.RiskSuicidal, extract.RiskDistress}, e.Class) &&
			e.Severity != "critical" && e.Actor != "nobody" && slices.Contains([]string{"stated", extract.FrameFiction, extract.FrameOtherPerson}, e.Reason) {
			seconds = append(seconds, e)
		}
	}
	check := func(t *testing.T, screen extract.Risk, model []extract.ModelRisk) {
		out, lowered, _ := extract.CombineRisks(policySession, []extract.Risk{screen}, model)
		what := fmt.Sprintf("screen %+v, model %+v", screen, model)
		var got *extract.Risk
		for i := range out {
			if out[i].MessageID == screen.MessageID {
				if got != nil {
					t.Fatalf("%s: two findings on one message: %+v", what, out)
				}
				got = &out[i]
			}
		}
		if len(lowered) > 1 {
			t.Fatalf("%s: lowered %+v", what, lowered)
		}
		if len(lowered) == 1 {
			l := lowered[0]
			if got != nil || l.MessageID != screen.MessageID {
				t.Fatalf("%s: lowered %+v and kept %+v", what, l, got)
			}
			if screen.Severity == extract.SeverityHigh {
				t.Fatalf("%s: a high finding was lowered: %+v", what, l)
			}
			if !slices.Contains(extract.RiskFrames, l.Frame) {
				t.Fatalf("%s: lowered without a frame: %+v", what, l)
			}
			if l.FromClass != screen.Class || l.FromSeverity != screen.Severity || l.Actor != screen.Actor || l.Source != screen.Source {
				t.Fatalf("%s: the lowering %+v does not record the finding", what, l)
			}
			return
		}
		if got == nil {
			t.Fatalf("%s: the finding is gone and no lowering recorded: out %+v", what, out)
		}
		if sev[got.Severity] < sev[screen.Severity] {
			t.Fatalf("%s: severity lowered to %+v", what, *got)
		}
		if screen.Actor == extract.ActorUser && got.Actor != extract.ActorUser {
			t.Fatalf("%s: the user's finding became someone else's: %+v", what, *got)
		}
		if *got != screen && got.Source != extract.RiskSourceModel {
			t.Fatalf("%s: a finding the model changed does not name it: %+v", what, *got)
		}
		for _, r := range out {
			if r.MessageID != screen.MessageID && r.Source != extract.RiskSourceModel {
				t.Fatalf("%s: a finding the model added does not name it: %+v", what, r)
			}
		}
	}
	for _, s := range []string{extract.SeverityHigh, extract.SeverityMedium, extract.SeverityLow} {
		for _, actor := range []string{extract.ActorUser, extract.ActorOther} {
			for _, source := range []string{extract.RiskSourceRules, extract.RiskSourceTrained} {
				screen := extract.Risk{MessageID: "u2", Class: extract.RiskSelfHarm, Severity: s, Actor: actor, Source: source}
				for _, e := range entries {
					check(t, screen, []extract.ModelRisk{e})
				}
				if source == extract.RiskSourceTrained {
					continue // pairs once: the policy reads no source
				}
				for _, first := range firsts {
					for _, second := range seconds {
						check(t, screen, []extract.ModelRisk{first, second})
						check(t, screen, []extract.ModelRisk{second, first})
					}
				}
			}
		}
	}
}
