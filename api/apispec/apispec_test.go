package apispec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mnemo-ai/mnemo/prompts"
)

func mustLoad(t *testing.T) *Spec {
	t.Helper()
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func exchange(method, target string, reqBody string, status int, ct, respBody string, headers ...string) *Exchange {
	u, _ := url.Parse(target)
	x := &Exchange{Method: method, URL: u, RequestHeader: http.Header{}, RequestBody: []byte(reqBody), Status: status,
		ResponseHeader: http.Header{}, ResponseBody: []byte(respBody)}
	if reqBody != "" {
		x.RequestHeader.Set("Content-Type", "application/json")
	}
	if ct != "" {
		x.ResponseHeader.Set("Content-Type", ct)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		x.ResponseHeader.Set(headers[i], headers[i+1])
	}
	return x
}

const closeBody = `{"user_id":"u-1","app":"mona","started_at":"2026-11-20T09:00:00Z","ended_at":"2026-11-20T09:20:00Z",
 "messages":[{"id":"m1","role":"user","content":"hi","at":"2026-11-20T09:00:05Z"}]}`

// TestCheck: the checker finds operations by concrete path, accepts what
// the document describes and refuses each kind of drift.
func TestCheck(t *testing.T) {
	s := mustLoad(t)
	const js = "application/json"
	errBody := func(code string) string { return fmt.Sprintf(`{"error":{"code":%q,"message":"m"}}`, code) }
	cases := []struct {
		name    string
		x       *Exchange
		wantErr string // "" for none
		outcome Outcome
	}{
		{"close accepted", exchange("POST", "/v1/sessions/s-1/close", closeBody, 202, js, `{"session_id":"s-1","jobs":[{"id":1,"kind":"extract"}]}`), "", Checked},
		{"refused body, refused", exchange("POST", "/v1/sessions/s-1/close", `{"USER_ID":"u"}`, 422, js, errBody("invalid")), "", Checked},
		{"refused body, accepted", exchange("POST", "/v1/sessions/s-1/close", `{"USER_ID":"u"}`, 202, js, `{"session_id":"s-1","jobs":[]}`), "accepted (202) a request the document says is invalid", Checked},
		{"undocumented status", exchange("POST", "/v1/sessions/s-1/close", closeBody, 200, js, `{"session_id":"s-1","jobs":[]}`), "status 200 is not documented", Checked},
		{"answer off schema", exchange("POST", "/v1/sessions/s-1/close", closeBody, 202, js, `{"session_id":"s-1","jobs":[],"extra":1}`), "does not match", Checked},
		{"error shape", exchange("GET", "/v1/users/u-1/memories", "", 404, js, `{"error":"not found"}`), "does not match", Checked},
		{"unknown error code", exchange("GET", "/v1/users/u-1/memories", "", 404, js, errBody("gone_fishing")), "does not match", Checked},
		{"content type", exchange("GET", "/v1/users/u-1/memories", "", 200, "text/plain", `{"memories":[]}`), "content type", Checked},
		{"required header", exchange("GET", "/v1/users/u-1/memories", "", 401, js, errBody("unauthorized")), "WWW-Authenticate", Checked},
		{"with header", exchange("GET", "/v1/users/u-1/memories", "", 401, js, errBody("unauthorized"), "WWW-Authenticate", "Bearer"), "", Checked},
		{"bad query, refused", exchange("GET", "/v1/users/u-1/memories?status=maybe", "", 400, js, errBody("bad_request")), "", Checked},
		{"bad query, accepted", exchange("GET", "/v1/users/u-1/memories?status=maybe", "", 200, js, `{"memories":[]}`), "query parameter status", Checked},
		{"undocumented query, accepted", exchange("GET", "/v1/users/u-1/memories?color=red", "", 200, js, `{"memories":[]}`), "not documented", Checked},
		{"integer query", exchange("GET", "/v1/users/u-1/context?budget_tokens=40", "", 200, js, `{"text":"","tokens":0,"budget_tokens":40,"parts":[]}`), "", Checked},
		{"integer query out of range", exchange("GET", "/v1/users/u-1/context?budget_tokens=9000", "", 200, js, `{"text":"","tokens":0,"budget_tokens":40,"parts":[]}`), "budget_tokens", Checked},
		{"boolean query", exchange("GET", "/v1/users/u-1/cues?all=yes", "", 200, js, `{"user_id":"u-1","cues":[]}`), "query parameter all", Checked},
		{"array query", exchange("GET", "/v1/admin/jobs?state=completed&state=running&limit=5", "", 200, js, `{"jobs":[]}`), "", Checked},
		{"integer path", exchange("POST", "/v1/admin/jobs/abc/retry", "", 400, js, errBody("bad_request")), "", Checked},
		{"literal beats parameter", exchange("POST", "/v1/admin/jobs/retry", `{"state":"discarded"}`, 200, js, `{"retried":0}`), "", Checked},
		{"no content", exchange("DELETE", "/v1/users/u-1/memories/m-1", "", 204, "", ""), "", Checked},
		{"no content has a body", exchange("DELETE", "/v1/users/u-1/memories/m-1", "", 204, js, "{}"), "no body", Checked},
		{"text answer", exchange("GET", "/metrics", "", 200, "text/plain; version=0.0.4; charset=utf-8", "# HELP x\n"), "", Checked},
		{"unrouted 404", exchange("GET", "/v1/nothing", "", 404, js, errBody("not_found")), "", Unrouted},
		{"unrouted 405", exchange("PUT", "/v1/users/u-1/memories", "", 405, js, errBody("method_not_allowed"), "Allow", "GET, HEAD, DELETE"), "", Unrouted},
		{"unrouted but served", exchange("PUT", "/v1/users/u-1/memories", "", 200, js, "{}"), "no operation of the document serves", Unrouted},
		{"River UI's own API", exchange("GET", "/ui/api/jobs", "", 200, js, "{}"), "", Subtree},
		{"River UI's redirect", exchange("GET", "/ui", "", 301, "", ""), "", Subtree},
		{"River UI's page", exchange("GET", "/ui/", "", 200, "text/html; charset=utf-8", "<html>"), "", Checked},
	}
	for _, c := range cases {
		res, err := s.Check(c.x)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: error %v; want one saying %q", c.name, err, c.wantErr)
		}
		if res.Outcome != c.outcome {
			t.Errorf("%s: outcome %d; want %d", c.name, res.Outcome, c.outcome)
		}
	}
}

