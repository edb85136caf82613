package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/queue"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/llmextract"
	"github.com/mnemo-ai/mnemo/llm"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/schedule"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/transcript"
)

// Extraction outcomes recorded with every run.
const (
	OutcomeOK             = "ok"                // the LLM answered with valid JSON, or rules ran by design
	OutcomeRateLimited    = "rate_limited"      // 429: the job was snoozed
	OutcomeTransient      = "transient_error"   // timeout, 5xx, connection: River retries
	OutcomeInvalidAnswer  = "invalid_answer"    // still invalid after the repair round: fallback
	OutcomeRetriesSpent   = "retries_exhausted" // transient errors to the last attempt: fallback
	OutcomeRefused        = "refused"           // the endpoint refused the request: fallback
	OutcomeBudgetExceeded = "budget_exceeded"   // the monthly LLM budget is spent: rules
	OutcomeCapped         = "capped"            // a valid answer held more memories than the cap: the rest were cut
)

// Deps is what the workers need.
type Deps struct {
	Store store.Store
	Apps  map[string]*prompts.App
	Keys  *seal.Keyring
	// LLM is nil when no model is configured: rules serve every app.
	LLM *llmextract.Extractor
	// MonthlyBudgetUSD is the LLM spend per calendar month (UTC) above which
	// extraction uses the rules; 0 means no limit.
	MonthlyBudgetUSD float64
	Logger           *slog.Logger
	// Now reads the clock; nil is time.Now.
	Now func() time.Time

	// Queue is the queue these workers run on; batches that enqueue (the
	// scheduler tick, session expiry) use it. Set it once queue.New returned.
	Queue queue.Queue
	// Schedules are the batches' cron schedules (ParseSchedules).
	Schedules map[string]*schedule.Schedule
	// Batch settings; zero values take the defaults in batches.go.
	Batch BatchConfig
	// Metrics receives extraction runs and batch runs; nil observes nothing.
	Metrics Metrics
	// RiskAlerts is where each app's risk alerts go (riskalert.go); an app without an entry uses its policy's risk_webhook.
	RiskAlerts RiskAlerts
	// MaxUserMemories bounds a user's active memories: after each
	// extraction, those beyond it leave the active set (store.EvictOverBound).
	// 0 is DefaultMaxUserMemories.
	MaxUserMemories int
	// RulesMaxMemories is the most memories the rules keep of one session
	// (extract.CapMemories; 0 is extract.DefaultMaxMemories), as
	// LLM.MaxMemories bounds a model's answer.
	RulesMaxMemories int
}

func (d *Deps) now() time.Time {
	if d.Now != nil {
		return d.Now().UTC()
	}
	return time.Now().UTC()
}

// session reads a job's session; a session erased since cancels the job,
// as there is nothing to do for it, ever.
func (d *Deps) session(ctx context.Context, id string) (store.Session, error) {
	sess, err := d.Store.GetSession(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return sess, river.JobCancel(fmt.Errorf("session %s no longer exists", id))
	}
	return sess, err
}

func (d *Deps) log() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// NewWorkers registers every Mnemo worker.
func NewWorkers(d *Deps) *river.Workers {
	w := river.NewWorkers()
	river.AddWorker(w, NewExtractWorker(d))
	river.AddWorker(w, &RollingSummaryWorker{deps: d})
	river.AddWorker(w, &BatchWorker{deps: d})
	river.AddWorker(w, &TickWorker{deps: d})
	river.AddWorker(w, &ExportWorker{deps: d})
	river.AddWorker(w, &EraseWorker{deps: d})
	river.AddWorker(w, &RewrapWorker{deps: d})
	river.AddWorker(w, &ResummarizeWorker{deps: d})
	river.AddWorker(w, NewRiskCueWorker(d))
	river.AddWorker(w, NewRiskAlertWorker(d))
	return w
}

// ExtractWorker turns one closed session into memory: it extracts (LLM or
// rules), passes every write through the merge policy and stores the result
// in one transaction, so that a run repeated after a crash leaves what one
// run leaves.
type ExtractWorker struct {
	river.WorkerDefaults[queue.ExtractArgs]
	deps *Deps
}

// NewExtractWorker returns the extraction worker.
func NewExtractWorker(d *Deps) *ExtractWorker { return &ExtractWorker{deps: d} }

// Work processes the session.
func (w *ExtractWorker) Work(ctx context.Context, job *river.Job[queue.ExtractArgs]) error {
	err := w.work(ctx, job)
	if err != nil && extractionGivenUp(err, job.Attempt, job.MaxAttempts) {
		w.markFailed(ctx, job.Args.SessionID)
	}
	return err
}

// extractionGivenUp reports whether River will not run the job again after
// err: a cancel, or an error on the last attempt. A snooze is neither.
func extractionGivenUp(err error, attempt, maxAttempts int) bool {
	if errors.As(err, new(*river.JobSnoozeError)) {
		return false
	}
	return errors.As(err, new(*river.JobCancelError)) || attempt >= maxAttempts
}

