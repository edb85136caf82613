package llm

import (
	"context"
	"errors"
	"testing"
	"time"
)

// fakeClock is a clock the test moves, and timers it fires by hand.
type fakeClock struct {
	now    time.Time
	timers chan fakeTimer // each timer a Wait arms, for the test to fire
}

type fakeTimer struct {
	d time.Duration
	c chan time.Time
}

func newFakeClock() *fakeClock {
	// It starts at the real time, so that a context deadline means the same
	// on both clocks.
	return &fakeClock{now: time.Now(), timers: make(chan fakeTimer, 16)}
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) After(d time.Duration) (<-chan time.Time, func()) {
	t := fakeTimer{d: d, c: make(chan time.Time, 1)}
	c.timers <- t
	return t.c, func() {}
}

func (c *fakeClock) advance(d time.Duration) { c.now = c.now.Add(d) }

func newTestLimiter(t *testing.T, rpm, tpm int, maxWait time.Duration) (*Limiter, *fakeClock) {
	t.Helper()
	clk := newFakeClock()
	l, err := NewLimiter(LimitConfig{RequestsPerMinute: rpm, TokensPerMinute: tpm, MaxWait: maxWait, Now: clk.Now, After: clk.After})
	if err != nil {
		t.Fatal(err)
	}
	return l, clk
}

func near(a, b time.Duration) bool {
	d := a - b
	return d > -time.Millisecond && d < time.Millisecond
}

func TestLimiterNilLimitsNothing(t *testing.T) {
	l, err := NewLimiter(LimitConfig{})
	if err != nil || l != nil {
		t.Fatalf("NewLimiter of no limits = %v, %v; want nil, nil", l, err)
	}
	p, err := l.Wait(context.Background(), 1e9)
	if err != nil {
		t.Fatal(err)
	}
	p.Settle(5)
	p.Cancel()
	l.RateLimited(time.Minute)
	if l.Factor() != 1 || l.countsTokens() {
		t.Fatal("a nil limiter limits")
	}
	for _, cfg := range []LimitConfig{{RequestsPerMinute: -1}, {TokensPerMinute: -1}, {RequestsPerMinute: 1, MaxWait: -1}} {
		if _, err := NewLimiter(cfg); err == nil {
			t.Errorf("NewLimiter(%+v) accepted", cfg)
		}
	}
}

func TestLimiterRequestRate(t *testing.T) {
	// 120 a minute is 2 a second, with a second's burst: two go at once,
	// then one every 500 ms, each turn after the one before.
	l, clk := newTestLimiter(t, 120, 0, time.Minute)
	now := clk.Now()
	for i, want := range []time.Duration{0, 0, 500 * time.Millisecond, time.Second, 1500 * time.Millisecond} {
		if got := l.reserve(now, 0); !near(got, want) {
			t.Errorf("request %d waits %s, want %s", i, got, want)
		}
	}
	// Three seconds on, the debt (1.5 s) is repaid and the bucket full again.
	if got := l.reserve(now.Add(3*time.Second), 0); got != 0 {
		t.Errorf("after the refill: wait %s, want 0", got)
	}
}

func TestLimiterTokenRateAndSettlement(t *testing.T) {
	// 60 000 tokens a minute: 1 000 a second, 1 000 at once.
	l, clk := newTestLimiter(t, 0, 60_000, time.Minute)
	now := clk.Now()
	if got := l.reserve(now, 800); got != 0 {
		t.Fatalf("first call waits %s", got)
	}
	// 800 of 1 000 drawn: a call of 700 waits for 500 more, half a second.
	if got := l.reserve(now, 700); !near(got, 500*time.Millisecond) {
		t.Fatalf("second call waits %s, want 500ms", got)
	}
	// A call larger than the burst waits for what it lacks, never forever.
	l2, clk2 := newTestLimiter(t, 0, 60_000, time.Minute)
	if got := l2.reserve(clk2.Now(), 5_000); !near(got, 4*time.Second) {
		t.Fatalf("a 5 000-token call waits %s, want 4s", got)
	}

	// Settlement: an estimate of 900 that used 300 gives 600 back; one
	// that used 1 500 takes 600 more.
	l3, clk3 := newTestLimiter(t, 0, 60_000, time.Minute)
	p, err := l3.Wait(context.Background(), 900)
	if err != nil {
		t.Fatal(err)
	}
	p.Settle(300)
	p.Settle(10_000) // a second settlement does nothing
	if lvl := l3.tok.level; lvl != 700 {
		t.Fatalf("level after settling 300 of 900: %v, want 700", lvl)
	}
	clk3.advance(time.Second) // full again
	p, err = l3.Wait(context.Background(), 900)
	if err != nil {
		t.Fatal(err)
	}
	p.Settle(1_500)
	if lvl := l3.tok.level; lvl != -500 {
		t.Fatalf("level after settling 1 500 of 900: %v, want -500", lvl)
	}
	if got := l3.reserve(clk3.Now(), 0); !near(got, 500*time.Millisecond) {
		t.Fatalf("the next call waits %s for the overdraft, want 500ms", got)
	}
}

