package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// closeAndWait hands a session over and waits until it is processed.
func (c client) closeAndWait(id string, body map[string]any) map[string]any {
	c.t.Helper()
	if code, res := c.do("POST", "/v1/sessions/"+id+"/close", body); code != 202 {
		c.t.Fatalf("close %s = %d %v", id, code, res)
	}
	return c.waitProcessed(id)
}

func sessionRecords(s map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	list, _ := s["records"].([]any)
	for _, r := range list {
		rec := r.(map[string]any)
		out[rec["kind"].(string)+"/"+rec["key"].(string)], _ = rec["data"].(map[string]any)
	}
	return out
}

func event(kind string, min int, data map[string]any) map[string]any {
	return map[string]any{"kind": kind, "at": at(min), "data": data}
}

// TestClaraEndToEnd: a caregiver sees the session's dominant emotion and the
// chronic-repetition flag; the next session's context pack holds nothing
// from earlier sessions.
func TestClaraEndToEnd(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			c.token = claraServiceToken
			events := []map[string]any{
				event("emotion", 1, map[string]any{"emotion": "anxious", "confidence": 0.8, "distress_score": 0.7, "trajectory": "escalating"}),
				event("emotion", 2, map[string]any{"emotion": "anxious", "confidence": 0.7, "distress_score": 0.6, "trajectory": "stable"}),
				event("narrative", 3, map[string]any{"narrative_id": "garden-01", "mode": "seed", "category": "calming_story"}),
				event("emotion", 4, map[string]any{"emotion": "calm", "confidence": 0.9, "distress_score": 0.2, "trajectory": "de-escalating"}),
			}
			for i := 1; i <= 5; i++ {
				events = append(events, event("question", 4+i, map[string]any{"fingerprint": "", "question_type": "location", "repeat_count": i}))
			}
			s := c.closeAndWait("c-1", map[string]any{"user_id": "u-rose", "app": "clara", "started_at": at(0), "ended_at": at(20),
				"messages": []map[string]any{
					{"id": "m1", "role": "user", "content": "Where am I? My daughter Margaret lives in Leeds.", "at": at(1)},
					{"id": "m2", "role": "assistant", "content": "You're safe at home.", "at": at(2)},
				},
				"events": events})
			sum, _ := s["summary"].(map[string]any)
			if sum["dominant_emotion"] != "anxious" || sum["escalation_triggered"] != false || sum["duration_minutes"] != float64(20) || sum["message_count"] != float64(2) {
				t.Fatalf("clara summary = %v", sum)
			}
			rep := sessionRecords(s)["repetition/c-1"]
			if rep["chronic_repetition_pattern"] != true {
				t.Fatalf("repetition record = %v; five location questions make a chronic pattern", rep)
			}
			if raw, _ := json.Marshal(s); strings.Contains(string(raw), "Margaret") {
				t.Fatal("the caregiver view quotes the user")
			}
			code, pack := c.do("GET", "/v1/users/u-rose/context", nil)
			if code != 200 || pack["text"] != "" || pack["tokens"] != float64(0) {
				t.Fatalf("clara context pack = %d %v; want empty: no cross-session data", code, pack)
			}
		})
	}
}

// labelRE finds emotional labels about the child (docs/presets.md, LaRa:
// emotional counts).
var labelRE = regexp.MustCompile(`(?i)\b(child|user|kid|he|she)\s+(is|was|seems)\s+(anxious|sad|angry|frustrated|upset)`)

// TestLaraEndToEnd: mastery rises after a run of successful attempts, no
// transcript is kept, and nothing labels the child.
func TestLaraEndToEnd(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			var events []map[string]any
			for i := 0; i < 6; i++ {
				events = append(events, event("attempt", 1+i, map[string]any{"concept": "counting", "difficulty": 1, "success": true}))
			}
			events = append(events, event("mood", 8, map[string]any{"state": "frustrated", "confidence": 0.9}),
				event("mood", 9, map[string]any{"state": "recovered", "confidence": 0.9}))
			s := c.closeAndWait("l-1", map[string]any{"user_id": "u-leo", "app": "lara", "started_at": at(0), "ended_at": at(15),
				"messages": []map[string]any{
					{"id": "m1", "role": "user", "content": "I like dinosaurs! Counting is fun-zebra.", "at": at(1)},
					{"id": "m2", "role": "assistant", "content": "The child is anxious today, let's go slow.", "at": at(2)},
				},
				"events": events})
			if s["transcript_retained"] != false {
				t.Fatal("LaRa keeps no transcript once processed")
			}
			learning := sessionRecords(s)["learning/counting"]
			if learning["mastery_level"] == nil || learning["mastery_level"].(float64) < 1 || learning["successful_attempts"] != float64(6) {
				t.Fatalf("learning record = %v; want mastery ≥ 1 after six successes", learning)
			}
			if sum, _ := s["summary"].(map[string]any); sum["current_concept"] != "counting" || sum["frustration_events"] != float64(1) {
				t.Fatalf("lara summary = %v", s["summary"])
			}
			raw, _ := json.Marshal(s)
			_, pack := c.do("GET", "/v1/users/u-leo/context", nil)
			packRaw, _ := json.Marshal(pack)
			for _, b := range [][]byte{raw, packRaw} {
				if labelRE.Match(b) || bytes.Contains(b, []byte("fun-zebra")) {
					t.Fatalf("a label or transcript text was stored: %s", b)
				}
			}
			if !strings.Contains(pack["text"].(string), `"counting": mastery`) || pack["tokens"].(float64) > 300 {
				t.Fatalf("lara context pack = %v", pack)
			}
			if chunks := countChunks(t, url, "l-1"); chunks != 0 {
				t.Fatalf("%d transcript chunks left for a LaRa session", chunks)
			}
		})
	}
}

