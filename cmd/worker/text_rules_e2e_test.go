package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestElderTreeFromTextOverHTTP is issue 12's report, replayed on a real
// worker without an LLM on each database: an Elder Tree session with no
// events, only the user's words. The relapse is the session's outcome, a
// relapse cue is raised, the profile learns the new sponsor (a sponsor_change
// cue) and that meetings stopped (fellowship_dropped), the dated drink
// resets the sobriety streak stated before, and the next
// session's pack says so.
func TestElderTreeFromTextOverHTTP(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			session := func(id string, start int, said ...string) {
				t.Helper()
				var msgs []map[string]any
				for i, text := range said {
					msgs = append(msgs, map[string]any{"id": id + "-m" + string(rune('a'+i)), "role": "user", "content": text, "at": at(start + i + 1)})
				}
				code, res := c.do("POST", "/v1/sessions/"+id+"/close", map[string]any{
					"user_id": "u-text", "app": "eldertree", "started_at": at(start), "ended_at": at(start + 20), "messages": msgs,
				})
				if code != 202 {
					t.Fatalf("close %s = %d %v", id, code, res)
				}
			}
			session("t-1", 0, "My sponsor is Dave and I go to AA.", "I've been sober for 40 days.")
			c.waitProcessed("t-1")
			if cues := storedCues(t, url, "u-text"); len(cues) != 0 {
				t.Fatalf("cues after the first session = %v; want none", cues)
			}

			session("t-2", 60, "I drank on Saturday at my cousin's birthday party.",
				"I stopped going to meetings. My new sponsor is Linda.")
			s := c.waitProcessed("t-2")
			sum, _ := s["summary"].(map[string]any)
			if sum["outcome"] != "relapsed" || sum["primary_trigger"] != "cousin's birthday party" {
				t.Fatalf("summary = %v; want outcome relapsed, trigger cousin's birthday party", sum)
			}
			_, prof := c.do("GET", "/v1/users/u-text/profile", nil)
			doc, _ := prof["profile"].(map[string]any)
			// The drink on Saturday resets the count stated in the first
			// session: the streak starts again the day after it.
			said := base.Add(61 * time.Minute)
			start, err := time.Parse(time.DateOnly, fmt.Sprint(doc["recovery_start_date"]))
			days := said.Truncate(24*time.Hour).Sub(start).Hours() / 24
			if doc["sponsor_name"] != "Linda" || doc["in_fellowship"] != false || err != nil ||
				start.Weekday() != time.Saturday || days < 0 || days > 7 || doc["sobriety_days"] != days {
				t.Fatalf("profile = %v; want sponsor Linda, not in a fellowship, the 40 days stated earlier reset by the drink on the last Saturday", doc)
			}
			cues := storedCues(t, url, "u-text")
			for _, k := range []string{"relapse", "sponsor_change", "fellowship_dropped"} {
				if !cues[k] {
					t.Errorf("cues = %v; want %s", cues, k)
				}
			}
			_, pack := c.do("GET", "/v1/users/u-text/context", nil)
			text, _ := pack["text"].(string)
			for _, want := range []string{"relapsed", "A relapse was recorded", `Sponsor changed from "Dave" to "Linda"`, `Has stopped going to "AA" meetings`} {
				if !strings.Contains(text, want) {
					t.Errorf("the next pack lacks %q:\n%s", want, text)
				}
			}

			// Someone else's relapse, a near miss and a hypothetical leave
			// the outcome alone.
			session("t-3", 120, "My brother relapsed.", "I almost drank.", "If I drink, I lose everything.")
			s = c.waitProcessed("t-3")
			if sum, _ := s["summary"].(map[string]any); sum["outcome"] == "relapsed" {
				t.Fatalf("summary = %v; want no relapse", sum)
			}
		})
	}
}
