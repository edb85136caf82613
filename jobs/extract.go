package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"time"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/extract"
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
)

// ExtractArgs is the extraction job of one session. It carries the session
// id only: never transcript text or memory values.
type ExtractArgs struct {
	SessionID string `json:"session_id"`
}

// Kind is the River job kind.
func (ExtractArgs) Kind() string { return "extract" }

// InsertOpts puts extraction on the extract queue, unique per session.
func (ExtractArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueExtract, MaxAttempts: 5, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// Deps is what the workers need.
type Deps struct {
	Store store.Store
	Apps  map[string]*prompts.App
	Keys  *seal.Keyring
	// LLM is nil when no model is configured: rules serve every app.
	LLM *extract.LLM
	// MonthlyBudgetUSD is the LLM spend per calendar month (UTC) above which
	// extraction uses the rules; 0 means no limit.
	MonthlyBudgetUSD float64
	Logger           *slog.Logger
	// Now reads the clock; nil is time.Now.
	Now func() time.Time

	// Queue is the queue these workers run on; batches that enqueue (the
	// scheduler tick, session expiry) use it. Set it once jobs.New returned.
	Queue Queue
	// Schedules are the batches' cron schedules (ParseSchedules).
	Schedules map[string]*schedule.Schedule
	// Batch settings; zero values take the defaults in batches.go.
	Batch BatchConfig
	// Metrics receives extraction runs and batch runs; nil observes nothing.
	Metrics Metrics
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
	return w
}

// ExtractWorker turns one closed session into memory: it extracts (LLM or
// rules), passes every write through the merge policy and stores the result
// in one transaction, so that a run repeated after a crash leaves what one
// run leaves.
type ExtractWorker struct {
	river.WorkerDefaults[ExtractArgs]
	deps *Deps
}

// NewExtractWorker returns the extraction worker.
func NewExtractWorker(d *Deps) *ExtractWorker { return &ExtractWorker{deps: d} }

// Work processes the session.
func (w *ExtractWorker) Work(ctx context.Context, job *river.Job[ExtractArgs]) error {
	d := w.deps
	id := job.Args.SessionID
	sess, err := d.session(ctx, id)
	if err != nil {
		return err
	}
	if sess.Status == store.StatusProcessed {
		return nil
	}
	app := d.Apps[sess.App]
	if app == nil {
		return river.JobCancel(fmt.Errorf("session %s: app %q is not configured", id, sess.App))
	}
	msgs, err := transcript.Load(ctx, d.Store, d.Keys, id)
	if err != nil {
		if errors.Is(err, seal.ErrTampered) || errors.Is(err, seal.ErrUnknownKey) {
			d.log().ErrorContext(ctx, "transcript unreadable", slog.String("session_id", id), slog.String("error", err.Error()))
			return river.JobCancel(err)
		}
		return err
	}
	events, err := d.Store.ListEvents(ctx, id)
	if err != nil {
		return err
	}
	in := extract.Session{ID: id, UserID: sess.UserID, App: sess.App, StartedAt: sess.StartedAt, EndedAt: sess.EndedAt,
		Timezone: sess.Timezone, Messages: msgs, Events: make([]extract.Event, len(events))}
	for i, e := range events {
		in.Events[i] = extract.Event{Kind: e.Kind, At: e.At, MessageID: e.MessageID, Data: e.Data}
	}
	if in.History, err = loadHistory(ctx, d.Store, sess.UserID, id); err != nil {
		return err
	}

	now := d.now()
	started := time.Now()
	run := store.ExtractionRun{SessionID: id, UserID: sess.UserID, App: sess.App, PromptVersion: app.PromptVersion,
		Source: extract.SourceRules, Outcome: OutcomeOK, Attempt: job.Attempt, CreatedAt: now}
	result := extract.Rules(app, in, now)

	if useLLM, err := w.llmAllowed(ctx, app, now); err != nil {
		return err
	} else if !useLLM && d.LLM != nil && app.Policy.LLM {
		run.Outcome = OutcomeBudgetExceeded
	} else if useLLM {
		run.Model = d.LLM.Model()
		res, err := d.LLM.Extract(ctx, app, in)
		run.InputTokens, run.OutputTokens = res.Usage.InputTokens, res.Usage.OutputTokens
		run.CostUSD = d.LLM.Cost(res.Usage)
		run.DurationMS = time.Since(started).Milliseconds()
		switch {
		case err == nil:
			result = withRules(cmp.Or(app.Policy.Rules, app.Name), res, result)
			run.Source = extract.SourceLLM
		case isRateLimit(err):
			wait, _ := extract.RetryAfter(err)
			run.Source, run.Outcome, run.Error = extract.SourceLLM, OutcomeRateLimited, err.Error()
			if err := d.Store.InsertExtractionRun(ctx, run); err != nil {
				return err
			}
			d.observeRun(run)
			d.log().WarnContext(ctx, "llm rate limited; snoozing", slog.String("session_id", id), slog.Duration("retry_after", wait))
			return river.JobSnooze(cmp.Or(wait, extract.DefaultRetryAfter))
		case extract.IsTransient(err) && job.Attempt < job.MaxAttempts:
			run.Source, run.Outcome, run.Error = extract.SourceLLM, OutcomeTransient, err.Error()
			if err := d.Store.InsertExtractionRun(ctx, run); err != nil {
				return err
			}
			d.observeRun(run)
			return err
		default:
			run.Source, run.Error = extract.SourceFallback, err.Error()
			run.Outcome = fallbackOutcome(err)
			result.Source = extract.SourceFallback
			d.log().WarnContext(ctx, "llm extraction failed; storing the rules result",
				slog.String("session_id", id), slog.String("outcome", run.Outcome), slog.Int("attempt", job.Attempt))
		}
	}
	run.DurationMS = time.Since(started).Milliseconds()
	run.Final = true
	if err := w.apply(ctx, app, in, result, run, now); err != nil {
		return err
	}
	d.observeRun(run)
	d.log().InfoContext(ctx, "session processed", slog.String("session_id", id), slog.String("app", sess.App),
		slog.String("source", result.Source), slog.String("outcome", run.Outcome), slog.Int("memories", len(result.Memories)))
	return nil
}

func isRateLimit(err error) bool {
	var rl *extract.RateLimitError
	return errors.As(err, &rl)
}

func fallbackOutcome(err error) string {
	var inv *extract.InvalidAnswerError
	var perm *extract.PermanentError
	switch {
	case errors.As(err, &inv):
		return OutcomeInvalidAnswer
	case errors.As(err, &perm):
		return OutcomeRefused
	case extract.IsTransient(err):
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

// withRules completes an LLM result with what only the rules decide: the
// records (the LLM never decides what a record holds), the deterministic
// summary fields the LLM did not write, and what an LLM that sees one session
// cannot know. For Clara only the summary text is the model's: the arc, topics
// and anchors come from the chat service's events. For coach the recurring
// themes span sessions, which only the rules see.
func withRules(rulesKind string, llm, rules extract.Result) extract.Result {
	summary := maps.Clone(rules.SessionSummary)
	if summary == nil {
		summary = map[string]any{}
	}
	switch rulesKind {
	case "clara":
		if text, ok := llm.SessionSummary["summary"]; ok {
			summary["summary"] = text
		}
	default:
		maps.Copy(summary, llm.SessionSummary)
	}
	if rulesKind == "coach" {
		if themes, ok := rules.ProfileUpdates["recurring_themes"]; ok {
			if llm.ProfileUpdates == nil {
				llm.ProfileUpdates = map[string]any{}
			}
			llm.ProfileUpdates["recurring_themes"] = themes
		}
	}
	llm.SessionSummary = summary
	llm.Records = rules.Records
	return llm
}

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
			return h, fmt.Errorf("decode record %s/%s: %w", r.Kind, r.Key, err)
		}
		h.Records = append(h.Records, extract.Record{Kind: r.Kind, Key: r.Key, Data: data})
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
		h.Summaries = append(h.Summaries, extract.PastSummary{SessionID: s.SessionID, At: s.CreatedAt, Data: data})
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
func applyRecords(ctx context.Context, tx store.Tx, sess store.Session, recs []extract.Record, now time.Time) error {
	for _, r := range recs {
		if r.Delete {
			if err := tx.DeleteRecord(ctx, sess.UserID, r.Kind, r.Key); err != nil {
				return err
			}
			continue
		}
		data, err := json.Marshal(r.Data)
		if err != nil {
			return fmt.Errorf("encode record %s/%s: %w", r.Kind, r.Key, err)
		}
		if err := tx.UpsertRecord(ctx, store.Record{UserID: sess.UserID, App: sess.App, Kind: r.Kind, Key: r.Key,
			Data: data, SessionID: sess.ID, UpdatedAt: now}); err != nil {
			return err
		}
	}
	return nil
}

// apply stores a result in one transaction. The session row lock and the
// unique final run make a second, concurrent or repeated apply a no-op.
func (w *ExtractWorker) apply(ctx context.Context, app *prompts.App, in extract.Session, res extract.Result, run store.ExtractionRun, now time.Time) error {
	d := w.deps
	return d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		sess, err := tx.GetSessionForUpdate(ctx, run.SessionID)
		if err != nil {
			return err
		}
		if sess.Status == store.StatusProcessed {
			return nil
		}
		// One user's sessions apply one at a time, and records that accumulate
		// (LaRa's counts) are folded into the state as it is now, not as it was
		// when extraction started.
		if err := tx.LockUser(ctx, sess.UserID); err != nil {
			return err
		}
		user, err := tx.GetUser(ctx, sess.UserID)
		if err != nil {
			return err
		}
		if len(res.Records) > 0 {
			if in.History, err = loadHistory(ctx, tx, sess.UserID, sess.ID); err != nil {
				return err
			}
			res.Records = extract.Rules(app, in, now).Records
		}
		if !user.MemoryDisabled {
			if err := applyMemories(ctx, tx, sess, app, res.Memories, now); err != nil {
				return err
			}
			if err := applyProfile(ctx, tx, sess, app, res, now); err != nil {
				return err
			}
			if err := applyRecords(ctx, tx, sess, res.Records, now); err != nil {
				return err
			}
		}
		if user.MemoryDisabled {
			// The user turned memory off: the session is processed, nothing of it kept.
			res.SessionSummary = map[string]any{"memory_disabled": true}
		}
		summary, err := json.Marshal(res.SessionSummary)
		if err != nil {
			return err
		}
		if err := tx.UpsertSummary(ctx, store.Summary{SessionID: sess.ID, PromptVersion: app.PromptVersion, UserID: sess.UserID,
			App: sess.App, Source: res.Source, Data: summary, CreatedAt: now}); err != nil {
			return err
		}
		if err := tx.InsertExtractionRun(ctx, run); err != nil {
			return err
		}
		if err := settleTranscript(ctx, tx, sess.ID, app.Policy, res.Source, now); err != nil {
			return err
		}
		return tx.SetSessionStatus(ctx, sess.ID, store.StatusProcessed, now)
	})
}

