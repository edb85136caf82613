package main

import (
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/prompts"
)

// minAlertSecret is the shortest secret that may sign risk alerts.
const minAlertSecret = 32

// allApps names, in MNEMO_RISK_ALERT_SECRETS, the secret of every app
// without its own.
const allApps = "*"

// parseRiskAlerts reads MNEMO_RISK_ALERTS (app=URL,…) and
// MNEMO_RISK_ALERT_SECRETS (app=SECRET,… and *=SECRET) against the apps
// configured (built in and in appsDir). Every app whose alerts the setting
// sends needs a secret. Errors name the setting and the app, never a
// secret nor the URL (whose path or query may hold a token).
func parseRiskAlerts(alerts, secrets, appsDir string) (urls, keys map[string]string, err error) {
	if strings.TrimSpace(alerts) == "" && strings.TrimSpace(secrets) == "" {
		return nil, nil, nil
	}
	apps, err := prompts.Load(appsDir)
	if err != nil {
		return nil, nil, settingError("apps-dir", "%v", err)
	}
	known := func(flag, app string) error {
		if apps[app] == nil {
			return settingError(flag, "app %q is not configured (apps: %s)", app, strings.Join(prompts.Names(apps), ", "))
		}
		return nil
	}
	urls, keys = map[string]string{}, map[string]string{}
	for part := range strings.SplitSeq(alerts, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		app, raw, ok := strings.Cut(part, "=")
		app, raw = strings.TrimSpace(app), strings.TrimSpace(raw)
		if !ok || app == "" {
			return nil, nil, settingError("risk-alerts", "an entry is not app=URL (e.g. mona=https://alerts.example.org/mnemo)")
		}
		if err := known("risk-alerts", app); err != nil {
			return nil, nil, err
		}
		if _, dup := urls[app]; dup {
			return nil, nil, settingError("risk-alerts", "app %s is named twice", app)
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, nil, settingError("risk-alerts", "the URL of app %s is not an http(s) URL", app)
		}
		if u.User != nil {
			return nil, nil, settingError("risk-alerts", "the URL of app %s carries user:password; alerts are signed with MNEMO_RISK_ALERT_SECRETS instead", app)
		}
		urls[app] = raw
	}
	for part := range strings.SplitSeq(secrets, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		app, secret, ok := strings.Cut(part, "=")
		app = strings.TrimSpace(app)
		if !ok || app == "" {
			return nil, nil, settingError("risk-alert-secrets", "an entry is not app=SECRET or *=SECRET")
		}
		if app != allApps {
			if err := known("risk-alert-secrets", app); err != nil {
				return nil, nil, err
			}
		}
		if _, dup := keys[app]; dup {
			return nil, nil, settingError("risk-alert-secrets", "%s is named twice", app)
		}
		if len(secret) < minAlertSecret {
			return nil, nil, settingError("risk-alert-secrets", "the secret of %s has %d characters; use at least %d (e.g. openssl rand -hex 32)",
				app, len(secret), minAlertSecret)
		}
		keys[app] = secret
	}
	for app := range urls {
		if keys[app] == "" && keys[allApps] == "" {
			return nil, nil, settingError("risk-alert-secrets", "no secret for app %s, whose alerts MNEMO_RISK_ALERTS sends: set %s=SECRET or *=SECRET (an unsigned alert could be forged by anyone who knows the URL)", app, app)
		}
	}
	return urls, keys, nil
}

// riskAlertTargets is where each app's alerts go: the URL of
// MNEMO_RISK_ALERTS, or else of the app's policy.json risk_webhook, signed
// with the app's secret or the one for every app.
func riskAlertTargets(apps map[string]*prompts.App, urls, keys map[string]string) jobs.RiskAlerts {
	out := jobs.RiskAlerts{}
	for name, app := range apps {
		var t jobs.RiskAlertTarget
		switch {
		case urls[name] != "":
			t.URL, t.From = urls[name], "MNEMO_RISK_ALERTS"
		case app.Policy.RiskWebhook != "":
			t.URL, t.From = app.Policy.RiskWebhook, "policy.json"
		}
		if t.URL != "" {
			if k := keys[name]; k != "" {
				t.Secret = []byte(k)
			} else if k := keys[allApps]; k != "" {
				t.Secret = []byte(k)
			}
		}
		out[name] = t
	}
	return out
}

// logPresetsAndAlerts says at start which built-in presets MNEMO_APPS_DIR
// replaces and which apps it adds, and where each app's risk alerts go:
// the URL's host only, never its path, query or the secret.
func logPresetsAndAlerts(log *slog.Logger, appsDir string, apps map[string]*prompts.App, alerts jobs.RiskAlerts) {
	if appsDir != "" {
		builtin, err := prompts.Builtin()
		if err != nil {
			builtin = nil
		}
		for _, name := range prompts.Names(apps) {
			dir := filepath.Join(appsDir, name)
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				continue
			}
			if builtin[name] != nil {
				log.Info("preset overridden by MNEMO_APPS_DIR: the built-in one is not used", slog.String("app", name), slog.String("dir", dir))
			} else {
				log.Info("app added by MNEMO_APPS_DIR", slog.String("app", name), slog.String("dir", dir))
			}
		}
	}
	for _, name := range prompts.Names(apps) {
		t := alerts[name]
		if t.URL == "" {
			log.Info("risk alerts off", slog.String("app", name))
			continue
		}
		log.Info("risk alerts", slog.String("app", name), slog.String("to", t.Host()), slog.String("from", t.From), slog.Bool("signed", len(t.Secret) > 0))
		if len(t.Secret) == 0 {
			log.Warn("risk alerts are not signed: a receiver cannot tell them from a forgery; set MNEMO_RISK_ALERT_SECRETS", slog.String("app", name))
		}
	}
}

// riskAlertsHelp is the help of MNEMO_RISK_ALERTS.
const riskAlertsHelp = "where each app's risk alerts go: app=URL, comma-separated (http or https, no user:password, no comma in the URL), " +
	"over the app's policy.json risk_webhook; one alert per session and class of the user's own medium and high findings, signed with the app's secret " +
	"of MNEMO_RISK_ALERT_SECRETS (header Mnemo-Signature: t=UNIX,v1=HMAC-SHA256 hex of \"t.body\"); e.g. mona=https://alerts.example.org/mnemo,eldertree=https://oncall.example.org/hook"

// riskAlertSecretsHelp is the help of MNEMO_RISK_ALERT_SECRETS.
const riskAlertSecretsHelp = "secrets that sign each app's risk alerts: app=SECRET, comma-separated, and *=SECRET for every app without its own; " +
	"at least 32 characters, no comma (e.g. openssl rand -hex 32); never logged"
