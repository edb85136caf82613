package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// A token's share of the body bytes in flight and the slowest a body may
// arrive have defaults, are settable, and are refused at start when they
// make no sense (issue 34 §4).
func TestBodyShareAndRateSettings(t *testing.T) {
	t.Parallel()
	c, err := configOf(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.BodyBytesPerToken != 32<<20 || c.MinBodyBytesPerSecond != 16<<10 {
		t.Fatalf("defaults in open mode: %d bytes a token, %d bytes/s; want all 32 MiB and 16 KiB/s", c.BodyBytesPerToken, c.MinBodyBytesPerSecond)
	}
	// Four tokens that send bodies share the 32 MiB; a caregiver's sends none.
	four := "service@mona:" + monaServiceToken + ",service@coach:" + coachServiceToken + ",admin:" + adminToken +
		",service:" + serviceToken + ",caregiver@clara:caregiver-token-for-tests-01"
	c, err = configOf(t, map[string]string{"MNEMO_API_TOKENS": four})
	if err != nil || c.BodyBytesPerToken != 8<<20 {
		t.Fatalf("four body tokens: %d bytes a token, %v; want 8 MiB", c.BodyBytesPerToken, err)
	}
	c, err = configOf(t, map[string]string{"MNEMO_API_TOKENS": four, "MNEMO_MAX_BODY_BYTES_IN_FLIGHT": "8388608"})
	if err != nil || c.BodyBytesPerToken != 4<<20 {
		t.Fatalf("a quarter of 8 MiB is below the 4 MiB body limit: %d, %v; want the body limit", c.BodyBytesPerToken, err)
	}
	c, err = configOf(t, map[string]string{"MNEMO_MAX_BODY_BYTES_PER_TOKEN": "16777216"}, "--min-body-bytes-per-second", "0")
	if err != nil || c.BodyBytesPerToken != 16<<20 || c.MinBodyBytesPerSecond != 0 {
		t.Fatalf("set: %d, %d, %v", c.BodyBytesPerToken, c.MinBodyBytesPerSecond, err)
	}
	for _, bad := range []map[string]string{
		{"MNEMO_MAX_BODY_BYTES_PER_TOKEN": "1048576"},  // below the 4 MiB body limit
		{"MNEMO_MAX_BODY_BYTES_PER_TOKEN": "67108864"}, // above the 32 MiB in flight
		{"MNEMO_MAX_BODY_BYTES_PER_TOKEN": "half"},
		{"MNEMO_MIN_BODY_BYTES_PER_SECOND": "-1"}, {"MNEMO_MIN_BODY_BYTES_PER_SECOND": "fast"},
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
