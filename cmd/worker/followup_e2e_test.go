package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// followupSay hands over a session of turns ("A: …" the companion's, any
// other the user's), a minute apart from at, and waits for its extraction.
func followupSay(t *testing.T, c client, user, app, id string, at time.Time, turns ...string) {
	t.Helper()
	var msgs []map[string]any
	for i, turn := range turns {
		role, text := "user", turn
		if rest, ok := strings.CutPrefix(turn, "A: "); ok {
			role, text = "assistant", rest
		}
		msgs = append(msgs, map[string]any{"id": fmt.Sprint("m", i), "role": role, "content": text,
			"at": at.Add(time.Duration(i+1) * time.Minute).Format(time.RFC3339)})
	}
	code, res := c.do("POST", "/v1/sessions/"+id+"/close", map[string]any{
		"user_id": user, "app": app, "timezone": "UTC",
		"started_at": at.Format(time.RFC3339), "ended_at": at.Add(time.Duration(len(turns)+1) * time.Minute).Format(time.RFC3339),
		"messages": msgs,
	})
	if code != 202 {
		t.Fatalf("close %s = %d %v", id, code, res)
	}
	if s := c.waitProcessed(id); s["status"] != "processed" {
		t.Fatalf("session %s: %v", id, s)
	}
}

// followupMemories are a user's memories of every status.
func followupMemories(t *testing.T, c client, user string) []map[string]any {
	t.Helper()
	code, res := c.do("GET", "/v1/users/"+user+"/memories?status=all", nil)
	if code != 200 {
		t.Fatalf("memories = %d %v", code, res)
	}
	var out []map[string]any
	for _, m := range res["memories"].([]any) {
		out = append(out, m.(map[string]any))
	}
	return out
}

// followupPack is the text of a user's next context pack.
func followupPack(t *testing.T, c client, user string) string {
	t.Helper()
	code, res := c.do("GET", "/v1/users/"+user+"/context", nil)
	if code != 200 {
		t.Fatalf("context = %d %v", code, res)
	}
	text, _ := res["text"].(string)
	return text
}

// spokenDate is how a user names a day: "January 9th".
func spokenDate(d time.Time) string {
	suffix := "th"
	switch d.Day() {
	case 1, 21, 31:
		suffix = "st"
	case 2, 22:
		suffix = "nd"
	case 3, 23:
		suffix = "rd"
	}
	return fmt.Sprintf("%s %d%s", d.Month(), d.Day(), suffix)
}

// TestMemoryFollowsTheConversation is issue 33's two Mona sessions two
// weeks apart, on a real worker on each database (the rules, no model):
// the first tells where the user lives (in answer to the companion's
// question), a list of what they are into, a dog that lives elsewhere, a
// nickname, a boyfriend, a job and a sister's wedding; the second moves the
// user to Denver, quits the job for another, ends the relationship and
// moves the wedding. The next pack holds only what holds now; each ended
// memory is history, true until the sentence that ended it, and the
// ending itself is no memory of the present.
func TestMemoryFollowsTheConversation(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			second := time.Now().UTC().Add(-24 * time.Hour).Truncate(time.Minute)
			first := second.Add(-14 * 24 * time.Hour)
			wedding, moved := second.AddDate(0, 0, 10), second.AddDate(0, 0, 31)
			const user = "u-jo"
			followupSay(t, c, user, "mona", "jo-1", first,
				"A: Hi! I'm Mona. Where are you living now?",
				"austin. been here like 3 yrs.",
				"A: Nice! And what do you do?",
				"I'm a barista. I work at a coffee roaster downtown",
				"A: What do you like to do for fun?",
				"stuff I'm into: bouldering, true crime podcasts, thrifting, and bad reality tv",
				"A: Any pets?",
				"I do have a dog, Pickles, but he lives at my mom's place",
				"im Jordan btw, most ppl call me Jo",
				"my boyfriend Marcus is a chef",
				"my sister Kayla is getting married on "+spokenDate(wedding))
			before := followupPack(t, c, user)
			for _, want := range []string{`Lives in: "Austin"`, `"coffee roaster downtown"`, `"Marcus"`, "bouldering", "true crime podcasts", "thrifting", "bad reality tv",
				`"Pickles"`, `Name: "Jordan" (goes by "Jo")`, "wedding"} {
				if !strings.Contains(before, want) {
					t.Errorf("after the first session the pack lacks %s:\n%s", want, before)
				}
			}

			followupSay(t, c, user, "mona", "jo-2", second,
				"A: Hey Jo! How have you been?",
				"actually I moved last month, I'm in Denver now",
				"I quit the roaster too, I'm a dental assistant now",
				"Marcus and I broke up",
				"the wedding got moved to "+spokenDate(moved))
			pack := followupPack(t, c, user)
			for _, want := range []string{`Lives in: "Denver"`, `"dental assistant"`, `"Pickles"`, "bouldering", `goes by "Jo"`, "wedding",
				moved.Format("2 Jan")} {
				if !strings.Contains(pack, want) {
					t.Errorf("after the second session the pack lacks %s:\n%s", want, pack)
				}
			}
			for _, gone := range []string{"Austin", "roaster", "Marcus", "barista", "broke up", "quit", wedding.Format("2 Jan")} {
				if strings.Contains(pack, gone) {
					t.Errorf("after the second session the pack still says %q:\n%s", gone, pack)
				}
			}

			// The history: each ended memory was true until the sentence
			// that ended it.
			at := func(session time.Time, turn int) string {
				return session.Add(time.Duration(turn+1) * time.Minute).Format(time.RFC3339)
			}
			byValue := map[string]map[string]any{}
			for _, m := range followupMemories(t, c, user) {
				byValue[m["key"].(string)+"="+m["value"].(string)] = m
			}
			for kv, until := range map[string]string{
				"lives_in=Austin": at(second, 1), "occupation=barista": at(second, 2),
				"works_at=coffee roaster downtown": at(second, 2), "family:boyfriend=Marcus": at(second, 3),
			} {
				m := byValue[kv]
				if m == nil || m["status"] != "deprecated" || m["invalidated_at"] != until {
					t.Errorf("%s = %v; want deprecated, true until %s", kv, m, until)
				}
			}
			for kv, said := range map[string]string{"family:boyfriend=Marcus (broke up)": at(second, 3), "works_at=coffee roaster downtown (quit)": at(second, 2)} {
				if m := byValue[kv]; m == nil || m["status"] != "expired" || m["stated_at"] != said {
					t.Errorf("the ending %s = %v; want stored expired, said at %s", kv, m, said)
				}
			}
			// A third session: the dog died.
			followupSay(t, c, user, "mona", "jo-3", second.Add(12*time.Hour),
				"A: How's everyone at home?",
				"sadly Pickles passed away last week")
			if pack := followupPack(t, c, user); strings.Contains(pack, "Pickles") || !strings.Contains(pack, `Lives in: "Denver"`) {
				t.Errorf("after the dog died the pack is:\n%s\nwant no Pickles, and the rest as it was", pack)
			}
			for _, m := range followupMemories(t, c, user) {
				if m["key"] == "pet:dog" && m["value"] == "Pickles" && (m["status"] != "deprecated" || m["invalidated_at"] != at(second.Add(12*time.Hour), 1)) {
					t.Errorf("Pickles = %v; want deprecated when the user said he died", m)
				}
			}
			for _, m := range followupMemories(t, c, user) {
				if strings.HasPrefix(m["key"].(string), "event:") && strings.Contains(m["value"].(string), "wedding") {
					if m["status"] != "active" || m["event_date"] != moved.Format(time.DateOnly) {
						t.Errorf("the wedding = %v; want active on %s", m, moved.Format(time.DateOnly))
					}
				}
				if strings.HasPrefix(m["key"].(string), "event:") && strings.Contains(m["value"].(string), "quit") {
					t.Errorf("quitting the job made the event %v", m)
				}
			}
		})
	}
}