// markFailed settles a session whose extraction River gave up on as
// failed, so that a chat service polling GET /v1/sessions/{id} sees an end
// instead of "closed" forever. An operator's retry that then succeeds sets
// it processed. A session already processed, or gone, is left alone; the
// mark is best effort (the job's own error is what River records). A
// session closed by expiry ("expired") is marked so too.
func (w *ExtractWorker) markFailed(ctx context.Context, id string) {
	d := w.deps
	// The job's own context may be what ended it (its timeout): the mark
	// gets a few seconds of its own.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	sess, err := d.Store.GetSession(ctx, id)
	if err != nil || (sess.Status != store.StatusClosed && sess.Status != store.StatusExpired) {
		return
	}
	if err := d.Store.SetSessionStatus(ctx, id, store.StatusFailed, d.now()); err != nil {
		d.log().WarnContext(ctx, "could not mark the session failed", slog.String("session_id", id), slog.String("error", err.Error()))
		return
	}
	d.log().WarnContext(ctx, "extraction given up: session marked failed", slog.String("session_id", id))
}

func (w *ExtractWorker) work(ctx context.Context, job *river.Job[queue.ExtractArgs]) error {
	d := w.deps
	id := job.Args.SessionID
	// The session, its transcript and its events, in one round trip.
	input, err := d.Store.GetSessionInput(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return river.JobCancel(fmt.Errorf("session %s no longer exists", id))
	} else if err != nil {
		return err
	}
	sess, events := input.Session, input.Events
	if sess.Status == store.StatusProcessed {
		return nil
	}
	app := d.Apps[sess.App]
	if app == nil {
		return river.JobCancel(fmt.Errorf("session %s: app %q is not configured", id, sess.App))
	}
	msgs, err := transcript.Load(ctx, readChunks{d.Store, input.Chunks}, d.Keys, id)
	if err != nil {
		if errors.Is(err, seal.ErrTampered) || errors.Is(err, seal.ErrUnknownKey) {
			d.log().ErrorContext(ctx, "transcript unreadable", slog.String("session_id", id), slog.String("error", err.Error()))
			return river.JobCancel(err)
		}
		return err
	}
	in := extract.Session{ID: id, UserID: sess.UserID, App: sess.App, StartedAt: sess.StartedAt, EndedAt: sess.EndedAt,
		Timezone: sess.Timezone, Messages: msgs, Events: make([]extract.Event, len(events))}
	for i, e := range events {
		in.Events[i] = extract.Event{Type: e.Type, At: e.At, MessageID: e.MessageID, Data: e.Data}
	}
	if needsHistory(app) {
		if in.History, err = loadHistory(ctx, d.Store, sess.UserID, id); err != nil {
			return err
		}
	}

	now := d.now()
	started := time.Now()
	run := store.ExtractionRun{SessionID: id, UserID: sess.UserID, App: sess.App, PromptVersion: app.PromptVersion,
		Source: extract.SourceRules, Outcome: OutcomeOK, Attempt: job.Attempt, CreatedAt: now}
	result, err := extract.RulesContext(ctx, app, in, rulesNow(app, in, now))
	if err != nil {
		return err // the attempt's context ended (its timeout, a shutdown): the rules stopped reading
	}
	extract.CapMemories(&result, d.RulesMaxMemories)

	if useLLM, err := w.llmAllowed(ctx, app, now); err != nil {
		return err
	} else if !useLLM && d.LLM != nil && app.Policy.LLM {
		run.Outcome = OutcomeBudgetExceeded
	} else if useLLM {
		run.Model = d.LLM.Model()
		res, err := d.LLM.Run(ctx, app, in, result)
		run.InputTokens, run.OutputTokens = res.Usage.InputTokens, res.Usage.OutputTokens
		run.CostUSD = d.LLM.Cost(res.Usage)
		run.DurationMS = time.Since(started).Milliseconds()
		switch {
		case err == nil:
			if res.Cut > 0 {
				run.Outcome = OutcomeCapped
				run.Error = fmt.Sprintf("the answer held %d memories; %d beyond the cap of %d were cut",
					d.LLM.MaxMemories()+res.Cut, res.Cut, d.LLM.MaxMemories())
			}
			result = res
			run.Source = extract.SourceLLM
		case errors.As(err, new(*llm.LimitWaitError)):
			// MNEMO_LLM_RPM/TPM: no turn within the wait a call may take.
			wait, _ := llm.IsLimitWait(err)
			d.log().InfoContext(ctx, "llm rate limit: snoozing until the next turn", slog.String("session_id", id), slog.Duration("wait", wait))
			return river.JobSnooze(wait)
		case isRateLimit(err):
			wait, _ := llm.RetryAfter(err)
			run.Source, run.Outcome, run.Error = extract.SourceLLM, OutcomeRateLimited, err.Error()
			if err := d.Store.InsertExtractionRun(ctx, run); err != nil {
				return err
			}
			d.observeRun(run)
			d.log().WarnContext(ctx, "llm rate limited; snoozing", slog.String("session_id", id), slog.Duration("retry_after", wait))
			return river.JobSnooze(cmp.Or(wait, llm.DefaultRetryAfter))
		case llm.IsTransient(err) && job.Attempt < job.MaxAttempts:
			run.Source, run.Outcome, run.Error = extract.SourceLLM, OutcomeTransient, err.Error()
			if err := d.Store.InsertExtractionRun(ctx, run); err != nil {
				return err
			}
			d.observeRun(run)
			return err
		default:
			run.Source, run.Error = extract.SourceFallback, err.Error()
			run.Outcome = fallbackOutcome(err)
			result = res // the rules' result, as a fallback
			d.log().WarnContext(ctx, "llm extraction failed; storing the rules result",
				slog.String("session_id", id), slog.String("outcome", run.Outcome), slog.Int("attempt", job.Attempt))
		}
	}
	if run.Source == extract.SourceRules && result.Cut > 0 && run.Outcome == OutcomeOK {
		run.Outcome = OutcomeCapped
		run.Error = fmt.Sprintf("the rules found %d memories; %d beyond the cap of %d were cut",
			len(result.Memories)+result.Cut, result.Cut, len(result.Memories))
	}
	w.escalateRisk(ctx, app, in, &result, &run) // the rules' result: a model's second look at its risks (riskescalate.go)
	run.DurationMS = time.Since(started).Milliseconds()
	run.Final = true
	lowered, err := w.apply(ctx, app, in, result, job.Args.Risks, run, now)
	if err != nil {
		return err
	}
	if err := boundUserMemories(ctx, d, sess.UserID, now); err != nil {
		return err
	}
	d.observeRun(run)
	d.countLowerings(sess.App, lowered)
	d.log().InfoContext(ctx, "session processed", slog.String("session_id", id), slog.String("app", sess.App),
		slog.String("source", result.Source), slog.String("outcome", run.Outcome), slog.Int("memories", len(result.Memories)))
	return nil
}

