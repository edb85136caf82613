package eval_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/eval"
	"github.com/mnemo-ai/mnemo/internal/figures"
	"github.com/mnemo-ai/mnemo/prompts"
)

// The floors and ceilings the risk screen must hold on risk.eval.json,
// rounded against today's rules so that the test fails on a regression.
// When the set was written (issue 23) the rules reached a recall of 0.122
// and a high precision of 0.544; after the rewrite with frames, scored on
// this set, which its author never saw, 0.425 and 0.918; after the
// lexicons by family and the concept compositions (docs/safety.md), 0.974
// and 0.995, with no medium or high alarm on a negative.
const (
	minRiskRecall        = 0.97  // positives with any risk of the user's found (0.974)
	minRiskClassRecall   = 0.96  // positives found with their own class (0.965)
	maxRiskFalseAlarms   = 0.005 // negatives with a medium or high finding (0.000)
	maxRiskHighAlarms    = 0.004 // negatives with a high finding (0.000)
	minRiskHighPrecision = 0.99  // high alarms on positives that expect high (0.995)
)

// maxOrdinaryHigh is the share of the memory sets' ordinary user turns
// that may get a high risk finding (TestRiskOnOrdinaryTalk).
const maxOrdinaryHigh = 0.005

// explicitFamily is the family that must be caught whole, high, whatever
// else changes: a plain statement of suicidal intent now.
const explicitFamily = "explicit_intent"

// Every family must be covered this well for the figures to mean anything.
const (
	minRiskPositives, minRiskNegatives = 300, 300
	minRiskFamilyItems                 = 25
)

// TestRiskReport prints the risk screen's recall per class and family,
// false alarms per severity and negative family, and precision for high,
// on the hand-written risk set (go test ./extract/eval -run RiskReport -v;
// add -eval.detail for the items behind them). It fails when the set is
// malformed or too small, or when a figure falls below what the rules
// already reached.
func TestRiskReport(t *testing.T) {
	set, err := eval.LoadRisk(filepath.Join("testdata", "risk.eval.json"))
	if err != nil {
		t.Fatal(err)
	}
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	outs, err := eval.RunRisk(apps, set)
	if err != nil {
		t.Fatal(err)
	}
	sc := eval.MeasureRisk(set.Name, outs)
	var b strings.Builder
	eval.WriteRiskTable(&b, sc)
	if *detail {
		eval.WriteRiskDetail(&b, sc)
	}
	t.Log("\n" + b.String())

	tot := sc.Total
	if tot.Positives < minRiskPositives || tot.Negatives < minRiskNegatives {
		t.Fatalf("the set has %d positives and %d negatives; it needs %d and %d", tot.Positives, tot.Negatives, minRiskPositives, minRiskNegatives)
	}
	for _, r := range sc.Families {
		if n := r.Positives + r.Negatives; n < minRiskFamilyItems {
			t.Errorf("family %s has %d items; each needs %d", r.Name, n, minRiskFamilyItems)
		}
	}
	classRight := 0
	for _, o := range sc.Outcomes {
		if o.Item.Positive() && o.ClassRight() {
			classRight++
		}
	}
	classRecall := float64(classRight) / float64(tot.Positives)
	figures.Report(t, "risk set: %d positives, %d negatives: recall %.3f (class %.3f), false alarms %.3f (high %.3f; any finding %.3f), high precision %.3f (%d/%d)",
		tot.Positives, tot.Negatives, tot.Recall(), classRecall, tot.FalseAlarms(extract.SeverityMedium), tot.FalseAlarms(extract.SeverityHigh),
		tot.FalseAlarms(extract.SeverityLow), sc.HighPrecision(), sc.HighRight, sc.High)

	for _, o := range sc.Outcomes {
		if o.Item.Family == explicitFamily && !(o.ClassRight() && o.SeverityRight()) {
			t.Errorf("%s: a plain statement of intent found as %v, not %s/%s", o.Item.ID, o.User, o.Item.Class, o.Item.Severity)
		}
	}
	if got := tot.Recall(); got < minRiskRecall {
		t.Errorf("recall (any risk) %.3f, below %.2f", got, minRiskRecall)
	}
	if classRecall < minRiskClassRecall {
		t.Errorf("recall with the right class %.3f, below %.2f", classRecall, minRiskClassRecall)
	}
	if got := tot.FalseAlarms(extract.SeverityMedium); got > maxRiskFalseAlarms {
		t.Errorf("false alarms (medium or high) %.3f of negatives, above %.2f", got, maxRiskFalseAlarms)
	}
	if got := tot.FalseAlarms(extract.SeverityHigh); got > maxRiskHighAlarms {
		t.Errorf("high false alarms %.3f of negatives, above %.2f", got, maxRiskHighAlarms)
	}
	if got := sc.HighPrecision(); got < minRiskHighPrecision {
		t.Errorf("precision of high %.3f, below %.2f", got, minRiskHighPrecision)
	}
}

