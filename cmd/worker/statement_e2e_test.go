package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/llm/llmtest"
)

// TestStatementTimeOverHTTP is the report, replayed on a real worker
// process on each database: a session from the 24th ("red") is handed over
// before one from the 20th ("blue"). The newer statement stays true, the
// older one is history that was true in between, and ?as_of answers what was
// true at any time.
func TestStatementTimeOverHTTP(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			say := func(id, day, text string) {
				t.Helper()
				start := day + "T18:00:00Z"
				code, res := c.do("POST", "/v1/sessions/"+id+"/close", map[string]any{
					"user_id": "u-order", "app": "mona", "timezone": "Europe/Berlin",
					"started_at": start, "ended_at": day + "T18:20:00Z",
					"messages": []map[string]any{{"id": "m1", "role": "user", "content": text, "at": day + "T18:01:00Z"}},
				})
				if code != 202 {
					t.Fatalf("close %s = %d %v", id, code, res)
				}
				c.waitProcessed(id)
			}
			say("order-new", "2026-11-24", "My favorite color is red.")
			say("order-old", "2026-11-20", "My favorite color is blue.")

			colors := func(query string) []map[string]any {
				t.Helper()
				code, res := c.do("GET", "/v1/users/u-order/memories"+query, nil)
				if code != 200 {
					t.Fatalf("memories%s = %d %v", query, code, res)
				}
				var out []map[string]any
				for _, m := range res["memories"].([]any) {
					if mm := m.(map[string]any); mm["key"] == "favorite_color" {
						out = append(out, mm)
					}
				}
				return out
			}
			now := colors("")
			if len(now) != 1 || now[0]["value"] != "red" || now[0]["stated_at"] != "2026-11-24T18:01:00Z" {
				t.Fatalf("active favorite_color = %v; want red, stated on the 24th", now)
			}
			if now[0]["recorded_at"] == "" || now[0]["invalidated_at"] != nil {
				t.Fatalf("red = %v; want a recorded_at and no invalidated_at", now[0])
			}
			_, pack := c.do("GET", "/v1/users/u-order/context", nil)
			if text, _ := pack["text"].(string); !strings.Contains(text, "red") || strings.Contains(text, "blue") {
				t.Fatalf("the context pack says %q; want red and not blue", text)
			}
			var blue map[string]any
			for _, m := range colors("?status=all") {
				if m["value"] == "blue" {
					blue = m
				}
			}
			if blue == nil || blue["status"] != "deprecated" || blue["invalidated_at"] != "2026-11-24T18:01:00Z" || blue["invalidated_by"] != now[0]["id"] {
				t.Fatalf("blue = %v; want deprecated, invalidated on the 24th by %v", blue, now[0]["id"])
			}
			for asOf, want := range map[string]string{
				"2026-11-19T12:00:00Z": "",
				"2026-11-22T12:00:00Z": "blue",
				"2026-11-24T18:01:00Z": "red",
				"2026-11-25T00:00:00Z": "red",
			} {
				got := colors("?as_of=" + asOf)
				switch {
				case want == "" && len(got) != 0, want != "" && (len(got) != 1 || got[0]["value"] != want):
					t.Errorf("as_of %s: favorite_color = %v; want %q", asOf, got, want)
				}
			}
			if code, _ := c.do("GET", "/v1/users/u-order/memories?as_of=last+week", nil); code != 400 {
				t.Errorf("as_of=last week = %d; want 400", code)
			}

			// The user asks to forget the colour; a session from before
			// that, handed over late, does not bring it back.
			if code, _ := c.do("DELETE", "/v1/users/u-order/memories/"+now[0]["id"].(string), nil); code != 204 {
				t.Fatalf("forget = %d", code)
			}
			say("order-late", "2026-11-22", "My favorite color is green.")
			if got := colors(""); len(got) != 0 {
				t.Fatalf("after forgetting, a late session made favorite_color %v", got)
			}
		})
	}
}

var (
	sponsorSaid = regexp.MustCompile(`my sponsor is (\w+)`)
	daysSaid    = regexp.MustCompile(`(\d+) days sober`)
)

