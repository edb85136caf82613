package decay

import (
	"time"

	"github.com/mnemo-ai/mnemo/extract"
)

// The decay batches, by name: each runs the Rules that name it, of the
// kinds that declare it (batch.Decays).
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
	// Record is the type of record the rule reads; the batch pages through
	// the records of that kind only.
	Record string
	// Apply judges one record at now under p: the record to write when
	// changed, or remove to delete it; neither leaves it as it is.
	Apply func(rec extract.Record, now time.Time, p Policy) (next extract.Record, remove, changed bool)
}