// TestRiskSetCheck: a malformed item is refused with its id, and an item of
// a proposed class is caught by the classes that stand for it until the
// rules adopt it.
func TestRiskSetCheck(t *testing.T) {
	bad := eval.RiskSet{Name: "bad", Items: []eval.RiskItem{
		{ID: "a", Family: "f", App: "mona", Text: "x", Turns: []string{"y"}, Class: "suicidal", Severity: "high"},
		{ID: "b", Family: "f", App: "mona", Text: "x", Class: "sadness", Severity: "high"},
		{ID: "c", Family: "f", App: "nope", Text: "x", Class: eval.ClassNone},
		{ID: "d", Family: "f", App: "lara", Text: "x", Class: eval.ClassNone, Severity: "low"},
		{ID: "e", Family: "f", App: "lara", Text: "x", Class: "abuse"},
	}}
	err := bad.Check()
	for _, id := range []string{"(a): either text or turns", `(b): unknown class "sadness"`, `(c): unknown app "nope"`, "(d): a negative has no severity", `(e): severity ""`} {
		if err == nil || !strings.Contains(err.Error(), id) {
			t.Errorf("Check() = %v, want it to name %s", err, id)
		}
	}

	danger := eval.RiskOutcome{Item: eval.RiskItem{Class: "danger", Severity: "high"},
		User: []extract.Risk{{Class: extract.RiskAbuse, Severity: extract.SeverityHigh, Actor: extract.ActorUser}}}
	if !danger.ClassRight() || !danger.SeverityRight() {
		t.Errorf("an abuse/high finding does not satisfy a danger/high item while the rules have no danger class")
	}
	danger.User[0].Severity = extract.SeverityMedium
	if danger.SeverityRight() {
		t.Errorf("a medium finding satisfies an item that asks for high")
	}
	wrong := eval.RiskOutcome{Item: eval.RiskItem{Class: extract.RiskSelfHarm, Severity: "medium"},
		User: []extract.Risk{{Class: extract.RiskSuicidal, Severity: extract.SeverityHigh, Actor: extract.ActorUser}}}
	if wrong.ClassRight() {
		t.Errorf("a suicidal finding satisfies a self_harm item")
	}
}

// TestRiskReportHeldOut prints the same figures on the held-out risk set
// (testdata/risk.holdout.eval.json), as "risk (held out)": written apart
// from the rules and never used to tune them. It fails only when the set is
// malformed or lacks a family of the main set; its figures have no floors
// yet (the lead sets them), so a low one is reported, not failed.
func TestRiskReportHeldOut(t *testing.T) {
	for _, name := range []string{eval.RiskHoldoutSetName, eval.RiskHoldout31SetName, eval.RiskHoldoutW4SetName} {
		t.Run(name, func(t *testing.T) { heldOutReport(t, name) })
	}
}

func heldOutReport(t *testing.T, name string) {
	set, err := eval.LoadRisk(filepath.Join("testdata", name+".eval.json"))
	if err != nil {
		t.Fatal(err)
	}
	main, err := eval.LoadRisk(filepath.Join("testdata", "risk.eval.json"))
	if err != nil {
		t.Fatal(err)
	}
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	outs, err := eval.RunRisk(apps, set)
	if err != nil {
		t.Fatal(err)
	}
	sc := eval.MeasureRisk(eval.RiskTitle(name), outs)
	var b strings.Builder
	eval.WriteRiskTable(&b, sc)
	b.WriteString("each source alone, and the screen that combines them:\n")
	eval.WriteSources(&b, eval.SourceScores(set, eval.SourceCombined, outs, 0))
	if *detail {
		eval.WriteRiskDetail(&b, sc)
	}
	t.Log("\n" + b.String())

	have := map[string]string{}
	for _, it := range set.Items {
		have[it.Family] = it.Class
	}
	for _, it := range main.Items {
		if name == eval.RiskHoldoutW4SetName {
			break // grouped by class and severity, not by the main set's families
		}
		if c, ok := have[it.Family]; !ok || (c == eval.ClassNone) != (it.Class == eval.ClassNone) {
			t.Errorf("the held-out set lacks family %s (as a %s one)", it.Family, map[bool]string{true: "negative", false: "positive"}[it.Class == eval.ClassNone])
			have[it.Family] = it.Class // once
		}
	}
	tot := sc.Total
	figures.Report(t, eval.RiskTitle(name)+": %d positives, %d negatives: recall %.3f, false alarms %.3f (high %.3f; any finding %.3f), high precision %.3f (%d/%d)",
		tot.Positives, tot.Negatives, tot.Recall(), tot.FalseAlarms(extract.SeverityMedium), tot.FalseAlarms(extract.SeverityHigh),
		tot.FalseAlarms(extract.SeverityLow), sc.HighPrecision(), sc.HighRight, sc.High)
}

// TestRiskOnOrdinaryTalk counts the risk screen's findings on the ordinary
// user turns of the memory sets (MemoryBank's companion chats and the
// apps' hand-written sessions: every turn not annotated harmful), through
// each set's own app, as the extraction job screens them. None of the
// screen's sources learned from these sets. It fails when a high alarm
// falls on more than maxOrdinaryHigh of them: a companion that raises a
// crisis over a hymn on Sunday is not trusted when it matters.
func TestRiskOnOrdinaryTalk(t *testing.T) {
	var lines []string
	var turns, alarms, highs int
	for _, name := range append([]string{"memorybank.eval.json", "adversarial.eval.json"}, appSets...) {
		set := load(t, name)
		out := eval.Run(appOf(t, set), set)
		turns, alarms, highs = turns+out.Ordinary, alarms+out.Alarms, highs+out.High
		lines = append(lines, fmt.Sprintf("%-12s %4d ordinary turns: %3d alarms (medium or high), %2d high", set.Name, out.Ordinary, out.Alarms, out.High))
	}
	t.Log("\n" + strings.Join(lines, "\n"))
	figures.Report(t, "risk on ordinary talk: %d turns of the memory sets: %d alarms (%.3f), %d high (%.3f)",
		turns, alarms, float64(alarms)/float64(turns), highs, float64(highs)/float64(turns))
	if share := float64(highs) / float64(turns); share > maxOrdinaryHigh {
		t.Errorf("high alarms on %.3f of ordinary turns, above %.3f", share, maxOrdinaryHigh)
	}
}
