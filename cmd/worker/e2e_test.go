package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/store"
)

const serviceToken = "service-token-for-tests-0001"

// claraServiceToken is bound to the clara app: a Clara user's data is for
// the caregiver and the app's own service only, not for serviceToken.
const claraServiceToken = "clara-service-token-for-tests-0001"

// client talks to a started worker as a chat service would.
type client struct {
	t    *testing.T
	base string
	// token is the bearer token sent; empty sends serviceToken.
	token string
}

func (c client) do(method, path string, body any) (int, map[string]any) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+cmp.Or(c.token, serviceToken))
	req.Header.Set("Content-Type", "application/json")
	resp, err := specClient(c.t).Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			c.t.Fatalf("%s %s: body is not JSON: %s", method, path, raw)
		}
	}
	return resp.StatusCode, out
}

// waitProcessed polls the session until the worker has processed it.
func (c client) waitProcessed(id string) map[string]any {
	c.t.Helper()
	deadline := testwait.GiveUpAt(c.t)
	for {
		code, s := c.do("GET", "/v1/sessions/"+id, nil)
		if code == 200 && (s["status"] == store.StatusProcessed || s["status"] == store.StatusFailed) {
			return s
		}
		if testwait.Past(deadline) {
			c.t.Fatalf("session %s not processed in time: %d %v", id, code, s)
		}
		<-time.After(25 * time.Millisecond)
	}
}

func startWithLLM(t *testing.T, url string, llm *llmtest.Server) client {
	t.Helper()
	c, _ := startWorkerWithLLM(t, url, llm)
	return c
}

// startWorkerWithLLM is startWithLLM with the worker, for a test that stops it.
func startWorkerWithLLM(t *testing.T, url string, llm *llmtest.Server) (client, *started) {
	t.Helper()
	env := map[string]string{
		"DATABASE_URL":         url,
		"MNEMO_API_TOKENS":     "service:" + serviceToken + ",admin:" + adminToken + ",service@clara:" + claraServiceToken,
		"MNEMO_ENCRYPTION_KEY": "e2e:a passphrase for the e2e tests",
		"MNEMO_POLL_INTERVAL":  "50ms",
		"MNEMO_LOG_LEVEL":      "warn",
		"MNEMO_SHUTDOWN_GRACE": "3s",
	}
	if llm != nil {
		env["OPENAI_BASE_URL"] = llm.URL()
		env["OPENAI_API_KEY"] = "sk-test-not-a-real-key"
		env["MNEMO_LLM_MODEL"] = "gpt-4o-mini"
	}
	w := startWorker(t, env)
	t.Cleanup(func() {
		// Nothing secret or personal reaches the log.
		log := w.stderr.String()
		for _, secret := range []string{serviceToken, "sk-test-not-a-real-key", "Peggy", "ramen", "loneliness after the argument", "a passphrase"} {
			if strings.Contains(log, secret) {
				t.Errorf("the log contains %q", secret)
			}
		}
	})
	return client{t: t, base: "http://" + w.addr}, w
}

// base is a recent instant, so that memories with a TTL are still alive when read.
var base = time.Now().UTC().Add(-3 * time.Hour).Truncate(time.Minute)

func at(min int) string { return base.Add(time.Duration(min) * time.Minute).Format(time.RFC3339) }

