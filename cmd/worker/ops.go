package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
)

// opsFlags are the flags of the `jobs` and `queues` commands.
type opsFlags struct {
	state string
	kind  string
	queue string
	since string
	limit int
	json  bool
}

// oFlags finds a command's flags by its flag set; tests run commands in
// parallel, hence the sync.Map.
var oFlags sync.Map // *flag.FlagSet → *opsFlags

func registerJobsFlags(fs *flag.FlagSet) {
	f := &opsFlags{}
	fs.StringVar(&f.state, "state", "", "list: only jobs in these states (comma-separated); retry: retry every job in this state (discarded, cancelled or retryable)")
	fs.StringVar(&f.kind, "kind", "", "only jobs of these kinds (comma-separated)")
	fs.StringVar(&f.queue, "queue", "", "list: only jobs on these queues (comma-separated)")
	fs.StringVar(&f.since, "since", "", "retry --state: only jobs that finished within this long, e.g. 90m, 24h, 7d")
	fs.IntVar(&f.limit, "limit", 100, fmt.Sprintf("list: the most jobs shown, newest first (at most %d)", api.MaxJobList))
	fs.BoolVar(&f.json, "json", false, "list: one JSON object per job and line instead of a table")
	oFlags.Store(fs, f)
}

func registerQueuesFlags(fs *flag.FlagSet) {
	f := &opsFlags{}
	fs.BoolVar(&f.json, "json", false, "list: one JSON object per queue and line instead of a table")
	oFlags.Store(fs, f)
}

// opsFlagsOf returns the command's flags and which of them were given.
func opsFlagsOf(e *env) (*opsFlags, map[string]bool) {
	v, _ := oFlags.LoadAndDelete(e.flags)
	f, _ := v.(*opsFlags)
	if f == nil {
		f = &opsFlags{limit: 100}
	}
	set := map[string]bool{}
	e.flags.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return f, set
}

// onlyFlags refuses the command's own flags that the action does not take.
func onlyFlags(set map[string]bool, action string, allowed ...string) error {
	for _, name := range []string{"state", "kind", "queue", "since", "limit", "json"} {
		if set[name] && !slices.Contains(allowed, name) {
			return usageError{fmt.Errorf("%s does not take --%s", action, name)}
		}
	}
	return nil
}

