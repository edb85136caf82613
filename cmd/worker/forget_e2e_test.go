package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/testwait"
)

// streamMona sends turns of a session in progress, user turns holding
// lines[i] (filler when lines runs out) and assistant turns in between,
// numbered from first; it returns the answer to the last request.
func (c client) streamMona(user, session string, first, n int, lines ...string) (int, map[string]any) {
	c.t.Helper()
	return c.streamMonaAt(user, session, first, n, at, lines...)
}

// streamMonaAt is streamMona with turn i said at when(i) ("" for the
// time the worker receives it).
func (c client) streamMonaAt(user, session string, first, n int, when func(int) string, lines ...string) (int, map[string]any) {
	c.t.Helper()
	var msgs []map[string]any
	for i := first; i < first+n; i++ {
		role, content := "assistant", "I see."
		if i%2 == 0 {
			role, content = "user", fmt.Sprintf("Message number %d about the weather.", i)
			if k := (i - first) / 2; k < len(lines) {
				content = lines[k]
			}
		}
		m := map[string]any{"id": fmt.Sprintf("t%03d", i), "role": role, "content": content}
		if t := when(i); t != "" {
			m["at"] = t
		}
		msgs = append(msgs, m)
	}
	return c.do("POST", "/v1/sessions/"+session+"/messages", map[string]any{"user_id": user, "app": "mona", "messages": msgs})
}

// waitRolling waits for a session's rolling summary to cover covered turns.
func (c client) waitRolling(session string, covered int) map[string]any {
	c.t.Helper()
	deadline := testwait.GiveUpAt(c.t)
	for {
		_, s := c.do("GET", "/v1/sessions/"+session, nil)
		if r, ok := s["rolling_summary"].(map[string]any); ok && r["messages_covered"] == float64(covered) {
			return r
		}
		if testwait.Past(deadline) {
			c.t.Fatalf("no rolling summary of %d turns for %s: %v", covered, session, s)
		}
		<-time.After(25 * time.Millisecond)
	}
}

// exportOf builds an export of user and returns the archive.
func (c client) exportOf(user string) map[string]any {
	c.t.Helper()
	code, ex := c.do("POST", "/v1/users/"+user+"/export", nil)
	id, _ := ex["export_id"].(string)
	if code != 202 || id == "" {
		c.t.Fatalf("export = %d %v", code, ex)
	}
	deadline := testwait.GiveUpAt(c.t)
	for {
		code, body := c.rawGet("/v1/users/" + user + "/exports/" + id)
		if code == 200 {
			var a map[string]any
			if err := json.Unmarshal(body, &a); err != nil {
				c.t.Fatal(err)
			}
			return a
		}
		if code != 202 || testwait.Past(deadline) {
			c.t.Fatalf("export status %d: %s", code, body)
		}
		<-time.After(25 * time.Millisecond)
	}
}

