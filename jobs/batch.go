package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/mnemo-ai/mnemo/queue"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/batch"
	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/schedule"
	"github.com/mnemo-ai/mnemo/store"
)

// Batch names (docs/operations.md, "Scheduled batches"): the engine's own, and the
// ready-made ones kinds declare (package batch), by the names their
// computations give them.
const (
	BatchWeeklyAnalytics = aggregate.BatchWeeklyAnalytics
	BatchTrends          = aggregate.BatchTrends
	BatchInsights        = aggregate.BatchInsights
	BatchEmotionalDecay  = decay.BatchEmotional
	BatchPreferenceDecay = decay.BatchPreference
	BatchMasteryDecay    = decay.BatchMastery
	BatchMemoryTTL       = "memory-ttl"
	BatchBufferCleanup   = "buffer-cleanup"
	BatchSessionExpiry   = "session-expiry"
	BatchRetention       = "retention"
)

// Batches are every batch the registered kinds declare (batch.Declarer)
// and the engine's own, each once, in a stable order: the ready-made
// batches, the kinds' own, then the engine's. It fails when two kinds
// declare one batch differently.
func Batches() (*batch.Registry, error) { return batch.Collect(engineBatches(nil)...) }

// batches is Batches with the engine's batches bound to d.
func (d *Deps) batches() (*batch.Registry, error) { return batch.Collect(engineBatches(d)...) }

// BatchNames lists the batches in a stable order (Batches); none when the
// kinds' declarations conflict, which ParseSchedules reports.
func BatchNames() []string {
	r, err := Batches()
	if err != nil {
		return nil
	}
	return r.Names()
}

// DefaultSchedules are each batch's cron spec and catch-up policy when the
// operator sets none (batch.Batch.Spec), by name.
func DefaultSchedules() map[string]string {
	out := map[string]string{}
	if r, err := Batches(); err == nil {
		for _, d := range r.List() {
			out[d.Name] = d.Spec
		}
	}
	return out
}

// originPeriod is the ledger row that remembers when the scheduler first saw
// a batch: catch-up reaches back from there by the batch's window only, so a
// new deployment back-fills at most that window (five weeks of weekly
// analytics by default), never years.
const originPeriod = "origin"

// Ledger outcomes.
const (
	LedgerPending = "pending"
	LedgerRunning = "running"
	LedgerOK      = "ok"
	LedgerError   = "error"
	ledgerOrigin  = "origin"
)

// BatchArgs runs one batch for one period. It is unique per batch and
// period, so restarts and several workers never run a period twice at once.
// A re-run of a period whose input changed after it ran (late data) carries
// the count of the period's dirty marks it answers, so that it is not taken
// for the period's completed first run, and is still enqueued once per mark.
type BatchArgs struct {
	Batch  string    `json:"batch" river:"unique"`
	Period string    `json:"period" river:"unique"`
	At     time.Time `json:"at"`
	Rerun  int64     `json:"rerun,omitempty" river:"unique"`
}

// Kind is the River job kind.
func (BatchArgs) Kind() string { return "batch" }

