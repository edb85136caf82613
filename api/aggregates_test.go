package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// aggNow is the clock of the aggregate and cue tests: a Friday morning.
var aggNow = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// setupWithSchedules is setupAPI with the default batch schedules, an admin
// token beside the service one, and a fixed clock.
func setupWithSchedules(t *testing.T, b storetest.Backend) (*api.Server, store.Store) {
	t.Helper()
	scheds, err := jobs.ParseSchedules(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, st, _ := setupAPIWith(t, b, func(cfg *api.Config, data *api.Data) {
		cfg.Tokens = append(cfg.Tokens, api.Token{Scope: api.ScopeAdmin, Value: adminToken},
			api.Token{Scope: api.ScopeService, Value: claraServiceToken, App: "clara"})
		data.Schedules, data.Now = scheds, func() time.Time { return aggNow }
	})
	return srv, st
}

// getJSON calls srv with a bearer token and decodes the JSON answer.
func getJSON(t *testing.T, srv http.Handler, bearer, method, path, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bearer)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	served(t, srv, rec, req)
	var out map[string]any
	if rec.Body.Len() > 0 {
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("%s %s: not JSON: %s", method, path, rec.Body)
		}
	}
	return rec.Code, out
}

func weekEndings(t *testing.T, res map[string]any) []string {
	t.Helper()
	list, ok := res["weeks"].([]any)
	if !ok {
		t.Fatalf("no weeks list in %v", res)
	}
	var out []string
	for _, w := range list {
		out = append(out, w.(map[string]any)["week_ending"].(string))
	}
	return out
}

// TestAnalyticsWeeksAreListed: a chat service that does not know which weeks
// exist asks without week_ending and pages through them, newest first.
func TestAnalyticsWeeksAreListed(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st := setupWithSchedules(t, b)
			ctx := context.Background()
			for _, u := range []string{"u-sam", "u-new"} {
				if err := st.UpsertUser(ctx, store.User{ID: u, App: "eldertree", Timezone: "America/Chicago", CreatedAt: aggNow, UpdatedAt: aggNow}); err != nil {
					t.Fatal(err)
				}
			}
			for i, week := range []string{"2026-11-01", "2026-11-15", "2026-11-08"} {
				row := store.AggregateRow{UserID: "u-sam", App: "eldertree", WeekEnding: week,
					Data: json.RawMessage(`{"total_sessions_completed":` + string(rune('3'+i)) + `}`), UpdatedAt: aggNow}
				if err := st.UpsertWeekly(ctx, []store.AggregateRow{row}); err != nil {
					t.Fatal(err)
				}
			}

			code, all := getJSON(t, srv, token, "GET", "/v1/users/u-sam/analytics", "")
			if code != 200 || strings.Join(weekEndings(t, all), " ") != "2026-11-15 2026-11-08 2026-11-01" || all["next_before"] != nil {
				t.Fatalf("all weeks = %d %v; want three, newest first, no next page", code, all)
			}
			first := all["weeks"].([]any)[0].(map[string]any)
			if a, _ := first["analytics"].(map[string]any); a["total_sessions_completed"] != float64(4) || first["updated_at"] == nil {
				t.Fatalf("week %v lacks its analytics", first)
			}

			code, p1 := getJSON(t, srv, token, "GET", "/v1/users/u-sam/analytics?limit=2", "")
			if code != 200 || strings.Join(weekEndings(t, p1), " ") != "2026-11-15 2026-11-08" || p1["next_before"] != "2026-11-08" {
				t.Fatalf("page 1 = %d %v", code, p1)
			}
			code, p2 := getJSON(t, srv, token, "GET", "/v1/users/u-sam/analytics?limit=2&before=2026-11-08", "")
			if code != 200 || strings.Join(weekEndings(t, p2), " ") != "2026-11-01" || p2["next_before"] != nil {
				t.Fatalf("page 2 = %d %v", code, p2)
			}

			// A user without analytics yet: an empty list, not an error.
			code, none := getJSON(t, srv, token, "GET", "/v1/users/u-new/analytics", "")
			if code != 200 || len(weekEndings(t, none)) != 0 || none["next_before"] != nil {
				t.Fatalf("no weeks = %d %v", code, none)
			}
			// One week by its date, as before.
			code, one := getJSON(t, srv, token, "GET", "/v1/users/u-sam/analytics?week_ending=2026-11-08", "")
			if code != 200 || one["week_ending"] != "2026-11-08" {
				t.Fatalf("one week = %d %v", code, one)
			}
			for path, want := range map[string]int{
				"/v1/users/u-sam/analytics?limit=0":                400,
				"/v1/users/u-sam/analytics?limit=101":              400,
				"/v1/users/u-sam/analytics?limit=x":                400,
				"/v1/users/u-sam/analytics?before=last-week":       400,
				"/v1/users/u-sam/analytics?week_ending=":           400,
				"/v1/users/u-nobody/analytics":                     404,
				"/v1/users/u-sam/analytics?week_ending=2020-01-05": 404,
			} {
				code, res := getJSON(t, srv, token, "GET", path, "")
				if code != want || res["error"] == nil {
					t.Errorf("GET %s = %d %v; want %d with the error shape", path, code, res, want)
				}
			}
		})
	}
}

// TestTrendsBeforeTheirFirstRun: a Clara user's trends answer when they will
// be computed until the nightly batch has run, then the trends.
func TestTrendsBeforeTheirFirstRun(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st := setupWithSchedules(t, b)
			ctx := context.Background()
			for id, app := range map[string]string{"u-clara": "clara", "u-mona": "mona"} {
				if err := st.UpsertUser(ctx, store.User{ID: id, App: app, CreatedAt: aggNow, UpdatedAt: aggNow}); err != nil {
					t.Fatal(err)
				}
			}
			// A Clara user's trends are read with the app's own token
			// (TestClaraDataIsTheCaregiversAndTheAppsOnly).
			code, res := getJSON(t, srv, claraServiceToken, "GET", "/v1/users/u-clara/trends", "")
			// The default schedule runs trends daily at 03:00 UTC: after
			// Friday 09:00 comes Saturday 03:00.
			if code != 200 || res["status"] != "pending" || res["trends"] != nil || res["next_run_at"] != "2026-11-21T03:00:00Z" || res["app"] != "clara" {
				t.Fatalf("trends before the first run = %d %v; want 200 pending with next_run_at 2026-11-21T03:00:00Z", code, res)
			}
			if err := st.UpsertTrends(ctx, []store.AggregateRow{{UserID: "u-clara", App: "clara", Data: json.RawMessage(`{"baseline_distress":0.4}`), UpdatedAt: aggNow}}); err != nil {
				t.Fatal(err)
			}
			code, res = getJSON(t, srv, claraServiceToken, "GET", "/v1/users/u-clara/trends", "")
			if tr, _ := res["trends"].(map[string]any); code != 200 || res["status"] != "ready" || tr["baseline_distress"] != 0.4 {
				t.Fatalf("trends after the run = %d %v", code, res)
			}
			// Trends are never computed for another app's user, nor for nobody.
			for _, user := range []string{"u-mona", "u-nobody"} {
				if code, res := getJSON(t, srv, token, "GET", "/v1/users/"+user+"/trends", ""); code != 404 || res["error"] == nil {
					t.Errorf("trends of %s = %d %v; want a JSON 404", user, code, res)
				}
			}
		})
	}
}