// textOf is v as JSON text, for looking for words in it.
func textOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestForgetReachesTheRollingSummary (issue 22, item 1), over HTTP on both
// databases: after forgetting every category, nothing of what a session in
// progress said is in its rolling summary or the pack; memory off deletes
// the rolling summary and the buffer; with memory off, streamed turns are
// not kept, no job is queued, and no export holds them.
func TestForgetReachesTheRollingSummary(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			said := []string{"Snorkelwick", "Plonkton", "Grumbleberries"}
			code, res := c.streamMona("sn", "r-1", 0, 20, "My name is Snorkelwick and I live in Plonkton.", "I'm allergic to Grumbleberries.")
			if code != 202 || res["buffered"] != float64(20) {
				t.Fatalf("stream = %d %v", code, res)
			}
			c.waitRolling("r-1", 20)
			_, pack := c.do("GET", "/v1/users/sn/context", nil)
			if !strings.Contains(textOf(t, pack), "Snorkelwick") {
				t.Fatalf("the pack before forgetting lacks the rolling summary: %v", pack)
			}

			for _, cat := range []string{"fact", "preference", "event", "feeling", "other"} {
				if code, res := c.do("DELETE", "/v1/users/sn/memories?category="+cat, nil); code != 200 {
					t.Fatalf("forget %s = %d %v", cat, code, res)
				}
			}
			_, pack = c.do("GET", "/v1/users/sn/context", nil)
			_, sess := c.do("GET", "/v1/sessions/r-1", nil)
			for _, w := range said {
				if strings.Contains(textOf(t, pack), w) {
					t.Errorf("after forgetting every category the pack holds %q: %v", w, pack)
				}
				if strings.Contains(textOf(t, sess["rolling_summary"]), w) {
					t.Errorf("after forgetting every category the rolling summary holds %q: %v", w, sess["rolling_summary"])
				}
			}

			// The next rolling summary reads the whole buffer again: what was
			// said before the forget stays forgotten; what is said after is told.
			now := func(int) string { return "" }
			if code, res := c.streamMonaAt("sn", "r-1", 20, 20, now, "My favorite snack is Wobblecrunch."); code != 202 || res["buffered"] != float64(40) {
				t.Fatalf("stream after forgetting = %d %v", code, res)
			}
			r := c.waitRolling("r-1", 40)
			_, pack = c.do("GET", "/v1/users/sn/context", nil)
			for _, w := range said {
				if strings.Contains(textOf(t, r), w) || strings.Contains(textOf(t, pack), w) {
					t.Errorf("the rolling summary of 40 turns brings back %q: %v / %v", w, r, pack)
				}
			}
			if !strings.Contains(textOf(t, r), "Wobblecrunch") {
				t.Errorf("the rolling summary of 40 turns lacks what was said after the forget: %v", r)
			}

			// Memory off deletes the rolling summary and the buffer.
			if code, _ := c.do("PUT", "/v1/users/sn/settings", map[string]any{"memory_enabled": false}); code != 200 {
				t.Fatalf("settings = %d", code)
			}
			_, sess = c.do("GET", "/v1/sessions/r-1", nil)
			if sess["rolling_summary"] != nil {
				t.Errorf("memory off left the rolling summary: %v", sess["rolling_summary"])
			}
			_, pack = c.do("GET", "/v1/users/sn/context", nil)
			if strings.Contains(textOf(t, pack), "earlier turns") {
				t.Errorf("memory off: the pack still holds a rolling summary: %v", pack)
			}

			// With memory off, streamed turns are not kept and queue nothing.
			code, res = c.streamMona("sn", "r-1", 40, 20, "My favorite snack is Quibblecrisps.")
			jobs, _ := res["jobs"].([]any)
			if code != 202 || res["buffered"] != float64(0) || res["added"] != float64(0) || res["kept"] != false ||
				res["reason"] != "memory_disabled" || jobs == nil || len(jobs) != 0 {
				t.Fatalf("stream with memory off = %d %v; want 202, nothing buffered or kept, reason memory_disabled, no job", code, res)
			}
			code, res = c.streamMona("sn", "r-2", 0, 20, "My favorite snack is Quibblecrisps.")
			if code != 202 || res["buffered"] != float64(0) || res["kept"] != false {
				t.Fatalf("new session with memory off = %d %v", code, res)
			}
			for _, id := range []string{"r-1", "r-2"} {
				if _, s := c.do("GET", "/v1/sessions/"+id, nil); s["rolling_summary"] != nil {
					t.Errorf("memory off: session %s has a rolling summary: %v", id, s)
				}
			}
			archive := textOf(t, c.exportOf("sn"))
			for _, w := range append(said, "Quibblecrisps") {
				if strings.Contains(archive, w) {
					t.Errorf("the export after memory off holds %q", w)
				}
			}
			if !strings.Contains(archive, `"memory_disabled":true`) {
				t.Error("the export does not say memory is off")
			}
		})
	}
}

