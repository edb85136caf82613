package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/internal/apperr"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
)

// The operator's job and queue operations live here, shared by the admin
// routes and the worker's `jobs` and `queues` commands, so that both answer
// the same way and show a job the same way.

// MaxJobList is the most jobs one listing returns (River's own ceiling).
const MaxJobList = 10_000

// Job is what an operator sees of a River job. It leaves the job's args and
// metadata out on purpose: only ids, states, times and error messages.
type Job struct {
	ID          int64      `json:"id"`
	Kind        string     `json:"kind"`
	Queue       string     `json:"queue"`
	State       string     `json:"state"`
	Attempt     int        `json:"attempt"`
	MaxAttempts int        `json:"max_attempts"`
	CreatedAt   time.Time  `json:"created_at"`
	ScheduledAt time.Time  `json:"scheduled_at"`
	AttemptedAt *time.Time `json:"attempted_at"`
	FinalizedAt *time.Time `json:"finalized_at"`
	Errors      []JobError `json:"errors"`
}

// JobError is one failed attempt: when, which attempt, and the first line of
// the error (never the stack trace).
type JobError struct {
	At      time.Time `json:"at"`
	Attempt int       `json:"attempt"`
	Message string    `json:"message"`
}

// maxErrorMessage caps an error message in a job view, in runes.
const maxErrorMessage = 500

// JobOf is the operator's view of a job row.
func JobOf(row *rivertype.JobRow) Job {
	j := Job{ID: row.ID, Kind: row.Kind, Queue: row.Queue, State: string(row.State), Attempt: row.Attempt,
		MaxAttempts: row.MaxAttempts, CreatedAt: row.CreatedAt.UTC(), ScheduledAt: row.ScheduledAt.UTC(),
		AttemptedAt: utc(row.AttemptedAt), FinalizedAt: utc(row.FinalizedAt), Errors: make([]JobError, 0, len(row.Errors))}
	for _, e := range row.Errors {
		j.Errors = append(j.Errors, JobError{At: e.At.UTC(), Attempt: e.Attempt, Message: FirstLine(e.Error, maxErrorMessage)})
	}
	return j
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// FirstLine is the first non-empty line of s, cut to at most n runes (an
// ellipsis marks the cut).
func FirstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	s, _, _ = strings.Cut(s, "\n")
	s = strings.TrimSpace(strings.ReplaceAll(s, "\t", " "))
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}