// TestMonaEndToEnd closes a realistic Mona session over HTTP on each
// database, lets the worker extract with the (fake) LLM, and reads the
// memories back; then a second session supersedes a preference.
func TestMonaEndToEnd(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			llm := llmtest.NewServer(t)
			c := startWithLLM(t, url, llm)
			llm.Push(llmtest.Content("```json\n" + `{"memories":[
				{"key":"name","value":"Peggy","category":"fact","importance":90,"confidence":0.9,"source_message_id":"m1"},
				{"key":"favorite_food","value":"ramen","category":"preference","importance":80,"confidence":0.9,"source_message_id":"m3"},
				{"key":"feeling","value":"tired","category":"feeling","importance":70,"confidence":0.9,"source_message_id":"m3"}],
				"session_summary":{"summary":"Introductions and food.","topics":["food"]}}` + "\n```"))
			body := map[string]any{
				"user_id": "u-peggy", "app": "mona", "started_at": at(0), "ended_at": at(20), "timezone": "Europe/Berlin",
				"display_name": "Peggy",
				"messages": []map[string]any{
					{"id": "m1", "role": "user", "content": "Hi, my name is Peggy.", "at": at(1)},
					{"id": "m2", "role": "assistant", "content": "Hello Peggy! What do you like to eat?", "at": at(2)},
					{"id": "m3", "role": "user", "content": "My favorite food is ramen. I'm feeling tired though.", "at": at(3)},
				},
				"events": []map[string]any{{"kind": "emotion", "at": at(3), "message_id": "m3",
					"data": map[string]any{"emotion": "tired", "confidence": 0.8, "distress_score": 0.2, "trajectory": "stable"}}},
			}
			code, res := c.do("POST", "/v1/sessions/s-1/close", body)
			jobs, _ := res["jobs"].([]any)
			if code != 202 || res["session_id"] != "s-1" || len(jobs) != 1 {
				t.Fatalf("close = %d %v", code, res)
			}
			// The same body again: the same answer, nothing duplicated.
			code2, res2 := c.do("POST", "/v1/sessions/s-1/close", body)
			if code2 != 202 || fmt.Sprint(res2) != fmt.Sprint(res) {
				t.Fatalf("repeated close = %d %v; want 202 %v", code2, res2, res)
			}
			// A different body for the closed session: 409.
			body["ended_at"] = at(21)
			if code, _ := c.do("POST", "/v1/sessions/s-1/close", body); code != 409 {
				t.Fatalf("different body = %d; want 409", code)
			}
			s := c.waitProcessed("s-1")
			ex, _ := s["extraction"].(map[string]any)
			if s["status"] != "processed" || ex["source"] != "llm" || ex["outcome"] != "ok" || s["transcript_retained"] != false {
				t.Fatalf("session = %v", s)
			}
			if sum, _ := s["summary"].(map[string]any); sum["summary"] != "Introductions and food." {
				t.Fatalf("summary = %v", s["summary"])
			}
			mems := memoriesByKey(t, c, "u-peggy")
			if mems["name"]["value"] != "Peggy" || mems["favorite_food"]["value"] != "ramen" || mems["feeling"]["expires_at"] == nil {
				t.Fatalf("memories = %v", mems)
			}
			if llm.Calls() != 1 {
				t.Fatalf("%d LLM calls for one session; the repeated close must not enqueue again", llm.Calls())
			}

			// Next session: a new favorite food supersedes the old one.
			llm.Push(llmtest.Valid(`{"memories":[{"key":"favorite_food","value":"sushi","category":"preference","importance":80,"confidence":0.9,"source_message_id":"n1"}],
				"session_summary":{"summary":"Food again.","topics":["food"]}}`))
			code, _ = c.do("POST", "/v1/sessions/s-2/close", map[string]any{
				"user_id": "u-peggy", "app": "mona", "started_at": at(30), "ended_at": at(40),
				"messages": []map[string]any{{"id": "n1", "role": "user", "content": "Actually my favorite food is sushi now.", "at": at(31)}},
			})
			if code != 202 {
				t.Fatalf("second close = %d", code)
			}
			c.waitProcessed("s-2")
			mems = memoriesByKey(t, c, "u-peggy")
			if mems["favorite_food"]["value"] != "sushi" || mems["name"]["value"] != "Peggy" {
				t.Fatalf("after supersede: %v", mems)
			}
			_, all := c.do("GET", "/v1/users/u-peggy/memories?status=deprecated", nil)
			dep, _ := all["memories"].([]any)
			if len(dep) != 1 || dep[0].(map[string]any)["value"] != "ramen" {
				t.Fatalf("deprecated memories = %v; want ramen kept as history", all)
			}
			if mems["favorite_food"]["supersedes_id"] != dep[0].(map[string]any)["id"] {
				t.Fatal("the new memory does not link the one it supersedes")
			}
		})
	}
}

func memoriesByKey(t *testing.T, c client, user string) map[string]map[string]any {
	t.Helper()
	code, res := c.do("GET", "/v1/users/"+user+"/memories", nil)
	if code != 200 {
		t.Fatalf("memories = %d %v", code, res)
	}
	out := map[string]map[string]any{}
	list, _ := res["memories"].([]any)
	for _, m := range list {
		mm := m.(map[string]any)
		out[mm["key"].(string)] = mm
	}
	return out
}

