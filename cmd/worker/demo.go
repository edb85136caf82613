package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/store"
)

// demoKind is a kind with sample sessions for the demo: a JSON list of
// demoSession, from the kind's own package.
type demoKind interface{ DemoSessions() []byte }

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
		req.Events = append(req.Events, extract.Event{Type: e.Kind, At: start.Add(time.Duration(e.OffsetMinutes) * time.Minute), Data: e.Data})
	}
	return req
}

type demoFlags struct{ dir string }

func registerDemoFlags(fs *flag.FlagSet) {
	f := &demoFlags{}
	fs.StringVar(&f.dir, "dir", "", "keep the demo database in this directory (default: a temporary one, removed afterwards)")
	cmdFlags.Store(fs, f)
}

// demoWidth is the width the demo wraps its text at.
const demoWidth = 88

// demo hands the sample sessions of every preset to an embedded worker on a
// database of its own. For each sample conversation it prints the
// conversation, what was remembered, what was dropped and why, and the
// summary; for each user, what Mnemo holds after their last session and the
// context pack their next session would get.
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
	// The demo shows the deterministic rules: fast, free, and the reasons it
	// prints for what was dropped are the ones the extraction job acted on.
	cfg.LLMModel = ""
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

	users, err := demoUsers()
	if err != nil {
		return err
	}
	n := 0
	for _, u := range users {
		n += len(u)
	}
	printWrapped(e.stdout, "", "", fmt.Sprintf("Mnemo demo: %d sample sessions of %d users, one per app, handed over one by one to "+
		"a worker on a throw-away database (%s). Extraction uses the deterministic rules; `worker extract` shows what an LLM "+
		"would make of a session.", n, len(users), cfg.SQLitePath))
	now := time.Now().UTC()
	for _, sessions := range users {
		first := sessions[0]
		fmt.Fprintf(e.stdout, "\n== %s · user %s ==\n", first.App, first.UserID)
		for _, s := range sessions {
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
			if err := printSession(ctx, e.stdout, sys, s.SessionID, req); err != nil {
				return err
			}
		}
		if err := printUser(ctx, e.stdout, sys, first.App, first.UserID); err != nil {
			return err
		}
	}
	return nil
}

