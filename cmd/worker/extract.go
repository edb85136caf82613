package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/llm"
	"github.com/mnemo-ai/mnemo/prompts"
)

// extractFlags are the flags of `worker extract`.
type extractFlags struct {
	app     string
	in      string
	llm     string
	session string
}

func registerExtractFlags(fs *flag.FlagSet) {
	f := &extractFlags{}
	fs.StringVar(&f.app, "app", "", "app preset (required unless the body names it)")
	fs.StringVar(&f.in, "in", "", "file holding the session-close body (default: standard input)")
	fs.StringVar(&f.llm, "llm", "auto", "auto uses the LLM when one is configured and the app allows it; off uses the rules")
	fs.StringVar(&f.session, "session", "cli", "session id used for message references")
	cmdFlags.Store(fs, f)
}

// extractOutput is what `worker extract` prints: everything the extraction
// job would store for the session (as the first session of a new user: no
// history), and why anything was left out.
type extractOutput struct {
	App    string `json:"app"`
	Source string `json:"source"`
	// PromptVersion is the version the job records with the session (the
	// app's); RulesVersion names the deterministic rule set.
	PromptVersion  string           `json:"prompt_version"`
	RulesVersion   string           `json:"rules_version"`
	Memories       []extract.Memory `json:"memories"`
	ProfileUpdates map[string]any   `json:"profile_updates"`
	SessionSummary map[string]any   `json:"session_summary"`
	Records        []extract.Record `json:"records"`
	Cues           []extract.Cue    `json:"cues"`
	// Risks are the distress and crisis statements found (never their text);
	// the job records each as a risk cue.
	Risks []extract.Risk `json:"risks"`
	// RiskLowered lists the rules findings the model lowered with a frame
	// code (LLM path only).
	RiskLowered []extract.Lowering `json:"risk_lowered,omitempty"`
	Dropped     []extract.Dropped  `json:"dropped"`
}

// extractCmd runs the extraction pipeline offline on one session-close body
// and prints the result; nothing is stored.
func extractCmd(ctx context.Context, e *env) error {
	f := flagsOf[extractFlags](e.flags)
	if f.llm != "auto" && f.llm != "off" {
		return usageError{fmt.Errorf("--llm must be auto or off, not %q", f.llm)}
	}
	var r io.Reader = e.stdin
	if f.in != "" {
		file, err := os.Open(f.in)
		if err != nil {
			return usageError{fmt.Errorf("--in: %w", err)}
		}
		defer file.Close()
		r = file
	}
	body, err := io.ReadAll(io.LimitReader(r, e.cfg.MaxBodyBytes+1))
	if err != nil {
		return err
	}
	if int64(len(body)) > e.cfg.MaxBodyBytes {
		return usageError{fmt.Errorf("the body exceeds MNEMO_MAX_BODY_BYTES (%d)", e.cfg.MaxBodyBytes)}
	}
	req, err := handoff.Decode(body)
	if err != nil {
		return usageError{err}
	}
	if f.app != "" {
		req.App = f.app
	}
	apps, err := prompts.Load(e.cfg.AppsDir)
	if err != nil {
		return usageError{fmt.Errorf("MNEMO_APPS_DIR: %w", err)}
	}
	now := time.Now().UTC()
	if err := handoff.Validate(f.session, &req, apps, now); err != nil {
		return usageError{err}
	}
	app := apps[req.App]
	s := extract.Session{ID: f.session, UserID: req.UserID, App: req.App, StartedAt: req.StartedAt, EndedAt: req.EndedAt,
		Timezone: req.Timezone, DisplayName: req.DisplayName, Messages: req.Messages, Events: req.Events}
	res := extract.Rules(app, s, now)
	extract.CapMemories(&res, e.cfg.RulesMaxMemories) // as the extraction job does
	if f.llm == "auto" && app.Policy.LLM && e.cfg.LLMModel != "" {
		llm, err := newLLM(e.cfg, e.log)
		if err != nil {
			return usageError{err}
		}
		got, err := llm.Run(ctx, app, s, res)
		switch {
		case err == nil:
			res = got
		case errors.Is(err, context.Canceled):
			return err
		default:
			res = got // the rules' result, as a fallback
			fmt.Fprintf(e.stderr, "worker extract: llm failed (%s); printing the rules result\n", fallbackReason(err))
		}
	}
	out := extractOutput{App: res.App, Source: res.Source, PromptVersion: app.PromptVersion, RulesVersion: extract.RulesVersion,
		Memories: res.Memories, ProfileUpdates: res.ProfileUpdates, SessionSummary: res.SessionSummary,
		Records: res.Records, Dropped: res.Dropped, Risks: res.Risks, RiskLowered: res.RiskLowered,
		Cues: []extract.Cue{}}
	if len(app.Policy.SignificantFields) > 0 {
		// The cues the job would record for a user with no profile yet.
		cues, err := extract.KindOfApp(app).Cues(extract.CueInput{Before: map[string]any{}, After: extract.ProfileDiff(nil, res.ProfileUpdates),
			Summary: res.SessionSummary, Significant: app.Policy.SignificantFields, Now: now})
		if err != nil {
			return err
		}
		if cues != nil {
			out.Cues = cues
		}
	}
	if out.Records == nil {
		out.Records = []extract.Record{}
	}
	if out.Risks == nil {
		out.Risks = []extract.Risk{}
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func fallbackReason(err error) string {
	var inv *llm.InvalidAnswerError
	var rl *llm.RateLimitError
	switch {
	case errors.As(err, &inv):
		return "answer invalid after the repair round"
	case errors.As(err, &rl):
		return "rate limited"
	case llm.IsTransient(err):
		return "transient error"
	}
	return "request refused"
}
