package handoff_test

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/prompts"
)

const elderBody = `{"user_id":"u-1","app":"eldertree","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z",
 "messages":[{"id":"m1","role":"user","content":"I had an urge","at":"2026-11-20T09:00:05Z"}],
 "events":[{"kind":"urge","at":"2026-11-20T09:00:05Z","message_id":"m1","data":{"intensity":7,"trigger":"party","outcome":"urge_passed"}}]}`

const claraBody = `{"user_id":"u-2","app":"clara","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z",
 "messages":[],
 "events":[{"kind":"emotion","at":"2026-11-20T09:00:05Z","data":{"emotion":"calm","confidence":0.9,"distress_score":0.2}}]}`

// TestStrictBodies is the list of bad bodies: each is refused with
// the JSON path of the field at fault.
func TestStrictBodies(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	e := func(old, new string) string { return strings.Replace(elderBody, old, new, 1) }
	c := func(old, new string) string { return strings.Replace(claraBody, old, new, 1) }
	cases := []struct{ name, body, field string }{
		{"good eldertree", elderBody, ""},
		{"good clara", claraBody, ""},
		{"intensity 1e400", e(`"intensity":7`, `"intensity":1e400`), "events[0].data.intensity"},
		{"intensity -1e400", e(`"intensity":7`, `"intensity":-1e400`), "events[0].data.intensity"},
		{"intensity 1e16", e(`"intensity":7`, `"intensity":1e16`), "events[0].data.intensity"},
		{"intensity 11", e(`"intensity":7`, `"intensity":11`), "events[0].data.intensity"},
		{"intensity negative", e(`"intensity":7`, `"intensity":-0.5`), "events[0].data.intensity"},
		{"intensity a string", e(`"intensity":7`, `"intensity":"7"`), "events[0].data.intensity"},
		{"distress_score 1e400", c(`"distress_score":0.2`, `"distress_score":1e400`), "events[0].data.distress_score"},
		{"distress_score 1.5", c(`"distress_score":0.2`, `"distress_score":1.5`), "events[0].data.distress_score"},
		{"confidence 2", c(`"confidence":0.9`, `"confidence":2`), "events[0].data.confidence"},
		{"NUL in display_name", c(`"app":"clara"`, `"app":"clara","display_name":"Pe\u0000ggy"`), "display_name"},
		{"NUL in event data", e(`"trigger":"party"`, `"trigger":"pa\u0000rty"`), "events[0].data.trigger"},
		{"NUL in a name", e(`"trigger":"party"`, `"trig\u0000ger":"party"`), "events[0].data"},
		{"NUL in content", e(`"content":"I had an urge"`, `"content":"I had\u0000"`), "messages[0].content"},
		{"duplicate name, other case", e(`"user_id":"u-1"`, `"user_id":"u-1","USER_ID":"b"`), "USER_ID"},
		{"duplicate name", e(`"user_id":"u-1"`, `"user_id":"u-1","user_id":"b"`), "user_id"},
		{"duplicate in data", e(`"intensity":7`, `"intensity":7,"intensity":2`), "events[0].data.intensity"},
		{"case-different name", e(`"user_id"`, `"User_Id"`), "User_Id"},
		{"case-different nested", e(`"role":"user"`, `"Role":"user"`), "messages[0].Role"},
		{"unknown kind", e(`"kind":"urge"`, `"kind":"urges"`), "events[0].kind"},
		{"kind of another app", e(`"kind":"urge"`, `"kind":"attempt"`), "events[0].kind"},
		{"unknown field", e(`"intensity":7`, `"urge_intensity":7`), "events[0].data.urge_intensity"},
		{"bad outcome", e(`"urge_passed"`, `"passed"`), "events[0].data.outcome"},
		{"no messages", strings.Replace(claraBody, `"messages":[],`, ``, 1), "messages"},
		{"null messages", c(`"messages":[]`, `"messages":null`), "messages"},
		{"year 0001 started_at", e(`"started_at":"2026-11-20T09:00:00Z"`, `"started_at":"0001-01-01T00:00:01Z"`), "started_at"},
		{"year 1999 event", e(`"kind":"urge","at":"2026-11-20T09:00:05Z"`, `"kind":"urge","at":"1999-12-31T23:59:59Z"`), "events[0].at"},
		{"event far future", e(`"kind":"urge","at":"2026-11-20T09:00:05Z"`, `"kind":"urge","at":"2030-01-01T00:00:00Z"`), "events[0].at"},
		{"message at year 0001", e(`"at":"2026-11-20T09:00:05Z"}]`, `"at":"0001-01-01T00:00:01Z"}]`), "messages[0].at"},
		{"missing ended_at", e(`"ended_at":"2026-11-20T09:20:00Z",`, ``), "ended_at"},
		{"missing started_at", e(`"started_at":"2026-11-20T09:00:00Z",`, ``), "started_at"},
		{"epoch number", e(`"ended_at":"2026-11-20T09:20:00Z"`, `"ended_at":1763630400`), "ended_at"},
		{"bad timestamp in a message", e(`"at":"2026-11-20T09:00:05Z"}]`, `"at":"yesterday"}]`), "messages[0].at"},
		{"array body", `[1,2]`, "body"},
		{"messages an object", e(`"messages":[`, `"messages":{"a":[`) + "}", "messages"},
		{"deep data", e(`"intensity":7`, `"x":`+strings.Repeat(`{"a":`, 40)+"1"+strings.Repeat("}", 40)), "events[0].data.x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, err := handoff.Decode([]byte(tc.body))
			if err == nil {
				err = handoff.Validate("s-1", &req, apps, now)
			}
			if tc.field == "" {
				if err != nil {
					t.Fatalf("valid body refused: %v", err)
				}
				return
			}
			var ve *handoff.ValidationError
			if !errors.As(err, &ve) || !strings.HasPrefix(ve.Field, tc.field) {
				t.Fatalf("error %v; want a validation error on %s", err, tc.field)
			}
			if strings.Contains(err.Error(), "main.") || strings.Contains(err.Error(), "handoff.") || strings.Contains(err.Error(), "[]interface") {
				t.Fatalf("error leaks a Go type: %v", err)
			}
		})
	}
}