// readChunks answers transcript.Load's ListChunks with the chunks
// GetSessionInput read.
type readChunks struct {
	store.Querier
	chunks []store.Chunk
}

func (r readChunks) ListChunks(context.Context, string) ([]store.Chunk, error) { return r.chunks, nil }

func isRateLimit(err error) bool {
	var rl *llm.RateLimitError
	return errors.As(err, &rl)
}

func fallbackOutcome(err error) string {
	var inv *llm.InvalidAnswerError
	var perm *llm.PermanentError
	switch {
	case errors.As(err, &inv):
		return OutcomeInvalidAnswer
	case errors.As(err, &perm):
		return OutcomeRefused
	case llm.IsTransient(err):
		return OutcomeRetriesSpent
	}
	return OutcomeRefused
}

// llmAllowed says whether this extraction may use the LLM: one is configured,
// the app allows it, and the month's budget is not spent.
func (w *ExtractWorker) llmAllowed(ctx context.Context, app *prompts.App, now time.Time) (bool, error) {
	d := w.deps
	if d.LLM == nil || !app.Policy.LLM {
		return false, nil
	}
	if d.MonthlyBudgetUSD <= 0 {
		return true, nil
	}
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	spent, err := d.Store.SumExtractionCost(ctx, month, month.AddDate(0, 1, 0))
	if err != nil {
		return false, err
	}
	if spent >= d.MonthlyBudgetUSD {
		d.log().WarnContext(ctx, "monthly llm budget spent; using the rules extractor",
			slog.Float64("spent_usd", spent), slog.Float64("budget_usd", d.MonthlyBudgetUSD))
		return false, nil
	}
	return true, nil
}

// needsHistory reports whether app's rules read what earlier sessions left
// (extract.History): a fold reads the records, a derived profile
// the summaries and the profile. The other kinds' rules, and the LLM, read
// none of it, so their extraction does not load it.
func needsHistory(app *prompts.App) bool { return foldsRecords(app) || derivesProfile(app) }

// loadHistory reads what extraction may build on: the user's records, newest
// summaries (other sessions') and profile.
func loadHistory(ctx context.Context, q store.Querier, userID, sessionID string) (extract.History, error) {
	var h extract.History
	recs, err := q.ListRecords(ctx, userID, nil)
	if err != nil {
		return h, err
	}
	for _, r := range recs {
		var data map[string]any
		if err := json.Unmarshal(r.Data, &data); err != nil {
			return h, fmt.Errorf("decode record %s/%s: %w", r.Type, r.Key, err)
		}
		h.Records = append(h.Records, extract.Record{Type: r.Type, Key: r.Key, Data: data})
	}
	sums, err := q.ListSummaries(ctx, userID, 20)
	if err != nil {
		return h, err
	}
	for _, s := range sums {
		if s.SessionID == sessionID {
			continue
		}
		var data map[string]any
		if err := json.Unmarshal(s.Data, &data); err != nil {
			return h, fmt.Errorf("decode summary of %s: %w", s.SessionID, err)
		}
		h.Summaries = append(h.Summaries, extract.PastSummary{SessionID: s.SessionID, At: s.SessionAt, Data: data})
	}
	p, err := q.GetProfile(ctx, userID)
	switch {
	case err == nil:
		if err := json.Unmarshal(p.Doc, &h.Profile); err != nil {
			return h, fmt.Errorf("decode profile: %w", err)
		}
	case !errors.Is(err, store.ErrNotFound):
		return h, err
	}
	return h, nil
}

