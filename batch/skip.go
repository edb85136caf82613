package batch

import (
	"context"
	"log/slog"
	"maps"
	"sync"

	"github.com/mnemo-ai/mnemo/store"
)

// Reasons a batch run skips a user: what of theirs it could not read or
// write. They name a part of the data, never a user or a value.
const (
	SkipProfile   = "profile"   // the profile document does not decode
	SkipSummary   = "summary"   // a session summary does not decode
	SkipEvent     = "event"     // a session event's data does not decode
	SkipRecord    = "record"    // a structured record does not decode
	SkipAnalytics = "analytics" // a stored weekly analytics row does not decode
	SkipResult    = "result"    // what was computed cannot be encoded (a non-finite number)
	SkipPanic     = "panic"     // computing the user's aggregate panicked
)

// maxSkipLogs bounds the warnings one run logs per skipped user; the
// ledger row and the metrics count them all.
const maxSkipLogs = 20

// Skips collects the users one batch run skipped. A Run reaches it through
// its context (Skipped, Guard), so that skipping needs no change to its
// signature.
type Skips struct {
	mu     sync.Mutex
	log    *slog.Logger
	batch  string
	period string
	total  int64
	by     map[string]int64
}

type skipKey struct{}

// WithSkips is ctx carrying a fresh skip log for one run of batch over
// period; log receives a warning for each of the first skipped users.
func WithSkips(ctx context.Context, log *slog.Logger, batch, period string) (context.Context, *Skips) {
	s := &Skips{log: log, batch: batch, period: period, by: map[string]int64{}}
	return context.WithValue(ctx, skipKey{}, s), s
}

// Skipped records that a batch run left a user out for reason and logs it
// with the user's id, never the data or the decoding error (which may quote
// the value). Outside a run (no WithSkips) it does nothing.
func Skipped(ctx context.Context, userID, reason string) {
	s, _ := ctx.Value(skipKey{}).(*Skips)
	if s == nil {
		return
	}
	s.mu.Lock()
	s.total++
	s.by[reason]++
	n := s.total
	s.mu.Unlock()
	if n <= maxSkipLogs && s.log != nil {
		s.log.WarnContext(ctx, "batch skipped a user whose data it cannot read; the others are processed",
			slog.String("batch", s.batch), slog.String("period", s.period), slog.String("user_id", userID), slog.String("reason", reason))
	}
}

// Result is what the run skipped, for the ledger.
func (s *Skips) Result() store.BatchSkips {
	s.mu.Lock()
	defer s.mu.Unlock()
	return store.BatchSkips{Skipped: s.total, Reasons: maps.Clone(s.by)}
}

// Guard runs fn for one user and turns a panic into a skip: one user's data
// never stops a batch for the others.
func Guard(ctx context.Context, userID string, fn func() error) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			Skipped(ctx, userID, SkipPanic)
			ok, err = false, nil
		}
	}()
	return true, fn()
}

// Drain repeats one bounded step until it touches fewer rows than its
// bound: no transaction or lock outlives one step.
func Drain(ctx context.Context, limit int, step func(ctx context.Context) (int64, error)) (int64, error) {
	var total int64
	for {
		n, err := step(ctx)
		total += n
		if err != nil || n < int64(limit) {
			return total, err
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
}
