package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/store"
)

//go:embed demo/*.json
var demoFS embed.FS

// demoSession is a sample session; times are relative to now so that TTLs
// and windows behave as they would for a live user.
type demoSession struct {
	SessionID       string `json:"session_id"`
	UserID          string `json:"user_id"`
	App             string `json:"app"`
	DisplayName     string `json:"display_name"`
	Timezone        string `json:"timezone"`
	OffsetMinutes   int    `json:"offset_minutes"`
	DurationMinutes int    `json:"duration_minutes"`
	Messages        []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Events []struct {
		Kind          string          `json:"kind"`
		OffsetMinutes int             `json:"offset_minutes"`
		Data          json.RawMessage `json:"data"`
	} `json:"events"`
}

// request turns a sample into a session-close body.
func (d demoSession) request(now time.Time) handoff.Request {
	start := now.Add(time.Duration(d.OffsetMinutes) * time.Minute).Truncate(time.Second)
	end := start.Add(time.Duration(d.DurationMinutes) * time.Minute)
	req := handoff.Request{UserID: d.UserID, App: d.App, StartedAt: start, EndedAt: end, Timezone: d.Timezone, DisplayName: d.DisplayName}
	step := end.Sub(start) / time.Duration(len(d.Messages)+1)
	for i, m := range d.Messages {
		req.Messages = append(req.Messages, extract.Message{ID: fmt.Sprintf("m%d", i+1), Role: m.Role, Content: m.Content,
			At: start.Add(time.Duration(i+1) * step)})
	}
	for _, e := range d.Events {
		req.Events = append(req.Events, extract.Event{Kind: e.Kind, At: start.Add(time.Duration(e.OffsetMinutes) * time.Minute), Data: e.Data})
	}
	return req
}

type demoFlags struct{ dir string }

func registerDemoFlags(fs *flag.FlagSet) {
	f := &demoFlags{}
	fs.StringVar(&f.dir, "dir", "", "keep the demo database in this directory (default: a temporary one, removed afterwards)")
	cmdFlags.Store(fs, f)
}