// applyRecords writes (or deletes) the records a preset derived.
func applyRecords(ctx context.Context, tx store.Tx, sess store.Session, recs []extract.Record, stated, now time.Time) error {
	for _, r := range recs {
		if r.Delete {
			if err := tx.DeleteRecord(ctx, store.RecordKey{UserID: sess.UserID, Type: r.Type, Key: r.Key}); err != nil {
				return err
			}
			continue
		}
		data, err := json.Marshal(r.Data)
		if err != nil {
			return fmt.Errorf("encode record %s/%s: %w", r.Type, r.Key, err)
		}
		if err := tx.UpsertRecord(ctx, store.Record{UserID: sess.UserID, App: sess.App, Type: r.Type, Key: r.Key,
			Data: data, SessionID: sess.ID, UpdatedAt: now, StatedAt: stated}); err != nil {
			return err
		}
	}
	return nil
}

// apply stores a result in one transaction. The session row lock and the
// unique final run make a second, concurrent or repeated apply a no-op.
//
// The transaction reads in one round trip (LockExtraction: the locks, and
// what the memories and the profile will read) and writes the memories
// and the session's end in another (FinishExtraction); the memory writes
// are planned where they were made, and made after the profile, the risks
// and the records are written, none of which reads memories.
//
// It returns the risk lowerings it recorded, for the caller to count once
// committed.
//
// Memory off is not safety off (docs/safety.md): a session of a user with
// memory off keeps its risk findings as cues, and alerts on them, and
// nothing else. carried are the findings the hand-off screened in a
// session handed over while memory was off, whose transcript was never
// stored (queue.ExtractArgs.Risks).
func (w *ExtractWorker) apply(ctx context.Context, app *prompts.App, in extract.Session, res extract.Result, carried []queue.RiskFinding,
	run store.ExtractionRun, now time.Time) ([]extract.Lowering, error) {
	d := w.deps
	risks, riskIn := withCarriedRisks(in, res.Risks, carried)
	// A large session's memories are applied a page at a time first
	// (memorypages.go); the last transaction then settles it.
	paged, err := applyMemoryPages(ctx, d.Store, app, in, run.SessionID, res.Memories, memoryPage(d.Store.Dialect()), now)
	if err != nil {
		return nil, err
	}
	cands := res.Memories
	if paged != nil {
		cands = nil
	}
	var lowered []extract.Lowering
	err = d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		lowered = nil // a retried transaction counts what its last try recorded
		// One user's sessions apply one at a time, and records that accumulate
		// (counts) are folded into the state as it is now, not as it was
		// when extraction started.
		lock, err := tx.LockExtraction(ctx, run.SessionID, store.ExtractionReads{
			Forgets: len(res.Memories) > 0 || profileWrites(app, res), Memories: len(cands) > 0,
			Keys: extract.KeysToRead(cands)})
		if err != nil {
			return err
		}
		sess, user := lock.Session, lock.User
		if sess.Status == store.StatusProcessed {
			return nil
		}
		// Rules that read no history give what they gave outside the
		// transaction: only those that do run again.
		if needsHistory(app) && (len(res.Records) > 0 || derivesProfile(app)) {
			if in.History, err = loadHistory(ctx, tx, sess.UserID, sess.ID); err != nil {
				return err
			}
			fresh, err := extract.RulesContext(ctx, app, in, rulesNow(app, in, now))
			if err != nil {
				return err
			}
			res.Records = fresh.Records
			if derivesProfile(app) {
				// Derived from every session, so from what is stored now.
				extract.DeriverOf(extract.KindOfApp(app)).DeriveProfile(&res, fresh)
			}
		}
		var mw store.MemoryWrites
		if !user.MemoryDisabled {
			var forgot *memory.Forgets // read once, when memories or the profile need them
			if lock.Forgets != nil {
				f := memory.FoldForgets(lock.Forgets, lock.KeyHash)
				forgot = &f
			}
			var kept []extract.Memory
			var gone []extract.Mention
			if mw, kept, gone, err = applyMemories(ctx, tx, sess, app, in, cands, &forgot, lock, now); err != nil {
				return err
			}
			if paged != nil {
				kept, gone = paged.keptNow(forgot)
			}
			// The summary names and counts what was stored: not a candidate
			// the merge policy refused or the user had forgotten (issue 22).
			extract.UnmentionDropped(res.SessionSummary, gone, kept)
			if _, ok := res.SessionSummary["memories"]; ok {
				res.SessionSummary["memories"] = len(kept)
			}
			if err := applyProfile(ctx, tx, sess, app, in, res, &forgot, now); err != nil {
				return err
			}
			if err := recordRisks(ctx, tx, d, sess, riskIn, risks, res.RiskLowered, now); err != nil {
				return err
			}
			if lowered, err = recordLowerings(ctx, tx, sess, res.RiskLowered, now); err != nil {
				return err
			}
			late, err := recordsAreLater(ctx, tx, app, sess, sessionTime(in))
			if err != nil {
				return err
			}
			if late {
				err = refoldRecords(ctx, tx, app, sess, in, now)
			} else {
				err = applyRecords(ctx, tx, sess, res.Records, sessionTime(in), now)
			}
			if err != nil {
				return err
			}
		}
		if user.MemoryDisabled {
			// The user turned memory off: the session is processed, and
			// nothing of it is kept but its risk findings (class, severity,
			// source, time; never the words), so that a crisis still
			// reaches a person.
			if err := recordRisks(ctx, tx, d, sess, riskIn, risks, res.RiskLowered, now); err != nil {
				return err
			}
			if lowered, err = recordLowerings(ctx, tx, sess, res.RiskLowered, now); err != nil {
				return err
			}
			res.SessionSummary = map[string]any{"memory_disabled": true}
		}
		summary, err := json.Marshal(res.SessionSummary)
		if err != nil {
			return err
		}
		policy := app.Policy
		if user.MemoryDisabled {
			// Memory off keeps no transcript either (issue 13).
			policy.TranscriptRetention, policy.FallbackRetention = 0, 0
		}
		settle := settleTranscript(sess, policy, res.Source, now)
		settle.Summary = store.Summary{SessionID: sess.ID, PromptVersion: app.PromptVersion, UserID: sess.UserID,
			App: sess.App, Source: res.Source, Data: summary, CreatedAt: now}
		settle.Run = run
		return tx.FinishExtraction(ctx, mw, settle)
	})
	if err != nil {
		return nil, err
	}
	return lowered, nil
}

