package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
)

// TestCareNoteEndToEnd hands a Mona session with a crisis message over
// HTTP on each database, as issue 32 tells it: "I've started giving my
// plants and books away to friends, I won't be needing them much longer".
// The next session's context pack opens with the care note (the day, the
// class in plain words, a gentle check-in first and Mona's crisis
// guidance), never the user's words; a tight budget keeps the note first,
// and one too tight for it gives no pack without it; an operator resolves the finding and
// the next pack has no note; the log holds no word of the message.
func TestCareNoteEndToEnd(t *testing.T) {
	t.Parallel()
	const said = "I've started giving my plants and books away to friends, I won't be needing them much longer."
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := startWorker(t, map[string]string{
				"DATABASE_URL":         url,
				"MNEMO_API_TOKENS":     "service:" + serviceToken + ",admin:" + adminToken,
				"MNEMO_ENCRYPTION_KEY": "e2e:a passphrase for the care note tests",
				"MNEMO_POLL_INTERVAL":  "50ms",
				"MNEMO_LOG_LEVEL":      "info",
				"MNEMO_SHUTDOWN_GRACE": "3s",
				"MNEMO_CARE_NOTE_DAYS": "7",
			})
			c := client{t: t, base: "http://" + w.addr}
			admin := client{t: t, base: c.base, token: adminToken}
			const user, session = "u-care-1", "s-care-1"
			code, res := c.do("POST", "/v1/sessions/"+session+"/close", map[string]any{
				"user_id": user, "app": "mona", "started_at": at(0), "ended_at": at(10),
				"messages": []map[string]any{
					{"id": "m1", "role": "user", "content": "My name is Robin and I like pizza.", "at": at(1)},
					{"id": "m2", "role": "user", "content": said, "at": at(2)},
				},
			})
			if code != 202 {
				t.Fatalf("close = %d %v", code, res)
			}
			c.waitProcessed(session)

			code, pack := c.do("GET", "/v1/users/"+user+"/context", nil)
			text, _ := pack["text"].(string)
			opening := extract.PackPreamble + "\n\nCARE NOTE:\n- "
			if code != 200 || !strings.HasPrefix(text, opening) {
				t.Fatalf("context after the crisis = %d, no care note first:\n%s", code, text)
			}
			note, _, _ := strings.Cut(strings.TrimPrefix(text, opening), "\n")
			for _, want := range []string{base.Format("2006-01-02"), "thoughts of suicide or of not wanting to live", "Check in gently", "follow Mona's crisis guidance"} {
				if !strings.Contains(note, want) {
					t.Errorf("the care note %q does not say %q", note, want)
				}
			}
			for _, word := range []string{"plants", "books", "needing", "giving"} {
				if strings.Contains(strings.ToLower(text), word) {
					t.Errorf("the pack carries the user's word %q:\n%s", word, text)
				}
			}
			if !strings.Contains(text, "Robin") {
				t.Errorf("the rest of the pack is gone:\n%s", text)
			}
			// A tight budget holds the note's short form first; one too tight
			// for it holds nothing, not the name without the note.
			code, pack = c.do("GET", "/v1/users/"+user+"/context?budget_tokens=64", nil)
			if text, _ := pack["text"].(string); code != 200 || !strings.HasPrefix(text, opening+"Check in gently before anything else") {
				t.Errorf("context at 64 tokens = %d:\n%s", code, text)
			}
			code, pack = c.do("GET", "/v1/users/"+user+"/context?budget_tokens=30", nil)
			if text, _ := pack["text"].(string); code != 200 || text != "" {
				t.Errorf("context at 30 tokens = %d:\n%s", code, text)
			}

			// Resolved by an operator: the next pack has no note.
			code, res = admin.do("POST", "/v1/admin/users/"+user+"/risk/resolve", nil)
			if code != 200 || res["resolved"] != float64(1) || res["user_id"] != user {
				t.Fatalf("resolve = %d %v; want the one finding resolved", code, res)
			}
			code, pack = c.do("GET", "/v1/users/"+user+"/context", nil)
			if text, _ := pack["text"].(string); code != 200 || strings.Contains(text, "CARE NOTE") || !strings.Contains(text, "Robin") {
				t.Errorf("context after the resolution = %d:\n%s", code, text)
			}
			if code, res = admin.do("POST", "/v1/admin/users/u-nobody/risk/resolve", nil); code != 404 {
				t.Errorf("resolve of an unknown user = %d %v; want 404", code, res)
			}
			if code, res = c.do("POST", "/v1/admin/users/"+user+"/risk/resolve", nil); code != 403 {
				t.Errorf("resolve with a service token = %d %v; want 403", code, res)
			}
			log := w.stderr.String()
			if !strings.Contains(log, "risk findings resolved by an operator") {
				t.Errorf("the resolution is not in the log")
			}
			if strings.Contains(log, "plants") || strings.Contains(log, "needing them") {
				t.Errorf("the log carries the message's words")
			}
		})
	}
}

// TestCareNoteDaysSetting: MNEMO_CARE_NOTE_DAYS is 14 by default, takes a
// whole number of days from 1 to 365, and anything else stops the worker
// at start with one line naming it.
func TestCareNoteDaysSetting(t *testing.T) {
	t.Parallel()
	c, err := configOf(t, nil)
	if err != nil || c.CareNoteDays != 14 {
		t.Fatalf("default: %d, %v; want 14", c.CareNoteDays, err)
	}
	if c, err = configOf(t, map[string]string{"MNEMO_CARE_NOTE_DAYS": "30"}); err != nil || c.CareNoteDays != 30 {
		t.Fatalf("30: %d, %v", c.CareNoteDays, err)
	}
	for _, bad := range []string{"0", "-1", "366", "2w", "14d", "1.5", ""} {
		if bad == "" {
			continue // empty is the default
		}
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"serve"}, mapEnv(map[string]string{"MNEMO_CARE_NOTE_DAYS": bad}), strings.NewReader(""), io.Discard, &stderr)
		out := strings.TrimSpace(stderr.String())
		if code != exitUsage || strings.Count(out, "\n") != 0 || !strings.Contains(out, "MNEMO_CARE_NOTE_DAYS") || !strings.Contains(out, "1 to 365") {
			t.Errorf("MNEMO_CARE_NOTE_DAYS=%s: exit %d, stderr %q; want one line naming it and the range", bad, code, out)
		}
	}
}
