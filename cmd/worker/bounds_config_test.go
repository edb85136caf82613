package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// The body bytes in flight and the events of a session are bounded by
// default, settable, and refused at start when they make no sense (issue 22).
func TestBodyAndEventBoundSettings(t *testing.T) {
	t.Parallel()
	c, err := configOf(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.BodyBytesInFlight != 32<<20 || c.MaxSessionEvents != 2000 {
		t.Fatalf("defaults: %d body bytes in flight, %d events; want 32 MiB and 2000", c.BodyBytesInFlight, c.MaxSessionEvents)
	}
	c, err = configOf(t, map[string]string{"MNEMO_MAX_BODY_BYTES_IN_FLIGHT": "8388608"}, "--max-session-events", "500")
	if err != nil || c.BodyBytesInFlight != 8<<20 || c.MaxSessionEvents != 500 {
		t.Fatalf("set: %d, %d, %v", c.BodyBytesInFlight, c.MaxSessionEvents, err)
	}
	for _, bad := range []map[string]string{
		{"MNEMO_MAX_BODY_BYTES_IN_FLIGHT": "1048576"}, // below the 4 MiB body limit: such a body could never be read
		{"MNEMO_MAX_BODY_BYTES_IN_FLIGHT": "lots"},
		{"MNEMO_MAX_SESSION_EVENTS": "0"}, {"MNEMO_MAX_SESSION_EVENTS": "10001"}, {"MNEMO_MAX_SESSION_EVENTS": "2k"},
	} {
		var name string
		for k := range bad {
			name = k
		}
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"serve"}, mapEnv(bad), strings.NewReader(""), io.Discard, &stderr)
		out := strings.TrimSpace(stderr.String())
		if code != exitUsage || strings.Count(out, "\n") != 0 || !strings.Contains(out, name) {
			t.Errorf("%v: exit %d, stderr %q; want one line naming %s", bad, code, out, name)
		}
	}
}
