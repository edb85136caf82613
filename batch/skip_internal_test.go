package batch

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

// FuzzPageUsers: whatever bytes a user's profile, summary or event holds,
// reading a page never fails or panics; that user is read or skipped with
// a reason, and the readable user beside them is always read in full.
func FuzzPageUsers(f *testing.F) {
	for _, s := range []string{`{"intensity":1e400}`, `{"distress_score":-1e999}`, `{"a":1}`, `null`, `[]`, `{`, `"x"`, `{"a":[1,1e400]}`, ``} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(2))
	}
	at := time.Date(2026, 11, 12, 20, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, raw []byte, where uint8) {
		p := store.SessionPage{
			Users: []store.PageUser{{ID: "a"}, {ID: "b"}},
			Sessions: []store.PageSession{{ID: "sa", UserID: "a", StartedAt: at, EndedAt: at},
				{ID: "sb", UserID: "b", StartedAt: at, EndedAt: at, Summary: json.RawMessage(`{"urge_intensity":5}`)}},
			Events: []store.Event{{SessionID: "sa", Type: "urge", At: at, Data: json.RawMessage(`{"intensity":3}`)},
				{SessionID: "sb", Type: "urge", At: at, Data: json.RawMessage(`{"intensity":6}`)}},
			Last: "b",
		}
		switch where % 3 {
		case 0:
			p.Users[0].Profile = raw
		case 1:
			p.Sessions[0].Summary = raw
		case 2:
			p.Events[0].Data = raw
		}
		var reasons []string
		users := pageUsers(p, "eldertree", func(userID, reason string) {
			if userID != "a" {
				t.Fatalf("skipped %s, whose data is readable", userID)
			}
			reasons = append(reasons, reason)
		})
		var b, a bool
		for _, u := range users {
			switch u.UserID {
			case "b":
				b = len(u.Sessions) == 1 && len(u.Sessions[0].Events) == 1 && u.Sessions[0].Summary["urge_intensity"] == 5.0
			case "a":
				a = true
			}
		}
		if !b {
			t.Fatalf("the readable user was not read in full: %+v", users)
		}
		if a == (len(reasons) == 1) {
			t.Fatalf("user a read %v and skipped for %v: want exactly one", a, reasons)
		}
		var probe any
		decodes := len(raw) == 0 || json.Unmarshal(raw, &probe) == nil
		if where%3 == 2 && len(raw) == 0 {
			decodes = false // an event's data is always decoded
		}
		if decodes && where%3 != 2 {
			// A profile or summary of another JSON shape than an object
			// (a list, a string) does not decode into the object either.
			var obj map[string]any
			decodes = len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &obj) == nil
		}
		if where%3 == 2 && decodes {
			var obj map[string]any
			decodes = json.Unmarshal(raw, &obj) == nil
		}
		if a != decodes {
			t.Fatalf("%q at %d: read %v, but json.Unmarshal into an object succeeds: %v", raw, where%3, a, decodes)
		}
	})
}