// Queue is what an operator sees of a River queue.
type Queue struct {
	Name      string     `json:"name"`
	Paused    bool       `json:"paused"`
	PausedAt  *time.Time `json:"paused_at"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

// QueueOf is the operator's view of a queue row.
func QueueOf(q *rivertype.Queue) Queue {
	return Queue{Name: q.Name, Paused: q.PausedAt != nil, PausedAt: utc(q.PausedAt), CreatedAt: q.CreatedAt.UTC(), UpdatedAt: q.UpdatedAt.UTC()}
}

// InvalidError is an operator's request that cannot be carried out as
// asked: an unknown state, a bad duration, a malformed id. Its message names
// only what the operator typed and what would be accepted.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }

func invalidf(format string, args ...any) error {
	return &InvalidError{Msg: fmt.Sprintf(format, args...)}
}

// ErrJobRunning is returned for a retry of a running job: River leaves
// running jobs alone.
var ErrJobRunning = fmt.Errorf("the job is running: %w", store.ErrConflict)

// ErrJobFinished is returned for a cancel of a completed or discarded job.
var ErrJobFinished = fmt.Errorf("the job has already finished: %w", store.ErrConflict)

// stateNames lists River's job states for error messages.
func stateNames(states []rivertype.JobState) string {
	names := make([]string, len(states))
	for i, s := range states {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// ParseStates reads job states, each value possibly a comma-separated list,
// and checks them against River's states.
func ParseStates(values ...string) ([]rivertype.JobState, error) {
	var out []rivertype.JobState
	for _, v := range splitList(values) {
		s := rivertype.JobState(strings.ToLower(v))
		if !slices.Contains(rivertype.JobStates(), s) {
			return nil, invalidf("unknown job state %q; want one of %s", v, stateNames(rivertype.JobStates()))
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// splitList splits each value at commas and drops empty items.
func splitList(values []string) []string {
	var out []string
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// splitNames is splitList for job kinds and queue names, which it refuses
// when they hold a control character (a NUL, which Postgres cannot hold in
// text) or are not UTF-8: such a name names no job, and is answered as the
// operator's mistake rather than the database's.
func splitNames(param string, values []string) ([]string, error) {
	out := splitList(values)
	for _, name := range out {
		if err := checkName(param, name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkName refuses a kind or queue name with a control character or
// invalid UTF-8.
func checkName(param, name string) error {
	if !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) {
		return invalidf("%s may not hold control characters (such as NUL) or invalid UTF-8", param)
	}
	return nil
}

// ParseSince reads a look-back window: a Go duration ("90m", "24h") or a
// whole number of days ("7d"). Empty means no window.
func ParseSince(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		d = time.Duration(n) * 24 * time.Hour
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 {
		return 0, invalidf("since %q is not a positive duration such as 90m, 24h or 7d", s)
	}
	return d, nil
}

// ParseJobID reads a job id.
func ParseJobID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, invalidf("job id %q is not a positive integer", s)
	}
	return id, nil
}

// ParseLimit reads a listing limit; empty is def.
func ParseLimit(s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxJobList {
		return 0, invalidf("limit %q is not a number from 1 to %d", s, MaxJobList)
	}
	return n, nil
}

// RetryJob makes a job available to run again at once and returns the state
// it was in and the job after. A running job is ErrJobRunning; an unknown one
// store.ErrNotFound.
func RetryJob(ctx context.Context, q queue.Queue, id int64) (rivertype.JobState, *rivertype.JobRow, error) {
	before, err := q.Get(ctx, id)
	if err != nil {
		return "", nil, fmt.Errorf("retry job %d: %w", id, err)
	}
	if before.State == rivertype.JobStateRunning {
		return before.State, before, fmt.Errorf("retry job %d: %w", id, ErrJobRunning)
	}
	after, err := q.Retry(ctx, id)
	if err != nil {
		return before.State, nil, fmt.Errorf("retry job %d: %w", id, err)
	}
	return before.State, after, nil
}

// CancelJob cancels a job that has not run yet, or asks the worker running it
// to stop (the job is still running when CancelJob returns). Cancelling a
// cancelled job changes nothing; a completed or discarded one is
// ErrJobFinished.
func CancelJob(ctx context.Context, q queue.Queue, id int64) (rivertype.JobState, *rivertype.JobRow, error) {
	before, err := q.Get(ctx, id)
	if err != nil {
		return "", nil, fmt.Errorf("cancel job %d: %w", id, err)
	}
	switch before.State {
	case rivertype.JobStateCancelled:
		return before.State, before, nil
	case rivertype.JobStateCompleted, rivertype.JobStateDiscarded:
		return before.State, before, fmt.Errorf("cancel job %d (%s): %w", id, before.State, ErrJobFinished)
	}
	after, err := q.Cancel(ctx, id)
	if err != nil {
		return before.State, nil, fmt.Errorf("cancel job %d: %w", id, err)
	}
	return before.State, after, nil
}

// RetryFilter picks the jobs of a bulk retry.
type RetryFilter struct {
	// State is the jobs' state: discarded, cancelled or retryable.
	State rivertype.JobState
	// Kinds narrows to these kinds; empty is every kind.
	Kinds []string
	// Since keeps jobs that finished (for retryable jobs: were last
	// attempted) within this long before now; 0 is any time.
	Since time.Duration
}

// BulkRetryStates are the states a bulk retry takes jobs from. Completed jobs
// are retried one by one, by id, if at all.
var BulkRetryStates = []rivertype.JobState{rivertype.JobStateDiscarded, rivertype.JobStateCancelled, rivertype.JobStateRetryable}

// retryPage is how many jobs a bulk retry reads at a time.
const retryPage = 1000

// RetryMatching retries every job matching f and returns how many it retried.
// It pages until no unseen job matches, and retries a job at most once even if
// it fails again meanwhile.
func RetryMatching(ctx context.Context, q queue.Queue, f RetryFilter, now time.Time) (int, error) {
	if !slices.Contains(BulkRetryStates, f.State) {
		return 0, invalidf("bulk retry takes jobs that are %s, not %q", stateNames(BulkRetryStates), f.State)
	}
	cutoff := now.Add(-f.Since)
	seen := map[int64]bool{}
	retried := 0
	for {
		// Queue.List has no cursor: retried jobs leave the state, so each
		// page shows the next ones; jobs seen before are skipped.
		rows, err := q.List(ctx, queue.ListFilter{States: []rivertype.JobState{f.State}, Kinds: f.Kinds, Limit: retryPage})
		if err != nil {
			return retried, err
		}
		fresh := 0
		for _, row := range rows {
			if seen[row.ID] {
				continue
			}
			seen[row.ID] = true
			fresh++
			if f.Since > 0 && lastActivity(row).Before(cutoff) {
				continue
			}
			if _, err := q.Retry(ctx, row.ID); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					continue // deleted meanwhile
				}
				return retried, fmt.Errorf("retry job %d: %w", row.ID, err)
			}
			retried++
		}
		if fresh == 0 {
			return retried, nil
		}
	}
}

// lastActivity is when a job finished, or else was last attempted, or else
// was created.
func lastActivity(row *rivertype.JobRow) time.Time {
	switch {
	case row.FinalizedAt != nil:
		return *row.FinalizedAt
	case row.AttemptedAt != nil:
		return *row.AttemptedAt
	}
	return row.CreatedAt
}

// FindQueue returns the named queue; an unknown name is store.ErrNotFound,
// with the known names in the message.
func FindQueue(ctx context.Context, q queue.Queue, name string) (*rivertype.Queue, error) {
	all, err := q.Queues(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(all))
	for _, row := range all {
		if row.Name == name {
			return row, nil
		}
		names = append(names, row.Name)
	}
	slices.Sort(names)
	known := "none yet; a queue appears once a worker has run it"
	if len(names) > 0 {
		known = strings.Join(names, ", ")
	}
	return nil, notFoundError{fmt.Sprintf("no queue %q (known: %s)", name, known)}
}

// notFoundError is store.ErrNotFound with a message of its own.
type notFoundError struct{ msg string }

func (e notFoundError) Error() string { return e.msg }
func (e notFoundError) Unwrap() error { return store.ErrNotFound }

// mountAdmin registers the operator's job and queue routes; they need the queue.
func (h *handlers) mountAdmin(s *Server) {
	if h.Handoff.Queue == nil {
		return
	}
	s.Handle("GET /v1/admin/jobs", ScopeAdmin, http.HandlerFunc(h.listJobs))
	s.Handle("POST /v1/admin/jobs/retry", ScopeAdmin, http.HandlerFunc(h.retryJobs))
	s.Handle("POST /v1/admin/jobs/{job_id}/retry", ScopeAdmin, http.HandlerFunc(h.retryJob))
	s.Handle("POST /v1/admin/jobs/{job_id}/cancel", ScopeAdmin, http.HandlerFunc(h.cancelJob))
	s.Handle("GET /v1/admin/queues", ScopeAdmin, http.HandlerFunc(h.listQueues))
	s.Handle("POST /v1/admin/queues/{queue}/pause", ScopeAdmin, http.HandlerFunc(h.pauseQueue))
	s.Handle("POST /v1/admin/queues/{queue}/resume", ScopeAdmin, http.HandlerFunc(h.resumeQueue))
}

// failAdmin answers an operator's request error: invalid input, unknown jobs
// and queues and conflicts get a message of their own, which names nothing
// but states, ids and queues; what is left goes to fail.
func (h *handlers) failAdmin(w http.ResponseWriter, r *http.Request, what string, err error) {
	var ie *InvalidError
	switch {
	case errors.As(err, &ie):
		writeError(w, apperr.Errorf(apperr.EBadRequest, "%s", ie.Msg))
	case errors.Is(err, store.ErrNotFound) && what != "":
		writeError(w, apperr.Errorf(apperr.ENotFound, "no such %s", what))
	case errors.Is(err, ErrJobRunning):
		writeError(w, apperr.Errorf(apperr.EConflict, "the job is running; it can be retried once it has finished"))
	case errors.Is(err, ErrJobFinished):
		writeError(w, apperr.Errorf(apperr.EConflict, "the job has already finished and cannot be cancelled"))
	default:
		h.fail(w, r, err)
	}
}

func (h *handlers) listJobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for key := range q {
		if !slices.Contains([]string{"state", "kind", "queue", "limit"}, key) {
			h.failAdmin(w, r, "", invalidf("unknown parameter %q; want state, kind, queue or limit", key))
			return
		}
	}
	states, err := ParseStates(q["state"]...)
	if err != nil {
		h.failAdmin(w, r, "", err)
		return
	}
	limit, err := ParseLimit(q.Get("limit"), 100)
	if err != nil {
		h.failAdmin(w, r, "", err)
		return
	}
	kinds, err := splitNames("kind", q["kind"])
	if err != nil {
		h.failAdmin(w, r, "", err)
		return
	}
	queues, err := splitNames("queue", q["queue"])
	if err != nil {
		h.failAdmin(w, r, "", err)
		return
	}
	rows, err := h.Handoff.Queue.List(r.Context(), queue.ListFilter{States: states, Kinds: kinds, Queues: queues, Limit: limit})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]Job, len(rows))
	for i, row := range rows {
		out[i] = JobOf(row)
	}
	WriteJSON(w, http.StatusOK, map[string]any{"jobs": out})
}

func (h *handlers) retryJob(w http.ResponseWriter, r *http.Request) {
	id, err := ParseJobID(r.PathValue("job_id"))
	if err != nil {
		h.failAdmin(w, r, "job", err)
		return
	}
	was, row, err := RetryJob(r.Context(), h.Handoff.Queue, id)
	if err != nil {
		h.failAdmin(w, r, "job", err)
		return
	}
	h.log.InfoContext(r.Context(), "job retried by an operator", slog.Int64("job_id", id), slog.String("kind", row.Kind),
		slog.String("was", string(was)))
	WriteJSON(w, http.StatusOK, JobOf(row))
}

func (h *handlers) cancelJob(w http.ResponseWriter, r *http.Request) {
	id, err := ParseJobID(r.PathValue("job_id"))
	if err != nil {
		h.failAdmin(w, r, "job", err)
		return
	}
	was, row, err := CancelJob(r.Context(), h.Handoff.Queue, id)
	if err != nil {
		h.failAdmin(w, r, "job", err)
		return
	}
	h.log.InfoContext(r.Context(), "job cancelled by an operator", slog.Int64("job_id", id), slog.String("kind", row.Kind),
		slog.String("was", string(was)))
	status := http.StatusOK
	if row.State == rivertype.JobStateRunning {
		// The worker running it is told to stop; it has not stopped yet.
		status = http.StatusAccepted
	}
	WriteJSON(w, status, JobOf(row))
}

// retryRequest is the body of a bulk retry.
type retryRequest struct {
	State string `json:"state"`
	Kind  string `json:"kind"`
	Since string `json:"since"`
}

func (h *handlers) retryJobs(w http.ResponseWriter, r *http.Request) {
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	var req retryRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || dec.More() {
		h.failAdmin(w, r, "", invalidf(`the body must be one JSON object {"state", "kind", "since"}`))
		return
	}
	if req.State == "" {
		h.failAdmin(w, r, "", invalidf("state is required: one of %s", stateNames(BulkRetryStates)))
		return
	}
	states, err := ParseStates(req.State)
	if err != nil {
		h.failAdmin(w, r, "", err)
		return
	}
	if len(states) != 1 {
		h.failAdmin(w, r, "", invalidf("state names one state: one of %s", stateNames(BulkRetryStates)))
		return
	}
	since, err := ParseSince(req.Since)
	if err != nil {
		h.failAdmin(w, r, "", err)
		return
	}
	kinds, err := splitNames("kind", []string{req.Kind})
	if err != nil {
		h.failAdmin(w, r, "", err)
		return
	}
	f := RetryFilter{State: states[0], Kinds: kinds, Since: since}
	n, err := RetryMatching(r.Context(), h.Handoff.Queue, f, h.now())
	if err != nil {
		h.failAdmin(w, r, "", err)
		return
	}
	h.log.InfoContext(r.Context(), "jobs retried by an operator", slog.String("state", string(f.State)),
		slog.Any("kinds", f.Kinds), slog.Duration("since", since), slog.Int("retried", n))
	WriteJSON(w, http.StatusOK, map[string]int{"retried": n})
}

func (h *handlers) listQueues(w http.ResponseWriter, r *http.Request) {
	rows, err := h.Handoff.Queue.Queues(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]Queue, len(rows))
	for i, row := range rows {
		out[i] = QueueOf(row)
	}
	slices.SortFunc(out, func(a, b Queue) int { return strings.Compare(a.Name, b.Name) })
	WriteJSON(w, http.StatusOK, map[string]any{"queues": out})
}

func (h *handlers) pauseQueue(w http.ResponseWriter, r *http.Request) {
	h.setPaused(w, r, true)
}

func (h *handlers) resumeQueue(w http.ResponseWriter, r *http.Request) {
	h.setPaused(w, r, false)
}

func (h *handlers) setPaused(w http.ResponseWriter, r *http.Request, pause bool) {
	name := r.PathValue("queue")
	if err := checkName("queue", name); err != nil {
		h.failAdmin(w, r, "", err)
		return
	}
	q := h.Handoff.Queue
	action, do := "resumed", q.Resume
	if pause {
		action, do = "paused", q.Pause
	}
	if err := do(r.Context(), name); err != nil {
		h.failAdmin(w, r, "queue", err)
		return
	}
	row, err := FindQueue(r.Context(), q, name)
	if err != nil {
		h.failAdmin(w, r, "queue", err)
		return
	}
	h.log.InfoContext(r.Context(), "queue "+action+" by an operator", slog.String("queue", name))
	WriteJSON(w, http.StatusOK, QueueOf(row))
}