// TestRecorderReportsThroughTB: a failing exchange fails the test that made
// it, and is counted.
func TestRecorderReportsThroughTB(t *testing.T) {
	r := NewRecorder(mustLoad(t))
	ft := &fakeTB{TB: t}
	r.Record(ft, exchange("GET", "/v1/users/u-1/memories", "", 200, "application/json", `{"memories":"none"}`))
	r.Record(ft, exchange("GET", "/v1/users/u-1/memories", "", 200, "application/json", `{"memories":[]}`))
	if len(ft.errors) != 1 || !strings.Contains(ft.errors[0], "GET /v1/users/u-1/memories → 200") {
		t.Fatalf("errors %q; want the one failing exchange", ft.errors)
	}
	r.Record(nil, exchange("GET", "/v1/users/u-1/memories", "", 500, "application/json", `{}`))
	if f := r.Failures(); len(f) != 1 {
		t.Fatalf("failures without a TB = %q", f)
	}
	if got := r.Exercised()["GET /v1/users/{user_id}/memories"]; !slices.Equal(got, []int{200, 500}) {
		t.Fatalf("statuses seen %v", got)
	}
	if slices.Contains(r.Unexercised(), "GET /v1/users/{user_id}/memories") || !slices.Contains(r.Unexercised(), "GET /healthz") {
		t.Fatalf("unexercised %v", r.Unexercised())
	}
}

type fakeTB struct {
	testing.TB
	errors []string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Error(args ...any) { f.errors = append(f.errors, fmt.Sprint(args...)) }

// TestExamplesMatchTheirSchemas: every example of the document (media
// types' examples and parameters' examples) validates against its schema,
// so that a generated client's docs do not teach a wrong body.
func TestExamplesMatchTheirSchemas(t *testing.T) {
	s := mustLoad(t)
	p := &parser{doc: s.doc, c: compilerFor(t, s)}
	n := 0
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		m, ok := v.(map[string]any)
		if !ok {
			if l, ok := v.([]any); ok {
				for i, e := range l {
					walk(e, fmt.Sprintf("%s/%d", ptr, i))
				}
			}
			return
		}
		if _, hasSchema := m["schema"]; hasSchema {
			sch := p.compile(ptr + "/schema")
			if p.err != nil {
				t.Fatal(p.err)
			}
			check := func(where string, ex any) {
				n++
				if err := sch.Validate(ex); err != nil {
					t.Errorf("%s: example does not match its schema: %v", where, err)
				}
			}
			if ex, ok := m["example"]; ok {
				check(ptr+"/example", ex)
			}
			if exs, ok := m["examples"].(map[string]any); ok {
				for name, e := range exs {
					em, _ := p.resolve(e, ptr+"/examples/"+esc(name))
					check(ptr+"/examples/"+name, em["value"])
				}
			}
		}
		for _, k := range sortedKeys(m) {
			walk(m[k], ptr+"/"+esc(k))
		}
	}
	walk(s.doc["paths"], "/paths")
	walk(s.doc["components"], "/components")
	if n < 40 {
		t.Fatalf("only %d examples found; the walk misses them", n)
	}
}

