package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCoachDerivedDataSealed: a coach session leaves its summary (quoting
// the user), profile, profile history and display name sealed in the
// database, as its transcript is; the API reads them back as plaintext, and
// a store without the keys cannot. Both databases; on SQLite the file itself
// holds none of the words.
func TestCoachDerivedDataSealed(t *testing.T) {
	t.Parallel()
	for name, url := range databases(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := startWithLLM(t, url, nil)
			goal := "speak up in the zebrafish budget meeting"
			moment := "I realized I stay quiet because of the kumquat incident"
			code, res := c.do("POST", "/v1/sessions/coach-seal/close", map[string]any{
				"user_id": "u-seal", "app": "coach", "display_name": "Philippa Quokka", "timezone": "Europe/Berlin",
				"started_at": at(0), "ended_at": at(40),
				"messages": []map[string]any{
					{"id": "m1", "role": "user", "content": "My goal is to " + goal + ".", "at": at(1)},
					{"id": "m2", "role": "user", "content": moment + ".", "at": at(2)},
					{"id": "m3", "role": "user", "content": "I will book a slot with my manager on Monday.", "at": at(3)},
				},
			})
			if code != 202 {
				t.Fatalf("close = %d %v", code, res)
			}
			s := c.waitProcessed("coach-seal")
			if sum, _ := s["summary"].(map[string]any); !strings.Contains(sum["recognition_moment"].(string), "kumquat") {
				t.Fatalf("the API's summary = %v; want the recognition moment in plaintext", s["summary"])
			}
			_, prof := c.do("GET", "/v1/users/u-seal/profile", nil)
			if goals, _ := prof["profile"].(map[string]any)["goals"].([]any); len(goals) == 0 || !strings.Contains(goals[0].(string), "zebrafish") {
				t.Fatalf("the API's profile = %v; want the goal in plaintext", prof)
			}
			_, pack := c.do("GET", "/v1/users/u-seal/context", nil)
			if !strings.Contains(pack["text"].(string), "zebrafish") {
				t.Fatalf("the context pack lacks the goal: %v", pack["text"])
			}

			// Without the keys, the derived data does not open.
			st := openTestStore(t, url)
			ctx := context.Background()
			if _, err := st.GetSummary(ctx, "coach-seal"); err == nil {
				t.Error("the summary opened without the keys: it is stored in plaintext")
			}
			if _, err := st.GetProfile(ctx, "u-seal"); err == nil {
				t.Error("the profile opened without the keys")
			}
			if _, err := st.ListProfileHistory(ctx, "u-seal"); err == nil {
				t.Error("the profile history opened without the keys")
			}
			if _, err := st.GetUser(ctx, "u-seal"); err == nil {
				t.Error("the user (display name) opened without the keys")
			}
			if name != "sqlite" {
				return
			}
			path := strings.TrimPrefix(url, "sqlite://")
			for _, f := range []string{path, path + "-wal"} {
				b, err := os.ReadFile(f)
				if err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
				for _, word := range []string{"zebrafish", "kumquat", "Quokka"} {
					if bytes.Contains(b, []byte(word)) {
						t.Errorf("%s holds %q in plaintext", filepath.Base(f), word)
					}
				}
			}
		})
	}
}
