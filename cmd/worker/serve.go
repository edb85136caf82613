package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"riverqueue.com/riverui"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/batch"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/llmextract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/internal/workerviews"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/llm"
	"github.com/mnemo-ai/mnemo/metrics"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
)

// system is everything a running worker holds.
type system struct {
	store store.Store
	queue queue.Queue
	deps  *jobs.Deps
	api   *api.Server
	// handler is api with handoff requests counted; ui is River UI, mounted in api.
	handler http.Handler
	ui      *riverui.Handler
	// idle is why the workers wait to start (the database cannot be
	// written); nil once they run.
	idle atomic.Pointer[error]
}

// httpReadTimeout is the longest the server reads one request.
const httpReadTimeout = 60 * time.Second

// keyring loads MNEMO_ENCRYPTION_KEY, or a key file beside the database,
// generating it (0600, in a directory created 0700) when missing.
func keyring(cfg Config, log *slog.Logger) (*seal.Keyring, error) {
	if cfg.EncryptionKey != "" {
		k, err := seal.ParseKeys(cfg.EncryptionKey)
		if err != nil {
			return nil, fmt.Errorf("MNEMO_ENCRYPTION_KEY: %w", err)
		}
		return k, nil
	}
	path := keyFilePath(cfg)
	spec, created, err := seal.LoadOrCreateKeyFile(path)
	if err != nil {
		return nil, fmt.Errorf("encryption key file: %w", err)
	}
	if created {
		log.Warn("no MNEMO_ENCRYPTION_KEY: generated a key file; keep it with the database", slog.String("path", path))
	}
	if cfg.Dialect == store.DialectPostgres {
		log.Warn("no MNEMO_ENCRYPTION_KEY on Postgres: every worker sharing this database needs the same key", slog.String("path", path))
	}
	return seal.ParseKeys(spec)
}

// keyFilePath is where the generated key file lives: beside the SQLite
// database, or in ./data.
func keyFilePath(cfg Config) string {
	dir := "data"
	if cfg.Dialect == store.DialectSQLite {
		dir = filepath.Dir(cfg.SQLitePath)
	}
	return filepath.Join(dir, "mnemo.key")
}

// existingKeyring is keyring for a command that only reads: it never
// generates a key file, and without one it returns nil (no transcript can
// then be opened, which such a command does not do).
func existingKeyring(cfg Config) (*seal.Keyring, error) {
	if cfg.EncryptionKey != "" {
		return keyring(cfg, nil)
	}
	path := keyFilePath(cfg)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	spec, _, err := seal.LoadOrCreateKeyFile(path)
	if err != nil {
		return nil, fmt.Errorf("encryption key file: %w", err)
	}
	return seal.ParseKeys(spec)
}

// newLLM builds the LLM extractor from the configuration.
func newLLM(cfg Config, log *slog.Logger) (*llmextract.Extractor, error) {
	prices, err := llm.ParsePrices(cfg.LLMPrices)
	if err != nil {
		return nil, fmt.Errorf("MNEMO_LLM_PRICES: %w", err)
	}
	llm, err := llmextract.New(llmextract.Config{BaseURL: cfg.OpenAIBaseURL, APIKey: cfg.OpenAIKey, Model: cfg.LLMModel,
		Timeout: cfg.LLMTimeout, Temperature: float32(cfg.LLMTemperature), MaxInputTokens: cfg.LLMMaxInputTokens, MaxMemories: cfg.LLMMaxMemories, Prices: llm.DefaultPrices().With(prices), Logger: log,
		// Extraction and re-summaries call the LLM, at most one call per job.
		Concurrency:       cfg.Concurrency[queue.QueueExtract] + cfg.Concurrency[queue.QueueDefault],
		RequestsPerMinute: cfg.LLMRPM, TokensPerMinute: cfg.LLMTPM,
		LimitMaxWait: min(llm.DefaultLimitMaxWait, cfg.JobTimeout/2), RiskModel: cfg.RiskModel})
	if err != nil {
		return nil, fmt.Errorf("MNEMO_LLM_MODEL: %w", err)
	}
	return llm, nil
}

// build opens, migrates and wires the system; withWorkers false gives an
// insert-only queue for operator commands.
func build(ctx context.Context, cfg Config, log *slog.Logger, withWorkers bool) (*system, error) {
	return buildWith(ctx, cfg, log, withWorkers, false)
}

// buildReading wires the system for a command that only reads (batch list):
// it opens an existing database without migrating it and never generates a
// key file.
func buildReading(ctx context.Context, cfg Config, log *slog.Logger) (*system, error) {
	return buildWith(ctx, cfg, log, false, true)
}

