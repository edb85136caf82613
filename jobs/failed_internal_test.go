package jobs

import (
	"errors"
	"testing"
	"time"

	"github.com/riverqueue/river"
)

// A session is marked failed only when River will not run its extraction
// again: a cancel, or an error on the last attempt; never on a snooze or an
// error River will retry.
func TestExtractionGivenUp(t *testing.T) {
	boom := errors.New("database went away")
	cases := []struct {
		name         string
		err          error
		attempt, max int
		want         bool
	}{
		{"error, attempts left", boom, 1, 5, false},
		{"error on the last attempt", boom, 5, 5, true},
		{"cancel on the first attempt", river.JobCancel(boom), 1, 5, true},
		{"snooze on the last attempt", river.JobSnooze(time.Minute), 5, 5, false},
	}
	for _, c := range cases {
		if got := extractionGivenUp(c.err, c.attempt, c.max); got != c.want {
			t.Errorf("%s: given up = %v, want %v", c.name, got, c.want)
		}
	}
}