// TestElderTreeEndToEnd: a recovery session's profile updates and summary
// come from the LLM; the next session's sponsor change and dropped
// fellowship become cues; with the LLM failing for good the summary falls
// back to the urge events and the transcript is kept.
func TestElderTreeEndToEnd(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			llm := llmtest.NewServer(t)
			c := startWithLLM(t, url, llm)
			llm.Push(llmtest.Valid(`{"profile_updates":{"preferred_name":"Sam","current_step":3,"has_sponsor":true,"sponsor_name":"Al","in_fellowship":true},
				"session_summary":{"urge_intensity":7,"primary_trigger":"loneliness after the argument","resistance_strategy_used":"called sponsor",
				"outcome":"urge_passed","key_insights":["Conflict avoidance feeds isolation"],"emotional_state_start":"anxious",
				"emotional_state_end":"calmer","follow_up_needed":"Explore conflict avoidance in Step 4"}}`))
			session := func(id string, start int) map[string]any {
				return map[string]any{"user_id": "u-sam", "app": "eldertree", "started_at": at(start), "ended_at": at(start + 25),
					"messages": []map[string]any{
						{"id": id + "-m1", "role": "user", "content": "I had a fight with my wife and wanted to drink.", "at": at(start + 1)},
						{"id": id + "-m2", "role": "assistant", "content": "What did you do with that urge?", "at": at(start + 2)},
						{"id": id + "-m3", "role": "user", "content": "I called Al, my sponsor, and walked outside.", "at": at(start + 3)},
					},
					"events": []map[string]any{{"kind": "urge", "at": at(start + 1),
						"data": map[string]any{"intensity": 7, "trigger": "conflict", "strategy": "called_sponsor", "outcome": "urge_passed"}}},
				}
			}
			if code, res := c.do("POST", "/v1/sessions/e-1/close", session("e-1", 0)); code != 202 {
				t.Fatalf("close = %d %v", code, res)
			}
			s := c.waitProcessed("e-1")
			if ex := s["extraction"].(map[string]any); ex["source"] != "llm" {
				t.Fatalf("extraction = %v", ex)
			}
			code, prof := c.do("GET", "/v1/users/u-sam/profile", nil)
			doc, _ := prof["profile"].(map[string]any)
			if code != 200 || doc["sponsor_name"] != "Al" || doc["current_step"] != float64(3) || prof["version"] != float64(1) {
				t.Fatalf("profile = %d %v", code, prof)
			}

			// Second session: sponsor changes, fellowship dropped, step unchanged.
			llm.Push(llmtest.Valid(`{"profile_updates":{"current_step":3,"sponsor_name":"Bea","in_fellowship":false},
				"session_summary":{"urge_intensity":5,"primary_trigger":"boredom","resistance_strategy_used":"prayer","outcome":"urge_passed",
				"key_insights":[],"emotional_state_start":"flat","emotional_state_end":"ok","follow_up_needed":null}}`))
			c.do("POST", "/v1/sessions/e-2/close", session("e-2", 60))
			c.waitProcessed("e-2")
			_, prof = c.do("GET", "/v1/users/u-sam/profile", nil)
			doc, _ = prof["profile"].(map[string]any)
			if doc["sponsor_name"] != "Bea" || doc["in_fellowship"] != false || doc["preferred_name"] != "Sam" || prof["version"] != float64(2) {
				t.Fatalf("profile after second session = %v", prof)
			}
			cues := storedCues(t, url, "u-sam")
			if !cues["sponsor_change"] || !cues["fellowship_dropped"] {
				t.Fatalf("cues = %v; want sponsor_change and fellowship_dropped", cues)
			}

			// Third session: the LLM keeps answering garbage → fallback from urge events.
			llm.Push(llmtest.Content("I'm sorry, I can't help with that."), llmtest.Content("{\"profile_updates\": {"))
			c.do("POST", "/v1/sessions/e-3/close", session("e-3", 120))
			s = c.waitProcessed("e-3")
			ex := s["extraction"].(map[string]any)
			sum, _ := s["summary"].(map[string]any)
			if ex["source"] != "fallback" || s["transcript_retained"] != true || sum["primary_trigger"] != "conflict" || sum["urge_intensity"] != float64(7) {
				t.Fatalf("fallback session = %v", s)
			}
		})
	}
}

