package handoff_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/prompts"
)

const goodBody = `{"user_id":"u-1","app":"mona","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z",
 "timezone":"Europe/Berlin","display_name":"Peggy",
 "messages":[{"id":"m1","role":"user","content":"my name is John","at":"2026-11-20T09:00:05Z"}],
 "events":[{"kind":"emotion","at":"2026-11-20T09:00:05Z","message_id":"m1","data":{"emotion":"anxious","confidence":0.8}}]}`

var now = time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)

func TestDecodeAndValidate(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	swap := func(old, new string) string { return strings.Replace(goodBody, old, new, 1) }
	cases := []struct {
		name, session, body, field string
	}{
		{"good", "s-1", goodBody, ""},
		{"invalid utf-8", "s-1", swap("John", "Jo\xffhn"), "body"},
		{"not json", "s-1", "{", "body"},
		{"two values", "s-1", goodBody + " {}", "body"},
		{"unknown field", "s-1", swap(`"app"`, `"ap":1,"app"`), "ap"},
		{"wrong type", "s-1", swap(`"user_id":"u-1"`, `"user_id":7`), "user_id"},
		{"bad timestamp", "s-1", swap("2026-11-20T09:00:00Z", "yesterday"), "started_at"},
		{"unknown app", "s-1", swap(`"mona"`, `"nope"`), "app"},
		{"path traversal id", "../etc", goodBody, "session_id"},
		{"sql in user id", "s-1", swap(`"u-1"`, `"u-1'; DROP TABLE x;--"`), "user_id"},
		{"ended before started", "s-1", swap("09:20:00Z", "08:00:00Z"), "ended_at"},
		{"far future", "s-1", swap("2026-11-20T09:20:00Z", "2027-11-20T09:20:00Z"), "ended_at"},
		{"exponent beyond float64", "s-1", swap("0.8", "0e-99999999999999999999"), "events[0].data.confidence"},
		{"tiny exponent beyond float64", "s-1", swap("0.8", "1E-401"), "events[0].data.confidence"},
		{"bad zone", "s-1", swap("Europe/Berlin", "Mars/Olympus"), "timezone"},
		{"machine-dependent zone", "s-1", swap("Europe/Berlin", "Local"), "timezone"},
		{"bad role", "s-1", swap(`"role":"user"`, `"role":"root"`), "messages[0].role"},
		{"message outside session", "s-1", swap("2026-11-20T09:00:05Z\"}]", "2026-11-22T09:00:05Z\"}]"), "messages[0].at"},
		{"event names unknown message", "s-1", swap(`"message_id":"m1"`, `"message_id":"m9"`), "events[0].message_id"},
		{"event kind", "s-1", swap(`"kind":"emotion"`, `"kind":"Emotion!"`), "events[0].kind"},
		{"event data not object", "s-1", swap(`"data":{"emotion":"anxious","confidence":0.8}`, `"data":[1]`), "events[0].data"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			req, err := handoff.Decode([]byte(c.body))
			if err == nil {
				err = handoff.Validate(c.session, &req, apps, now)
			}
			if c.field == "" {
				if err != nil {
					t.Fatalf("valid body refused: %v", err)
				}
				return
			}
			ve, ok := err.(*handoff.ValidationError)
			if !ok || ve.Field != c.field {
				t.Fatalf("error %v; want a validation error on %s", err, c.field)
			}
			if strings.Contains(err.Error(), "John") {
				t.Fatalf("error quotes message content: %v", err)
			}
		})
	}
}

func TestFingerprintIgnoresFormatting(t *testing.T) {
	t.Parallel()
	a, _ := handoff.Decode([]byte(goodBody))
	b, _ := handoff.Decode([]byte(strings.Join(strings.Fields(goodBody), " ")))
	if handoff.Fingerprint("s-1", a) != handoff.Fingerprint("s-1", b) {
		t.Fatal("the same body reformatted has another fingerprint")
	}
	c := a
	c.Messages = append(c.Messages[:0:0], a.Messages...)
	c.Messages[0].Content = "my name is Jon"
	if handoff.Fingerprint("s-1", a) == handoff.Fingerprint("s-1", c) || handoff.Fingerprint("s-1", a) == handoff.Fingerprint("s-2", a) {
		t.Fatal("different bodies or sessions share a fingerprint")
	}
}

