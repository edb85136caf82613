package jobs

import (
	"math/rand/v2"
	"time"

	"github.com/riverqueue/river/rivertype"
)

// MaxRetryDelay caps Backoff's delay.
const MaxRetryDelay = 6 * time.Hour

// Backoff retries a failed job after Base, then twice as long for each
// attempt after the first (Base, 2×Base, 4×Base, …, at most MaxRetryDelay),
// less up to a tenth at random so that jobs failed together do not retry
// together. It is the policy behind MNEMO_RETRY_BACKOFF; without that setting
// River's own policy (attempt⁴ seconds) applies.
type Backoff struct {
	Base time.Duration
}

// NextRetry implements river.ClientRetryPolicy.
func (b Backoff) NextRetry(job *rivertype.JobRow) time.Time {
	return time.Now().Add(b.delay(job.Attempt, rand.Float64()))
}

// delay is the wait after attempt (1-based), with jitter in [0, 1).
func (b Backoff) delay(attempt int, jitter float64) time.Duration {
	d := b.Base
	for i := 1; i < attempt && d < MaxRetryDelay; i++ {
		d *= 2
	}
	d = min(d, MaxRetryDelay)
	return d - time.Duration(jitter*float64(d)/10)
}