// openTestStore opens the database a worker under test uses.
func openTestStore(t *testing.T, url string) store.Store {
	t.Helper()
	cfg, err := buildConfig(func(name string) string {
		if name == "database-url" {
			return url
		}
		for _, s := range settings {
			if s.flag == name {
				return s.def
			}
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := openStore(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// storedCues reads the cues recorded for a user straight from the database.
func storedCues(t *testing.T, url, user string) map[string]bool {
	t.Helper()
	cues, err := openTestStore(t, url).ListCues(context.Background(), user, true)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, c := range cues {
		out[c.Type] = true
	}
	return out
}

// TestTranscriptNeverOnDiskInPlaintext checks the SQLite files after a
// session is handed over and before it is processed.
func TestTranscriptNeverOnDiskInPlaintext(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "mnemo.db")
	llm := llmtest.NewServer(t)
	llm.SetDefault(func(llmtest.Request) llmtest.Reply { return llmtest.Hang() })
	c := startWithLLM(t, "sqlite://"+path, llm)
	secret := "the-unmistakable-phrase-zebra-kumquat"
	code, _ := c.do("POST", "/v1/sessions/p-1/close", map[string]any{"user_id": "u-p", "app": "mona", "started_at": at(0), "ended_at": at(5),
		"messages": []map[string]any{{"id": "m1", "role": "user", "content": "I like " + secret, "at": at(1)}}})
	if code != 202 {
		t.Fatalf("close = %d", code)
	}
	for _, f := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Fatalf("%s holds transcript plaintext", filepath.Base(f))
		}
	}
}

// TestKilledWorkerMidExtraction kills a worker with SIGKILL while its
// extraction waits on the LLM, starts another, and checks that River's
// rescue runs the job again to exactly one summary and no duplicate memories.
// River's rescuer looks for stuck jobs every 30 s, so this test takes that long.
func TestKilledWorkerMidExtraction(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits 30 s for River's rescuer; jobs TestExtractionRerunIsIdempotent checks that a job run again leaves one summary and no duplicate memory")
	}
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			llm := llmtest.NewServer(t)
			var mu sync.Mutex
			calls := 0
			llm.SetDefault(func(llmtest.Request) llmtest.Reply {
				mu.Lock()
				defer mu.Unlock()
				calls++
				if calls == 1 {
					return llmtest.Hang() // the first worker dies while waiting here
				}
				return llmtest.Valid(`{"memories":[{"key":"name","value":"Peggy","category":"fact","importance":90,"confidence":0.9,"source_message_id":"m1"}],
					"session_summary":{"summary":"Introductions.","topics":[]}}`)
			})
			env := []string{"DATABASE_URL=" + url, "MNEMO_ENCRYPTION_KEY=k:a passphrase for the kill test",
				"OPENAI_BASE_URL=" + llm.URL(), "OPENAI_API_KEY=sk-test", "MNEMO_LLM_MODEL=gpt-4o-mini",
				"MNEMO_LLM_TIMEOUT=20s", "MNEMO_JOB_TIMEOUT=25s", "MNEMO_RESCUE_AFTER=26s", "MNEMO_POLL_INTERVAL=50ms"}
			first := startProcess(t, dir, env...)
			c := client{t: t, base: "http://" + first.addr}
			code, _ := c.do("POST", "/v1/sessions/k-1/close", map[string]any{"user_id": "u-k", "app": "mona", "started_at": at(0), "ended_at": at(5),
				"messages": []map[string]any{{"id": "m1", "role": "user", "content": "My name is Peggy.", "at": at(1)}}})
			if code != 202 {
				t.Fatalf("close = %d", code)
			}
			deadline := testwait.GiveUpAt(t)
			for llm.Calls() == 0 {
				if testwait.Past(deadline) {
					t.Fatalf("the extraction never reached the LLM:\n%s", first.log.String())
				}
				<-time.After(10 * time.Millisecond)
			}
			if err := first.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = first.cmd.Wait()

			second := startProcess(t, dir, env...)
			c.base = "http://" + second.addr
			deadline = testwait.GiveUpAt(t)
			for {
				_, s := c.do("GET", "/v1/sessions/k-1", nil)
				if s["status"] == "processed" {
					break
				}
				if testwait.Past(deadline) {
					t.Fatalf("session not processed after the restart: %v\n%s", s, second.log.String())
				}
				<-time.After(100 * time.Millisecond)
			}
			st := openTestStore(t, url)
			ctx := context.Background()
			sums, err := st.ListSummaries(ctx, "u-k", 10)
			if err != nil || len(sums) != 1 {
				t.Fatalf("%d summaries, %v; want exactly 1", len(sums), err)
			}
			mems, err := st.ListMemories(ctx, "u-k", store.MemoryFilter{All: true})
			if err != nil || len(mems) != 1 || mems[0].Value != "Peggy" {
				t.Fatalf("memories = %+v, %v; want one", mems, err)
			}
			runs, err := st.ListExtractionRuns(ctx, "k-1")
			if err != nil {
				t.Fatal(err)
			}
			final := 0
			for _, r := range runs {
				if r.Final {
					final++
				}
			}
			if final != 1 {
				t.Fatalf("%d final runs; want 1", final)
			}
		})
	}
}