func buildWith(ctx context.Context, cfg Config, log *slog.Logger, withWorkers, reading bool) (*system, error) {
	if reading {
		if err := requireDatabase(cfg); err != nil {
			return nil, err
		}
	}
	apps, err := prompts.Load(cfg.AppsDir)
	if err != nil {
		return nil, usageError{fmt.Errorf("MNEMO_APPS_DIR: %w", err)}
	}
	var keys *seal.Keyring
	if reading {
		keys, err = existingKeyring(cfg)
	} else {
		keys, err = keyring(cfg, log)
	}
	if err != nil {
		return nil, usageError{err}
	}
	var llm *llmextract.Extractor
	if cfg.LLMModel != "" {
		if llm, err = newLLM(cfg, log); err != nil {
			return nil, usageError{err}
		}
	}
	if cfg.Dialect == store.DialectPostgres && cfg.PoolSize > 0 {
		// pgx reads the pool's size from the URL (openStore passes no size).
		cfg.DatabaseURL = withPoolSize(cfg.DatabaseURL, cfg.PoolSize)
	}
	st, err := openStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if reading {
		err = schemaCurrent(ctx, st)
	} else {
		_, _, err = migrateAll(ctx, st)
	}
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	if err := sealDerived(st, keys, apps); err != nil {
		_ = st.Close()
		return nil, usageError{err}
	}
	deps := &jobs.Deps{Store: st, Apps: apps, Keys: keys, LLM: llm, MonthlyBudgetUSD: cfg.LLMMonthlyBudget, Logger: jobs.WithJobLog(log),
		RulesMaxMemories: cfg.RulesMaxMemories, MaxUserMemories: cfg.MaxUserMemories,
		Schedules: cfg.Schedules, Batch: cfg.Batch, RiskAlerts: riskAlertTargets(apps, cfg.RiskAlertURLs, cfg.RiskAlertSecrets)}
	qc := queue.Config{
		JobTimeout:        cfg.JobTimeout,
		RescueAfter:       cfg.RescueAfter,
		FetchPollInterval: cfg.PollInterval,
		FetchCooldown:     cfg.FetchCooldown,
		// A weekly batch's job outlives its period, for the operator's eyes;
		// a failed job (a dead-lettered risk alert) stays as long.
		CompletedRetention: 30 * 24 * time.Hour,
		FailedRetention:    30 * 24 * time.Hour,
		Logger:             log,
		PollOnly:           cfg.PGPooler == PoolerTransaction,
	}
	if cfg.RetryBackoff > 0 {
		qc.RetryPolicy = jobs.Backoff{Base: cfg.RetryBackoff}
	}
	if withWorkers {
		qc.Concurrency = cfg.Concurrency
		qc.Workers = jobs.NewWorkers(deps)
		qc.PeriodicJobs = jobs.PeriodicJobs()
		qc.Middleware = jobs.Middleware()
	}
	queue, err := queue.New(st, qc)
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	deps.Queue = queue
	reg := metrics.New(metrics.Config{Queue: queue, Deps: deps, Logger: log})
	deps.Metrics = reg
	if withWorkers {
		jobs.ObserveJobs(queue, reg)
	}
	sys := &system{store: st, queue: queue, deps: deps}
	srv := api.New(api.Config{Tokens: cfg.Tokens, Logger: log, MaxBodyBytes: cfg.MaxBodyBytes, BodyBytesInFlight: cfg.BodyBytesInFlight, BodyBytesPerToken: cfg.BodyBytesPerToken, MinBodyBytesPerSecond: cfg.MinBodyBytesPerSecond, BodyReadTimeout: httpReadTimeout, Ready: func(ctx context.Context) error {
		if err := st.Ping(ctx); err != nil {
			return err
		}
		n, err := st.Pending(ctx)
		if err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("%d migrations pending", n)
		}
		if idle := sys.idle.Load(); idle != nil {
			return fmt.Errorf("workers not started: %w", *idle)
		}
		return nil
	}})
	srv.Mount(api.Data{Store: st, MaxBodyBytes: cfg.MaxBodyBytes, Profile: cfg.Profile, Schedules: cfg.Schedules, CareNoteDays: cfg.CareNoteDays,
		MaxExportsPerUser: cfg.MaxExportsPerUser,
		Handoff:           handoff.Deps{Queue: queue, Apps: apps, Keys: keys, MaxEvents: cfg.MaxSessionEvents}})
	srv.MountMetrics(reg.Handler())
	ui, err := api.NewUI(queue, log)
	if err != nil {
		_ = st.Close()
		return nil, err
	}
	srv.MountUI(ui)
	srv.MountViews(workerviews.Config(deps))
	sys.api, sys.handler, sys.ui = srv, srv.Observed(reg), ui
	return sys, nil
}

// writable says why the database cannot be written now, where the store can
// tell without writing (a SQLite file); nil otherwise.
func (sys *system) writable() error {
	if w, ok := sys.store.(interface{ CheckWritable() error }); ok {
		return w.CheckWritable()
	}
	return nil
}

// startWorkers starts River's workers on workCtx. River cannot start on a
// database it may not write (a read-only SQLite file, a Postgres role without
// write rights): the API then serves without them, answering 503 to writes and
// to /readyz, and they start once the database takes writes again. The
// channel is closed once they run, or once ctx is done first.
func (sys *system) startWorkers(ctx, workCtx context.Context, log *slog.Logger) (<-chan struct{}, error) {
	done := make(chan struct{})
	err := sys.writable()
	if err == nil {
		err = sys.queue.Start(workCtx)
	}
	if err == nil || !store.IsReadOnly(err) {
		close(done)
		return done, err
	}
	log.Warn("database is read-only: writes answer 503 and no job runs until it is writable again", slog.String("error", err.Error()))
	sys.idle.Store(&err)
	go func() {
		defer close(done)
		delay := time.Second
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(delay):
			}
			if sys.writable() != nil {
				continue
			}
			if err := sys.queue.Start(workCtx); err != nil {
				log.Warn("workers not started", slog.String("error", err.Error()))
				delay = min(2*delay, 30*time.Second)
				continue
			}
			sys.idle.Store(nil)
			log.Info("database writable again: workers started")
			return
		}
	}()
	return done, nil
}