// settleTranscript applies the retention policy once a session is processed:
// a fallback keeps the transcript for a later re-run; otherwise it is kept
// for the app's retention, or deleted at once when that is zero.
func settleTranscript(ctx context.Context, tx store.Tx, sessionID string, p prompts.Policy, source string, now time.Time) error {
	keep := time.Duration(p.TranscriptRetention)
	if source == extract.SourceFallback {
		keep = max(keep, time.Duration(p.FallbackRetention))
	}
	if keep <= 0 {
		if _, err := tx.DeleteChunks(ctx, sessionID); err != nil {
			return err
		}
		return tx.SetTranscriptRetention(ctx, sessionID, false, nil, now)
	}
	until := now.Add(keep)
	return tx.SetTranscriptRetention(ctx, sessionID, true, &until, now)
}

// applyMemories passes candidates through the merge policy and writes its plan.
func applyMemories(ctx context.Context, tx store.Tx, sess store.Session, app *prompts.App, cands []extract.Memory, now time.Time) error {
	if len(cands) == 0 {
		return nil
	}
	all, err := tx.ListMemories(ctx, sess.UserID, store.MemoryFilter{All: true})
	if err != nil {
		return err
	}
	changes, err := tx.ListMemoryChanges(ctx, sess.UserID)
	if err != nil {
		return err
	}
	confirmedBy := map[string][]string{}
	for _, c := range changes {
		if c.Action == "bump" {
			confirmedBy[c.MemoryID] = append(confirmedBy[c.MemoryID], c.SessionID)
		}
	}
	stored := make([]extract.Stored, 0, len(all))
	byID := map[string]store.Memory{}
	for _, m := range all {
		if m.Status != store.MemoryActive && m.Status != store.MemoryDeprecated {
			continue
		}
		byID[m.ID] = m
		stored = append(stored, extract.Stored{ID: m.ID, Key: m.Key, Value: m.Value, Category: m.Category,
			Importance: m.Importance, Confidence: m.Confidence, Status: m.Status, Confirmations: m.Confirmations,
			ExpiresAt: m.ExpiresAt, SourceSessionID: m.SourceSessionID, SourceMessageID: m.SourceMessageID,
			ConfirmedBy: confirmedBy[m.ID]})
	}
	audit := func(memoryID, action string) error {
		return tx.InsertMemoryChange(ctx, store.MemoryChange{MemoryID: memoryID, UserID: sess.UserID, Action: action,
			Actor: "extraction", SessionID: sess.ID, At: now})
	}
	insert := func(m extract.Memory, supersedes string) error {
		id := store.NewID()
		if err := tx.InsertMemory(ctx, store.Memory{ID: id, UserID: sess.UserID, App: sess.App, Key: m.Key, Value: m.Value,
			Category: m.Category, Importance: m.Importance, Confidence: m.Confidence, Status: store.MemoryActive,
			SupersedesID: supersedes, SourceSessionID: sess.ID, SourceMessageID: m.SourceMessageID, Confirmations: 1,
			ExpiresAt: m.ExpiresAt, CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		return audit(id, "insert")
	}
	for _, op := range extract.Plan(stored, cands, sess.ID, app.Policy, now) {
		switch op.Kind {
		case extract.OpInsert:
			if err := insert(op.Memory, ""); err != nil {
				return err
			}
		case extract.OpBump:
			m := byID[op.Target]
			m.Importance, m.Confidence = op.Memory.Importance, max(m.Confidence, op.Memory.Confidence)
			m.Confirmations, m.ExpiresAt, m.UpdatedAt = cmp.Or(op.Confirmations, m.Confirmations+1), op.Memory.ExpiresAt, now
			if err := tx.UpdateMemory(ctx, m); err != nil {
				return err
			}
			if err := audit(m.ID, "bump"); err != nil {
				return err
			}
		case extract.OpSupersede:
			old := byID[op.Target]
			if old.Status == store.MemoryActive {
				old.Status, old.UpdatedAt = store.MemoryDeprecated, now
				if err := tx.UpdateMemory(ctx, old); err != nil {
					return err
				}
				if err := audit(old.ID, "deprecate"); err != nil {
					return err
				}
			}
			if err := insert(op.Memory, op.Target); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyProfile upserts only changed profile fields, with history, and records
// the significant changes as cues for the next session.
func applyProfile(ctx context.Context, tx store.Tx, sess store.Session, app *prompts.App, res extract.Result, now time.Time) error {
	before := map[string]any{}
	version := 0
	cur, err := tx.GetProfile(ctx, sess.UserID)
	switch {
	case err == nil:
		version = cur.Version
		if err := json.Unmarshal(cur.Doc, &before); err != nil {
			return fmt.Errorf("decode profile: %w", err)
		}
	case !errors.Is(err, store.ErrNotFound):
		return err
	}
	changed := extract.ProfileDiff(before, res.ProfileUpdates)
	after := maps.Clone(before)
	maps.Copy(after, changed)
	if len(changed) > 0 {
		doc, err := json.Marshal(after)
		if err != nil {
			return err
		}
		diff, err := json.Marshal(changed)
		if err != nil {
			return err
		}
		if err := tx.SaveProfile(ctx, store.Profile{UserID: sess.UserID, App: sess.App, Doc: doc, Version: version + 1, UpdatedAt: now},
			store.ProfileChange{Changed: diff, Actor: "extraction", SessionID: sess.ID, At: now}); err != nil {
			return err
		}
	}
	if len(app.Policy.SignificantFields) == 0 {
		return nil
	}
	var seen []extract.TriggerSeen
	recent, err := tx.ListSummaries(ctx, sess.UserID, 200)
	if err != nil {
		return err
	}
	for _, s := range recent {
		if s.SessionID == sess.ID || s.CreatedAt.Before(now.Add(-30*24*time.Hour)) {
			continue
		}
		var sum struct {
			PrimaryTrigger string `json:"primary_trigger"`
		}
		if json.Unmarshal(s.Data, &sum) == nil && sum.PrimaryTrigger != "" {
			seen = append(seen, extract.TriggerSeen{Trigger: sum.PrimaryTrigger, At: s.CreatedAt})
		}
	}
	for _, c := range extract.Cues(before, after, res.SessionSummary, seen, app.Policy.SignificantFields, now) {
		detail, err := json.Marshal(c.Detail)
		if err != nil {
			return err
		}
		if err := tx.InsertCue(ctx, store.Cue{UserID: sess.UserID, App: sess.App, Kind: c.Kind, Field: c.Field,
			Detail: detail, SessionID: sess.ID, CreatedAt: now}); err != nil {
			return err
		}
	}
	return nil
}