// TestProfileStatementTimeOverHTTP: the user edits their sponsor today; an
// Elder Tree session from last week, handed over late, names the old one.
// The edit stands, the late value is history that was true back then, and
// as_of shows each field's value with when it was stated and replaced.
func TestProfileStatementTimeOverHTTP(t *testing.T) {
	t.Parallel()
	llm := llmtest.NewServer(t)
	llm.SetDefault(func(r llmtest.Request) llmtest.Reply {
		text := ""
		for _, m := range r.Messages {
			text += m.Content + "\n"
		}
		updates := map[string]any{}
		if m := sponsorSaid.FindStringSubmatch(text); m != nil {
			updates["sponsor_name"] = m[1]
		}
		if m := daysSaid.FindStringSubmatch(text); m != nil {
			var n int
			_ = json.Unmarshal([]byte(m[1]), &n)
			updates["sobriety_days"] = n
		}
		answer, _ := json.Marshal(map[string]any{"profile_updates": updates, "session_summary": map[string]any{
			"urge_intensity": nil, "primary_trigger": nil, "resistance_strategy_used": nil, "outcome": "urge_passed",
			"key_insights": []string{}, "emotional_state_start": "calm", "emotional_state_end": "calm", "follow_up_needed": nil}})
		return llmtest.Valid(string(answer))
	})
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, llm)
			session := func(id string, end time.Time, text string) {
				t.Helper()
				code, res := c.do("POST", "/v1/sessions/"+id+"/close", map[string]any{
					"user_id": "u-sponsor", "app": "eldertree", "timezone": "America/Chicago",
					"started_at": end.Add(-20 * time.Minute).Format(time.RFC3339), "ended_at": end.Format(time.RFC3339),
					"messages": []map[string]any{{"id": "m1", "role": "user", "content": text, "at": end.Add(-10 * time.Minute).Format(time.RFC3339)}},
				})
				if code != 202 {
					t.Fatalf("close %s = %d %v", id, code, res)
				}
				c.waitProcessed(id)
			}
			today := time.Now().UTC().Truncate(time.Second)
			session("s-recent", today.Add(-2*time.Hour), "I am 30 days sober and my sponsor is Dave")
			if code, res := c.do("PATCH", "/v1/users/u-sponsor/profile", map[string]any{"sponsor_name": "Linda"}); code != 200 {
				t.Fatalf("PATCH = %d %v", code, res)
			}
			lastWeek := today.Add(-7 * 24 * time.Hour)
			session("s-late", lastWeek, "I am 23 days sober and my sponsor is Mark")

			_, res := c.do("GET", "/v1/users/u-sponsor/profile", nil)
			profile := res["profile"].(map[string]any)
			if profile["sponsor_name"] != "Linda" || profile["sobriety_days"] != float64(30) {
				t.Fatalf("profile = %v; want Linda (the user's edit) and 30 days (the newest session)", profile)
			}
			fields := res["fields"].(map[string]any)
			if f := fields["sponsor_name"].(map[string]any); f["stated_by"] != "user" {
				t.Fatalf("sponsor_name stated by %v; want the user's edit", f)
			}

			asOf := lastWeek.Add(time.Hour).Format(time.RFC3339)
			code, res := c.do("GET", "/v1/users/u-sponsor/profile?as_of="+asOf, nil)
			if code != 200 {
				t.Fatalf("profile as_of = %d %v", code, res)
			}
			then := res["profile"].(map[string]any)
			if then["sponsor_name"] != "Mark" || then["sobriety_days"] != float64(23) {
				t.Fatalf("profile as of last week = %v; want Mark and 23 days, as the late session said", then)
			}
			sponsor := res["fields"].(map[string]any)["sponsor_name"].(map[string]any)
			if sponsor["stated_by"] != "s-late" || sponsor["invalidated_by"] != "s-recent" {
				t.Fatalf("sponsor_name as of last week = %v; want stated by s-late, replaced by s-recent", sponsor)
			}

			// A fresh start: a session from before it, handed over late,
			// leaves the profile empty.
			if code, res := c.do("DELETE", "/v1/users/u-sponsor/profile", nil); code/100 != 2 {
				t.Fatalf("DELETE profile = %d %v", code, res)
			}
			session("s-later", lastWeek.Add(time.Hour), "I am 24 days sober and my sponsor is Mark")
			if code, res := c.do("GET", "/v1/users/u-sponsor/profile", nil); code != 404 {
				t.Fatalf("after a fresh start, a late session left the profile %d %v", code, res)
			}
		})
	}
}

// TestEventDateOverHTTP: "next Friday" is kept as the date it names, in the
// user's zone, and the event stays remembered until after that day.
func TestEventDateOverHTTP(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			berlin, err := time.LoadLocation("Europe/Berlin")
			if err != nil {
				t.Fatal(err)
			}
			said := time.Now().Add(-time.Hour).Truncate(time.Second)
			code, res := c.do("POST", "/v1/sessions/wedding/close", map[string]any{
				"user_id": "u-wedding", "app": "mona", "timezone": "Europe/Berlin",
				"started_at": said.Add(-time.Minute).UTC().Format(time.RFC3339), "ended_at": said.Add(time.Minute).UTC().Format(time.RFC3339),
				"messages": []map[string]any{{"id": "m1", "role": "user", "content": "My sister's wedding is next Friday.", "at": said.UTC().Format(time.RFC3339)}},
			})
			if code != 202 {
				t.Fatalf("close = %d %v", code, res)
			}
			c.waitProcessed("wedding")
			// The first Friday after the day it was said, in Berlin.
			day := said.In(berlin)
			friday := time.Date(day.Year(), day.Month(), day.Day()+1, 12, 0, 0, 0, berlin)
			for friday.Weekday() != time.Friday {
				friday = friday.AddDate(0, 0, 1)
			}
			_, list := c.do("GET", "/v1/users/u-wedding/memories", nil)
			var event map[string]any
			for _, m := range list["memories"].([]any) {
				if mm := m.(map[string]any); strings.HasPrefix(mm["key"].(string), "event:") {
					event = mm
				}
			}
			if event == nil || event["event_date"] != friday.Format(time.DateOnly) || event["wording"] != "next Friday" {
				t.Fatalf("event = %v; want event_date %s and wording \"next Friday\"", event, friday.Format(time.DateOnly))
			}
			if v, _ := event["value"].(string); strings.Contains(strings.ToLower(v), "friday") {
				t.Fatalf("the event's value %q keeps the relative words, which are wrong a week later", v)
			}
			expires, err := time.Parse(time.RFC3339Nano, event["expires_at"].(string))
			if err != nil || !expires.After(friday.Add(24*time.Hour)) {
				t.Fatalf("expires_at = %v; want after the wedding day %s", event["expires_at"], friday.Format(time.DateOnly))
			}
		})
	}
}
