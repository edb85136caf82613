package decay

import (
	"time"

	"github.com/mnemo-ai/mnemo/extract"
)

// The decay batches, by name: each runs the Rules of the kinds that name
// it (Decayer).
const (
	BatchEmotional  = "emotional-decay"
	BatchPreference = "preference-decay"
	BatchMastery    = "mastery-decay"
)

// Rule is one decay a kind applies to one kind of its records, in the
// batch named Batch.
type Rule struct {
	// Batch is the batch that runs the rule (BatchEmotional, …).
	Batch string
	// Record is the kind of record the rule reads; the batch pages through
	// the records of that kind only.
	Record string
	// Apply judges one record at now under p: the record to write when
	// changed, or remove to delete it; neither leaves it as it is.
	Apply func(rec extract.Record, now time.Time, p Policy) (next extract.Record, remove, changed bool)
}

// Decayer is implemented by a kind whose records decay: the decay batches
// ask each app's kind for its rules and run those of their name.
type Decayer interface {
	Decays() []Rule
}

// RulesOf lists k's rules run by batch; none for a kind without decay.
func RulesOf(k extract.Kind, batch string) []Rule {
	d, ok := k.(Decayer)
	if !ok {
		return nil
	}
	var out []Rule
	for _, r := range d.Decays() {
		if r.Batch == batch {
			out = append(out, r)
		}
	}
	return out
}
