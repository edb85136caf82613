// Package testwait waits for asynchronous work in tests without a clock of
// its own. A wait gives up only when the test binary's -timeout is near
// (testing.T.Deadline), so a busy or slow machine makes a test slower but
// never makes it fail; broken code still fails, with the wait's own message,
// before go test's timeout panic would hide it.
package testwait

import (
	"testing"
	"time"
)

// margin is how long before the binary's deadline a wait gives up, leaving
// time for the failure to be reported and the test's cleanups to run.
const margin = 30 * time.Second

// deadliner is what *testing.T offers beyond testing.TB.
type deadliner interface {
	Deadline() (time.Time, bool)
}

// GiveUpAt is when a wait in t stops: shortly before the test binary's
// deadline, or never (the zero time) when go test runs without -timeout.
func GiveUpAt(t testing.TB) time.Time {
	d, ok := t.(deadliner)
	if !ok {
		return time.Time{}
	}
	at, ok := d.Deadline()
	if !ok {
		return time.Time{}
	}
	// A short -timeout keeps at least half of what is left for the wait.
	if left := time.Until(at); left < 2*margin {
		return at.Add(-left / 2)
	}
	return at.Add(-margin)
}

// Until polls cond (every 10 ms at first, backing off to 250 ms) until it
// returns true, or fails t with what and the last detail cond gave when the
// binary's deadline is near.
func Until(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	stop := GiveUpAt(t)
	delay := 10 * time.Millisecond
	for {
		ok, detail := cond()
		if ok {
			return
		}
		if !stop.IsZero() && time.Now().After(stop) {
			t.Fatalf("gave up waiting for %s (the test binary's -timeout is near): %s", what, detail)
		}
		<-time.After(delay)
		delay = min(delay*3/2, 250*time.Millisecond)
	}
}

// Past reports whether a give-up time from GiveUpAt has come; the zero time
// never comes.
func Past(at time.Time) bool { return !at.IsZero() && time.Now().After(at) }

// Deadline is a channel that receives when a wait in t should give up (see
// GiveUpAt), for waits written as a select; without a -timeout it never
// receives.
func Deadline(t testing.TB) <-chan time.Time {
	at := GiveUpAt(t)
	if at.IsZero() {
		return nil
	}
	return time.After(time.Until(at))
}
