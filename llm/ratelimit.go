package llm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Defaults and bounds of the provider rate limiter.
const (
	// DefaultLimitMaxWait is how long a call may wait for its turn under
	// Config.RequestsPerMinute / TokensPerMinute before the job is
	// snoozed instead (a *LimitWaitError).
	DefaultLimitMaxWait = 2 * time.Minute
	// limitBurst is the window whose worth of requests or tokens may go at
	// once: providers enforce a per-minute limit over shorter periods
	// (60 000 RPM as 1 000 a second), so a full minute's burst would be
	// refused.
	limitBurst = time.Second
	// minLimitFactor is the lowest share of the configured rates that
	// 429s may bring the limiter down to.
	minLimitFactor = 1.0 / 16
	// limitRecovery is the share of the configured rates regained per
	// second without a 429 (additive increase): from half to full in a minute.
	limitRecovery = 0.5 / 60
	// limitCutEvery bounds the multiplicative decrease to one halving per
	// period, as the 429s of one burst arrive together.
	limitCutEvery = time.Second
)

// LimitConfig configures a Limiter.
type LimitConfig struct {
	// RequestsPerMinute and TokensPerMinute are the provider's limits for
	// the model; 0 is unlimited.
	RequestsPerMinute int
	TokensPerMinute   int
	// MaxWait is the longest wait Wait accepts; 0 is DefaultLimitMaxWait.
	MaxWait time.Duration
	// Now reads the clock; nil is time.Now.
	Now func() time.Time
	// After returns a channel that receives after d, like time.After, and a
	// function that releases it; nil uses a time.Timer.
	After func(d time.Duration) (<-chan time.Time, func())
}

// Limiter paces the calls of one process to one model under the provider's
// requests-per-minute and tokens-per-minute limits: a token bucket for each,
// which a call draws from before it is sent (its input tokens estimated) and
// settles after (the usage the endpoint reported). A call that finds a bucket
// empty waits for its turn, in order of arrival, rather than meeting a 429;
// one whose turn is further away than MaxWait (or the context's deadline) is
// not made, and Wait returns a *LimitWaitError saying when to come back.
//
// When the endpoint answers 429 all the same (its limits are lower than
// configured, or other clients share them), RateLimited halves the rates, at
// most once a second and down to a sixteenth, and empties the buckets; they
// regain half the configured rate per minute without a 429 (AIMD), so that a
// backlog drains at the provider's pace rather than in a storm of 429s.
//
// A nil *Limiter limits nothing. It is safe for concurrent use.
type Limiter struct {
	now     func() time.Time
	after   func(time.Duration) (<-chan time.Time, func())
	maxWait time.Duration

	mu        sync.Mutex
	req, tok  bucket
	cutFactor float64   // the rates' share after the last decrease
	cutAt     time.Time // when it was decreased; zero: never
	until     time.Time // no call before this (a 429's Retry-After)
}

// bucket is a token bucket that may go into debt: a draw larger than what is
// there takes it below zero, and the drawer waits until the debt is repaid.
type bucket struct {
	perSec float64 // configured refill rate; 0 is unlimited
	burst  float64
	level  float64
	at     time.Time // when level was computed
}

// NewLimiter returns a limiter, or nil when cfg limits nothing.
func NewLimiter(cfg LimitConfig) (*Limiter, error) {
	if cfg.RequestsPerMinute < 0 || cfg.TokensPerMinute < 0 {
		return nil, fmt.Errorf("llm rate limit: %d requests and %d tokens per minute: a limit cannot be negative", cfg.RequestsPerMinute, cfg.TokensPerMinute)
	}
	if cfg.MaxWait < 0 {
		return nil, fmt.Errorf("llm rate limit: max wait %s is negative", cfg.MaxWait)
	}
	if cfg.RequestsPerMinute == 0 && cfg.TokensPerMinute == 0 {
		return nil, nil
	}
	l := &Limiter{now: cfg.Now, after: cfg.After, maxWait: cfg.MaxWait, cutFactor: 1}
	if l.now == nil {
		l.now = time.Now
	}
	if l.after == nil {
		l.after = func(d time.Duration) (<-chan time.Time, func()) {
			t := time.NewTimer(d)
			return t.C, func() { t.Stop() }
		}
	}
	if l.maxWait == 0 {
		l.maxWait = DefaultLimitMaxWait
	}
	now := l.now()
	l.req = newBucket(cfg.RequestsPerMinute, now)
	l.tok = newBucket(cfg.TokensPerMinute, now)
	return l, nil
}

func newBucket(perMinute int, now time.Time) bucket {
	if perMinute == 0 {
		return bucket{}
	}
	perSec := float64(perMinute) / 60
	burst := max(1, perSec*limitBurst.Seconds())
	return bucket{perSec: perSec, burst: burst, level: burst, at: now}
}

// refill brings b to now at the share f of its rate.
func (b *bucket) refill(now time.Time, f float64) {
	if b.perSec == 0 {
		return
	}
	if d := now.Sub(b.at); d > 0 {
		b.level = min(b.burst, b.level+d.Seconds()*b.perSec*f)
		b.at = now
	}
}

