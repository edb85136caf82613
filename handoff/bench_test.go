package handoff_test

import (
	"os"
	"reflect"
	"testing"

	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/prompts"
)

// monaBody is the body BenchmarkHandoff (bench/) hands over: a twenty-turn
// Mona session of about 5 KB of transcript and two events, marshalled with
// the bench's t0 fixed at 2026-11-20T09:00:00Z.
func monaBody(tb testing.TB) []byte {
	tb.Helper()
	body, err := os.ReadFile("testdata/mona-5k.json")
	if err != nil {
		tb.Fatal(err)
	}
	return body
}

func BenchmarkCheckJSON(b *testing.B) {
	body := monaBody(b)
	t := reflect.TypeFor[handoff.Request]()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := handoff.CheckJSON(body, t); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	body := monaBody(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := handoff.Decode(body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	apps, err := prompts.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	req, err := handoff.Decode(monaBody(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		r := req
		if err := handoff.Validate("s-1", &r, apps, now); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFingerprint(b *testing.B) {
	req, err := handoff.Decode(monaBody(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		handoff.Fingerprint("s-1", req)
	}
}