// withCarriedRisks joins the findings the hand-off screened in a session
// of a user with memory off (carried) to the extraction's own, one per
// message (the extraction's first: a carried finding's message has no
// transcript to read again). The session it returns holds, besides in's
// messages, a stand-in for each carried finding's message (its id, role
// and time; no words), so that the cue is stated at the message's time.
func withCarriedRisks(in extract.Session, risks []extract.Risk, carried []queue.RiskFinding) ([]extract.Risk, extract.Session) {
	if len(carried) == 0 {
		return risks, in
	}
	out := slices.Clone(risks)
	seen := map[string]bool{}
	for _, r := range risks {
		seen[r.MessageID] = true
	}
	msgs := slices.Clone(in.Messages)
	for _, c := range carried {
		if seen[c.MessageID] {
			continue
		}
		seen[c.MessageID] = true
		out = append(out, extract.Risk{Class: c.Class, Severity: c.Severity, MessageID: c.MessageID, Actor: c.Actor, Source: c.Source})
		msgs = append(msgs, extract.Message{ID: c.MessageID, Role: "user", At: c.At})
	}
	in.Messages = msgs
	return out, in
}

// profileWrites reports whether applyProfile may write, or raise a cue
// (and so read the forget markers): something was said of the profile, or
// the app raises cues.
func profileWrites(app *prompts.App, res extract.Result) bool {
	return len(memory.SaidFields(res.ProfileUpdates, false)) > 0 || len(app.Policy.SignificantFields) > 0
}

// settleTranscript is how an extraction leaves its session
// (FinishExtraction): processed, and the retention policy applied: a
// fallback keeps the transcript for a later re-run; otherwise it is kept
// for the app's retention, or deleted at once when that is zero.
//
// An export requested since the session was handed over may hold the
// transcript: it is deleted with it, as an export must not outlive what it
// exports (issue 13).
func settleTranscript(sess store.Session, p prompts.Policy, source string, now time.Time) store.Settlement {
	keep := time.Duration(p.TranscriptRetention)
	if source == extract.SourceFallback {
		keep = max(keep, time.Duration(p.FallbackRetention))
	}
	s := store.Settlement{SessionID: sess.ID, UserID: sess.UserID, ExportsSince: exportsHolding(sess), At: now}
	if keep > 0 {
		until := now.Add(keep)
		s.KeepUntil = &until
	}
	return s
}

