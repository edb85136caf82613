package extract

import (
	"strings"
	"time"
)

// The care note: for a while after a user's own medium or high risk
// finding, the context pack opens with a short note that asks the
// companion to check in gently before anything else (docs/api.md, the context
// pack). It is the pack's own words: a date, the finding's class in plain
// words and the app's name, never what the user said.

// CareFinding is the risk finding a care note tells of (chosen by
// memory.CareFindingOf): the app, the finding's class and severity, and
// when it was said.
type CareFinding struct {
	App      string
	Class    string
	Severity string
	At       time.Time
}

// CareNote is what a kind's wording of the care note receives.
type CareNote struct {
	// App is the app's name (its preset folder).
	App string
	// Class and Severity are the finding's.
	Class, Severity string
	// Date is the day it was said, YYYY-MM-DD in the user's zone.
	Date string
	// Concern is the class in plain words (RiskConcern).
	Concern string
}

// AppLabel is how a note names the app: product for the built-in app of
// the kind's own name, the app's own name for an operator's app of the
// kind.
func (c CareNote) AppLabel(kind, product string) string {
	if c.App == "" || c.App == kind {
		return product
	}
	return c.App
}

// CareNoter is implemented by a kind whose care note has wording of its
// own; a kind without it gets DefaultCareNote.
type CareNoter interface {
	// CareNote is the note for c, and a shorter one for a budget the
	// full one does not fit. Neither may quote anything the user said:
	// only c's fields.
	CareNote(c CareNote) (full, short string)
}

// DefaultCareNote is the care note of a kind without wording of its own.
func DefaultCareNote(c CareNote) (full, short string) {
	app := c.AppLabel("", c.App)
	return "In a session on " + c.Date + " the user said things that suggested " + c.Concern +
			". Check in gently on how they are before anything else; follow " + app + "'s crisis guidance.",
		"Check in gently before anything else: a session on " + c.Date + " suggested " + c.Concern + "; follow " + app + "'s crisis guidance."
}

// RiskConcern is a risk class in plain words, as a care note says it: what
// the user's words suggested, never the words.
func RiskConcern(class string) string {
	switch class {
	case RiskSuicidal:
		return "thoughts of suicide or of not wanting to live"
	case RiskSelfHarm:
		return "hurting themselves on purpose"
	case RiskSubstance:
		return "a crisis with alcohol or drugs"
	case RiskAbuse:
		return "being hurt, abused or threatened by someone"
	case RiskHopelessness:
		return "hopelessness, feeling there is no point going on"
	case RiskDistress:
		return "severe distress"
	}
	return "a risk to their safety"
}

// carePart is the name of the care note's part of a pack (PackPart).
const carePart = "care_note"

// careHeader is the line above the care note.
const careHeader = "CARE NOTE:"

// carePrio is the care note's priority: before any item of any kind, so
// that it takes the first part of the budget.
const carePrio = -1 << 30

// CareNoteBudget is the budget of a pack that would otherwise have none
// (an app whose pack is otherwise always empty, with no budget
// asked): room for the care note alone.
const CareNoteBudget = 120

// CareNoteMinBudget is a budget that holds the care note of every built-in
// app (its short form, with the pack's preamble) for every class: a pack of
// this many tokens or more is never empty while a care note is due.
const CareNoteMinBudget = 64

// careTexts is the care note of f for the kind, in the user's zone loc:
// its full and its short text.
func careTexts(kind Kind, f CareFinding, loc *time.Location) (full, short string) {
	if loc == nil {
		loc = time.UTC
	}
	c := CareNote{App: f.App, Class: f.Class, Severity: f.Severity, Date: packDate(f.At.In(loc)), Concern: RiskConcern(f.Class)}
	if n, ok := kind.(CareNoter); ok {
		full, short = n.CareNote(c)
	}
	if full == "" {
		full, short = DefaultCareNote(c)
	}
	// The kind's words are its own, but a line is one line.
	full, short = packClean(full, packTextRunes), packClean(short, packTextRunes)
	if short == "" {
		short = full
	}
	return full, short
}

// withCare is plan with the care note text as the first section, whose
// item goes in before any other.
func withCare(plan *PackPlan, text string) packPlan {
	var p packPlan
	if plan != nil {
		p = plan.p
	}
	out := packPlan{sections: append([]packSection{{name: carePart, header: careHeader}}, p.sections...),
		capped: append([]int{0}, p.capped...)}
	out.items = make([]packItem, 0, len(p.items)+1)
	out.items = append(out.items, packItem{section: 0, prio: carePrio, text: text})
	for _, it := range p.items {
		it.section++
		out.items = append(out.items, it)
	}
	return out
}

// fitCare fits plan with the care note of f into budget: the full note, or
// the short one when the full one does not fit, each whole. As the note
// goes in first, it is in whenever it fits the budget on its own; a pack
// that cannot hold even the short note holds nothing at all: nothing is
// told without it.
func fitCare(kind Kind, plan *PackPlan, f CareFinding, loc *time.Location, budget int) ContextPack {
	full, short := careTexts(kind, f, loc)
	for _, text := range []string{full, short} {
		p := withCare(plan, text)
		pack := p.fit(budget)
		if len(pack.Parts) == 0 || pack.Parts[0].Name != carePart || pack.Parts[0].Items != 1 {
			continue
		}
		// The note is told whole or not at all (fit's last resort, when
		// nothing else fits, cuts the first item).
		if strings.Contains(pack.Text, "\n- "+text+"\n") || strings.HasSuffix(pack.Text, "\n- "+text) {
			return pack
		}
	}
	return ContextPack{BudgetTokens: budget, Parts: []PackPart{}, memoryIDs: []string{}}
}