// TestFingerprintIsCanonical: a body sent again by a serializer that orders
// names, escapes strings, writes numbers or offsets its timestamps another
// way is the same session; a body with another value is not (issue 22).
func TestFingerprintIsCanonical(t *testing.T) {
	t.Parallel()
	fp := func(body string) string {
		t.Helper()
		req, err := handoff.Decode([]byte(body))
		if err != nil {
			t.Fatalf("decode %s: %v", body, err)
		}
		return handoff.Fingerprint("s-1", req)
	}
	data := func(d string) string {
		return strings.Replace(goodBody, `{"emotion":"anxious","confidence":0.8}`, d, 1)
	}
	base := fp(goodBody)
	for _, same := range []string{
		data(`{"confidence":0.8,"emotion":"anxious"}`),
		data(`{"confidence":0.80,"emotion":"anxious"}`),
		data(`{"confidence":8e-1,"emotion":"anxious"}`),
		data(`{"confidence":80E-2,"emotion":"\u0061nxious"}`),
		strings.ReplaceAll(goodBody, "Z\"", "+00:00\""),
		strings.Replace(goodBody, `"started_at":"2026-11-20T09:00:00Z"`, `"started_at":"2026-11-20T10:00:00+01:00"`, 1),
		`{"events":[{"data":{"confidence":0.8,"emotion":"anxious"},"message_id":"m1","at":"2026-11-20T09:00:05Z","kind":"emotion"}],
		 "messages":[{"at":"2026-11-20T09:00:05Z","content":"my name is John","role":"user","id":"m1"}],
		 "display_name":"Peggy","timezone":"Europe/Berlin","ended_at":"2026-11-20T09:20:00Z","started_at":"2026-11-20T09:00:00Z","app":"mona","user_id":"u-1"}`,
	} {
		if fp(same) != base {
			t.Errorf("the same session has another fingerprint: %s", same)
		}
	}
	for _, other := range []string{
		data(`{"confidence":0.81,"emotion":"anxious"}`),
		data(`{"confidence":0.8000000000000001,"emotion":"anxious"}`),
		data(`{"confidence":"0.8","emotion":"anxious"}`),
		data(`{"confidence":0.8,"emotion":"Anxious"}`),
		data(`{"confidence":0.8}`),
		data(`{"confidence":0.8,"emotion":"anxious","tags":[]}`),
		strings.Replace(goodBody, "09:00:05Z\",\"message_id", "09:00:06Z\",\"message_id", 1),
	} {
		if fp(other) == base {
			t.Errorf("a different session has the same fingerprint: %s", other)
		}
	}
	// Numbers compare as exact decimals, whatever their notation.
	num := func(n string) string { return fp(data(`{"confidence":` + n + `}`)) }
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"1", "1.0", true}, {"1", "1e0", true}, {"1", "10e-1", true}, {"0", "-0", true}, {"0", "0.000", true},
		{"0.5", "5E-1", true}, {"1", "1.0000000000000001", false}, {"0.1", "0.10000000000000001", false}, {"1", "-1", false},
	} {
		if got := num(c.a) == num(c.b); got != c.same {
			t.Errorf("%s and %s: same fingerprint %v; want %v", c.a, c.b, got, c.same)
		}
	}
	// An event's data of null, {} or none is stored as {}: one session.
	none := fp(data(`{}`))
	if fp(data(`null`)) != none || fp(strings.Replace(goodBody, `,"data":{"emotion":"anxious","confidence":0.8}`, "", 1)) != none {
		t.Error("data of null, {} and none have different fingerprints")
	}
}

// FuzzCloseBody feeds arbitrary bodies to the decoder and validator: they
// never panic, and a body they accept is one a chat service could send.
func FuzzCloseBody(f *testing.F) {
	f.Add([]byte(goodBody))
	f.Add([]byte(`{"user_id":"u","app":"eldertree","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:00:00Z","messages":[]}`))
	f.Add([]byte(`{"messages":[{"id":"","role":"user"}]}`))
	f.Add([]byte("\x00\xff{"))
	apps, err := prompts.Builtin()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := handoff.Decode(body)
		if err != nil {
			return
		}
		if err := handoff.Validate("s-1", &req, apps, now); err != nil {
			if _, ok := err.(*handoff.ValidationError); !ok {
				t.Fatalf("validation failed with %T", err)
			}
			return
		}
		if _, ok := apps[req.App]; !ok || !handoff.ValidID(req.UserID) || req.EndedAt.Before(req.StartedAt) {
			t.Fatalf("accepted an invalid body: %+v", req)
		}
		if handoff.Fingerprint("s-1", req) != handoff.Fingerprint("s-1", req) {
			t.Fatal("the fingerprint of a body changes")
		}
	})
}

// FuzzMessagesBody: the messages body decoder and validator never panic and
// accept only bodies a chat service could send.
func FuzzMessagesBody(f *testing.F) {
	f.Add([]byte(`{"user_id":"u-1","app":"mona","messages":[{"id":"t1","role":"user","content":"hi"}]}`))
	f.Add([]byte(`{"user_id":"u-1","app":"mona","messages":[]}`))
	f.Add([]byte(`{"messages":[{"id":"t1","role":"robot"}]}`))
	apps, err := prompts.Builtin()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := handoff.DecodeMessages(body)
		if err != nil {
			return
		}
		if err := handoff.ValidateMessages("s-1", &req, apps, now); err != nil {
			return
		}
		if len(req.Messages) == 0 || !handoff.ValidID(req.UserID) {
			t.Fatalf("accepted an invalid body: %+v", req)
		}
	})
}

// TestStreamedTurnsAreCheckedAsHandedOverOnes: a streamed turn meets the same
// rules as a turn of a session handed over whole.
func TestStreamedTurnsAreCheckedAsHandedOverOnes(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, messages, field string }{
		{"NUL in content", `[{"id":"m1","role":"user","content":"a\u0000b"}]`, "messages[0].content"},
		{"repeated id", `[{"id":"m1","role":"user","content":"a"},{"id":"m1","role":"user","content":"b"}]`, "messages[1].id"},
		{"bad role", `[{"id":"m1","role":"root","content":"a"}]`, "messages[0].role"},
		{"bad id", `[{"id":"../m1","role":"user","content":"a"}]`, "messages[0].id"},
	} {
		req, err := handoff.DecodeMessages([]byte(`{"user_id":"u-1","app":"mona","messages":` + c.messages + `}`))
		if err == nil {
			err = handoff.ValidateMessages("s-1", &req, apps, now)
		}
		ve, ok := err.(*handoff.ValidationError)
		if !ok || ve.Field != c.field {
			t.Errorf("%s: error %v; want a validation error on %s", c.name, err, c.field)
		}
	}
}