// applyMemories passes candidates through the merge policy (extract.Plan:
// what may be stored, and what a re-run already stored) and adds each one
// it lets through to its key's timeline as a statement. A candidate without
// a statement time is stated at its source message's time, or else at the
// session's end. The memories of each key touched are then derived again
// from the whole timeline (extract.Timeline), so that the statements, not
// the order they arrived in, decide what is true.
//
// It returns the writes, for FinishExtraction to make, the candidates
// stored (or stored already by an earlier run of the session), and the
// others as mentions a summary must not make. The memories and
// statements are lock's when it read them (LockExtraction: those of the
// candidates' subjects, extract.KeysToRead), else all of the user's, read
// here.
func applyMemories(ctx context.Context, tx store.Tx, sess store.Session, app *prompts.App, in extract.Session, cands []extract.Memory,
	forgot **memory.Forgets, lock store.ExtractionLock, now time.Time) (store.MemoryWrites, []extract.Memory, []extract.Mention, error) {
	if len(cands) == 0 {
		return store.MemoryWrites{}, nil, nil, nil
	}
	var kept []extract.Memory
	var gone []extract.Mention
	cands = slices.Clone(cands)
	for i := range cands {
		if cands[i].StatedAt.IsZero() {
			cands[i].StatedAt = statedAt(in, cands[i].SourceMessageID)
		}
	}
	f, err := loadForgetsOnce(ctx, tx, sess.UserID, forgot)
	if err != nil {
		return store.MemoryWrites{}, nil, nil, err
	}
	cands = slices.DeleteFunc(cands, func(c extract.Memory) bool {
		if f.Forgot(c) {
			gone = append(gone, extract.Mention{Key: c.Key, Value: c.Value})
			return true
		}
		return false
	})
	all, stmts := lock.Memories, lock.Statements
	if all == nil || stmts == nil {
		if all, err = tx.ListMemories(ctx, sess.UserID, store.MemoryFilter{All: true}); err != nil {
			return store.MemoryWrites{}, nil, nil, err
		}
		if stmts, err = tx.ListStatements(ctx, sess.UserID, nil); err != nil {
			return store.MemoryWrites{}, nil, nil, err
		}
	}
	confirmedBy := map[string][]string{}
	for _, st := range stmts {
		confirmedBy[st.MemoryID] = append(confirmedBy[st.MemoryID], st.SessionID)
	}
	stored := make([]extract.Stored, 0, len(all))
	byID := map[string]store.Memory{}
	for _, m := range all {
		byID[m.ID] = m
		if m.Status != store.MemoryActive && m.Status != store.MemoryDeprecated {
			continue
		}
		stored = append(stored, extract.Stored{ID: m.ID, Key: m.Key, Value: m.Value, Category: m.Category,
			Importance: m.Importance, Confidence: m.Confidence, Status: m.Status, Confirmations: m.Confirmations,
			ExpiresAt: m.ExpiresAt, SourceSessionID: m.SourceSessionID, SourceMessageID: m.SourceMessageID,
			ConfirmedBy: confirmedBy[m.ID], StatedAt: m.StatedAt})
	}

	bySubject := map[string][]extract.Statement{}
	for _, st := range stmts {
		k := extract.Subject(st.Key)
		bySubject[k] = append(bySubject[k], extract.Statement{ID: st.ID, MemoryID: st.MemoryID, Key: st.Key, Value: st.Value,
			Category: st.Category, Importance: st.Importance, Confidence: st.Confidence, ExpiresAt: st.ExpiresAt,
			StatedAt: st.StatedAt, SessionID: st.SessionID, MessageID: st.MessageID, Weight: st.Weight,
			EventDate: st.EventDate, Wording: st.Wording})
	}
	touched := map[string]bool{}
	var subjects []string
	for _, op := range extract.Plan(stored, cands, sess.ID, app.Policy, now) {
		switch {
		case op.Action != extract.OpSkip || op.Reason == "already_applied":
			kept = append(kept, op.Memory)
		case op.Reason != "duplicate":
			gone = append(gone, extract.Mention{Key: op.Memory.Key, Value: op.Memory.Value})
		}
		if op.Action == extract.OpSkip {
			continue
		}
		c := op.Said
		k := extract.Subject(c.Key)
		if !touched[k] {
			touched[k] = true
			subjects = append(subjects, k)
		}
		bySubject[k] = append(bySubject[k], extract.Statement{ID: store.NewID(), Key: c.Key, Value: c.Value,
			Category: c.Category, Importance: c.Importance, Confidence: c.Confidence, ExpiresAt: c.ExpiresAt,
			StatedAt: c.StatedAt, SessionID: sess.ID, MessageID: c.SourceMessageID, Weight: 1,
			EventDate: c.EventDate, Wording: c.Wording})
	}
	var w timelineWrites
	for _, k := range subjects {
		w.plan(sess, bySubject[k], byID, now)
	}
	return w.writes(), kept, gone, nil
}

// timelineWrites are the writes the timelines of the subjects a session
// touched make, collected so that they take few statements (see
// store.MemoryWrites): the updates of memories leaving the active set in
// one, of those entering it in another, then new memories, their audit rows
// and new statements each in one multi-row insert.
type timelineWrites struct {
	// leaving are the writes of memories that end up not active, entering
	// those that end up active: one active memory per key means memories
	// leave the active set before another enters it.
	leaving, entering []memoryWrite
	audit             []store.MemoryChange
	moves             []store.Statement // ID and MemoryID set
	statements        []store.Statement
	folds             []store.Statement // see compact
	folded            []string
}

type memoryWrite struct {
	m     store.Memory
	isNew bool
}

