package extract

import "sync/atomic"

// RiskPhrasing is a phrasing a kind adds to the risk lexicons for its own
// users (Kind.RiskExtras): read only in a message of an app of that kind,
// in the same one pass as the core lexicons, and never in a candidate's
// own text (RiskyText). Its expression is read on the folded text
// (RiskNorm); each top-level alternative becomes a phrasing of its own.
type RiskPhrasing struct{ p riskPattern }

// Phrasing is a phrasing of class (Risk*) at the user's severity
// (Severity*; "" for the class's own).
func Phrasing(class, severity, re string) RiskPhrasing {
	return RiskPhrasing{lx(class, severity, re)}
}

// Needing returns r counted only when re matches the message or the
// user's previous turn.
func (r RiskPhrasing) Needing(re string) RiskPhrasing { r.p = r.p.needing(re); return r }

// Also returns r counted only when re, a second cue, also matches the
// message or the previous turn.
func (r RiskPhrasing) Also(re string) RiskPhrasing { r.p = r.p.with2(re); return r }

// Except returns r cancelled when re matches the message (the innocent
// explanation of its cue).
func (r RiskPhrasing) Except(re string) RiskPhrasing { r.p = r.p.except(re); return r }

// Kept returns r as a secret kept for someone: grave whoever did it, and
// not explained away as play.
func (r RiskPhrasing) Kept() RiskPhrasing { r.p = r.p.kept(); return r }

// riskTables are the patterns read and their one-pass prefilter: the base
// patterns, then each registered kind's extras (in the order of KindNames),
// each tagged with its kind.
type riskTables struct {
	patterns []riskPattern
	// cues are the bits of each pattern's needs and also in set.
	cues []cueBit
	// set reads a sentence once for the words of every pattern and of
	// their cues: a sentence with none of them has no finding. Its first
	// bits are the patterns'.
	set wideSet
	// patterns has the bits of the patterns themselves, weak those of the
	// weak patterns: a message with none of their words needs no second
	// reading.
	patternBits, weak wideBits
}

// cueBit is the bits of a pattern's needs and also in riskTables.set, -1
// for none.
type cueBit struct{ needs, also int }

// riskTab holds the tables once built; Register of a kind with extras
// clears it.
var riskTab atomic.Pointer[riskTables]

// risks is the risk tables, built on first use after the kinds registered.
func risks() *riskTables {
	if t := riskTab.Load(); t != nil {
		return t
	}
	t := buildRiskTables(basePatterns, kindRiskExtras())
	riskTab.Store(t)
	return t
}

// kindRiskExtras lists the registered kinds' extras, each tagged with its
// kind's name.
func kindRiskExtras() []riskPattern {
	var out []riskPattern
	for _, name := range KindNames() {
		k := KindOf(name)
		for _, r := range k.RiskExtras() {
			p := r.p
			p.apps = name
			out = append(out, p)
		}
	}
	return out
}

func buildRiskTables(base, extras []riskPattern) *riskTables {
	t := &riskTables{patterns: append(append([]riskPattern(nil), base...), splitAlternatives(extras, true)...)}
	filters := prefiltersOf(len(t.patterns), func(i int) prefilter { return newPrefilter(t.patterns[i].re) })
	t.cues = make([]cueBit, len(t.patterns))
	for i, p := range t.patterns {
		t.patternBits.set(i)
		if p.weak {
			t.weak.set(i)
		}
		t.cues[i] = cueBit{-1, -1}
		if p.needs != nil {
			t.cues[i].needs = len(filters)
			filters = append(filters, newPrefilter(p.needs))
		}
		if p.also != nil {
			t.cues[i].also = len(filters)
			filters = append(filters, newPrefilter(p.also))
		}
	}
	t.set = newWideSet(filters)
	return t
}
