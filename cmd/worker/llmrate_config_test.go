package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"strings"
	"testing"
)

// configOf builds the configuration from env and args as serve does.
func configOf(t *testing.T, env map[string]string, args ...string) (Config, error) {
	t.Helper()
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	get := registerSettings(fs, envDefault(mapEnv(env)))
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return buildConfig(get)
}

func TestLLMRateLimitSettings(t *testing.T) {
	t.Parallel()
	c, err := configOf(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.LLMRPM != 0 || c.LLMTPM != 0 {
		t.Fatalf("defaults rpm %d, tpm %d; want 0 (unlimited)", c.LLMRPM, c.LLMTPM)
	}
	c, err = configOf(t, map[string]string{"MNEMO_LLM_RPM": "500", "MNEMO_LLM_TPM": "200000"})
	if err != nil || c.LLMRPM != 500 || c.LLMTPM != 200000 {
		t.Fatalf("from the environment: rpm %d, tpm %d, %v", c.LLMRPM, c.LLMTPM, err)
	}
	c, err = configOf(t, map[string]string{"MNEMO_LLM_RPM": "500"}, "--llm-rpm", "60", "--llm-tpm", "1000")
	if err != nil || c.LLMRPM != 60 || c.LLMTPM != 1000 {
		t.Fatalf("flags over the environment: rpm %d, tpm %d, %v", c.LLMRPM, c.LLMTPM, err)
	}
	for _, bad := range []map[string]string{
		{"MNEMO_LLM_RPM": "-1"}, {"MNEMO_LLM_RPM": "many"}, {"MNEMO_LLM_RPM": "1.5"},
		{"MNEMO_LLM_TPM": "-5"}, {"MNEMO_LLM_TPM": "1e6"},
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

// TestLLMMaxMemoriesSetting: MNEMO_LLM_MAX_MEMORIES / --llm-max-memories
// caps the memories of one answer (issue 22 item 7), 50 by default, and a
// value outside 1 to 1000 stops the start with one line naming it.
func TestLLMMaxMemoriesSetting(t *testing.T) {
	t.Parallel()
	c, err := configOf(t, nil)
	if err != nil || c.LLMMaxMemories != 50 {
		t.Fatalf("default %d, %v; want 50", c.LLMMaxMemories, err)
	}
	c, err = configOf(t, map[string]string{"MNEMO_LLM_MAX_MEMORIES": "20"}, "--llm-max-memories", "7")
	if err != nil || c.LLMMaxMemories != 7 {
		t.Fatalf("flag over the environment: %d, %v", c.LLMMaxMemories, err)
	}
	for _, bad := range []string{"0", "-1", "1001", "many"} {
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"serve"}, mapEnv(map[string]string{"MNEMO_LLM_MAX_MEMORIES": bad}), strings.NewReader(""), io.Discard, &stderr)
		out := strings.TrimSpace(stderr.String())
		if code != exitUsage || strings.Count(out, "\n") != 0 || !strings.Contains(out, "MNEMO_LLM_MAX_MEMORIES") {
			t.Errorf("%q: exit %d, stderr %q; want one line naming MNEMO_LLM_MAX_MEMORIES", bad, code, out)
		}
	}
}