// demoUsers reads the samples, each kind's in name order, and groups
// them by user in the order they appear.
func demoUsers() ([][]demoSession, error) {
	var users [][]demoSession
	for _, name := range extract.KindNames() {
		k, ok := extract.KindOf(name).(demoKind)
		if !ok {
			continue
		}
		var samples []demoSession
		if err := json.Unmarshal(k.DemoSessions(), &samples); err != nil {
			return nil, fmt.Errorf("the demo sessions of kind %s: %w", name, err)
		}
		for _, s := range samples {
			i := slices.IndexFunc(users, func(u []demoSession) bool { return u[0].UserID == s.UserID })
			if i < 0 {
				users = append(users, nil)
				i = len(users) - 1
			}
			users[i] = append(users[i], s)
		}
	}
	return users, nil
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
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// printSession prints one processed sample session: the conversation and
// its events, what it left (memories, profile fields, records, cues), what
// the rules dropped and why, and its summary as text.
func printSession(ctx context.Context, w io.Writer, sys *system, id string, req handoff.Request) error {
	st := sys.store
	loc, err := time.LoadLocation(req.Timezone)
	if err != nil {
		loc = time.UTC
	}
	fmt.Fprintf(w, "\n-- session %s: %s, %d minutes --\n", id, req.StartedAt.In(loc).Format("Mon 2 Jan 15:04 MST"),
		int(req.EndedAt.Sub(req.StartedAt).Minutes()))
	fmt.Fprintln(w, "conversation:")
	for _, m := range req.Messages {
		printWrapped(w, fmt.Sprintf("  %-3s %-10s", m.ID, m.Role), strings.Repeat(" ", 16), m.Content)
	}
	if len(req.Events) > 0 {
		fmt.Fprintln(w, "events the chat service sent:")
		for _, ev := range req.Events {
			var data map[string]any
			_ = json.Unmarshal(ev.Data, &data)
			at := "+" + strconv.Itoa(int(ev.At.Sub(req.StartedAt).Minutes())) + "m"
			printWrapped(w, fmt.Sprintf("  %-13s %-4s ", ev.Type, at), strings.Repeat(" ", 21), readable(data))
		}
	}

	var kept []string
	mems, err := st.ListMemories(ctx, req.UserID, store.MemoryFilter{All: true})
	if err != nil {
		return err
	}
	for _, m := range mems {
		if m.SourceSessionID != id {
			continue
		}
		line := fmt.Sprintf("%s = %q (%s, from %s", m.Key, m.Value, m.Category, m.SourceMessageID)
		if m.EventDate != "" {
			line += ", on " + m.EventDate
		}
		if i := slices.IndexFunc(mems, func(o store.Memory) bool { return o.ID == m.SupersedesID }); i >= 0 {
			line += fmt.Sprintf("; replaces %q", mems[i].Value)
		}
		kept = append(kept, line+")")
	}
	history, err := st.ListProfileHistory(ctx, req.UserID)
	if err != nil {
		return err
	}
	for _, h := range history {
		if h.SessionID == id && len(h.Changed) > 0 {
			var changed map[string]any
			_ = json.Unmarshal(h.Changed, &changed)
			kept = append(kept, "profile: "+readable(changed))
		}
	}
	recs, err := st.ListRecords(ctx, req.UserID, nil)
	if err != nil {
		return err
	}
	for _, r := range recs {
		if r.SessionID == id {
			kept = append(kept, fmt.Sprintf("record %s/%s: %s", r.Type, r.Key, readableJSON(r.Data)))
		}
	}
	cues, err := st.ListCues(ctx, req.UserID, false)
	if err != nil {
		return err
	}
	for _, c := range cues {
		if c.SessionID == id {
			kept = append(kept, fmt.Sprintf("cue for the next session: %s %s", c.Type, readableJSON(c.Detail)))
		}
	}
	fmt.Fprintln(w, "remembered:")
	if len(kept) == 0 {
		fmt.Fprintln(w, "  nothing but the summary below")
	}
	for _, k := range kept {
		printWrapped(w, "  ", "    ", k)
	}

	// The extraction job ran these rules on this body; their dropped list
	// is what it left out (the job keeps no copy of it).
	app := sys.deps.Apps[req.App]
	res := extract.Rules(app, extract.Session{ID: id, UserID: req.UserID, App: req.App, StartedAt: req.StartedAt, EndedAt: req.EndedAt,
		Timezone: req.Timezone, DisplayName: req.DisplayName, Messages: req.Messages, Events: req.Events}, time.Now().UTC())
	fmt.Fprintln(w, "dropped:")
	if len(res.Dropped) == 0 {
		fmt.Fprintln(w, "  nothing")
	}
	for _, d := range res.Dropped {
		where := d.MessageID
		if where == "" {
			where = "an event"
		}
		printWrapped(w, fmt.Sprintf("  %-8s ", where), strings.Repeat(" ", 13), d.Reason+": "+dropWhy(extract.KindOfApp(app), d.Reason))
	}

	sess, err := st.GetSession(ctx, id)
	if err != nil {
		return err
	}
	sum, err := st.GetSummary(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		fmt.Fprintln(w, "summary: none")
		return nil
	} else if err != nil {
		return err
	}
	kept2 := "no"
	if sess.TranscriptRetained {
		kept2 = "yes (sealed)"
	}
	fmt.Fprintf(w, "summary (%s; transcript kept: %s):\n", sum.Source, kept2)
	var doc map[string]any
	if err := json.Unmarshal(sum.Data, &doc); err != nil {
		return fmt.Errorf("summary of %s: %w", id, err)
	}
	if text, ok := doc["summary"].(string); ok {
		for _, line := range strings.Split(text, "\n") {
			printWrapped(w, "  ", "  ", line)
		}
	}
	text, _ := doc["summary"].(string)
	for _, k := range sortedKeys(doc) {
		v := readable(doc[k])
		// A field the text already says in full (a coaching summary repeats
		// its action steps and threads) is not said twice.
		if k == "summary" || empty(doc[k]) || len(v) >= 20 && strings.Contains(text, v) {
			continue
		}
		printWrapped(w, "  ", "    ", label(k)+": "+v)
	}
	return nil
}

// printUser prints what Mnemo holds about one user after their sessions,
// and the context pack of their next session.
func printUser(ctx context.Context, w io.Writer, sys *system, app, userID string) error {
	st := sys.store
	fmt.Fprintf(w, "\n-- what Mnemo holds for %s now --\n", userID)
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
			fmt.Fprintf(w, "  %-28s %-22q %s, importance %d, confidence %.2f%s\n", m.Key, m.Value, m.Category, m.Importance, m.Confidence, note)
		}
	}
	if p, err := st.GetProfile(ctx, userID); err == nil {
		var doc map[string]any
		_ = json.Unmarshal(p.Doc, &doc)
		fmt.Fprintf(w, "profile (version %d):\n", p.Version)
		for _, k := range sortedKeys(doc) {
			printWrapped(w, "  ", "    ", label(k)+": "+readable(doc[k]))
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	cues, err := st.ListCues(ctx, userID, true)
	if err != nil {
		return err
	}
	for _, c := range cues {
		printWrapped(w, "", "  ", fmt.Sprintf("open cue: %s %s", c.Type, readableJSON(c.Detail)))
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

// dropWhy says in words why a candidate was left out (the reasons of
// extract.Dropped: the rules', Screen's and a kind's write guard's); a
// kind with a write guard of its own words its reasons (DropWhy).
func dropWhy(k extract.Kind, reason string) string {
	kind, sub, _ := strings.Cut(reason, ":")
	switch kind {
	case extract.DropQuestion:
		return "a question, not a statement"
	case extract.DropRequest:
		return `a request ("I'd like a glass of water"), not a preference`
	case extract.DropUncertain:
		return "hedged (maybe, might, if, would): not a fact"
	case extract.DropNegated:
		return "says what is not so (\"I don't live there anymore\")"
	case extract.DropTooLong:
		return "the value is too long for a memory"
	case extract.DropInvalidValue:
		return "the words after the pattern name no item, place or name"
	case extract.DropAboutPerson:
		return "about another person, not a preference of the user's"
	case extract.DropNotAboutUser:
		return "about the companion, not the user"
	case extract.DropUnresolved:
		return "a pronoun (\"that\", \"he\") whose referent the sentence does not name"
	case extract.DropListCap:
		return "a list longer than the rules keep: its first items are kept"
	case "sensitive":
		return "holds a " + strings.ReplaceAll(sub, "_", " ") + ": nothing of the message is kept"
	case "risk":
		return "a " + strings.ReplaceAll(sub, "_", " ") + " statement: recorded as a risk cue (never its text), nothing else of the message is kept"
	case "special":
		return "special-category data (" + strings.ReplaceAll(sub, "_", " ") + "), which this app drops"
	case "sealed":
		return "special-category data (" + strings.ReplaceAll(sub, "_", " ") + "), kept only in the sealed transcript"
	case "invalid_event":
		return "a " + sub + " event without the fields it needs"
	case "guard":
		if k, ok := k.(interface{ DropWhy(string) string }); ok {
			if why := k.DropWhy(reason); why != "" {
				return why
			}
		}
		switch reason {
		case extract.GuardConfidence:
			return "below the app's min_confidence"
		case extract.GuardRisk:
			return "a preference about harm"
		case extract.GuardCooldown:
			return "mastery may rise only once within the cooldown"
		}
		return "refused by this app's write guard"
	}
	return "left out by the rules"
}

// printWrapped prints text after prefix, wrapped at demoWidth; the
// continuation lines start with indent.
func printWrapped(w io.Writer, prefix, indent, text string) {
	width := max(demoWidth-len(indent), 30)
	line := ""
	first := true
	flush := func() {
		if first {
			fmt.Fprintf(w, "%s%s\n", prefix, line)
			first = false
		} else {
			fmt.Fprintf(w, "%s%s\n", indent, line)
		}
		line = ""
	}
	for _, word := range strings.Fields(text) {
		if line != "" && len([]rune(line))+1+len([]rune(word)) > width {
			flush()
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" || first {
		flush()
	}
}

// readable writes a decoded JSON value as words: a list joined by "; ",
// an object as "name: value" pairs, true as yes.
func readable(v any) string {
	switch x := v.(type) {
	case nil:
		return "none"
	case string:
		if x == "" {
			return "none"
		}
		return x
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		if len(x) == 0 {
			return "none"
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = readable(e)
			if _, nested := e.(map[string]any); nested {
				parts[i] = "(" + parts[i] + ")"
			}
		}
		return strings.Join(parts, "; ")
	case map[string]any:
		var parts []string
		for _, k := range sortedKeys(x) {
			if bookkeeping[k] {
				continue
			}
			s := readable(x[k])
			if _, nested := x[k].(map[string]any); nested {
				s = "(" + s + ")"
			}
			parts = append(parts, label(k)+" "+s)
		}
		if len(parts) == 0 {
			return "none"
		}
		return strings.Join(parts, ", ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// bookkeeping are fields of records and cues that say nothing to a reader.
var bookkeeping = map[string]bool{"user_id": true, "updated_at": true, "last_session_id": true}

func readableJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return readable(v)
}

func label(k string) string { return strings.ReplaceAll(k, "_", " ") }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// empty reports whether a summary field says nothing worth a line.
func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	}
	return false
}