func countChunks(t *testing.T, url, session string) int {
	t.Helper()
	chunks, err := openTestStore(t, url).ListChunks(context.Background(), session)
	if err != nil {
		t.Fatal(err)
	}
	return len(chunks)
}

// TestCoachEndToEnd: the transcript is kept, encrypted (no plaintext in the
// database), and goals are derived from the summaries.
func TestCoachEndToEnd(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			secret := "quixotic-marmalade-lighthouse"
			s := c.closeAndWait("k-1", map[string]any{"user_id": "u-ana", "app": "coach", "started_at": at(0), "ended_at": at(45),
				"messages": []map[string]any{
					{"id": "m1", "role": "user", "content": "My goal is to lead my team with more confidence.", "at": at(1)},
					{"id": "m2", "role": "assistant", "content": "Tell me about the " + secret + " you mentioned last time.", "at": at(2)},
					{"id": "m3", "role": "user", "content": "I realize I avoid hard conversations. I will schedule one-on-ones this week.", "at": at(3)},
				}})
			sum, _ := s["summary"].(map[string]any)
			lines := strings.Count(sum["summary"].(string), "\n") + 1
			if s["transcript_retained"] != true || lines < 8 || lines > 12 || len(sum["action_steps"].([]any)) != 1 {
				t.Fatalf("coach session = %v", s)
			}
			code, prof := c.do("GET", "/v1/users/u-ana/profile", nil)
			doc, _ := prof["profile"].(map[string]any)
			goals, _ := doc["goals"].([]any)
			if code != 200 || len(goals) != 1 || !strings.Contains(strings.ToLower(goals[0].(string)), "lead my team") {
				t.Fatalf("coach profile = %d %v", code, prof)
			}
			if chunks := countChunks(t, url, "k-1"); chunks == 0 {
				t.Fatal("coach's transcript was not kept")
			}
			if strings.HasPrefix(url, "sqlite://") {
				path := strings.TrimPrefix(url, "sqlite://")
				for _, f := range []string{path, path + "-wal"} {
					b, _ := os.ReadFile(f)
					if bytes.Contains(b, []byte(secret)) {
						t.Fatalf("%s holds transcript plaintext", filepath.Base(f))
					}
				}
			} else {
				var n int
				st := openTestStore(t, url)
				chunks, err := st.ListChunks(context.Background(), "k-1")
				if err != nil {
					t.Fatal(err)
				}
				for _, ch := range chunks {
					if bytes.Contains(ch.Ciphertext, []byte(secret)) {
						n++
					}
				}
				if n > 0 {
					t.Fatal("a stored chunk holds transcript plaintext")
				}
			}
		})
	}
}

// TestElderTreeContextPack: after four sessions the pack holds the last
// three summaries and stays under 600 tokens.
func TestElderTreeContextPack(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			triggers := []string{"conflict", "loneliness", "late_night_phone", "payday"}
			for i, trig := range triggers {
				start := i * 60
				c.closeAndWait(fmt.Sprintf("et-%d", i), map[string]any{"user_id": "u-sam", "app": "eldertree", "started_at": at(start), "ended_at": at(start + 30),
					"messages": []map[string]any{{"id": "m1", "role": "user", "content": "Rough day.", "at": at(start + 1)}},
					"events":   []map[string]any{event("urge", start+2, map[string]any{"intensity": 5 + i, "trigger": trig, "strategy": "called_sponsor", "outcome": "urge_passed"})}})
			}
			code, pack := c.do("GET", "/v1/users/u-sam/context", nil)
			text, _ := pack["text"].(string)
			if code != 200 || pack["tokens"].(float64) > 600 || pack["budget_tokens"] != float64(600) {
				t.Fatalf("eldertree pack = %d %v", code, pack)
			}
			for _, trig := range triggers[1:] {
				if !strings.Contains(text, trig) {
					t.Fatalf("the pack misses one of the last three sessions (%s):\n%s", trig, text)
				}
			}
			if strings.Contains(text, "conflict") {
				t.Fatalf("the pack holds a fourth, older session:\n%s", text)
			}
			code, small := c.do("GET", "/v1/users/u-sam/context?budget_tokens=40", nil)
			if code != 200 || small["tokens"].(float64) > 40 {
				t.Fatalf("pack at 40 tokens = %v", small)
			}
			if code, _ := c.do("GET", "/v1/users/u-sam/context?budget_tokens=-1", nil); code != 400 {
				t.Fatalf("negative budget = %d; want 400", code)
			}
		})
	}
}

