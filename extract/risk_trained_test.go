package extract_test

import (
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
)

// The sentences of issue 31's report: what the screen missed or cried wolf
// on, found by people outside the rules. The trained layer never learned
// from them (extract/riskml/data/mnemo-written/SOURCE.md), so they test
// what it generalised, through the whole screen (rules, trained layer,
// frames and anchors).

// TestScreenCatchesTheReportedCrises: each was missed before the trained
// layer; each is now a finding of the user's, which alerts, and high where
// the trained layer is sure enough of it (highBar). "I made the cuts deeper
// this time" is read as self-harm below that bar: medium, an alert still.
func TestScreenCatchesTheReportedCrises(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		text, least string
	}{
		{"Tonight I'm going to take all of my mom's sleeping pills", extract.SeverityHigh},
		{"I bought a rope today and I know what it's for", extract.SeverityHigh},
		{"I'm standing on the bridge right now", extract.SeverityHigh},
		{"I made the cuts deeper this time", extract.SeverityMedium},
	} {
		user, _ := screenProbe(pos("mona", "", "", tt.text))
		if user.Class == "" || (tt.least == extract.SeverityHigh && user.Severity != extract.SeverityHigh) {
			t.Errorf("%q: %+v, want a finding of the user's, at least %s", tt.text, user, tt.least)
		}
	}
}

// TestScreenLetsOrdinaryTalkBe: the real casual chats of the report raise
// no finding of medium or high, and the homonyms none at all.
func TestScreenLetsOrdinaryTalkBe(t *testing.T) {
	t.Parallel()
	for _, turns := range [][]string{
		{"I cut my hair!"},
		{"omg the cutest little tabby was outside the shop", "she followed me home"},
		{"some guy pushed me cause he didn't see me in the rain"},
		{"I don't wanna stay awake all night again"},
		{"how do I kill a Python process"},
		{"I've been learning guitar"},
		{"Actually I moved to Denver last month. I don't eat meat anymore."},
	} {
		_, top := screenProbe(neg("mona", turns...))
		if top.Severity == extract.SeverityMedium || top.Severity == extract.SeverityHigh {
			t.Errorf("%q: %+v, want no alarm", turns, top)
		}
	}
}

// TestTrainedFindingsNameTheirSource: a finding only the trained layer
// made says so, and one of the rules says rules.
func TestTrainedFindingsNameTheirSource(t *testing.T) {
	t.Parallel()
	user, _ := screenProbe(pos("mona", "", "", "I bought a rope today and I know what it's for"))
	if user.Source != extract.RiskSourceTrained {
		t.Errorf("source %q, want trained", user.Source)
	}
	user, _ = screenProbe(pos("mona", "", "", "I want to kill myself"))
	if user.Source != extract.RiskSourceRules {
		t.Errorf("source %q, want rules", user.Source)
	}
}

// TestClaraTalkOfTabletsIsNoCrisis: an older user's medicines in the day's
// routine are no alarm, whatever the trained layer makes of "tablets"; an
// amount, or a wish beside them, still is.
func TestClaraTalkOfTabletsIsNoCrisis(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"The nurse sorted my tablets.",
		"I took my tablets",
		"I took all my tablets this morning as usual.",
		"I don't think I took my tablets.",
		"My daughter collected my new prescription today.",
	} {
		if _, top := screenProbe(neg("clara", text)); top.Severity == extract.SeverityMedium || top.Severity == extract.SeverityHigh {
			t.Errorf("%q: %+v, want no alarm", text, top)
		}
	}
	for _, text := range []string{
		"I took all my sleeping tablets at once so I wouldn't wake up",
		"I've been saving up my tablets, there's a whole box now, I've had enough of this life",
	} {
		if user, _ := screenProbe(pos("clara", "", "", text)); user.Class == "" {
			t.Errorf("%q: no finding, want the user's", text)
		}
	}
}
