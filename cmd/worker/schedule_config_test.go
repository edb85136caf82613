package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// TestBadScheduleNamesItsBatchSetting: a schedule the parser refuses is
// reported against the one batch's setting (found through the typed
// schedule.BatchError), for a bad spec, a bad policy and a bad window.
func TestBadScheduleNamesItsBatchSetting(t *testing.T) {
	t.Parallel()
	for env, value := range map[string]string{
		"MNEMO_SCHEDULE_TRENDS":           "every day",
		"MNEMO_SCHEDULE_WEEKLY_ANALYTICS": "0 12 * * 1; sometimes",
		"MNEMO_SCHEDULE_MEMORY_TTL":       "0 3 * * *; all -5h",
		"MNEMO_SCHEDULE_PREFERENCE_DECAY": "61 3 * * *",
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"serve"}, mapEnv(map[string]string{env: value}), strings.NewReader(""), io.Discard, &stderr)
		out := strings.TrimSpace(stderr.String())
		if code != exitUsage || !strings.HasPrefix(out, "worker: configuration: "+env+": ") {
			t.Errorf("%s=%q: exit %d, stderr %q; want exit %d and a line naming %s", env, value, code, out, exitUsage, env)
		}
	}
}