// TestOperatorAppsDir: an operator's app folder is loaded at start without
// recompiling; a malformed one stops the worker with a clear error.
func TestOperatorAppsDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	app := filepath.Join(dir, "journal")
	if err := os.MkdirAll(app, 0o755); err != nil {
		t.Fatal(err)
	}
	policy := `{"name":"journal","rules":"mona","prompt_version":"journal-1","llm":false,"transcript_retention":"0s","fallback_retention":"0s",
		"memory_ttl":{"feeling":"6h"},"min_confidence":0.5,"context_budget_tokens":200,"rolling_summary_every":0,"max_input_tokens":4000}`
	if err := os.WriteFile(filepath.Join(app, "policy.json"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	w := startWorker(t, map[string]string{"DATABASE_URL": "sqlite://" + filepath.Join(t.TempDir(), "m.db"), "MNEMO_APPS_DIR": dir,
		"MNEMO_ENCRYPTION_KEY": "k:operator apps test passphrase", "MNEMO_POLL_INTERVAL": "50ms", "MNEMO_API_TOKENS": "service:" + serviceToken})
	c := client{t: t, base: "http://" + w.addr}
	c.closeAndWait("j-1", map[string]any{"user_id": "u-j", "app": "journal", "started_at": at(0), "ended_at": at(5),
		"messages": []map[string]any{{"id": "m1", "role": "user", "content": "My favorite tea is jasmine.", "at": at(1)}}})
	if mems := memoriesByKey(t, c, "u-j"); mems["favorite_tea"]["value"] != "jasmine" {
		t.Fatalf("operator app memories = %v", mems)
	}

	if err := os.WriteFile(filepath.Join(app, "policy.json"), []byte(`{"name":"journal","llm":true,`), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	code := run(context.Background(), []string{"serve"}, mapEnv(map[string]string{"MNEMO_APPS_DIR": dir, "DATABASE_URL": "sqlite://" + filepath.Join(t.TempDir(), "x.db")}),
		strings.NewReader(""), io.Discard, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "journal") || !strings.Contains(stderr.String(), "policy.json") {
		t.Fatalf("malformed app folder: exit %d, %q; want a clear error naming the folder and file", code, stderr.String())
	}
}

// TestDemo runs the newcomer's first command and checks it explains itself:
// each sample conversation beside what was remembered, what was dropped and
// why, and its summary as text; then what every preset holds and packs.
func TestDemo(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"demo", "--dir", t.TempDir()}, mapEnv(nil), strings.NewReader(""), &out, &errOut)
	if code != 0 {
		t.Fatalf("demo exit %d: %s", code, errOut.String())
	}
	text := out.String()
	for _, want := range []string{
		"== clara", "chronic repetition pattern yes", "== coach", "Goal:", "== eldertree", "RECENT MOMENTUM",
		"== lara", "mastery", "== mona", "[deprecated]",
		// The conversation, and what it left.
		"m1  user      Hi Mona! My name is Peggy.",
		`name = "Peggy" (fact, from m1)`,
		`favorite_food = "sushi" (preference, from m1; replaces "ramen")`,
		// What was dropped, and why.
		"m5       uncertain: hedged",
		"m6       about_person: about another person",
		"m7       sensitive:password: holds a password: nothing of the message is kept",
		"m4       guard:emotional_label:",
		// A summary as text, not JSON.
		"  A 25-minute session of 8 messages, 5 from the user. The user seemed anxious at first\n",
		"  dominant emotion: calm\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, `{"`) {
			t.Errorf("demo prints JSON rather than text: %q", line)
		}
		if strings.Contains(line, "hunter2") && !demoTurn.MatchString(line) {
			t.Errorf("the password of a sample conversation is printed outside the conversation: %q", line)
		}
	}
}

// demoTurn is a line of a conversation the demo prints.
var demoTurn = regexp.MustCompile(`^  m[0-9]+ +user `)
