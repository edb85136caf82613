package api_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/api/apispec"
)

// spec checks every exchange the request helpers make (call, request,
// getJSON, the admin bundle's) against api/openapi.json.
var spec = apispec.MustRecorder()

// benchmarking is set under -bench: the exchanges a benchmark times are
// not checked.
var benchmarking bool

// testOnlyPaths are routes some tests register on a bare server to test the
// server itself (tenancy_test.go): not the API, not documented.
var testOnlyPaths = map[string]bool{"/v1/thing": true}

// served serves req with h and checks the exchange against the document;
// a mismatch fails tb, or with tb nil the package's run (TestMain).
func served(tb testing.TB, h http.Handler, w http.ResponseWriter, req *http.Request) {
	if tb == nil && benchmarking || testOnlyPaths[req.URL.Path] {
		h.ServeHTTP(w, req)
		return
	}
	if tb != nil {
		tb.Helper()
	}
	spec.Serve(tb, h, w, req)
}

func TestMain(m *testing.M) {
	flag.Parse()
	benchmarking = flag.Lookup("test.bench").Value.String() != ""
	code := m.Run()
	if f := spec.Failures(); len(f) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d exchanges of the api tests do not match api/openapi.json; the first:\n", len(f))
		for _, msg := range f[:min(len(f), 20)] {
			fmt.Fprintln(os.Stderr, msg)
		}
		code = 1
	}
	if testing.Verbose() {
		fmt.Print("operations checked against api/openapi.json, with the statuses seen:\n" + spec.Report())
	}
	if err := spec.WriteReport(os.Getenv("MNEMO_OPENAPI_REPORT")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// TestOpenAPIIsServed: GET /openapi.json answers the embedded document to
// anyone, even where every other route needs a token.
func TestOpenAPIIsServed(t *testing.T) {
	t.Parallel()
	srv := api.New(api.Config{Tokens: []api.Token{{Scope: api.ScopeService, Value: token}}, Ready: func(context.Context) error { return nil }})
	rec := httptest.NewRecorder()
	served(t, srv, rec, httptest.NewRequest("GET", "/openapi.json", nil))
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("GET /openapi.json = %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if rec.Body.String() != string(api.OpenAPI()) {
		t.Fatal("GET /openapi.json is not api/openapi.json")
	}
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil || doc.OpenAPI != "3.1.0" || len(doc.Paths) == 0 {
		t.Fatalf("the document is not OpenAPI 3.1.0: %v %q", err, doc.OpenAPI)
	}
	// Other routes still need the token.
	rec = httptest.NewRecorder()
	served(t, srv, rec, httptest.NewRequest("POST", "/openapi.json", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST /openapi.json = %d; want 405", rec.Code)
	}
}