// serve runs the HTTP API and the workers until ctx is cancelled (SIGINT or
// SIGTERM), then shuts down gracefully: the listener closes, running jobs get
// the grace period to finish, and whatever still runs is cancelled.
func serve(ctx context.Context, e *env) error {
	log := e.log
	if e.cfg.Dialect == store.DialectSQLite {
		// SQLite is one process per file: a second worker on it would run
		// every periodic job twice and fight over the write lock.
		lock, err := store.LockSQLite(e.cfg.SQLitePath)
		if errors.Is(err, store.ErrInUse) {
			return err
		}
		if err != nil {
			log.Warn("not guarding the database against a second worker", slog.String("error", err.Error()))
		}
		defer lock.Release()
	}
	sys, err := build(ctx, e.cfg, log, true)
	if err != nil {
		return err
	}
	defer sys.store.Close()
	conc, cooldown, poll, pool := e.cfg.Tuning.logValues()
	log.Info("queue tuning", slog.String("concurrency", conc), slog.String("fetch_cooldown", cooldown),
		slog.String("poll_interval", poll), slog.String("db_pool", pool), slog.Int("cores", e.cfg.Tuning.Cores),
		slog.Bool("llm", e.cfg.Tuning.LLM))
	logPresetsAndAlerts(log, e.cfg.AppsDir, sys.deps.Apps, sys.deps.RiskAlerts)
	if len(e.cfg.Tokens) == 0 {
		log.Warn("no MNEMO_API_TOKENS: every route is open to callers on this loopback address")
	}
	ln, err := net.Listen("tcp", e.cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", e.cfg.Listen, err)
	}
	httpSrv := &http.Server{Handler: sys.handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: httpReadTimeout,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	// Workers run on a context of their own: a signal starts the shutdown
	// below rather than tearing jobs down mid-write.
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWork()
	if err := sys.ui.Start(workCtx); err != nil {
		_ = ln.Close()
		return fmt.Errorf("start river ui: %w", err)
	}
	waitCtx, stopWaiting := context.WithCancel(ctx)
	defer stopWaiting()
	started, err := sys.startWorkers(waitCtx, workCtx, log)
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("start workers: %w", err)
	}
	httpErr := make(chan error, 1)
	go func() { httpErr <- httpSrv.Serve(ln) }()
	log.Info("mnemo serving", slog.String("listen", ln.Addr().String()), slog.String("database", sys.store.Dialect()),
		slog.Bool("llm", sys.deps.LLM != nil), slog.Any("apps", prompts.Names(sys.deps.Apps)))
	if e.ready != nil {
		e.ready(ln.Addr().String())
	}

	var serveErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down", slog.String("grace", e.cfg.ShutdownGrace.String()))
	case serveErr = <-httpErr:
		log.Error("http server stopped", slog.String("error", serveErr.Error()))
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), e.cfg.ShutdownGrace)
	defer cancel()
	if err := httpSrv.Shutdown(shutCtx); err != nil {
		log.Warn("http shutdown", slog.String("error", err.Error()))
	}
	stopWaiting()
	<-started
	if err := sys.queue.Stop(shutCtx); err != nil {
		log.Warn("grace period over; cancelling running jobs", slog.String("error", err.Error()))
		hardCtx, hardCancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer hardCancel()
		if err := sys.queue.StopAndCancel(hardCtx); err != nil {
			return fmt.Errorf("stop workers: %w", err)
		}
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return serveErr
	}
	log.Info("stopped")
	return nil
}

// sealDerived makes st seal the derived data (summaries, profile and its
// history, display name) of the apps whose policy sets seal_derived. An app
// whose kind declares batches that read its sessions in SQL (batch.Reads:
// weekly analytics, trends) cannot seal it.
func sealDerived(st store.Store, keys *seal.Keyring, apps map[string]*prompts.App) error {
	for name, app := range apps {
		if !app.Policy.SealDerived {
			continue
		}
		kind := extract.KindOfApp(app)
		var reading []string
		for _, b := range batch.Of(kind) {
			if b.ReadsSessions() {
				reading = append(reading, b.Name)
			}
		}
		if len(reading) > 0 {
			return fmt.Errorf("app %s: seal_derived cannot be set for a %s app: its batches (%s) read its summaries and profiles",
				name, kind.Name(), strings.Join(reading, ", "))
		}
	}
	if s, ok := st.(interface{ SetSealer(store.Sealer) }); ok {
		s.SetSealer(jobs.DerivedSealer{Keys: keys, Apps: apps})
	}
	return nil
}
