package api_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestCaregiverTokenReachesItsAppsUsers (issue 34 §9, the decision in
// docs/access.md): a caregiver token is the care team's credential for one
// app, and reads the page of every user of that app, no user of another.
// Care teams that must not see each other's elders get an app each (an
// operator preset of the same kind under another name, with its own
// tokens). Two Clara apps, "clara" and an operator's "clara-north", on both
// databases: caregiver@clara reads both of its elders' pages and not the
// other app's elder, and caregiver@clara-north the reverse.
func TestCaregiverTokenReachesItsAppsUsers(t *testing.T) {
	t.Parallel()
	const (
		northService   = "north-service-token-0123456789"
		northCaregiver = "north-caregiver-token-0123456789"
	)
	dir := t.TempDir()
	north := filepath.Join(dir, "clara-north")
	if err := os.Mkdir(north, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"events.schema.json", "policy.json", "schema.json", "system.tmpl", "user.tmpl"} {
		b, err := os.ReadFile(filepath.Join("..", "prompts", "clara", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "policy.json" {
			b = []byte(strings.Replace(string(b), `"name": "clara"`, `"name": "clara-north"`, 1))
		}
		if err := os.WriteFile(filepath.Join(north, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	apps, err := prompts.Load(dir)
	if err != nil || apps["clara-north"] == nil {
		t.Fatalf("the operator's Clara app: %v", err)
	}
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, q := setupAPIWith(t, b, func(cfg *api.Config, data *api.Data) {
				data.Handoff.Apps = apps
				cfg.Tokens = append(cfg.Tokens,
					api.Token{Scope: api.ScopeService, Value: claraServiceToken, App: "clara"},
					api.Token{Scope: api.ScopeCaregiver, Value: claraCaregiverTkn, App: "clara"},
					api.Token{Scope: api.ScopeService, Value: northService, App: "clara-north"},
					api.Token{Scope: api.ScopeCaregiver, Value: northCaregiver, App: "clara-north"})
			})
			mountViewsOf(t, srv, st, q, apps)
			for _, c := range []struct{ user, app, token string }{
				{"u-c1", "clara", claraServiceToken}, {"u-c2", "clara", claraServiceToken}, {"u-n1", "clara-north", northService},
			} {
				body := strings.NewReplacer(`"user_id":"u-c"`, `"user_id":"`+c.user+`"`, `"app":"clara"`, `"app":"`+c.app+`"`).Replace(claraClose)
				if rec := request(srv, "POST", "/v1/sessions/s-"+c.user+"/close", c.token, body, "application/json"); rec.Code != 202 {
					t.Fatalf("close for %s: %d %s", c.user, rec.Code, rec.Body)
				}
			}
			for _, c := range []struct {
				token, user string
				want        int
			}{
				{claraCaregiverTkn, "u-c1", 200}, {claraCaregiverTkn, "u-c2", 200}, {claraCaregiverTkn, "u-n1", 404},
				{northCaregiver, "u-n1", 200}, {northCaregiver, "u-c1", 404}, {northCaregiver, "u-c2", 404},
			} {
				if rec := request(srv, "GET", "/views/users/"+c.user, c.token, "", ""); rec.Code != c.want {
					t.Errorf("the page of %s with %.12s… = %d; want %d", c.user, c.token, rec.Code, c.want)
				}
			}
		})
	}
}
