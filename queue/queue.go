// Package queue is Mnemo's job-queue plumbing: a small interface over River's
// Postgres and SQLite clients, so that workers and the API never see which
// database is underneath, and the arguments of the jobs the API and the
// hand-off enqueue. Package jobs holds the workers; this package holds no
// domain rules, so that api, views and handoff can enqueue without importing
// them.
package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/store"
)

// Queue names.
const (
	QueueDefault = river.QueueDefault
	// QueueExtract holds LLM-bound work; its concurrency is sized for waiting on the network.
	QueueExtract = "extract"
	// QueueBatch holds the scheduled batches.
	QueueBatch = "batch"
)

// Inserted is what an insert returns: the job and whether it already existed
// (a unique job inserted twice).
type Inserted struct {
	ID        int64
	Kind      string
	Duplicate bool
}

// ListFilter narrows Queue.List.
type ListFilter struct {
	States []rivertype.JobState
	Kinds  []string
	Queues []string
	// Limit is the most rows returned; 0 means 100.
	Limit int
	// ArgIn keeps the jobs whose args hold, at the top level, the string
	// field Field with one of Values (none: no job), in the database's one
	// query; nil keeps every job.
	ArgIn *ArgIn
}

// ArgIn narrows a ListFilter to jobs by one string field of their args.
type ArgIn struct {
	Field  string
	Values []string
}

// Queue is the job queue as Mnemo sees it.
type Queue interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (Inserted, error)
	// InsertTx enqueues in the store transaction tx, so that the job exists
	// exactly when the rows written in tx do.
	InsertTx(ctx context.Context, tx store.Tx, args river.JobArgs, opts *river.InsertOpts) (Inserted, error)
	Get(ctx context.Context, id int64) (*rivertype.JobRow, error)
	List(ctx context.Context, f ListFilter) ([]*rivertype.JobRow, error)
	Retry(ctx context.Context, id int64) (*rivertype.JobRow, error)
	Cancel(ctx context.Context, id int64) (*rivertype.JobRow, error)
	Pause(ctx context.Context, queue string) error
	Resume(ctx context.Context, queue string) error
	// Queues lists the queues River knows, with their pause state.
	Queues(ctx context.Context) ([]*rivertype.Queue, error)

	Start(ctx context.Context) error
	// Stop stops fetching and waits for running jobs (soft stop).
	Stop(ctx context.Context) error
	// StopAndCancel cancels running jobs' contexts and waits for them (hard stop).
	StopAndCancel(ctx context.Context) error
	// Subscribe delivers job events (completed, failed, snoozed, …) of this process.
	Subscribe(kinds ...river.EventKind) (<-chan *river.Event, func())
	// Client is the underlying *river.Client[pgx.Tx] or *river.Client[*sql.Tx].
	Client() any
}

// Config configures the River client.
type Config struct {
	// Concurrency is the most jobs worked at once per queue. Empty means an
	// insert-only client: it enqueues and administers but works nothing.
	Concurrency map[string]int
	// Workers are the registered workers; required when Concurrency is set.
	Workers *river.Workers
	// PeriodicJobs are River periodic jobs (only the elected leader enqueues them).
	PeriodicJobs []*river.PeriodicJob
	// JobTimeout is how long one job may run.
	JobTimeout time.Duration
	// RescueAfter is how long a job may sit in running before it is taken for
	// a dead worker's and run again.
	RescueAfter time.Duration
	// FetchPollInterval is how often queues are polled; SQLite has no
	// LISTEN/NOTIFY, so this bounds its pick-up latency.
	FetchPollInterval time.Duration
	// FetchCooldown is the least time between two fetches of one queue,
	// which caps a queue at MaxWorkers ÷ FetchCooldown short jobs a second;
	// zero keeps River's 100 ms (or the poll interval, when shorter).
	FetchCooldown time.Duration
	// CompletedRetention keeps completed jobs this long.
	CompletedRetention time.Duration
	// FailedRetention keeps discarded and cancelled jobs this long (zero:
	// River's 7 days and 24 hours).
	FailedRetention time.Duration
	// RetryPolicy schedules retries of failed jobs; nil is River's
	// exponential backoff.
	RetryPolicy river.ClientRetryPolicy
	// ErrorHandler sees job errors and panics.
	ErrorHandler river.ErrorHandler
	Logger       *slog.Logger
	// Middleware wraps every job the client works; jobs.Middleware() is
	// Mnemo's: each job's log lines kept with the job, for River UI.
	Middleware []rivertype.Middleware
	// Schema is the Postgres schema River's tables live in; empty means the search path.
	Schema string
	// PollOnly keeps River off LISTEN/NOTIFY, which a pooler in transaction
	// mode (PgBouncer's pool_mode = transaction) cannot carry: queues are
	// polled every FetchPollInterval and the leader's election polled too.
	PollOnly bool
}