// InsertOpts puts batches on the batch queue.
func (BatchArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queue.QueueBatch, MaxAttempts: 5, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// ParseSchedules reads each batch's "spec[; policy [window]]", from the
// overrides or the defaults (batch.Batch.Spec), and refuses unknown batch
// names and kinds that declare one batch differently.
func ParseSchedules(overrides map[string]string) (map[string]*schedule.Schedule, error) {
	reg, err := Batches()
	if err != nil {
		return nil, err
	}
	for name := range overrides {
		if _, ok := reg.Get(name); !ok {
			return nil, fmt.Errorf("unknown batch %q", name)
		}
	}
	out := map[string]*schedule.Schedule{}
	for _, d := range reg.List() {
		spec := d.Spec
		if v, ok := overrides[d.Name]; ok && v != "" {
			spec = v
		}
		s, err := schedule.ParseLine(d.Name, spec)
		if err != nil {
			return nil, err
		}
		out[d.Name] = s
	}
	return out, nil
}

// BatchWorker runs BatchArgs and keeps the ledger.
type BatchWorker struct {
	river.WorkerDefaults[BatchArgs]
	deps *Deps
}

// Work runs the batch for its period.
func (w *BatchWorker) Work(ctx context.Context, job *river.Job[BatchArgs]) error {
	_, err := RunBatch(ctx, w.deps, job.Args.Batch, job.Args.Period, w.deps.now())
	if errors.Is(err, schedule.ErrNoSuchPeriod) || errors.Is(err, errUnknownBatch) {
		return river.JobCancel(err)
	}
	return err
}

var errUnknownBatch = errors.New("unknown batch")

// RunBatch runs one batch for a period by name (empty: the latest scheduled
// instant at or before now) and records it in the ledger. Re-running a period
// recomputes it: every batch writes by idempotent upsert or delete. A run
// that stopped mid-way (killed, or failed after pages committed) is
// continued after the last page it committed (the ledger's cursor, see
// batch.Cursor), unless the period was marked dirty since it began.
func RunBatch(ctx context.Context, d *Deps, name, periodName string, now time.Time) (int64, error) {
	reg, err := d.batches()
	if err != nil {
		return 0, err
	}
	decl, ok := reg.Get(name)
	sched := d.Schedules[name]
	if !ok || sched == nil {
		return 0, fmt.Errorf("%w %q", errUnknownBatch, name)
	}
	var p schedule.Period
	if periodName == "" {
		at, ok := sched.Prev(now)
		if !ok {
			return 0, fmt.Errorf("batch %s: no scheduled instant at or before %s", name, now.Format(time.RFC3339))
		}
		p = sched.Period(at)
	} else {
		var err error
		if p, err = schedule.PeriodByName(sched, periodName); err != nil {
			return 0, err
		}
	}
	// The period's dirty marks before its input is read: the run covers
	// them, and a mark made after this stays for the next run.
	seq, err := d.Store.DirtySeq(ctx, name, p.Name)
	if err != nil {
		return 0, err
	}
	// A run of the period that stopped mid-way (killed, or failed after
	// some pages committed) left where it stood: continue after it, unless
	// the period was marked dirty since that run began (what it wrote may
	// be stale; from the beginning then). A finished run, and a period set
	// back to pending for late data, have no cursor.
	var from *batch.Cursor
	resume := ""
	if prev, err := d.Store.GetBatchRun(ctx, name, p.Name); err == nil && prev.Cursor != "" {
		var c ledgerCursor
		if json.Unmarshal([]byte(prev.Cursor), &c) == nil && c.Seq == seq {
			from, resume = &c.Cursor, prev.Cursor
		}
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return 0, err
	}
	started := time.Now().UTC()
	if err := d.Store.UpsertBatchRun(ctx, store.BatchRun{Batch: name, Period: p.Name, ScheduledFor: p.At, StartedAt: &started,
		Outcome: LedgerRunning, Cursor: resume}); err != nil {
		return 0, err
	}
	mark := func(ctx context.Context, tx store.Tx, c batch.Cursor) error {
		b, err := json.Marshal(ledgerCursor{Seq: seq, Cursor: c})
		if err != nil {
			return err
		}
		return tx.SetBatchCursor(ctx, name, p.Name, string(b))
	}
	rctx, skips := batch.WithSkips(ctx, d.log(), name, p.Name)
	rows, err := d.runDeclared(rctx, decl, p, now, from, mark)
	finished := time.Now().UTC()
	sk := skips.Result()
	outcome := LedgerOK
	if err != nil {
		outcome = LedgerError
	}
	if lerr := d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		cursor := ""
		if outcome != LedgerOK {
			// A failed run keeps where it stood for its retry.
			run, err := tx.GetBatchRun(ctx, name, p.Name)
			if err != nil {
				return err
			}
			cursor = run.Cursor
		}
		if err := tx.UpsertBatchRun(ctx, store.BatchRun{Batch: name, Period: p.Name, ScheduledFor: p.At, FinishedAt: &finished,
			RowsTouched: rows, Outcome: outcome, Cursor: cursor}); err != nil {
			return err
		}
		if err := tx.SetBatchSkips(ctx, name, p.Name, sk); err != nil || outcome != LedgerOK {
			return err
		}
		if err := tx.ClearDirty(ctx, name, p.Name, seq); err != nil {
			return err
		}
		for _, fed := range decl.Feeds {
			// The batches that read this one's output (insights read the
			// week's analytics): if they already ran for the period, they
			// run again on the scheduler's next tick.
			if _, err := tx.MarkDirty(ctx, store.DirtyMark{Batch: fed, Period: p.Name, At: now, Reason: ReasonAnalytics}); err != nil {
				return err
			}
		}
		return nil
	}); lerr != nil && err == nil {
		err = lerr
	}
	d.metrics().Batch(name, outcome, finished.Sub(started), rows)
	if m, ok := d.metrics().(SkipMetrics); ok {
		for reason, n := range sk.Reasons {
			m.BatchSkipped(name, reason, n)
		}
	}
	d.log().InfoContext(ctx, "batch run", slog.String("batch", name), slog.String("period", p.Name), slog.Int64("rows", rows),
		slog.Int64("skipped", sk.Skipped), slog.String("outcome", outcome), slog.String("took", finished.Sub(started).String()),
		slog.Bool("resumed", from != nil))
	if err != nil {
		return rows, fmt.Errorf("batch %s period %s: %w", name, p.Name, err)
	}
	return rows, nil
}