// plan adds the writes of the memories a subject's statements make: each
// run one memory, the last one active (or expired, when even its latest
// statement's TTL has passed), every earlier one deprecated, invalidated at
// the next run's StatedAt by that run's memory. New statements (those
// without a memory) are stored with theirs.
func (tw *timelineWrites) plan(sess store.Session, stmts []extract.Statement, byID map[string]store.Memory, now time.Time) {
	runs := extract.Timeline(stmts)
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = cmp.Or(r.MemoryID, store.NewID())
	}
	type write struct {
		m      store.Memory
		isNew  bool
		action string
	}
	var writes []write
	for i, r := range runs {
		m, exists := byID[ids[i]]
		before := m
		if !exists {
			m = store.Memory{ID: ids[i], UserID: sess.UserID, App: sess.App, CreatedAt: now}
		}
		m.Key, m.Value, m.Category = r.Key, r.Value, r.Category
		m.Importance, m.Confidence, m.ExpiresAt, m.Confirmations = r.Importance, r.Confidence, r.ExpiresAt, r.Confirmations
		m.StatedAt, m.SourceSessionID, m.SourceMessageID = r.StatedAt, r.SessionID, r.MessageID
		m.EventDate, m.Wording = r.EventDate, r.Wording
		m.SupersedesID, m.InvalidatedAt, m.InvalidatedBy = "", nil, ""
		if i > 0 {
			m.SupersedesID = ids[i-1]
		}
		if i+1 < len(runs) {
			until := runs[i+1].StatedAt
			m.Status, m.InvalidatedAt, m.InvalidatedBy = store.MemoryDeprecated, &until, ids[i+1]
		} else if m.ExpiresAt != nil && !m.ExpiresAt.After(now) {
			m.Status = store.MemoryExpired
		} else {
			m.Status = store.MemoryActive
		}
		action := ""
		switch {
		case !exists:
			action = map[string]string{store.MemoryActive: "insert", store.MemoryDeprecated: "insert_older", store.MemoryExpired: "insert_expired"}[m.Status]
		case slices.ContainsFunc(r.Statements, func(s extract.Statement) bool { return s.MemoryID == "" }):
			// Said again: the new statement is the timeline's record of
			// it. The audit hears of it only when it changes the memory's
			// state: an expired memory active again, a later one
			// superseding it, or its validity moved.
			action = "bump"
			if sameState(before, m) {
				action = "said_again"
			}
		case before.Status != m.Status && m.Status == store.MemoryDeprecated:
			action = "deprecate"
		case !sameMemory(before, m):
			action = "reorder"
		}
		if action != "" {
			m.UpdatedAt = now
			writes = append(writes, write{m, !exists, action})
		}
	}
	slices.SortStableFunc(writes, func(a, b write) int {
		return cmp.Compare(boolInt(a.m.Status == store.MemoryActive), boolInt(b.m.Status == store.MemoryActive))
	})
	for _, w := range writes {
		byID[w.m.ID] = w.m
		if w.m.Status == store.MemoryActive {
			tw.entering = append(tw.entering, memoryWrite{w.m, w.isNew})
		} else {
			tw.leaving = append(tw.leaving, memoryWrite{w.m, w.isNew})
		}
		if w.action == "said_again" {
			// The audit records changes of state (create, supersede,
			// expire, forget, edit), not a memory merely said again.
			continue
		}
		// Ids are made here, in the order the rows were once written one
		// by one: the audit lists by time, then id.
		tw.audit = append(tw.audit, store.MemoryChange{ID: store.NewID(), MemoryID: w.m.ID, UserID: sess.UserID, Action: w.action,
			Actor: "extraction", SessionID: sess.ID, At: now})
	}
	for i, r := range runs {
		for _, s := range r.Statements {
			switch {
			case s.MemoryID == "":
				tw.statements = append(tw.statements, store.Statement{ID: s.ID, MemoryID: ids[i], UserID: sess.UserID, Key: s.Key,
					Value: s.Value, Category: s.Category, Importance: s.Importance, Confidence: s.Confidence,
					ExpiresAt: s.ExpiresAt, StatedAt: s.StatedAt, SessionID: s.SessionID, MessageID: s.MessageID,
					Weight: s.Weight, EventDate: s.EventDate, Wording: s.Wording, CreatedAt: now})
			case s.MemoryID != ids[i]:
				tw.moves = append(tw.moves, store.Statement{ID: s.ID, MemoryID: ids[i]})
			}
		}
		tw.compact(sess.UserID, ids[i], r.Statements, now)
	}
}

// A run's timeline is compacted when it holds more than foldAt
// statements: those older than foldAge, but for its newest foldKeep, are
// folded into the oldest (extract.FoldStatements). Its memory stays as it
// was (the fold folds to the same fields, at the same place in the
// timeline), and so does what as_of answers, as it is read from the
// memories; what goes is the folded statements' sessions and messages
// (an export lists the fold as one statement whose weight counts the
// times it stands for, and a re-summary of a folded session, worker
// resummarize, no longer names the memory it said).
// A run said in every session then holds from foldKeep+1 to foldAt
// statements, and an extraction reads that, not every session's.
//
// A session keeps its own statement until foldKeep later ones of the same
// run and foldAge have passed: a retried or late extraction of a session
// still finds it (extract.Plan's already_applied).
const (
	foldAt   = 2 * foldKeep
	foldKeep = 16
	foldAge  = 30 * 24 * time.Hour
)

// compact folds the old statements of one run (in timeline order), when
// it is long, into its oldest; all of them must be stored already as the
// run's memory's.
func (tw *timelineWrites) compact(userID, memoryID string, stmts []extract.Statement, now time.Time) {
	if len(stmts) <= foldAt {
		return
	}
	n := len(stmts) - foldKeep
	for n > 0 && !stmts[n-1].StatedAt.Before(now.Add(-foldAge)) {
		n--
	}
	if n < 2 || slices.ContainsFunc(stmts[:n], func(s extract.Statement) bool { return s.MemoryID != memoryID }) {
		return
	}
	f := extract.FoldStatements(stmts[:n])
	tw.folds = append(tw.folds, store.Statement{ID: f.ID, UserID: userID, Weight: f.Weight, Importance: f.Importance,
		Confidence: f.Confidence, ExpiresAt: f.ExpiresAt, EventDate: f.EventDate, Wording: f.Wording})
	for _, s := range stmts[1:n] {
		tw.folded = append(tw.folded, s.ID)
	}
}