func TestLimiterWaitsForItsTurn(t *testing.T) {
	l, clk := newTestLimiter(t, 60, 0, time.Minute) // one a second, burst 1
	ctx := context.Background()
	if _, err := l.Wait(ctx, 0); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := l.Wait(ctx, 0)
		done <- err
	}()
	tm := <-clk.timers
	if !near(tm.d, time.Second) {
		t.Fatalf("second call armed a timer of %s, want 1s", tm.d)
	}
	select {
	case err := <-done:
		t.Fatalf("Wait returned %v before its turn", err)
	default:
	}
	tm.c <- clk.Now()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestLimiterWaitCancelled(t *testing.T) {
	l, clk := newTestLimiter(t, 60, 0, time.Minute)
	if _, err := l.Wait(context.Background(), 0); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := l.Wait(ctx, 0)
		done <- err
	}()
	<-clk.timers // waiting
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Wait = %v, want context.Canceled", err)
	}
	// The cancelled draw was given back: the next call waits one second,
	// not two.
	if got := l.reserve(clk.Now(), 0); !near(got, time.Second) {
		t.Fatalf("next call waits %s, want 1s", got)
	}
	// A context already done draws nothing.
	if _, err := l.Wait(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait on a done context = %v", err)
	}
}

func TestLimiterWaitBeyondBound(t *testing.T) {
	l, clk := newTestLimiter(t, 1, 0, 30*time.Second) // one a minute
	ctx := context.Background()
	if _, err := l.Wait(ctx, 0); err != nil {
		t.Fatal(err)
	}
	_, err := l.Wait(ctx, 0)
	var lw *LimitWaitError
	if !errors.As(err, &lw) || !near(lw.Wait, time.Minute) || lw.MaxWait != 30*time.Second {
		t.Fatalf("Wait beyond the bound = %v, want a *LimitWaitError of 1m", err)
	}
	if !IsTransient(err) {
		t.Error("a limit wait is not transient")
	}
	if d, ok := RetryAfter(err); !ok || !near(d, time.Minute) {
		t.Errorf("RetryAfter = %s, %v", d, ok)
	}
	// Nothing was drawn: the turn is still one minute away, not two.
	if got := l.reserve(clk.Now(), 0); !near(got, time.Minute) {
		t.Fatalf("next turn in %s, want 1m", got)
	}

	// A wait within the bound but past the context's deadline is refused too.
	l2, clk2 := newTestLimiter(t, 6, 0, time.Hour) // one every 10 s
	if _, err := l2.Wait(ctx, 0); err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithDeadline(ctx, clk2.Now().Add(5*time.Second))
	defer cancel()
	if _, err := l2.Wait(dctx, 0); !errors.As(err, &lw) {
		t.Fatalf("Wait past the deadline = %v, want a *LimitWaitError", err)
	}
}

func TestLimiterAIMD(t *testing.T) {
	l, clk := newTestLimiter(t, 600, 0, time.Hour) // 10 a second, burst 10
	if f := l.Factor(); f != 1 {
		t.Fatalf("factor before a 429: %v", f)
	}
	l.RateLimited(2 * time.Second)
	if f := l.Factor(); f != 0.5 {
		t.Fatalf("factor after a 429: %v, want 0.5", f)
	}
	// The 429s of one burst arrive together: one halving per second.
	l.RateLimited(2 * time.Second)
	if f := l.Factor(); f != 0.5 {
		t.Fatalf("factor after a second 429 in the same second: %v, want 0.5", f)
	}
	// Nothing before the Retry-After; the bucket was emptied, so the first
	// call then goes, and the next waits 1 / (10 × 0.5) s = 200 ms.
	now := clk.Now()
	if got := l.reserve(now, 0); !near(got, 2*time.Second) {
		t.Fatalf("call during Retry-After waits %s, want 2s", got)
	}
	clk.advance(2 * time.Second)
	// 2 s at half rate recovered 2 s × 0.5/60: the factor is 0.5167.
	want := 0.5 + 2*limitRecovery
	if f := l.Factor(); f < want-1e-9 || f > want+1e-9 {
		t.Fatalf("factor 2 s later: %v, want %v", f, want)
	}
	// A second 429 a second or more later halves again, down to the floor.
	for range 10 {
		clk.advance(limitCutEvery)
		l.RateLimited(0)
	}
	if f := l.Factor(); f != minLimitFactor {
		t.Fatalf("factor after many 429s: %v, want the floor %v", f, minLimitFactor)
	}
	// Without a 429 the rates come back, to full and no further.
	clk.advance(10 * time.Minute)
	if f := l.Factor(); f != 1 {
		t.Fatalf("factor ten minutes later: %v, want 1", f)
	}
}