func (c Config) riverConfig() *river.Config {
	rc := &river.Config{
		Workers:                     c.Workers,
		PeriodicJobs:                c.PeriodicJobs,
		JobTimeout:                  c.JobTimeout,
		RescueStuckJobsAfter:        c.RescueAfter,
		FetchPollInterval:           c.FetchPollInterval,
		CompletedJobRetentionPeriod: c.CompletedRetention,
		DiscardedJobRetentionPeriod: c.FailedRetention,
		CancelledJobRetentionPeriod: c.FailedRetention,
		ErrorHandler:                c.ErrorHandler,
		RetryPolicy:                 c.RetryPolicy,
		Logger:                      c.Logger,
		Middleware:                  c.Middleware,
		Schema:                      c.Schema,
		PollOnly:                    c.PollOnly,
	}
	if c.FetchCooldown > 0 {
		rc.FetchCooldown = c.FetchCooldown
	} else if rc.FetchPollInterval > 0 && rc.FetchPollInterval < 100*time.Millisecond {
		// River's default cooldown (100 ms) may not exceed the poll interval.
		rc.FetchCooldown = rc.FetchPollInterval
	}
	if len(c.Concurrency) > 0 {
		rc.Queues = map[string]river.QueueConfig{}
		for q, n := range c.Concurrency {
			rc.Queues[q] = river.QueueConfig{MaxWorkers: n}
		}
	}
	return rc
}

// New builds the River client for the store's database.
func New(st store.Store, cfg Config) (Queue, error) {
	switch db := st.Raw().(type) {
	case *pgxpool.Pool:
		c, err := river.NewClient(riverpgxv5.New(db), cfg.riverConfig())
		if err != nil {
			return nil, fmt.Errorf("river client: %w", err)
		}
		return &riverQueue[pgx.Tx]{client: c, dialect: store.DialectPostgres}, nil
	case *sql.DB:
		c, err := river.NewClient(riversqlite.New(db), cfg.riverConfig())
		if err != nil {
			return nil, fmt.Errorf("river client: %w", err)
		}
		return &riverQueue[*sql.Tx]{client: c, dialect: store.DialectSQLite}, nil
	}
	return nil, fmt.Errorf("river client: unsupported store %T", st.Raw())
}

// riverQueue implements Queue for either driver.
type riverQueue[TTx any] struct {
	client  *river.Client[TTx]
	dialect string
}

func (q *riverQueue[TTx]) Client() any { return q.client }

func inserted(res *rivertype.JobInsertResult) Inserted {
	return Inserted{ID: res.Job.ID, Kind: res.Job.Kind, Duplicate: res.UniqueSkippedAsDuplicate}
}

func (q *riverQueue[TTx]) Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (Inserted, error) {
	res, err := q.client.Insert(ctx, args, opts)
	if err != nil {
		return Inserted{}, fmt.Errorf("insert %s job: %w", args.Kind(), err)
	}
	return inserted(res), nil
}

func (q *riverQueue[TTx]) InsertTx(ctx context.Context, tx store.Tx, args river.JobArgs, opts *river.InsertOpts) (Inserted, error) {
	raw, ok := tx.Raw().(TTx)
	if !ok {
		return Inserted{}, fmt.Errorf("insert %s job: transaction %T belongs to another database", args.Kind(), tx.Raw())
	}
	res, err := q.client.InsertTx(ctx, raw, args, opts)
	if err != nil {
		return Inserted{}, fmt.Errorf("insert %s job: %w", args.Kind(), err)
	}
	return inserted(res), nil
}

func (q *riverQueue[TTx]) Get(ctx context.Context, id int64) (*rivertype.JobRow, error) {
	return notFound(q.client.JobGet(ctx, id))
}