// TestMonaRollingSummary streams turns of a session in progress; every 20
// turns (Mona's M) a rolling summary covers them; then the session closes.
func TestMonaRollingSummary(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			turn := func(i int) map[string]any {
				role, content := "user", fmt.Sprintf("Message number %d about the weather.", i)
				if i%2 == 1 {
					role, content = "assistant", "I see."
				}
				if i == 4 {
					content = "My favorite color is green."
				}
				return map[string]any{"id": fmt.Sprintf("t%02d", i), "role": role, "content": content, "at": at(i)}
			}
			var all []map[string]any
			for batch := 0; batch < 3; batch++ {
				var msgs []map[string]any
				for i := batch * 9; i < batch*9+9; i++ {
					msgs = append(msgs, turn(i))
				}
				all = append(all, msgs...)
				code, res := c.do("POST", "/v1/sessions/r-1/messages", map[string]any{"user_id": "u-r", "app": "mona", "messages": msgs})
				if code != 202 {
					t.Fatalf("append batch %d = %d %v", batch, code, res)
				}
			}
			// The same turns again add nothing.
			if code, res := c.do("POST", "/v1/sessions/r-1/messages", map[string]any{"user_id": "u-r", "app": "mona", "messages": all[:5]}); code != 202 || res["added"] != float64(0) || res["buffered"] != float64(27) {
				t.Fatalf("re-sent turns = %d %v; want nothing added, 27 buffered", code, res)
			}
			deadline := testwait.GiveUpAt(t)
			var rolling map[string]any
			for rolling == nil {
				_, s := c.do("GET", "/v1/sessions/r-1", nil)
				if s["status"] != "active" {
					t.Fatalf("session in progress has status %v", s["status"])
				}
				rolling, _ = s["rolling_summary"].(map[string]any)
				if testwait.Past(deadline) {
					t.Fatal("no rolling summary after 27 turns")
				}
				<-time.After(25 * time.Millisecond)
			}
			sum, _ := rolling["summary"].(map[string]any)
			if rolling["messages_covered"] != float64(20) || fmt.Sprint(sum["mentioned"]) != "[favorite_color]" {
				t.Fatalf("rolling summary = %v; want 20 turns covered, favorite_color mentioned", rolling)
			}
			code, _ := c.do("POST", "/v1/sessions/r-1/close", map[string]any{"user_id": "u-r", "app": "mona", "started_at": at(0), "ended_at": at(30), "messages": all})
			if code != 202 {
				t.Fatalf("close of the active session = %d", code)
			}
			c.waitProcessed("r-1")
			if mems := memoriesByKey(t, c, "u-r"); mems["favorite_color"]["value"] != "green" {
				t.Fatalf("memories after close = %v", mems)
			}
			if code, _ := c.do("POST", "/v1/sessions/r-1/messages", map[string]any{"user_id": "u-r", "app": "mona", "messages": all[:1]}); code != 409 {
				t.Fatalf("turns for a closed session = %d; want 409", code)
			}
		})
	}
}

