package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/extract/llmextract"
)

// MNEMO_RISK_MODEL / --risk-model: off by default; escalate, moderation or
// both with a model; a bad value, or a second look without a model, stops
// the start with one line naming the setting.
func TestRiskModelSetting(t *testing.T) {
	t.Parallel()
	c, err := configOf(t, nil)
	if err != nil || c.RiskModel.On() {
		t.Fatalf("default %+v, %v; want off", c.RiskModel, err)
	}
	model := map[string]string{"MNEMO_LLM_MODEL": "gpt-4o-mini"}
	for in, want := range map[string]llmextract.RiskModel{
		"off": {}, "escalate": {Escalate: true}, "moderation": {Moderation: true}, "escalate,moderation": {Escalate: true, Moderation: true},
	} {
		c, err := configOf(t, model, "--risk-model", in)
		if err != nil || c.RiskModel != want {
			t.Errorf("--risk-model %s: %+v, %v; want %+v", in, c.RiskModel, err, want)
		}
	}
	if c, err := configOf(t, map[string]string{"MNEMO_LLM_MODEL": "m", "MNEMO_RISK_MODEL": "escalate"}); err != nil || !c.RiskModel.Escalate {
		t.Errorf("from the environment: %+v, %v", c.RiskModel, err)
	}
	for _, bad := range []map[string]string{
		{"MNEMO_LLM_MODEL": "m", "MNEMO_RISK_MODEL": "on"},
		{"MNEMO_LLM_MODEL": "m", "MNEMO_RISK_MODEL": "escalate,always"},
		{"MNEMO_RISK_MODEL": "escalate"},
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"serve"}, mapEnv(bad), strings.NewReader(""), io.Discard, &stderr)
		out := strings.TrimSpace(stderr.String())
		if code != exitUsage || strings.Count(out, "\n") != 0 || !strings.Contains(out, "MNEMO_RISK_MODEL") {
			t.Errorf("%v: exit %d, stderr %q; want one line naming MNEMO_RISK_MODEL", bad, code, out)
		}
	}
}