// demo hands the sample sessions of every preset to an embedded worker on
// a database of its own and prints what was remembered.
func demo(ctx context.Context, e *env) error {
	dir := flagsOf[demoFlags](e.flags).dir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "mnemo-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	cfg := e.cfg
	cfg.Dialect, cfg.SQLitePath, cfg.DatabaseURL = store.DialectSQLite, filepath.Join(dir, "demo.db"), ""
	if cfg.EncryptionKey == "" {
		cfg.EncryptionKey = "demo:mnemo demo passphrase, not for real data"
	}
	log := newLogger(Config{LogLevel: "error", LogFormat: "text"}, e.stderr)
	sys, err := build(ctx, cfg, log, true)
	if err != nil {
		return err
	}
	defer sys.store.Close()
	if err := sys.queue.Start(ctx); err != nil {
		return err
	}
	defer func() { _ = sys.queue.Stop(context.WithoutCancel(ctx)) }()

	entries, err := demoFS.ReadDir("demo")
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	users := map[string][]string{} // app → users
	var sessions []string
	for _, ent := range entries {
		raw, err := demoFS.ReadFile("demo/" + ent.Name())
		if err != nil {
			return err
		}
		var samples []demoSession
		if err := json.Unmarshal(raw, &samples); err != nil {
			return fmt.Errorf("demo/%s: %w", ent.Name(), err)
		}
		for _, s := range samples {
			req := s.request(now)
			if err := handoff.Validate(s.SessionID, &req, sys.deps.Apps, now); err != nil {
				return fmt.Errorf("demo session %s: %w", s.SessionID, err)
			}
			err := sys.store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				_, err := handoff.Close(ctx, tx, handoff.Deps{Queue: sys.queue, Apps: sys.deps.Apps, Keys: sys.deps.Keys}, s.SessionID, req, now)
				return err
			})
			if err != nil {
				return fmt.Errorf("hand over %s: %w", s.SessionID, err)
			}
			// Sessions of one user are processed in order, as they would arrive.
			if err := waitProcessed(ctx, sys.store, s.SessionID); err != nil {
				return err
			}
			if !contains(users[s.App], s.UserID) {
				users[s.App] = append(users[s.App], s.UserID)
			}
			sessions = append(sessions, s.SessionID)
		}
	}
	fmt.Fprintf(e.stdout, "Mnemo demo: %d sample sessions handed over and processed (database %s)\n", len(sessions), cfg.SQLitePath)
	apps := make([]string, 0, len(users))
	for a := range users {
		apps = append(apps, a)
	}
	sort.Strings(apps)
	for _, app := range apps {
		for _, u := range users[app] {
			if err := printUser(ctx, e.stdout, sys, app, u); err != nil {
				return err
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func waitProcessed(ctx context.Context, st store.Store, id string) error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		s, err := st.GetSession(ctx, id)
		if err != nil {
			return err
		}
		if s.Status == store.StatusProcessed || s.Status == store.StatusFailed {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("session %s was not processed within a minute", id)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// printUser prints what Mnemo remembers about one user of one app.
func printUser(ctx context.Context, w io.Writer, sys *system, app, userID string) error {
	st := sys.store
	fmt.Fprintf(w, "\n== %s · user %s ==\n", app, userID)
	mems, err := st.ListMemories(ctx, userID, store.MemoryFilter{All: true})
	if err != nil {
		return err
	}
	if len(mems) > 0 {
		fmt.Fprintln(w, "memories:")
		for _, m := range mems {
			note := ""
			if m.Status != store.MemoryActive {
				note = " [" + m.Status + "]"
			}
			if m.ExpiresAt != nil {
				note += " expires " + m.ExpiresAt.Format(time.RFC3339)
			}
			fmt.Fprintf(w, "  %-24s %-12q %s, importance %d, confidence %.2f%s\n", m.Key, m.Value, m.Category, m.Importance, m.Confidence, note)
		}
	}
	if p, err := st.GetProfile(ctx, userID); err == nil {
		fmt.Fprintf(w, "profile (version %d): %s\n", p.Version, compactJSON(p.Doc))
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	cues, err := st.ListCues(ctx, userID, true)
	if err != nil {
		return err
	}
	for _, c := range cues {
		fmt.Fprintf(w, "cue for the next session: %s %s %s\n", c.Kind, c.Field, compactJSON(c.Detail))
	}
	recs, err := st.ListRecords(ctx, userID, nil)
	if err != nil {
		return err
	}
	for _, r := range recs {
		fmt.Fprintf(w, "record %s/%s: %s\n", r.Kind, r.Key, compactJSON(r.Data))
	}
	sums, err := st.ListSummaries(ctx, userID, 10)
	if err != nil {
		return err
	}
	for i := len(sums) - 1; i >= 0; i-- {
		s := sums[i]
		sess, err := st.GetSession(ctx, s.SessionID)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "session %s (%s, transcript kept: %v): %s\n", s.SessionID, s.Source, sess.TranscriptRetained, compactJSON(s.Data))
	}
	pack, err := api.BuildContext(ctx, st, sys.deps.Apps, userID, "", 0, time.Now().UTC())
	if err != nil {
		return err
	}
	if pack.Text == "" {
		fmt.Fprintf(w, "context pack for the next session: empty (%s keeps cross-session data out of the model's context)\n", app)
		return nil
	}
	fmt.Fprintf(w, "context pack for the next session (%d of %d tokens):\n", pack.Tokens, pack.BudgetTokens)
	for _, line := range strings.Split(pack.Text, "\n") {
		fmt.Fprintf(w, "  | %s\n", line)
	}
	return nil
}

func compactJSON(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 600 {
		s = s[:600] + "…"
	}
	return s
}