// TestHedgesAndSarcasmAreNoFacts: what the user says loosely, sarcastically
// or takes back, and what the companion says of itself, leaves nothing in
// the pack; a plain like beside them is kept (both databases).
func TestHedgesAndSarcasmAreNoFacts(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			const user = "u-hedges"
			followupSay(t, c, user, "mona", "hedges-1", time.Now().UTC().Add(-time.Hour).Truncate(time.Minute),
				"A: How's your week going?",
				"I just LOVE mondays",
				"I love getting stuck in traffic, best part of my day",
				"I'm vegan-ish",
				"I'm a nurse. well, I was, until last year",
				"idk, I like jazz",
				"A: I love mondays myself! I'm a nurse too, and I live in Lisbon. I just got engaged!",
				"omg I'm so happy for you! I love that for you",
				"I love hiking though")
			pack := followupPack(t, c, user)
			if !strings.Contains(pack, "hiking") {
				t.Errorf("the pack lacks the plain like of hiking:\n%s", pack)
			}
			for _, gone := range []string{"monday", "traffic", "vegan", "nurse", "jazz", "Lisbon", "happy", "engaged", "feeling"} {
				if strings.Contains(strings.ToLower(pack), strings.ToLower(gone)) {
					t.Errorf("the pack says %q:\n%s", gone, pack)
				}
			}
			for _, m := range followupMemories(t, c, user) {
				if m["key"] != "likes:hiking" {
					t.Errorf("stored %s = %q", m["key"], m["value"])
				}
			}
		})
	}
}

// TestNotesBehindTheSetting: an app whose policy turns notes on keeps a
// disclosure no rule keys as a note, told after the keyed memories; Mona,
// with notes off, keeps none of it (both databases).
func TestNotesBehindTheSetting(t *testing.T) {
	t.Parallel()
	apps := t.TempDir()
	dir := filepath.Join(apps, "jo")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "..", "prompts", "mona")
	files, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(src, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if f.Name() == "policy.json" {
			s := strings.Replace(string(b), `"name": "mona"`, `"name": "jo"`, 1)
			s = strings.Replace(s, `"llm": true`, `"llm": false, "notes": true`, 1)
			if s == string(b) {
				t.Fatal("mona's policy.json changed shape; the test cannot make its copy")
			}
			b = []byte(s)
		}
		if err := os.WriteFile(filepath.Join(dir, f.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startMemoryOffWorker(t, url, apps)
			at := time.Now().UTC().Add(-time.Hour).Truncate(time.Minute)
			turns := []string{"A: Tell me about your weekends?", "I take care of my grandma on weekends. I love hiking. I can see why."}
			followupSay(t, c, "u-notes", "jo", "notes-1", at, turns...)
			followupSay(t, c, "u-nonotes", "mona", "notes-2", at, turns...)
			pack := followupPack(t, c, "u-notes")
			if !strings.Contains(pack, `Note: "takes care of their grandma on weekends"`) || strings.Index(pack, "Note:") < strings.Index(pack, "hiking") {
				t.Errorf("with notes on, the pack is:\n%s\nwant the note after the keyed like", pack)
			}
			if n := strings.Count(pack, "Note:"); n != 1 {
				t.Errorf("%d notes in the pack, want 1 ('I can see why' is talk):\n%s", n, pack)
			}
			if pack := followupPack(t, c, "u-nonotes"); strings.Contains(pack, "grandma") || !strings.Contains(pack, "hiking") {
				t.Errorf("with notes off (Mona), the pack is:\n%s", pack)
			}
		})
	}
}
