package testwait

import (
	"strings"
	"testing"
	"time"
)

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	Until(t, "three calls", func() (bool, string) {
		calls++
		return calls == 3, ""
	})
	if calls != 3 {
		t.Fatalf("cond called %d times, want 3", calls)
	}
}

// fakeT is a testing.TB whose deadline the test chooses.
type fakeT struct {
	testing.TB
	deadline time.Time
	failed   string
}

func (f *fakeT) Deadline() (time.Time, bool) { return f.deadline, !f.deadline.IsZero() }
func (f *fakeT) Helper()                     {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = format
	panic(f)
}

func TestUntilGivesUpNearTheBinarysDeadline(t *testing.T) {
	// 200 ms before the deadline: the wait keeps half of it, then fails.
	f := &fakeT{TB: t, deadline: time.Now().Add(200 * time.Millisecond)}
	func() {
		defer func() {
			if r := recover(); r != f {
				t.Fatalf("recovered %v, want the fake's Fatalf", r)
			}
		}()
		Until(f, "never", func() (bool, string) { return false, "still no" })
	}()
	if !strings.Contains(f.failed, "gave up waiting") {
		t.Fatalf("failure %q does not say it gave up", f.failed)
	}
}

func TestNoDeadlineMeansNoGivingUp(t *testing.T) {
	if !GiveUpAt(&fakeT{TB: t}).IsZero() {
		t.Fatal("a binary without -timeout must wait as long as it takes")
	}
}