func compilerFor(t *testing.T, s *Spec) *jsonschema.Compiler {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(docURL, any(s.doc)); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestExportSchemaIsTheDocs: the export archive's schema in the document
// is docs/export.schema.json, its $defs moved to components as Export_*
// and its free-form objects saying additionalProperties: true.
func TestExportSchemaIsTheDocs(t *testing.T) {
	s := mustLoad(t)
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "export.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp map[string]any
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	defs, _ := exp["$defs"].(map[string]any)
	delete(exp, "$defs")
	delete(exp, "$schema")
	delete(exp, "$id")
	refRE := regexp.MustCompile(`"#/\$defs/([^"]+)"`)
	moved := func(v any) any {
		b, _ := json.Marshal(v)
		b = refRE.ReplaceAll(b, []byte(`"#/components/schemas/Export_$1"`))
		var out any
		_ = json.Unmarshal(b, &out)
		freeForm(out)
		return out
	}
	var schemas map[string]any
	b, _ := json.Marshal(s.doc["components"].(map[string]any)["schemas"])
	if err := json.Unmarshal(b, &schemas); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(moved(exp), schemas["Export"]) {
		t.Error("components.schemas.Export differs from docs/export.schema.json")
	}
	used := map[string]bool{}
	for _, m := range refRE.FindAllSubmatch(raw, -1) {
		used[string(m[1])] = true
	}
	for name := range used {
		if !reflect.DeepEqual(moved(defs[name]), schemas["Export_"+name]) {
			t.Errorf("components.schemas.Export_%s differs from docs/export.schema.json's $defs/%s", name, name)
		}
	}
	for name := range schemas {
		if rest, ok := strings.CutPrefix(name, "Export_"); ok && !used[rest] {
			t.Errorf("components.schemas.%s is not a $def docs/export.schema.json uses", name)
		}
	}
}

// freeForm adds "additionalProperties": true to each object schema with
// neither properties nor additionalProperties, as the document's copy
// says it (the same schema, spelt out for client generators).
func freeForm(v any) {
	switch x := v.(type) {
	case map[string]any:
		_, props := x["properties"]
		_, extra := x["additionalProperties"]
		if !props && !extra && typeIsObject(x["type"]) {
			x["additionalProperties"] = true
		}
		for _, e := range x {
			freeForm(e)
		}
	case []any:
		for _, e := range x {
			freeForm(e)
		}
	}
}

func typeIsObject(t any) bool {
	switch x := t.(type) {
	case string:
		return x == "object"
	case []any:
		return slices.Contains(x, any("object"))
	}
	return false
}

// TestEventKindsAreNamed: the document names every event kind the preset
// apps accept, where it describes an event's kind.
func TestEventKindsAreNamed(t *testing.T) {
	s := mustLoad(t)
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	event := s.doc["components"].(map[string]any)["schemas"].(map[string]any)["HandoffEvent"].(map[string]any)
	desc := event["properties"].(map[string]any)["kind"].(map[string]any)["description"].(string)
	for _, name := range prompts.Names(apps) {
		raw, err := os.ReadFile(filepath.Join("..", "..", "prompts", name, "events.schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		var es struct {
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(raw, &es); err != nil {
			t.Fatal(err)
		}
		kinds := sortedKeys(es.Properties)
		quoted := make([]string, len(kinds))
		for i, k := range kinds {
			quoted[i] = "`" + k + "`"
		}
		if want := name + " " + strings.Join(quoted, ", "); !strings.Contains(desc, want) {
			t.Errorf("HandoffEvent.kind's description does not say %q", want)
		}
	}
}

// TestDocumentIsCanonical: api/openapi.json is indented JSON, as the
// document's edits are reviewed as diffs.
func TestDocumentIsCanonical(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "api", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(raw), "", "  "); err != nil {
		t.Fatal(err)
	}
	if buf.String()+"\n" != string(raw) {
		t.Error("api/openapi.json is not indented with two spaces and ended by a newline")
	}
}