func (q *riverQueue[TTx]) List(ctx context.Context, f ListFilter) ([]*rivertype.JobRow, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	p := river.NewJobListParams().First(limit).OrderBy(river.JobListOrderByID, river.SortOrderDesc)
	if len(f.States) > 0 {
		p = p.States(f.States...)
	}
	if len(f.Kinds) > 0 {
		p = p.Kinds(f.Kinds...)
	}
	if len(f.Queues) > 0 {
		p = p.Queues(f.Queues...)
	}
	if a := f.ArgIn; a != nil {
		if len(a.Values) == 0 {
			return nil, nil
		}
		// river_job.args is jsonb on Postgres and JSON in a blob on SQLite;
		// both read a top-level field as text with ->>. The list of values
		// is an array on Postgres, a JSON array on SQLite (as River's own
		// filters on kind and queue pass theirs).
		if q.dialect == store.DialectSQLite {
			vals, err := json.Marshal(a.Values)
			if err != nil {
				return nil, fmt.Errorf("list jobs: %w", err)
			}
			p = p.Where("args ->> @arg_field IN (SELECT value FROM json_each(cast(@arg_values AS blob)))",
				river.NamedArgs{"arg_field": a.Field, "arg_values": string(vals)})
		} else {
			p = p.Where("args ->> @arg_field = any(@arg_values::text[])", river.NamedArgs{"arg_field": a.Field, "arg_values": a.Values})
		}
	}
	res, err := q.client.JobList(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	return res.Jobs, nil
}

func (q *riverQueue[TTx]) Retry(ctx context.Context, id int64) (*rivertype.JobRow, error) {
	return notFound(q.client.JobRetry(ctx, id))
}

func (q *riverQueue[TTx]) Cancel(ctx context.Context, id int64) (*rivertype.JobRow, error) {
	return notFound(q.client.JobCancel(ctx, id))
}

func (q *riverQueue[TTx]) Pause(ctx context.Context, queue string) error {
	if err := q.client.QueuePause(ctx, queue, nil); err != nil {
		if errors.Is(err, rivertype.ErrNotFound) {
			return fmt.Errorf("pause queue %s: %w", queue, store.ErrNotFound)
		}
		return fmt.Errorf("pause queue %s: %w", queue, err)
	}
	return nil
}

func (q *riverQueue[TTx]) Resume(ctx context.Context, queue string) error {
	if err := q.client.QueueResume(ctx, queue, nil); err != nil {
		if errors.Is(err, rivertype.ErrNotFound) {
			return fmt.Errorf("resume queue %s: %w", queue, store.ErrNotFound)
		}
		return fmt.Errorf("resume queue %s: %w", queue, err)
	}
	return nil
}

func (q *riverQueue[TTx]) Queues(ctx context.Context) ([]*rivertype.Queue, error) {
	res, err := q.client.QueueList(ctx, river.NewQueueListParams().First(1000))
	if err != nil {
		return nil, fmt.Errorf("list queues: %w", err)
	}
	return res.Queues, nil
}

func (q *riverQueue[TTx]) Start(ctx context.Context) error { return q.client.Start(ctx) }
func (q *riverQueue[TTx]) Stop(ctx context.Context) error  { return q.client.Stop(ctx) }
func (q *riverQueue[TTx]) StopAndCancel(ctx context.Context) error {
	return q.client.StopAndCancel(ctx)
}

func (q *riverQueue[TTx]) Subscribe(kinds ...river.EventKind) (<-chan *river.Event, func()) {
	return q.client.Subscribe(kinds...)
}

func notFound(row *rivertype.JobRow, err error) (*rivertype.JobRow, error) {
	if errors.Is(err, rivertype.ErrNotFound) {
		return nil, fmt.Errorf("job: %w", store.ErrNotFound)
	}
	return row, err
}

// RiverMigration is one of River's own schema migrations.
type RiverMigration struct {
	Version int
	Name    string
	Applied bool
}

// MigrateRiver applies River's own migrations to the store's database.
func MigrateRiver(ctx context.Context, st store.Store) ([]int, error) {
	return withRiverMigrator(st, func(m riverMigrator) ([]int, error) {
		res, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil)
		if err != nil {
			return nil, fmt.Errorf("river migrations: %w", err)
		}
		var out []int
		for _, v := range res.Versions {
			out = append(out, v.Version)
		}
		return out, nil
	})
}

// RiverMigrationStatus lists River's migrations and which are applied.
func RiverMigrationStatus(ctx context.Context, st store.Store) ([]RiverMigration, error) {
	var out []RiverMigration
	_, err := withRiverMigrator(st, func(m riverMigrator) ([]int, error) {
		existing, err := m.ExistingVersions(ctx)
		if err != nil {
			return nil, fmt.Errorf("river migration status: %w", err)
		}
		applied := map[int]bool{}
		for _, e := range existing {
			applied[e.Version] = true
		}
		for _, v := range m.AllVersions() {
			out = append(out, RiverMigration{Version: v.Version, Name: v.Name, Applied: applied[v.Version]})
		}
		return nil, nil
	})
	return out, err
}

// riverMigrator is the part of rivermigrate.Migrator used here, for either driver.
type riverMigrator interface {
	Migrate(ctx context.Context, direction rivermigrate.Direction, opts *rivermigrate.MigrateOpts) (*rivermigrate.MigrateResult, error)
	ExistingVersions(ctx context.Context) ([]rivermigrate.Migration, error)
	AllVersions() []rivermigrate.Migration
}

func withRiverMigrator(st store.Store, fn func(m riverMigrator) ([]int, error)) ([]int, error) {
	var m riverMigrator
	var err error
	switch db := st.Raw().(type) {
	case *pgxpool.Pool:
		m, err = newMigrator[pgx.Tx](riverpgxv5.New(db))
	case *sql.DB:
		m, err = newMigrator[*sql.Tx](riversqlite.New(db))
	default:
		return nil, fmt.Errorf("river migrations: unsupported store %T", st.Raw())
	}
	if err != nil {
		return nil, err
	}
	return fn(m)
}

func newMigrator[TTx any](d riverdriver.Driver[TTx]) (riverMigrator, error) {
	m, err := rivermigrate.New(d, &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, fmt.Errorf("river migrator: %w", err)
	}
	return m, nil
}