// TestSummariesHoldWhatWasStoredAndForgetReachesThem (issue 22, item 2),
// over HTTP on both databases: a session summary names only the memories
// stored (a line dropped as special:health is not a topic, and the count is
// of what was stored); forgetting a memory takes it out of the session's
// summary, every rolling summary, the pack and a new export; forgetting
// where the user lives forgets the address they moved from too, and a new
// export holds neither anywhere; on SQLite the forget leaves no copy in the
// write-ahead log.
func TestSummariesHoldWhatWasStoredAndForgetReachesThem(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			lines := []string{"My name is Snorkelwick and I live in Plonkton.", "I started taking sertraline a few weeks ago for my depression.",
				"I like bazzlefizz.", "I'm allergic to Grumbleberries."}
			var msgs []map[string]any
			for i, l := range lines {
				msgs = append(msgs, map[string]any{"id": fmt.Sprintf("m%d", i), "role": "user", "content": l, "at": at(i)})
			}
			s := c.closeAndWait("s-1", map[string]any{"user_id": "bz", "app": "mona", "started_at": at(0), "ended_at": at(10), "messages": msgs})
			mems := memoriesByKey(t, c, "bz")
			sum, _ := s["summary"].(map[string]any)
			var topics []string
			for _, x := range sum["topics"].([]any) {
				topics = append(topics, x.(string))
			}
			var keys []string
			for k := range mems {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if len(mems) != 4 || sum["memories"] != float64(len(mems)) || !slices.Equal(topics, keys) {
				t.Fatalf("summary = %v for the stored memories %v; want topics and count of those stored", sum, keys)
			}
			if a := textOf(t, c.exportOf("bz")["sessions"].([]any)[0].(map[string]any)["summary"]); strings.Contains(a, "sertraline") {
				t.Fatalf("the export's summary holds what extraction dropped: %s", a)
			}

			// A session in progress whose rolling summary names the like too.
			if code, res := c.streamMona("bz", "s-2", 0, 20, "I like bazzlefizz."); code != 202 {
				t.Fatalf("stream = %d %v", code, res)
			}
			if r := c.waitRolling("s-2", 20); !strings.Contains(textOf(t, r), "bazzlefizz") {
				t.Fatalf("rolling summary = %v", r)
			}

			if code, _ := c.do("DELETE", "/v1/users/bz/memories/"+mems["likes:bazzlefizz"]["id"].(string), nil); code != 204 {
				t.Fatalf("forget = %d", code)
			}
			if code, _ := c.do("DELETE", "/v1/users/bz/memories/"+mems["name"]["id"].(string), nil); code != 204 {
				t.Fatalf("forget = %d", code)
			}
			_, s = c.do("GET", "/v1/sessions/s-1", nil)
			_, s2 := c.do("GET", "/v1/sessions/s-2", nil)
			_, pack := c.do("GET", "/v1/users/bz/context", nil)
			// The export's summaries; its transcripts are what the user said,
			// which forgetting a memory does not delete.
			var summaries []any
			for _, x := range c.exportOf("bz")["sessions"].([]any) {
				summaries = append(summaries, x.(map[string]any)["summary"])
			}
			for _, w := range []string{"bazzlefizz", "Snorkelwick"} {
				for what, v := range map[string]any{"the session's summary": s["summary"], "the rolling summary": s2["rolling_summary"],
					"the pack": pack, "the export's summaries": summaries} {
					if strings.Contains(textOf(t, v), w) {
						t.Errorf("after forgetting, %s holds %q: %s", what, w, textOf(t, v))
					}
				}
			}
			if sum, _ := s["summary"].(map[string]any); sum["memories"] != float64(2) || len(sum["topics"].([]any)) != 2 {
				t.Errorf("summary after forgetting two of four memories = %v", sum)
			}
			if !strings.Contains(textOf(t, pack), "Plonkton") {
				t.Errorf("forgetting two memories took others out of the pack: %v", pack)
			}

			// The user moves: the newer address replaces the old one. Forgetting
			// where they live forgets both, and every statement of them.
			s3 := []map[string]any{{"id": "m0", "role": "user", "content": "I live in Zorbington now.", "at": at(30)}}
			c.closeAndWait("s-3", map[string]any{"user_id": "bz", "app": "mona", "started_at": at(30), "ended_at": at(40), "messages": s3})
			_, all := c.do("GET", "/v1/users/bz/memories?status=all", nil)
			if a := textOf(t, all); !strings.Contains(a, "Plonkton") || !strings.Contains(a, "Zorbington") {
				t.Fatalf("memories of any status after moving = %s; want the old and the new address", a)
			}
			if code, _ := c.do("DELETE", "/v1/users/bz/memories/"+memoriesByKey(t, c, "bz")["lives_in"]["id"].(string), nil); code != 204 {
				t.Fatalf("forget lives_in = %d", code)
			}
			_, all = c.do("GET", "/v1/users/bz/memories?status=all", nil)
			_, pack = c.do("GET", "/v1/users/bz/context", nil)
			// The whole archive: the forgotten values are in none of its
			// parts (memories of any status, statements, summaries, records,
			// cues); the transcripts of these sessions are not kept (Mona's
			// retention is 0s).
			archive := textOf(t, c.exportOf("bz"))
			for _, w := range []string{"Snorkelwick", "Plonkton", "Zorbington"} {
				for what, v := range map[string]string{"the memories of any status": textOf(t, all), "the pack": textOf(t, pack), "a new export": archive} {
					if strings.Contains(v, w) {
						t.Errorf("after forgetting, %s holds %q: %s", what, w, v)
					}
				}
			}
			if !strings.Contains(archive, "Grumbleberries") {
				t.Errorf("forgetting where the user lives took the allergy out of the export: %s", archive)
			}

			// SQLite: the forget checkpoints the write-ahead log, as an erase does.
			if path, ok := strings.CutPrefix(url, "sqlite://"); ok {
				b, _ := os.ReadFile(path + "-wal")
				for _, w := range []string{"Snorkelwick", "Plonkton"} {
					if strings.Contains(string(b), w) {
						t.Errorf("after forgetting, the SQLite write-ahead log holds the forgotten value %q", w)
					}
				}
			}
		})
	}
}