// runDeclared runs a batch's declarations for a period: a kind's batch
// once per declaring kind over that kind's configured apps (none: not
// run), an engine batch once over every configured app.
// A run resumed from a cursor (from) skips the kinds before the cursor's
// and runs those after it from their beginning; mark records each page's
// cursor with the kind it belongs to.
func (d *Deps) runDeclared(ctx context.Context, decl batch.Declaration, p schedule.Period, now time.Time,
	from *batch.Cursor, mark func(context.Context, store.Tx, batch.Cursor) error) (int64, error) {
	env := batch.Env{Store: d.Store, Rows: d.Batch.rows(), Decay: d.Batch.Decay, InsightsK: d.Batch.k()}
	if decl.Engine() {
		env.Apps = d.appsOfKind(func(extract.Kind) bool { return true })
		return decl.Run(ctx, env, p, now)
	}
	var rows int64
	for _, k := range decl.Kinds {
		env.Apps = d.appsOfKind(func(kind extract.Kind) bool { return kind != nil && kind.Name() == k.Kind })
		if len(env.Apps) == 0 {
			continue
		}
		env.After = nil
		if from != nil {
			if k.Kind < from.Kind {
				continue // done before the run stopped
			}
			if k.Kind == from.Kind {
				env.After = from
			}
		}
		if mark != nil {
			env.Mark = func(ctx context.Context, tx store.Tx, c batch.Cursor) error {
				c.Kind = k.Kind
				return mark(ctx, tx, c)
			}
		}
		n, err := k.Run(ctx, env, p, now)
		rows += n
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// ledgerCursor is the ledger's cursor of a run (store.BatchRun.Cursor):
// where it stands, and the period's dirty marks when it began, so that a
// period marked since (late data) is not continued but run again whole.
type ledgerCursor struct {
	Seq int64 `json:"seq"`
	batch.Cursor
}

// BatchState is what `batch list` shows of one batch.
type BatchState struct {
	Name     string
	Schedule *schedule.Schedule
	Last     *store.BatchRun
	Next     time.Time
	Missed   []schedule.Period
	// Dirty are periods whose input changed after they ran and that the
	// scheduler re-runs; Stale are such periods beyond the catch-up window,
	// which only `batch run NAME --period P` re-runs.
	Dirty []store.DirtyPeriod
	Stale []store.DirtyPeriod
	// Skipped are the users the last run left out because it could not
	// read their data, by reason.
	Skipped store.BatchSkips
}

// lastAndOrigin reads a batch's newest real ledger row and its origin.
func lastAndOrigin(ctx context.Context, st store.Querier, name string) (*store.BatchRun, *store.BatchRun, error) {
	var origin *store.BatchRun
	switch o, err := st.GetBatchRun(ctx, name, originPeriod); {
	case err == nil:
		origin = &o
	case !errors.Is(err, store.ErrNotFound):
		return nil, nil, err
	}
	runs, err := st.ListBatchRuns(ctx, name, 2)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range runs {
		if r.Period != originPeriod {
			r := r
			return &r, origin, nil
		}
	}
	return nil, origin, nil
}

// States reports every batch's schedule, last run, next run and the periods
// the next tick would enqueue.
func States(ctx context.Context, d *Deps, now time.Time) ([]BatchState, error) {
	reg, err := d.batches()
	if err != nil {
		return nil, err
	}
	var out []BatchState
	for _, name := range reg.Names() {
		s := d.Schedules[name]
		last, origin, err := lastAndOrigin(ctx, d.Store, name)
		if err != nil {
			return nil, err
		}
		st := BatchState{Name: name, Schedule: s, Last: last, Next: s.Next(now)}
		if last != nil {
			if st.Skipped, err = d.Store.GetBatchSkips(ctx, name, last.Period); err != nil {
				return nil, err
			}
		}
		first := now
		if origin != nil {
			first = origin.ScheduledFor
		}
		var lastAt *time.Time
		if last != nil {
			lastAt = &last.ScheduledFor
		}
		st.Missed = s.Due(lastAt, now, first)
		dirty, err := d.Store.ListDirty(ctx, name, schedule.MaxDue)
		if err != nil {
			return nil, err
		}
		for _, p := range dirty {
			switch classifyDirty(s, p, last, now) {
			case dirtyRerun:
				st.Dirty = append(st.Dirty, p)
			case dirtyStale:
				st.Stale = append(st.Stale, p)
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// Tick enqueues every batch period that is due and not yet in the ledger,
// under each batch's catch-up policy. It runs on start and every minute
// (River periodic job, leader only); the ledger and unique jobs make a
// repeated or concurrent tick harmless.
func Tick(ctx context.Context, d *Deps, q queue.Queue, now time.Time) (int, error) {
	// The dirty periods of every batch as the tick begins: a mark made while
	// it runs (a re-run it enqueued that a worker finished at once, marking
	// the week's insights) waits for the next tick, as the mark says.
	// What one tick enqueues then depends on the state it began with, not
	// on how fast the workers took its jobs.
	reg, err := d.batches()
	if err != nil {
		return 0, err
	}
	names := reg.Names()
	dirty := make(map[string][]store.DirtyPeriod, len(names))
	for _, name := range names {
		var err error
		if dirty[name], err = d.Store.ListDirty(ctx, name, schedule.MaxDue); err != nil {
			return 0, err
		}
	}
	enqueued := 0
	for _, name := range names {
		s := d.Schedules[name]
		last, origin, err := lastAndOrigin(ctx, d.Store, name)
		if err != nil {
			return enqueued, err
		}
		if origin == nil {
			// First sight of this batch: remember when, so that catch-up starts here.
			if err := d.Store.UpsertBatchRun(ctx, store.BatchRun{Batch: name, Period: originPeriod, ScheduledFor: now, Outcome: ledgerOrigin}); err != nil {
				return enqueued, err
			}
			origin = &store.BatchRun{ScheduledFor: now}
		}
		var lastAt *time.Time
		if last != nil {
			lastAt = &last.ScheduledFor
		}
		for _, p := range s.Due(lastAt, now, origin.ScheduledFor) {
			err := d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				if _, err := tx.GetBatchRun(ctx, name, p.Name); err == nil {
					return nil // already in the ledger
				} else if !errors.Is(err, store.ErrNotFound) {
					return err
				}
				if err := tx.UpsertBatchRun(ctx, store.BatchRun{Batch: name, Period: p.Name, ScheduledFor: p.At, Outcome: LedgerPending}); err != nil {
					return err
				}
				ins, err := q.InsertTx(ctx, tx, BatchArgs{Batch: name, Period: p.Name, At: p.At}, nil)
				if err == nil && !ins.Duplicate {
					enqueued++
				}
				return err
			})
			if err != nil {
				return enqueued, err
			}
		}
		n, err := rerunDirty(ctx, d, q, reg, name, s, dirty[name], now)
		enqueued += n
		if err != nil {
			return enqueued, err
		}
	}
	return enqueued, nil
}

// Reasons a period is marked dirty. They name a cause, never a user.
const (
	ReasonLateSession = handoff.ReasonLateSession
	ReasonErasure     = "erasure"
	ReasonAnalytics   = "weekly analytics re-run"
)

// MarkLateSession marks dirty, in the caller's transaction, the batch
// periods that should have covered a session of app that ended at endedAt
// (handoff.MarkLateSession).
var MarkLateSession = handoff.MarkLateSession

type dirtyAction int

const (
	dirtyRerun      dirtyAction = iota
	dirtyStale                  // beyond the catch-up window
	dirtySuperseded             // a newer period of a Latest or Skip batch reads the change
)

// classifyDirty says what becomes of a dirty period; newest is the batch's
// newest ledger period.
func classifyDirty(s *schedule.Schedule, p store.DirtyPeriod, newest *store.BatchRun, now time.Time) dirtyAction {
	if s.Spec().Policy != schedule.All {
		// The mark went to the newest period that had started; a newer
		// one had not, so it reads the change.
		if newest != nil && newest.Period != p.Period {
			return dirtySuperseded
		}
		return dirtyRerun
	}
	if !s.InWindow(p.ScheduledFor, now) {
		return dirtyStale
	}
	return dirtyRerun
}

// settleMax is how long a dirty period waits at most for the sessions it
// reads to be processed (their summaries feed the analytics).
const settleMax = time.Hour

// errDuplicateRerun rolls back a re-run whose job already exists.
var errDuplicateRerun = errors.New("re-run already enqueued")

// rerunDirty enqueues a re-run of each dirty period of a batch (dirty, as
// the tick began) within its catch-up window, once per batch, period and
// mark, and never while a run of the period is queued or going (that run
// covers the marks it finds at its start; the marks after stay for the next
// tick). A dirty period beyond the window is logged once and shown stale by
// `batch list`.
func rerunDirty(ctx context.Context, d *Deps, q queue.Queue, reg *batch.Registry, name string, s *schedule.Schedule, dirty []store.DirtyPeriod, now time.Time) (int, error) {
	if len(dirty) == 0 {
		return 0, nil
	}
	newest, _, err := lastAndOrigin(ctx, d.Store, name)
	if err != nil {
		return 0, err
	}
	enqueued := 0
	for _, p := range dirty {
		if p.Outcome == LedgerPending || p.Outcome == LedgerRunning {
			continue
		}
		switch classifyDirty(s, p, newest, now) {
		case dirtySuperseded:
			if err := d.Store.ClearDirty(ctx, name, p.Period, p.Seq); err != nil {
				return enqueued, err
			}
			continue
		case dirtyStale:
			if !p.Reported {
				d.log().WarnContext(ctx, "batch period stale: its input changed after it ran and it is beyond the catch-up window; run it by hand to refresh it",
					slog.String("batch", name), slog.String("period", p.Period), slog.String("reason", p.Reason))
				if err := d.Store.ReportStale(ctx, name, p.Period, p.Seq); err != nil {
					return enqueued, err
				}
			}
			continue
		}
		if held, err := unsettled(ctx, d, reg, name, s, p, now); err != nil {
			return enqueued, err
		} else if held && (p.MarkedAt == nil || now.Sub(*p.MarkedAt) < settleMax) {
			continue
		}
		added := false
		err := d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			run, err := tx.GetBatchRun(ctx, name, p.Period)
			if err != nil {
				return err
			}
			if run.Outcome == LedgerPending || run.Outcome == LedgerRunning {
				return nil
			}
			if err := tx.UpsertBatchRun(ctx, store.BatchRun{Batch: name, Period: p.Period, ScheduledFor: p.ScheduledFor, Outcome: LedgerPending}); err != nil {
				return err
			}
			ins, err := q.InsertTx(ctx, tx, BatchArgs{Batch: name, Period: p.Period, At: p.ScheduledFor, Rerun: p.Seq}, nil)
			if err != nil {
				return err
			}
			if ins.Duplicate {
				return errDuplicateRerun
			}
			added = true
			return nil
		})
		if err != nil && !errors.Is(err, errDuplicateRerun) {
			return enqueued, err
		}
		if !added {
			continue
		}
		enqueued++
		d.log().InfoContext(ctx, "batch period re-run for late data", slog.String("batch", name), slog.String("period", p.Period),
			slog.String("reason", p.Reason))
	}
	return enqueued, nil
}

// unsettled reports whether a dirty period should wait: sessions it reads
// (batch.Reads) are not processed yet, or a batch that feeds it (insights
// read weekly analytics) is about to run the period again.
func unsettled(ctx context.Context, d *Deps, reg *batch.Registry, name string, s *schedule.Schedule, p store.DirtyPeriod, now time.Time) (bool, error) {
	for _, feeder := range reg.FedBy(name) {
		run, err := d.Store.GetBatchRun(ctx, feeder, p.Period)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil || run.Outcome == LedgerPending || run.Outcome == LedgerRunning {
			return err == nil, err
		}
	}
	decl, ok := reg.Get(name)
	if !ok || !decl.ReadsSessions() {
		return false, nil
	}
	sp, err := schedule.PeriodByName(s, p.Period)
	if err != nil {
		// A ledger period the schedule no longer names (its spec changed):
		// the period as the ledger holds it.
		sp = schedule.Period{Batch: name, At: p.ScheduledFor, Name: p.Period}
	}
	// What the period reads, up to its run.
	from, to := decl.Reads.Sessions(sp, now), p.ScheduledFor
	for _, app := range d.AppsFeeding(name) {
		if busy, err := d.Store.UnprocessedSessions(ctx, app, from, to); err != nil || busy {
			return busy, err
		}
	}
	return false, nil
}

// TickArgs is the scheduler's periodic tick.
type TickArgs struct{}

// Kind is the River job kind.
func (TickArgs) Kind() string { return "scheduler_tick" }

// InsertOpts keeps one pending tick at a time.
func (TickArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queue.QueueBatch, MaxAttempts: 3, UniqueOpts: river.UniqueOpts{ByPeriod: time.Minute}}
}

// TickWorker runs Tick.
type TickWorker struct {
	river.WorkerDefaults[TickArgs]
	deps *Deps
}

// Work enqueues due batch periods.
func (w *TickWorker) Work(ctx context.Context, job *river.Job[TickArgs]) error {
	if w.deps.Queue == nil {
		return errNoQueue
	}
	_, err := Tick(ctx, w.deps, w.deps.Queue, w.deps.now())
	return err
}

var errNoQueue = errors.New("jobs: Deps.Queue is not set")

// PeriodicJobs are River's periodic jobs: the scheduler tick, every minute
// and on start.
func PeriodicJobs() []*river.PeriodicJob {
	return []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(time.Minute),
		func() (river.JobArgs, *river.InsertOpts) { return TickArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})}
}

// Reasons a batch run skips a user (batch.Skipped).
const (
	SkipProfile   = batch.SkipProfile
	SkipSummary   = batch.SkipSummary
	SkipEvent     = batch.SkipEvent
	SkipRecord    = batch.SkipRecord
	SkipAnalytics = batch.SkipAnalytics
	SkipResult    = batch.SkipResult
	SkipPanic     = batch.SkipPanic
)
