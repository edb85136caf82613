package jobs

import (
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"
)

func TestBackoffDoublesUpToTheCap(t *testing.T) {
	b := Backoff{Base: 2 * time.Second}
	for _, c := range []struct {
		attempt int
		want    time.Duration
	}{
		{1, 2 * time.Second}, {2, 4 * time.Second}, {3, 8 * time.Second}, {5, 32 * time.Second},
		{20, MaxRetryDelay}, {1000, MaxRetryDelay},
	} {
		if got := b.delay(c.attempt, 0); got != c.want {
			t.Errorf("attempt %d: delay %s, want %s", c.attempt, got, c.want)
		}
		// Jitter only shortens, by at most a tenth.
		if got := b.delay(c.attempt, 0.999); got > c.want || got < c.want-c.want/10 {
			t.Errorf("attempt %d with jitter: delay %s, want within (%s, %s]", c.attempt, got, c.want-c.want/10, c.want)
		}
	}
	before := time.Now()
	next := b.NextRetry(&rivertype.JobRow{Attempt: 3})
	if d := next.Sub(before); d < 7*time.Second || d > 8*time.Second+time.Second {
		t.Errorf("NextRetry after attempt 3 is %s away, want about 8s", d)
	}
}