// TestStreamedBodiesStrict: the messages body gets the same checks.
func TestStreamedBodiesStrict(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ body, field string }{
		{`{"user_id":"u-1","app":"mona","messages":[{"id":"m1","role":"user","content":"a"}],"USER_ID":"b"}`, "USER_ID"},
		{`{"user_id":"u-1","app":"mona","messages":[{"id":"m1","role":"user","content":"a","at":"0001-01-01T00:00:00.5Z"}]}`, "messages[0].at"},
		{`{"user_id":"u-1","app":"mona","messages":[{"id":"m1","role":"user","content":"a","at":12}]}`, "messages[0].at"},
		{`{"user_id":"u-1","app":"mona","messages":[{"id":"m1","Content":"a"}]}`, "messages[0].Content"},
	} {
		req, err := handoff.DecodeMessages([]byte(c.body))
		if err == nil {
			err = handoff.ValidateMessages("s-1", &req, apps, now)
		}
		var ve *handoff.ValidationError
		if !errors.As(err, &ve) || ve.Field != c.field {
			t.Errorf("%s: error %v; want a validation error on %s", c.body, err, c.field)
		}
	}
}

// FuzzStrictJSON: CheckJSON never panics, and what it accepts decodes with
// encoding/json into the same type, with every number finite and within
// MaxNumber and no string holding a NUL.
func FuzzStrictJSON(f *testing.F) {
	for _, s := range []string{elderBody, claraBody, `{"a":1e400}`, `{"a":1,"A":2}`, `{"messages":[{"id":"x","at":"0001-01-01T00:00:00Z"}]}`,
		`{"user_id":"\u0000"}`, `[]`, `{"events":[{"data":{"a":[1,{"b":null}]}}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if err := handoff.CheckJSON(body, reflect.TypeFor[handoff.Request]()); err != nil {
			var ve *handoff.ValidationError
			if !errors.As(err, &ve) || ve.Field == "" {
				t.Fatalf("error %v names no field", err)
			}
			return
		}
		var req handoff.Request
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatalf("CheckJSON passed a body encoding/json refuses: %v", err)
		}
		var generic any
		if err := json.Unmarshal(body, &generic); err != nil {
			t.Fatal(err)
		}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case float64:
				if math.IsInf(v, 0) || math.Abs(v) > handoff.MaxNumber {
					t.Fatalf("accepted number %v", v)
				}
			case string:
				if strings.ContainsRune(v, 0) {
					t.Fatal("accepted a NUL")
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			case map[string]any:
				for k, x := range v {
					if strings.ContainsRune(k, 0) {
						t.Fatal("accepted a NUL in a name")
					}
					walk(x)
				}
			}
		}
		walk(generic)
	})
}
