package queue

import (
	"testing"

	"github.com/riverqueue/river"
)

// Job rows store their kind; a renamed kind strands the jobs already queued.
func TestKindsAreStable(t *testing.T) {
	for want, args := range map[string]river.JobArgs{
		"extract":         ExtractArgs{},
		"export":          ExportArgs{},
		"erase":           EraseArgs{},
		"rolling_summary": RollingSummaryArgs{},
	} {
		if got := args.Kind(); got != want {
			t.Errorf("%T.Kind() = %q, stored jobs say %q", args, got, want)
		}
	}
}
