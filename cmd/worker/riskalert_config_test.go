package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/prompts"
)

// MNEMO_RISK_ALERTS and MNEMO_RISK_ALERT_SECRETS: app=URL and app=SECRET
// (or *=SECRET) pairs; alerts go nowhere by default; the setting's URL wins
// over a policy.json risk_webhook; each app's secret is its own, or the
// one for every app.
func TestRiskAlertSettings(t *testing.T) {
	t.Parallel()
	c, err := configOf(t, nil)
	if err != nil || c.RiskAlertURLs != nil || c.RiskAlertSecrets != nil {
		t.Fatalf("default %v %v, %v; want none", c.RiskAlertURLs, len(c.RiskAlertSecrets), err)
	}
	const mine, every = "mona-secret-0123456789abcdef0123456789", "every-app-secret-0123456789abcdef0123"
	c, err = configOf(t, map[string]string{
		"MNEMO_RISK_ALERTS":        " mona=https://alerts.example.org/mnemo?k=1 , eldertree=http://127.0.0.1:9000/hook,",
		"MNEMO_RISK_ALERT_SECRETS": "mona=" + mine + ",*=" + every,
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.RiskAlertURLs["mona"] != "https://alerts.example.org/mnemo?k=1" || c.RiskAlertURLs["eldertree"] != "http://127.0.0.1:9000/hook" || len(c.RiskAlertURLs) != 2 {
		t.Errorf("urls %v", c.RiskAlertURLs)
	}
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	apps["coach"].Policy.RiskWebhook = "https://coach.example.org/risk"
	apps["eldertree"].Policy.RiskWebhook = "https://ignored.example.org/risk"
	targets := riskAlertTargets(apps, c.RiskAlertURLs, c.RiskAlertSecrets)
	for app, want := range map[string]string{
		"mona":      "https://alerts.example.org/mnemo?k=1 MNEMO_RISK_ALERTS " + mine,
		"eldertree": "http://127.0.0.1:9000/hook MNEMO_RISK_ALERTS " + every,
		"coach":     "https://coach.example.org/risk policy.json " + every,
		"clara":     "  ",
	} {
		tg := targets[app]
		if got := tg.URL + " " + tg.From + " " + string(tg.Secret); got != want {
			t.Errorf("%s: %s; want %s", app, got, want)
		}
	}
}

// A bad value stops the start with one line naming the setting, and never
// the secret nor the URL (which may carry a token).
func TestRiskAlertSettingErrors(t *testing.T) {
	t.Parallel()
	const ok = "a-secret-of-thirty-two-characters-or-more"
	for _, c := range []struct {
		alerts, secrets, want string
	}{
		{"mona", "*=" + ok, "MNEMO_RISK_ALERTS: an entry is not app=URL"},
		{"=https://a.example.org", "*=" + ok, "MNEMO_RISK_ALERTS: an entry is not app=URL"},
		{"nosuchapp=https://a.example.org/tok-123", "*=" + ok, `MNEMO_RISK_ALERTS: app "nosuchapp" is not configured`},
		{"mona=alerts.example.org/tok-123", "*=" + ok, "MNEMO_RISK_ALERTS: the URL of app mona is not an http(s) URL"},
		{"mona=ftp://alerts.example.org/tok-123", "*=" + ok, "MNEMO_RISK_ALERTS: the URL of app mona is not an http(s) URL"},
		{"mona=https://user:tok-123@alerts.example.org/", "*=" + ok, "MNEMO_RISK_ALERTS: the URL of app mona carries user:password"},
		{"mona=https://a.example.org,mona=https://b.example.org", "*=" + ok, "MNEMO_RISK_ALERTS: app mona is named twice"},
		{"mona=https://a.example.org/tok-123", "", "MNEMO_RISK_ALERT_SECRETS: no secret for app mona"},
		{"mona=https://a.example.org/tok-123", "clara=" + ok, "MNEMO_RISK_ALERT_SECRETS: no secret for app mona"},
		{"mona=https://a.example.org", "mona=short-secret-tok-123", "MNEMO_RISK_ALERT_SECRETS: the secret of mona has 20 characters; use at least 32"},
		{"mona=https://a.example.org", "*=" + ok + ",*=" + ok, "MNEMO_RISK_ALERT_SECRETS: * is named twice"},
		{"mona=https://a.example.org", "nosuchapp=" + ok, `MNEMO_RISK_ALERT_SECRETS: app "nosuchapp" is not configured`},
		{"mona=https://a.example.org", ok, "MNEMO_RISK_ALERT_SECRETS: an entry is not app=SECRET or *=SECRET"},
	} {
		var stderr bytes.Buffer
		env := map[string]string{"MNEMO_RISK_ALERTS": c.alerts, "MNEMO_RISK_ALERT_SECRETS": c.secrets}
		code := run(context.Background(), []string{"serve"}, mapEnv(env), strings.NewReader(""), io.Discard, &stderr)
		out := strings.TrimSpace(stderr.String())
		if code != exitUsage || strings.Count(out, "\n") != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%q %q: exit %d, %q; want one line with %q", c.alerts, c.secrets, code, out, c.want)
		}
		if strings.Contains(out, "tok-123") || strings.Contains(out, ok) {
			t.Errorf("%q %q: the error shows a secret or the URL: %q", c.alerts, c.secrets, out)
		}
	}
}
