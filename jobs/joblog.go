package jobs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverlog"
	"github.com/riverqueue/river/rivertype"
)

// Per-job logs: riverlog keeps the lines a job's attempt logged in the job's
// metadata ("river:log"), where River UI shows them beside the job. Only ids,
// counts, outcomes and durations go there, as everywhere in Mnemo's logs:
// never transcript text or memory values. The attempt lines leave a failed
// attempt's error text out too: it stays in River's own error list.

// Job log limits: a job's log lines are small, and they live in its row.
const (
	jobLogAttemptBytes = 64 << 10
	jobLogTotalBytes   = 512 << 10
)

// Middleware is the River middleware Mnemo's workers run under
// (Config.Middleware): riverlog, and a line at the start and the end of every
// attempt.
func Middleware() []rivertype.Middleware {
	return []rivertype.Middleware{
		riverlog.NewMiddleware(func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) },
			&riverlog.MiddlewareConfig{MaxSizeBytes: jobLogAttemptBytes, MaxTotalBytes: jobLogTotalBytes}),
		&attemptLog{},
	}
}

// attemptLog writes the first and last line of every attempt to the job's log.
type attemptLog struct {
	river.MiddlewareDefaults
}

func (*attemptLog) Work(ctx context.Context, job *rivertype.JobRow, doInner func(context.Context) error) error {
	log, ok := riverlog.LoggerSafely(ctx)
	if !ok {
		return doInner(ctx)
	}
	log.InfoContext(ctx, "attempt started", slog.Int64("job_id", job.ID), slog.String("kind", job.Kind),
		slog.String("queue", job.Queue), slog.Int("attempt", job.Attempt), slog.Int("max_attempts", job.MaxAttempts))
	started := time.Now()
	finished := false
	defer func() {
		if !finished {
			log.ErrorContext(ctx, "attempt panicked", slog.Duration("took", time.Since(started)))
		}
	}()
	err := doInner(ctx)
	finished = true
	attrs := []any{slog.String("result", attemptResult(err)), slog.Duration("took", time.Since(started))}
	var snooze *rivertype.JobSnoozeError
	if errors.As(err, &snooze) {
		attrs = append(attrs, slog.Duration("snooze", snooze.Duration))
	}
	level := slog.LevelInfo
	if err != nil && snooze == nil {
		level = slog.LevelWarn
	}
	log.Log(ctx, level, "attempt finished", attrs...)
	return err
}

// attemptResult names what the worker returned, without the error's text.
func attemptResult(err error) string {
	var cancel *rivertype.JobCancelError
	var snooze *rivertype.JobSnoozeError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &snooze):
		return "snoozed"
	case errors.As(err, &cancel):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed_out"
	}
	return "error"
}

// WithJobLog returns a logger that writes to log and, inside a job worked
// under Middleware, also to that job's own log at info level and above
// whatever log's level, so that what a worker logs about a job is seen with
// the job in River UI.
func WithJobLog(log *slog.Logger) *slog.Logger {
	return slog.New(&jobLogHandler{base: log.Handler()})
}

// jobLogHandler tees records to the job's riverlog logger when the context
// has one.
type jobLogHandler struct {
	base slog.Handler
	// with replays WithAttrs and WithGroup onto the job's handler.
	with []func(slog.Handler) slog.Handler
}

func (h *jobLogHandler) job(ctx context.Context) slog.Handler {
	log, ok := riverlog.LoggerSafely(ctx)
	if !ok {
		return nil
	}
	jh := log.Handler()
	for _, w := range h.with {
		jh = w(jh)
	}
	return jh
}

func (h *jobLogHandler) Enabled(ctx context.Context, level slog.Level) bool {
	if h.base.Enabled(ctx, level) {
		return true
	}
	jh := h.job(ctx)
	return jh != nil && jh.Enabled(ctx, level)
}

func (h *jobLogHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.base.Enabled(ctx, r.Level) {
		err = h.base.Handle(ctx, r.Clone())
	}
	if jh := h.job(ctx); jh != nil && jh.Enabled(ctx, r.Level) {
		// The job's log is a courtesy copy: its failure must not fail the caller.
		_ = jh.Handle(ctx, r.Clone())
	}
	return err
}

func (h *jobLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &jobLogHandler{base: h.base.WithAttrs(attrs),
		with: append(h.with[:len(h.with):len(h.with)], func(jh slog.Handler) slog.Handler { return jh.WithAttrs(attrs) })}
}

func (h *jobLogHandler) WithGroup(name string) slog.Handler {
	return &jobLogHandler{base: h.base.WithGroup(name),
		with: append(h.with[:len(h.with):len(h.with)], func(jh slog.Handler) slog.Handler { return jh.WithGroup(name) })}
}
