package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// What a user's data may grow to (issue 34 §2, §3, §6): the memories the
// rules keep of one session, a user's active memories and exports have
// documented defaults, are settable, and are refused at start when they
// make no sense.
func TestGrowthBoundSettings(t *testing.T) {
	t.Parallel()
	c, err := configOf(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.RulesMaxMemories != 50 || c.MaxUserMemories != 5000 || c.MaxExportsPerUser != 3 {
		t.Fatalf("defaults: %d rules memories, %d user memories, %d exports; want 50, 5000, 3", c.RulesMaxMemories, c.MaxUserMemories, c.MaxExportsPerUser)
	}
	c, err = configOf(t, map[string]string{"MNEMO_MAX_USER_MEMORIES": "20000"}, "--rules-max-memories", "200", "--max-exports-per-user", "1")
	if err != nil || c.RulesMaxMemories != 200 || c.MaxUserMemories != 20000 || c.MaxExportsPerUser != 1 {
		t.Fatalf("set: %d, %d, %d, %v", c.RulesMaxMemories, c.MaxUserMemories, c.MaxExportsPerUser, err)
	}
	refusedAtStart(t,
		map[string]string{"MNEMO_RULES_MAX_MEMORIES": "0"}, map[string]string{"MNEMO_RULES_MAX_MEMORIES": "10001"},
		map[string]string{"MNEMO_MAX_USER_MEMORIES": "99"}, map[string]string{"MNEMO_MAX_USER_MEMORIES": "many"},
		map[string]string{"MNEMO_MAX_EXPORTS_PER_USER": "0"}, map[string]string{"MNEMO_MAX_EXPORTS_PER_USER": "101"})
}

// refusedAtStart checks that serve refuses each environment of bad with
// one line on stderr naming its variable.
func refusedAtStart(t *testing.T, bad ...map[string]string) {
	t.Helper()
	for _, env := range bad {
		var name string
		for k := range env {
			name = k
		}
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"serve"}, mapEnv(env), strings.NewReader(""), io.Discard, &stderr)
		out := strings.TrimSpace(stderr.String())
		if code != exitUsage || strings.Count(out, "\n") != 0 || !strings.Contains(out, name) {
			t.Errorf("%v: exit %d, stderr %q; want one line naming %s", env, code, out, name)
		}
	}
}
