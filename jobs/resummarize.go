package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mnemo-ai/mnemo/queue"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/llm"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/transcript"
)

// ResummarizeArgs writes a session's summary again from its stored
// transcript under a prompt version. It carries ids only.
type ResummarizeArgs struct {
	SessionID     string `json:"session_id" river:"unique"`
	PromptVersion string `json:"prompt_version" river:"unique"`
}

// Kind is the River job kind.
func (ResummarizeArgs) Kind() string { return "resummarize" }

// InsertOpts makes the job unique per session and version.
func (ResummarizeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queue.QueueExtract, MaxAttempts: 5, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// ResummarizeWorker re-summarises one stored transcript with the app's
// current prompts. Memories and profiles stay as they are: only the summary
// of that version is (re)written.
type ResummarizeWorker struct {
	river.WorkerDefaults[ResummarizeArgs]
	deps *Deps
}

// Work writes the summary.
func (w *ResummarizeWorker) Work(ctx context.Context, job *river.Job[ResummarizeArgs]) error {
	d := w.deps
	sess, err := d.session(ctx, job.Args.SessionID)
	if err != nil {
		return err
	}
	app := d.Apps[sess.App]
	if app == nil || app.PromptVersion != job.Args.PromptVersion {
		return river.JobCancel(fmt.Errorf("app %s is not at prompt version %s", sess.App, job.Args.PromptVersion))
	}
	msgs, err := transcript.Load(ctx, d.Store, d.Keys, sess.ID)
	if err != nil {
		return river.JobCancel(err)
	}
	if len(msgs) == 0 {
		return river.JobCancel(fmt.Errorf("session %s has no stored transcript", sess.ID))
	}
	events, err := d.Store.ListEvents(ctx, sess.ID)
	if err != nil {
		return err
	}
	in := extract.Session{ID: sess.ID, UserID: sess.UserID, App: sess.App, StartedAt: sess.StartedAt, EndedAt: sess.EndedAt,
		Timezone: sess.Timezone, Messages: msgs}
	for _, e := range events {
		in.Events = append(in.Events, extract.Event{Type: e.Type, At: e.At, MessageID: e.MessageID, Data: e.Data})
	}
	now := d.now()
	res := extract.Rules(app, in, now)
	if useLLM, err := (&ExtractWorker{deps: d}).llmAllowed(ctx, app, now); err != nil {
		return err
	} else if useLLM {
		got, err := d.LLM.Run(ctx, app, in, res)
		switch {
		case err == nil:
			res = got
		case isRateLimit(err):
			wait, _ := llm.RetryAfter(err)
			return river.JobSnooze(cmp.Or(wait, llm.DefaultRetryAfter))
		case llm.IsTransient(err) && job.Attempt < job.MaxAttempts:
			return err
		default:
			res = got // the rules' result, as a fallback
		}
	}
	if err := summarizeStored(ctx, d.Store, sess, res); err != nil {
		return err
	}
	data, err := json.Marshal(res.SessionSummary)
	if err != nil {
		return err
	}
	return d.Store.UpsertSummary(ctx, store.Summary{SessionID: sess.ID, PromptVersion: app.PromptVersion, UserID: sess.UserID,
		App: sess.App, Source: res.Source, Data: data, CreatedAt: now})
}

// summarizeStored makes a summary written again name and count only the
// memories the session stored that are still stored: not one the merge
// policy refused, nor one the user has forgotten since (issue 22).
func summarizeStored(ctx context.Context, q store.Querier, sess store.Session, res extract.Result) error {
	stmts, err := q.ListStatements(ctx, sess.UserID, nil)
	if err != nil {
		return err
	}
	stored := map[string]bool{}
	for _, st := range stmts {
		if st.SessionID == sess.ID {
			stored[extract.Subject(st.Key)] = true
		}
	}
	var kept []extract.Memory
	var gone []extract.Mention
	for _, m := range res.Memories {
		key := m.Key
		if k, ok := extract.CanonicalKey(key); ok {
			key = k
		}
		if stored[extract.Subject(key)] {
			kept = append(kept, m)
		} else {
			gone = append(gone, extract.Mention{Key: m.Key, Value: m.Value})
		}
	}
	extract.UnmentionDropped(res.SessionSummary, gone, kept)
	if _, ok := res.SessionSummary["memories"]; ok {
		res.SessionSummary["memories"] = len(kept)
	}
	return nil
}