// TestElderTreeZoneCuesAndAggregatesOverHTTP (issue 11, parts 5–7), on a
// real worker and each database: the pack dates a Chicago user's late
// session by their own calendar; the user's and an operator's profile edits
// raise Elder Tree's cues (docs/presets.md, Elder Tree: cues), which the next pack acknowledges; analytics list
// their weeks and trends say when they will be computed.
func TestElderTreeZoneCuesAndAggregatesOverHTTP(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			// 2026-11-24T05:00Z is the 23rd, 11 pm, in Chicago.
			code, res := c.do("POST", "/v1/sessions/chi-1/close", map[string]any{
				"user_id": "u-chi", "app": "eldertree", "timezone": "America/Chicago",
				"started_at": "2026-11-24T04:30:00Z", "ended_at": "2026-11-24T05:00:00Z",
				"messages": []map[string]any{
					{"id": "m1", "role": "user", "content": "Late night and I wanted a drink, so I called my sponsor.", "at": "2026-11-24T04:31:00Z"},
				},
				"events": []map[string]any{{"kind": "urge", "at": "2026-11-24T04:31:00Z",
					"data": map[string]any{"intensity": 6, "trigger": "late night", "strategy": "called_sponsor", "outcome": "urge_passed"}}},
			})
			if code != 202 {
				t.Fatalf("close = %d %v", code, res)
			}
			c.waitProcessed("chi-1")
			_, pack := c.do("GET", "/v1/users/u-chi/context", nil)
			text, _ := pack["text"].(string)
			if !strings.Contains(text, "2026-11-23:") || strings.Contains(text, "2026-11-24") {
				t.Fatalf("the pack of a Chicago user dates the session by UTC; want 2026-11-23:\n%s", text)
			}

			// The user tells their profile, then stops going to meetings.
			patch := func(bearer, query string, body map[string]any) {
				t.Helper()
				b, _ := json.Marshal(body)
				req, _ := http.NewRequest("PATCH", c.base+"/v1/users/u-chi/profile"+query, bytes.NewReader(b))
				req.Header.Set("Authorization", "Bearer "+bearer)
				req.Header.Set("Content-Type", "application/json")
				resp, err := specClient(t).Do(req)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("PATCH %s %s = %d", query, b, resp.StatusCode)
				}
			}
			patch(serviceToken, "", map[string]any{"has_sponsor": true, "sponsor_name": "Dave", "in_fellowship": true, "fellowship_name": "AA Tuesday group"})
			patch(serviceToken, "", map[string]any{"in_fellowship": false})
			// An operator records the new sponsor.
			patch(adminToken, "?actor=operator", map[string]any{"sponsor_name": "Linda"})

			_, list := c.do("GET", "/v1/users/u-chi/cues", nil)
			actors := map[string]any{}
			cues, _ := list["cues"].([]any)
			for _, x := range cues {
				cm := x.(map[string]any)
				actors[cm["kind"].(string)] = cm["detail"].(map[string]any)["actor"]
			}
			if actors["fellowship_dropped"] != "user" || actors["sponsor_change"] != "operator" {
				t.Fatalf("cues = %v; want fellowship_dropped by the user and sponsor_change by the operator", list)
			}
			if stored := storedCues(t, url, "u-chi"); !stored["fellowship_dropped"] || !stored["sponsor_change"] {
				t.Fatalf("stored cues = %v", stored)
			}
			_, pack = c.do("GET", "/v1/users/u-chi/context", nil)
			text, _ = pack["text"].(string)
			for _, want := range []string{`Has stopped going to "AA Tuesday group" meetings`, `Sponsor changed from "Dave" to "Linda"`} {
				if !strings.Contains(text, want) {
					t.Errorf("the next pack lacks %q:\n%s", want, text)
				}
			}

			// Analytics: the weeks that exist (none computed yet), not a 400.
			code, weeks := c.do("GET", "/v1/users/u-chi/analytics", nil)
			if list, ok := weeks["weeks"].([]any); code != 200 || !ok || len(list) != 0 || weeks["next_before"] != nil {
				t.Fatalf("analytics without week_ending = %d %v", code, weeks)
			}
			// Trends of a Clara user say when the batch runs next, from the
			// worker's own schedule (the batch may already have run at start).
			clara := c
			clara.token = claraServiceToken
			if code, _ := clara.do("POST", "/v1/sessions/cl-1/close", map[string]any{"user_id": "u-clara", "app": "clara",
				"started_at": at(0), "ended_at": at(10),
				"messages": []map[string]any{{"id": "m1", "role": "user", "content": "Is it Tuesday?", "at": at(1)}}}); code != 202 {
				t.Fatalf("clara close = %d", code)
			}
			code, tr := clara.do("GET", "/v1/users/u-clara/trends", nil)
			next, _ := time.Parse(time.RFC3339, fmt.Sprint(tr["next_run_at"]))
			if code != 200 || (tr["status"] != "pending" && tr["status"] != "ready") || !next.After(time.Now()) {
				t.Fatalf("trends = %d %v; want 200 with status and a next_run_at to come", code, tr)
			}
		})
	}
}
