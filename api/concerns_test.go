package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/workerviews"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/kinds/clara"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// A Clara session's concerns (a fall, medication confusion) are the
// caregiver's: the caregiver's page lists them; the app's service token,
// which reads the session over JSON and whose reads may reach the model's
// prompt, gets the summary without them, neither the list nor the
// sentence of the text that names them.
func TestClaraConcernsAreTheCaregiversOnly(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, q := setupAPIWith(t, b, func(cfg *api.Config, data *api.Data) {
				cfg.Tokens = append(cfg.Tokens, api.Token{Scope: api.ScopeService, Value: claraServiceToken, App: "clara"},
					api.Token{Scope: api.ScopeCaregiver, Value: claraCaregiverTkn, App: "clara"})
			})
			apps, err := prompts.Builtin()
			if err != nil {
				t.Fatal(err)
			}
			keys, err := seal.ParseKeys(testKeySpec)
			if err != nil {
				t.Fatal(err)
			}
			srv.MountViews(workerviews.Config(&jobs.Deps{Store: st, Apps: apps, Keys: keys, Queue: q}))
			// A session of an hour ago, as its extraction would leave it.
			end := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
			closeBody := `{"user_id":"u-c","app":"clara","started_at":"` + end.Add(-20*time.Minute).Format(time.RFC3339) +
				`","ended_at":"` + end.Format(time.RFC3339) + `","messages":[]}`
			if rec := request(srv, "POST", "/v1/sessions/s-c/close", claraServiceToken, closeBody, "application/json"); rec.Code != 202 {
				t.Fatalf("close: %d %s", rec.Code, rec.Body)
			}
			res := extract.Rules(apps["clara"], extract.Session{ID: "s-c", App: "clara", StartedAt: end.Add(-20 * time.Minute), EndedAt: end,
				Messages: []extract.Message{{ID: "m1", Role: "user", Content: "I fell in the kitchen. I can't remember if I took my pills.", At: end.Add(-10 * time.Minute)}}}, end)
			if len(clara.ClaraConcernsOf(res.SessionSummary["concerns"])) != 2 {
				t.Fatalf("precondition: concerns %v", res.SessionSummary["concerns"])
			}
			data, err := json.Marshal(res.SessionSummary)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := st.UpsertSummary(ctx, store.Summary{SessionID: "s-c", PromptVersion: apps["clara"].PromptVersion, UserID: "u-c", App: "clara",
				Source: "rules", Data: data, CreatedAt: end}); err != nil {
				t.Fatal(err)
			}

			rec := request(srv, "GET", "/v1/sessions/s-c", claraServiceToken, "", "")
			if rec.Code != 200 {
				t.Fatalf("GET session: %d %s", rec.Code, rec.Body)
			}
			var got struct {
				Summary map[string]any `json:"summary"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if _, ok := got.Summary["concerns"]; ok {
				t.Errorf("the service token reads the concerns: %v", got.Summary["concerns"])
			}
			text, _ := got.Summary["summary"].(string)
			if text == "" || strings.Contains(text, "spoke of") || strings.Contains(text, "fall") || strings.Contains(text, "medication") {
				t.Errorf("the service token's summary text names the concerns: %q", text)
			}
			if got.Summary["message_count"] == nil {
				t.Errorf("the rest of the summary is gone: %v", got.Summary)
			}

			page := request(srv, "GET", "/views/users/u-c", claraCaregiverTkn, "", "")
			if page.Code != 200 {
				t.Fatalf("caregiver page: %d", page.Code)
			}
			body := page.Body.String()
			for _, want := range []string{`clara-concerns`, "Fall", "Medication confusion"} {
				if !strings.Contains(body, want) {
					t.Errorf("the caregiver's page lacks %q", want)
				}
			}
			if strings.Contains(body, "kitchen") || strings.Contains(body, "pills") {
				t.Error("the caregiver's page holds the user's words")
			}
		})
	}
}