// openQueue connects to the database for an operator command: an
// insert-only River client that works nothing. It needs neither the
// encryption key nor the apps, it does not migrate, and it creates no
// database: a missing SQLite file is an error.
func openQueue(ctx context.Context, cfg Config, log *slog.Logger) (store.Store, queue.Queue, error) {
	st, err := openExisting(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	status, err := queue.RiverMigrationStatus(ctx, st)
	if err != nil {
		_ = st.Close()
		return nil, nil, err
	}
	pending := 0
	for _, m := range status {
		if !m.Applied {
			pending++
		}
	}
	if pending > 0 {
		_ = st.Close()
		return nil, nil, fmt.Errorf("the database lacks %d of River's migrations: run `worker migrate up` (or start the worker) first", pending)
	}
	q, err := queue.New(st, queue.Config{Logger: log, PollOnly: cfg.PGPooler == PoolerTransaction})
	if err != nil {
		_ = st.Close()
		return nil, nil, err
	}
	return st, q, nil
}

// jobsCmd runs `jobs list`, `jobs retry` and `jobs cancel`.
func jobsCmd(ctx context.Context, e *env) error {
	f, set := opsFlagsOf(e)
	if len(e.args) == 0 {
		return usageError{errors.New("want list, retry or cancel")}
	}
	action, rest := e.args[0], e.args[1:]
	switch action {
	case "list":
		if err := onlyFlags(set, "jobs list", "state", "kind", "queue", "limit", "json"); err != nil {
			return err
		}
		if len(rest) > 0 {
			return usageError{fmt.Errorf("jobs list takes flags only, not %q", rest[0])}
		}
		states, err := api.ParseStates(f.state)
		if err != nil {
			return usageError{err}
		}
		if f.limit < 1 || f.limit > api.MaxJobList {
			return usageError{fmt.Errorf("--limit %d is not from 1 to %d", f.limit, api.MaxJobList)}
		}
		return withQueue(ctx, e, func(q queue.Queue) error {
			return listJobs(ctx, e, q, queue.ListFilter{States: states, Kinds: splitFlag(f.kind), Queues: splitFlag(f.queue), Limit: f.limit}, f.json)
		})
	case "retry":
		if f.state == "" {
			if err := onlyFlags(set, "jobs retry ID…"); err != nil {
				return usageError{fmt.Errorf("%w (--kind and --since go with --state)", err)}
			}
			if len(rest) == 0 {
				return usageError{errors.New("jobs retry wants job ids, or --state (e.g. --state discarded [--kind K] [--since 24h]) to retry in bulk")}
			}
			ids, err := parseIDs(rest)
			if err != nil {
				return err
			}
			return withQueue(ctx, e, func(q queue.Queue) error { return retryJobs(ctx, e, q, ids) })
		}
		if err := onlyFlags(set, "jobs retry --state", "state", "kind", "since"); err != nil {
			return err
		}
		if len(rest) > 0 {
			return usageError{errors.New("give job ids or --state, not both")}
		}
		states, err := api.ParseStates(f.state)
		if err != nil {
			return usageError{err}
		}
		if len(states) != 1 || !slices.Contains(api.BulkRetryStates, states[0]) {
			return usageError{fmt.Errorf("--state %q: bulk retry takes one state of discarded, cancelled or retryable", f.state)}
		}
		since, err := api.ParseSince(f.since)
		if err != nil {
			return usageError{err}
		}
		return withQueue(ctx, e, func(q queue.Queue) error {
			n, err := api.RetryMatching(ctx, q, api.RetryFilter{State: states[0], Kinds: splitFlag(f.kind), Since: since}, time.Now())
			if n > 0 || err == nil {
				fmt.Fprintf(e.stdout, "retried %d %s\n", n, plural(n, "job", "jobs"))
			}
			return err
		})
	case "cancel":
		if err := onlyFlags(set, "jobs cancel"); err != nil {
			return err
		}
		if len(rest) == 0 {
			return usageError{errors.New("jobs cancel wants job ids")}
		}
		ids, err := parseIDs(rest)
		if err != nil {
			return err
		}
		return withQueue(ctx, e, func(q queue.Queue) error { return cancelJobs(ctx, e, q, ids) })
	}
	return usageError{fmt.Errorf("unknown jobs action %q: want list, retry or cancel", action)}
}

// withQueue opens the queue, runs fn and closes the database.
func withQueue(ctx context.Context, e *env, fn func(q queue.Queue) error) error {
	st, q, err := openQueue(ctx, e.cfg, e.log)
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(q)
}

func parseIDs(args []string) ([]int64, error) {
	ids := make([]int64, 0, len(args))
	for _, a := range args {
		id, err := api.ParseJobID(a)
		if err != nil {
			return nil, usageError{err}
		}
		ids = append(ids, id)
	}
	return ids, nil
}

func splitFlag(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func listJobs(ctx context.Context, e *env, q queue.Queue, filter queue.ListFilter, asJSON bool) error {
	rows, err := q.List(ctx, filter)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		for _, row := range rows {
			if err := enc.Encode(api.JobOf(row)); err != nil {
				return err
			}
		}
		return nil
	}
	if len(rows) == 0 {
		fmt.Fprintln(e.stdout, "no jobs")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tQUEUE\tSTATE\tATTEMPT\tCREATED\tLAST ERROR")
	for _, row := range rows {
		last := "-"
		if n := len(row.Errors); n > 0 {
			last = api.FirstLine(row.Errors[n-1].Error, 80)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d/%d\t%s\t%s\n", row.ID, row.Kind, row.Queue, row.State, row.Attempt, row.MaxAttempts,
			row.CreatedAt.UTC().Format(time.RFC3339), last)
	}
	return tw.Flush()
}

// retryJobs retries each job; one that cannot be retried is reported and the
// others are still retried.
func retryJobs(ctx context.Context, e *env, q queue.Queue, ids []int64) error {
	failed := 0
	for _, id := range ids {
		was, row, err := api.RetryJob(ctx, q, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			failed++
			fmt.Fprintf(e.stderr, "job %d: not found\n", id)
		case errors.Is(err, api.ErrJobRunning):
			failed++
			fmt.Fprintf(e.stderr, "job %d (%s): running; not retried\n", id, row.Kind)
		case err != nil:
			return err
		case was == rivertype.JobStateAvailable:
			fmt.Fprintf(e.stdout, "job %d (%s): already available\n", id, row.Kind)
		default:
			fmt.Fprintf(e.stdout, "job %d (%s): %s, now %s\n", id, row.Kind, was, row.State)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d %s not retried", failed, len(ids), plural(len(ids), "job", "jobs"))
	}
	return nil
}

// cancelJobs cancels each job; one that cannot be cancelled is reported and
// the others are still cancelled.
func cancelJobs(ctx context.Context, e *env, q queue.Queue, ids []int64) error {
	failed := 0
	for _, id := range ids {
		was, row, err := api.CancelJob(ctx, q, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			failed++
			fmt.Fprintf(e.stderr, "job %d: not found\n", id)
		case errors.Is(err, api.ErrJobFinished):
			failed++
			fmt.Fprintf(e.stderr, "job %d (%s): already %s; not cancelled\n", id, row.Kind, was)
		case err != nil:
			return err
		case was == rivertype.JobStateCancelled:
			fmt.Fprintf(e.stdout, "job %d (%s): already cancelled\n", id, row.Kind)
		case row.State == rivertype.JobStateRunning:
			fmt.Fprintf(e.stdout, "job %d (%s): running; its worker is told to stop\n", id, row.Kind)
		default:
			fmt.Fprintf(e.stdout, "job %d (%s): %s, now %s\n", id, row.Kind, was, row.State)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d %s not cancelled", failed, len(ids), plural(len(ids), "job", "jobs"))
	}
	return nil
}

// queuesCmd runs `queues list`, `queues pause NAME` and `queues resume NAME`.
func queuesCmd(ctx context.Context, e *env) error {
	f, set := opsFlagsOf(e)
	if len(e.args) == 0 {
		return usageError{errors.New("want list, pause NAME or resume NAME")}
	}
	action, rest := e.args[0], e.args[1:]
	switch action {
	case "list":
		if len(rest) > 0 {
			return usageError{fmt.Errorf("queues list takes no arguments, not %q", rest[0])}
		}
		return withQueue(ctx, e, func(q queue.Queue) error { return listQueues(ctx, e, q, f.json) })
	case "pause", "resume":
		if err := onlyFlags(set, "queues "+action); err != nil {
			return err
		}
		if len(rest) != 1 {
			return usageError{fmt.Errorf("queues %s wants one queue name", action)}
		}
		name := rest[0]
		return withQueue(ctx, e, func(q queue.Queue) error {
			row, err := api.FindQueue(ctx, q, name)
			if err != nil {
				return err
			}
			pause := action == "pause"
			if (row.PausedAt != nil) == pause {
				fmt.Fprintf(e.stdout, "queue %s was already %sd\n", name, action)
				return nil
			}
			do := q.Resume
			if pause {
				do = q.Pause
			}
			if err := do(ctx, name); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "%sd queue %s\n", action, name)
			return nil
		})
	}
	return usageError{fmt.Errorf("unknown queues action %q: want list, pause or resume", action)}
}

func listQueues(ctx context.Context, e *env, q queue.Queue, asJSON bool) error {
	rows, err := q.Queues(ctx)
	if err != nil {
		return err
	}
	slices.SortFunc(rows, func(a, b *rivertype.Queue) int { return strings.Compare(a.Name, b.Name) })
	if asJSON {
		enc := json.NewEncoder(e.stdout)
		for _, row := range rows {
			if err := enc.Encode(api.QueueOf(row)); err != nil {
				return err
			}
		}
		return nil
	}
	if len(rows) == 0 {
		fmt.Fprintln(e.stdout, "no queues yet: a queue appears once a worker has run it")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "QUEUE\tPAUSED\tUPDATED")
	for _, row := range rows {
		paused := "no"
		if row.PausedAt != nil {
			paused = "since " + row.PausedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", row.Name, paused, row.UpdatedAt.UTC().Format(time.RFC3339))
	}
	return tw.Flush()
}
