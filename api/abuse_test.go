package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/internal/figures"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// abusiveBodies are bodies a broken or hostile client sends.
func abusiveBodies(r *rand.Rand) []string {
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	return []string{
		"", "null", "[]", "42", `"x"`, "{", "}", `{"user_id":`, "\xff\xfe\xfd", strings.Repeat("a", 70<<10),
		`{"user_id":"u","app":"mona","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z","messages":` + deep + `}`,
		`{"user_id":1,"app":true,"messages":"no"}`,
		`{"user_id":"u","app":"mona","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z","messages":[],"admin":true}`,
		`{"user_id":"../../etc/passwd","app":"mona","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z","messages":[]}`,
		`{"user_id":"u' OR '1'='1","app":"mona","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z","messages":[]}`,
		`{"memory_enabled":"yes"}`, `{"prefs":` + strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100) + `}`,
		randomJSON(r, 0),
	}
}

// randomJSON builds a random JSON value.
func randomJSON(r *rand.Rand, depth int) string {
	switch k := r.IntN(8); {
	case depth > 4 || k == 0:
		return fmt.Sprint(r.IntN(1000) - 500)
	case k == 1:
		return `"` + []string{"mona", "u-1", "2026-11-20T09:00:00Z", "user", "", "\\u0000", "<script>", "'; DROP TABLE x;--"}[r.IntN(8)] + `"`
	case k == 2:
		return []string{"true", "false", "null", "1e999", "-0"}[r.IntN(5)]
	case k <= 4:
		n := r.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = randomJSON(r, depth+1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	default:
		keys := []string{"user_id", "app", "started_at", "ended_at", "messages", "events", "id", "role", "content", "at", "kind", "data", "memory_enabled", "x"}
		n := r.IntN(6)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = `"` + keys[r.IntN(len(keys))] + `":` + randomJSON(r, depth+1)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
}

var abuseRoutes = []struct{ method, path string }{
	{"POST", "/v1/sessions/%s/close"},
	{"POST", "/v1/sessions/%s/messages"},
	{"GET", "/v1/sessions/%s"},
	{"GET", "/v1/users/%s/memories"},
	{"DELETE", "/v1/users/%s/memories/%s"},
	{"DELETE", "/v1/users/%s/memories?category=%s"},
	{"GET", "/v1/users/%s/profile"},
	{"PATCH", "/v1/users/%s/profile"},
	{"PUT", "/v1/users/%s/settings"},
	{"GET", "/v1/users/%s/context?budget_tokens=%s"},
	{"GET", "/v1/users/%s/analytics?week_ending=%s"},
	{"GET", "/v1/users/%s/trends"},
	{"POST", "/v1/users/%s/export"},
	{"GET", "/v1/exports/%s"},
}

var hostileIDs = []string{"..%2F..%2Fetc", "a%27%20OR%201%3D1--", "%00", "x%3Bdrop", "%E2%80%AE", strings.Repeat("z", 300), "u-1", "nobody", "%FF"}

// TestAPIAbuse sends 10 000 hostile requests to every route with random
// bodies, ids and tokens: the API never answers 5xx, never panics, and
// writes nothing for a request it rejects.
func TestAPIAbuse(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, q := setupAPI(t, b)
			r := rand.New(rand.NewPCG(1, 2))
			tokens := []string{"Bearer " + token, "", "Bearer ", "Bearer wrong-token-0000000000", "Basic " + token, "bearer " + token}
			bodies := abusiveBodies(r)
			status := map[int]int{}
			panics := 0
			n := 10000
			if testing.Short() {
				n = 1000 // the quick suite: the same mix, a tenth of it
			}
			for i := 0; i < n; i++ {
				route := abuseRoutes[r.IntN(len(abuseRoutes))]
				args := []any{hostileIDs[r.IntN(len(hostileIDs))], hostileIDs[r.IntN(len(hostileIDs))]}
				path := fmt.Sprintf(route.path, args[:strings.Count(route.path, "%s")]...)
				body := bodies[r.IntN(len(bodies))]
				if r.IntN(2) == 0 {
					body = randomJSON(r, 0)
				}
				req := httptest.NewRequest(route.method, path, strings.NewReader(body))
				// Most requests carry the right token, so that they reach the handlers.
				a := tokens[0]
				if r.IntN(10) < 3 {
					a = tokens[r.IntN(len(tokens))]
				}
				if a != "" {
					req.Header.Set("Authorization", a)
				}
				req.Header.Set("Content-Type", []string{"application/json", "text/plain", ""}[r.IntN(3)])
				rec := httptest.NewRecorder()
				func() {
					defer func() {
						if p := recover(); p != nil {
							panics++
							t.Errorf("panic on %s %s: %v", route.method, path, p)
						}
					}()
					served(t, srv, rec, req)
				}()
				status[rec.Code]++
				if rec.Code >= 500 {
					t.Errorf("%s %s with %q → %d %s", route.method, path, clip(body), rec.Code, rec.Body.String())
				}
				if rec.Code >= 400 && !json.Valid(rec.Body.Bytes()) {
					t.Errorf("%s %s → %d with a non-JSON error body", route.method, path, rec.Code)
				}
			}
			fives := 0
			for code, c := range status {
				if code >= 500 {
					fives += c
				}
			}
			figures.Report(t, "abuse: %d requests tried, %d panics, %d 5xx seen, statuses %v", n, panics, fives, status)
			// None of it was a valid handoff: nothing was written or enqueued.
			if u, err := st.GetUser(context.Background(), "u-1"); err == nil {
				t.Fatalf("a rejected request wrote user %+v", u)
			}
			if rows, _ := q.List(context.Background(), queue.ListFilter{}); len(rows) != 0 {
				t.Fatalf("rejected requests enqueued %d jobs", len(rows))
			}
		})
	}
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