// writes are what plan collected, in the order they are made: the
// memories leaving the active set, then those entering it, updated; then
// the new memories (of either, none active where a memory still is),
// the audit, the statements moved and the new statements.
func (tw *timelineWrites) writes() store.MemoryWrites {
	var w store.MemoryWrites
	for i, group := range [][]memoryWrite{tw.leaving, tw.entering} {
		for _, mw := range group {
			switch {
			case mw.isNew:
				w.New = append(w.New, mw.m)
			case i == 0:
				w.Leaving = append(w.Leaving, mw.m)
			default:
				w.Entering = append(w.Entering, mw.m)
			}
		}
	}
	w.Changes, w.Moves, w.Statements = tw.audit, tw.moves, tw.statements
	w.Folds, w.Folded = tw.folds, tw.folded
	return w
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sameState reports whether a memory said again keeps its state: its
// status, and the span it is true for (from its statement time until what
// supersedes it, if anything does).
func sameState(a, b store.Memory) bool {
	eqTime := func(x, y *time.Time) bool { return (x == nil) == (y == nil) && (x == nil || x.Equal(*y)) }
	return a.Status == b.Status && a.StatedAt.Equal(b.StatedAt) && a.SupersedesID == b.SupersedesID &&
		a.InvalidatedBy == b.InvalidatedBy && eqTime(a.InvalidatedAt, b.InvalidatedAt)
}

// sameMemory reports whether two versions of a stored memory hold the same
// fields a timeline decides.
func sameMemory(a, b store.Memory) bool {
	eqTime := func(x, y *time.Time) bool { return (x == nil) == (y == nil) && (x == nil || x.Equal(*y)) }
	return a.Key == b.Key && a.Value == b.Value && a.Category == b.Category && a.Importance == b.Importance &&
		a.Confidence == b.Confidence && a.Confirmations == b.Confirmations && a.Status == b.Status &&
		a.StatedAt.Equal(b.StatedAt) && a.SourceSessionID == b.SourceSessionID && a.SourceMessageID == b.SourceMessageID &&
		a.SupersedesID == b.SupersedesID && a.InvalidatedBy == b.InvalidatedBy && eqTime(a.InvalidatedAt, b.InvalidatedAt) &&
		eqTime(a.ExpiresAt, b.ExpiresAt) && a.EventDate == b.EventDate && a.Wording == b.Wording
}

// statedAt is when the message messageID of in was said: its time, or the
// session's end when the message is unknown or has no time.
func statedAt(in extract.Session, messageID string) time.Time {
	if messageID != "" {
		for _, m := range in.Messages {
			if m.ID == messageID && !m.At.IsZero() {
				return m.At.UTC()
			}
		}
	}
	return sessionTime(in)
}

// sessionTime is the time a session's statements are taken to be made at
// when no message says otherwise: its end, or its start.
func sessionTime(in extract.Session) time.Time {
	if !in.EndedAt.IsZero() {
		return in.EndedAt.UTC()
	}
	return in.StartedAt.UTC()
}

// applyProfile writes the profile fields a session stated (WriteProfile:
// only changed fields, by statement time, with history) and records the
// significant changes as cues for the next session. Fields derived from all
// of a user's sessions (goals and themes) are stated at the newest
// session they were derived from, as they already hold everything older.
func applyProfile(ctx context.Context, tx store.Tx, sess store.Session, app *prompts.App, in extract.Session, res extract.Result, forgot **memory.Forgets, now time.Time) error {
	if !profileWrites(app, res) {
		return nil // nothing to write, and no cue to raise: memory.WriteProfile and memory.RecordProfileCues would do nothing
	}
	at, by := sessionTime(in), sess.ID
	f, err := loadForgetsOnce(ctx, tx, sess.UserID, forgot)
	if err != nil {
		return err
	}
	if p := f.Profile(); !p.IsZero() && at.Before(p) {
		return nil // said before the user's fresh start: not remembered
	}
	derived := derivesProfile(app)
	if derived {
		for _, s := range in.History.Summaries {
			if c := s.At.Compare(at); c > 0 || (c == 0 && s.SessionID > by) {
				at, by = s.At, s.SessionID
			}
		}
	}
	w, err := memory.WriteProfile(ctx, tx, memory.ProfileWrite{UserID: sess.UserID, App: sess.App, Updates: res.ProfileUpdates,
		StatedAt: at, By: by, Actor: memory.ActorExtraction, SessionID: sess.ID, Derived: derived}, now)
	if err != nil {
		return err
	}
	_, err = memory.RecordProfileCues(ctx, tx, app, memory.CueSource{UserID: sess.UserID, App: sess.App, SessionID: sess.ID,
		Version: w.Version, Actor: memory.ActorExtraction, Summary: res.SessionSummary}, w.Before, w.After, now)
	return err
}

// derivesProfile reports whether app's profile is derived from all of a
// user's session summaries rather than stated in one session.
// The kind says so by supplying the derivation (extract.ProfileDeriver).
func derivesProfile(app *prompts.App) bool { return extract.DeriverOf(extract.KindOfApp(app)) != nil }

// loadForgetsOnce is loadForgets the first time a transaction asks, and
// what it read after that (*cache holds it).
func loadForgetsOnce(ctx context.Context, tx store.Tx, userID string, cache **memory.Forgets) (memory.Forgets, error) {
	if *cache != nil {
		return **cache, nil
	}
	f, err := memory.LoadForgets(ctx, tx, userID)
	if err != nil {
		return f, err
	}
	*cache = &f
	return f, nil
}