// take draws n and returns how long until the debt it leaves is repaid.
func (b *bucket) take(n, f float64) time.Duration {
	if b.perSec == 0 {
		return 0
	}
	b.level -= n
	if b.level >= 0 {
		return 0
	}
	return time.Duration(-b.level / (b.perSec * f) * float64(time.Second))
}

func (b *bucket) give(n float64) {
	if b.perSec != 0 {
		b.level = min(b.burst, b.level+n)
	}
}

// factor is the rates' share at now: the last decrease, recovered since.
func (l *Limiter) factor(now time.Time) float64 {
	if l.cutAt.IsZero() {
		return 1
	}
	return min(1, l.cutFactor+now.Sub(l.cutAt).Seconds()*limitRecovery)
}

// LimitWaitError is a call not made because its turn under the configured
// rate limits is further away than a call may wait: come back after Wait.
type LimitWaitError struct {
	Wait    time.Duration
	MaxWait time.Duration
}

func (e *LimitWaitError) Error() string {
	return fmt.Sprintf("llm rate limit (MNEMO_LLM_RPM/MNEMO_LLM_TPM): the next turn is in %s, beyond the %s a call may wait", e.Wait.Round(time.Millisecond), e.MaxWait.Round(time.Millisecond))
}

// Permit is one call's draw from the limiter.
type Permit struct {
	l      *Limiter
	tokens int
	done   bool
}

// reserve draws one request and tokens at now and returns the wait.
func (l *Limiter) reserve(now time.Time, tokens int) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.factor(now)
	l.req.refill(now, f)
	l.tok.refill(now, f)
	wait := max(l.req.take(1, f), l.tok.take(float64(tokens), f))
	return max(wait, l.until.Sub(now))
}

// Wait draws one request of an estimated tokens input tokens and waits for
// its turn. It returns a *LimitWaitError without waiting when the turn is
// further than MaxWait away or past ctx's deadline, and ctx's error when ctx
// ends first; either way nothing is drawn. On a nil Limiter it returns a nil
// Permit at once, whose methods do nothing.
func (l *Limiter) Wait(ctx context.Context, tokens int) (*Permit, error) {
	if l == nil {
		return nil, nil
	}
	tokens = max(tokens, 0)
	now := l.now()
	wait := l.reserve(now, tokens)
	p := &Permit{l: l, tokens: tokens}
	if err := ctx.Err(); err != nil {
		p.Cancel()
		return nil, err
	}
	if wait <= 0 {
		return p, nil
	}
	if dl, ok := ctx.Deadline(); wait > l.maxWait || ok && now.Add(wait).After(dl) {
		p.Cancel()
		return nil, &LimitWaitError{Wait: wait, MaxWait: l.maxWait}
	}
	c, stop := l.after(wait)
	defer stop()
	select {
	case <-c:
		return p, nil
	case <-ctx.Done():
		p.Cancel()
		return nil, ctx.Err()
	}
}

// Settle corrects the permit's token estimate with what the call used (0
// when it failed before an answer).
func (p *Permit) Settle(used int) {
	if p == nil || p.done {
		return
	}
	p.done = true
	p.l.mu.Lock()
	defer p.l.mu.Unlock()
	now := p.l.now()
	p.l.tok.refill(now, p.l.factor(now))
	p.l.tok.give(float64(p.tokens - max(used, 0)))
}

// Cancel gives back the permit's draw: the call was not made.
func (p *Permit) Cancel() {
	if p == nil || p.done {
		return
	}
	p.done = true
	p.l.mu.Lock()
	defer p.l.mu.Unlock()
	now := p.l.now()
	f := p.l.factor(now)
	p.l.req.refill(now, f)
	p.l.tok.refill(now, f)
	p.l.req.give(1)
	p.l.tok.give(float64(p.tokens))
}

// RateLimited tells the limiter the endpoint answered 429, asking for
// retryAfter: the rates are halved (once per second at most), the buckets
// emptied, and no call is let through before retryAfter has passed.
func (l *Limiter) RateLimited(retryAfter time.Duration) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	f := l.factor(now)
	l.req.refill(now, f)
	l.tok.refill(now, f)
	if l.cutAt.IsZero() || now.Sub(l.cutAt) >= limitCutEvery {
		l.cutFactor, l.cutAt = max(minLimitFactor, f/2), now
	}
	l.req.level = min(l.req.level, 0)
	l.tok.level = min(l.tok.level, 0)
	if t := now.Add(retryAfter); t.After(l.until) {
		l.until = t
	}
}

// countsTokens reports whether l has a tokens-per-minute limit, for which
// calls estimate their input tokens.
func (l *Limiter) countsTokens() bool { return l != nil && l.tok.perSec > 0 }

// Factor is the share of the configured rates the limiter allows now: 1
// until a 429, lower for a while after one. A nil Limiter's is 1.
func (l *Limiter) Factor() float64 {
	if l == nil {
		return 1
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.factor(l.now())
}

// IsLimitWait reports whether err is a *LimitWaitError and returns its wait.
func IsLimitWait(err error) (time.Duration, bool) {
	var lw *LimitWaitError
	if errors.As(err, &lw) {
		return lw.Wait, true
	}
	return 0, false
}
