// Package apispec checks HTTP exchanges against Mnemo's OpenAPI document
// (api/openapi.json, embedded in package api): it finds the operation of a
// request by method and concrete path, checks the path and query parameters
// and the body against the operation's request schema, and the answer's
// status, required headers, content type and body against the response
// documented for that status. The tests use it through a Recorder, whose
// http.RoundTripper (end-to-end suites talking to a real worker) and Serve
// (in-process handlers) check every exchange and report failures through
// testing.TB, so that the document cannot drift from what the server does.
package apispec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mnemo-ai/mnemo/api"
)

// docURL is the document's base URI for the schema compiler.
const docURL = "mem:///api/openapi.json"

// Spec is a loaded, compiled OpenAPI document.
type Spec struct {
	doc map[string]any
	ops []*Operation
	// unrouted are the answers the server gives a request no operation
	// serves (404 no route, 405 wrong method) or refuses before routing.
	unrouted map[int]*Response
	// subtrees are path prefixes documented by one page only (River UI).
	subtrees []string
}

// Operation is one documented method and path.
type Operation struct {
	Method string // upper case
	Path   string // the template, /v1/users/{user_id}/memories
	ID     string // operationId
	// Security lists, per accepted scheme, the roles (scopes) the operation
	// needs; empty when it needs no token.
	Security  []map[string][]string
	segs      []string
	params    []*param
	body      *body
	responses map[int]*Response
}

// Key is "METHOD /path/template", as a ServeMux pattern names the route.
func (o *Operation) Key() string { return o.Method + " " + o.Path }

// Statuses are the documented answer statuses, ascending.
func (o *Operation) Statuses() []int {
	out := make([]int, 0, len(o.responses))
	for s := range o.responses {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

type param struct {
	name, in string
	required bool
	schema   *jsonschema.Schema
	// typ is the schema's type (array, integer, …), items the items' type,
	// for reading a parameter's text as the JSON value it stands for.
	typ, items string
}

type body struct {
	required bool
	media    map[string]*jsonschema.Schema
}

// Response is one documented answer.
type Response struct {
	Status int
	// media maps a media type to its schema; nil for a type that is not JSON.
	media   map[string]*jsonschema.Schema
	headers []string // required headers
}

var (
	loadOnce sync.Once
	loaded   *Spec
	loadErr  error
)

// Load returns the document embedded in package api, compiled once.
func Load() (*Spec, error) {
	loadOnce.Do(func() { loaded, loadErr = Parse(api.OpenAPI()) })
	return loaded, loadErr
}

// Parse compiles an OpenAPI 3.1 document.
func Parse(raw []byte) (*Spec, error) {
	docAny, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	doc, ok := docAny.(map[string]any)
	if !ok {
		return nil, errors.New("openapi: the document is not a JSON object")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(docURL, docAny); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	p := &parser{doc: doc, c: c}
	s := &Spec{doc: doc, unrouted: map[int]*Response{}}
	paths, _ := doc["paths"].(map[string]any)
	for _, path := range sortedKeys(paths) {
		item, ptr := p.resolve(paths[path], "/paths/"+esc(path))
		if sub, ok := item["x-mnemo-subtree"]; ok && sub != nil {
			s.subtrees = append(s.subtrees, strings.TrimSuffix(path, "/"))
		}
		common := p.params(item["parameters"], ptr+"/parameters")
		for _, method := range []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"} {
			raw, ok := item[method]
			if !ok {
				continue
			}
			o, err := p.operation(strings.ToUpper(method), path, raw, ptr+"/"+method, common)
			if err != nil {
				return nil, err
			}
			s.ops = append(s.ops, o)
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	// What the server answers before or instead of routing.
	for status, name := range map[int]string{
		http.StatusNotFound: "NoSuchRoute", http.StatusMethodNotAllowed: "MethodNotAllowed",
		http.StatusMisdirectedRequest: "Misdirected", http.StatusForbidden: "CrossSite",
		http.StatusUnsupportedMediaType: "UnsupportedMediaType",
	} {
		r, err := p.response(status, map[string]any{"$ref": "#/components/responses/" + name}, "")
		if err != nil {
			return nil, err
		}
		s.unrouted[status] = r
	}
	if p.err != nil {
		return nil, p.err
	}
	return s, nil
}

// Operations lists the documented operations, by path then method.
func (s *Spec) Operations() []*Operation { return slices.Clone(s.ops) }

// Doc is the document as decoded JSON (numbers as json.Number).
func (s *Spec) Doc() map[string]any { return s.doc }

// parser reads the document, following $refs, and compiles its schemas by
// their JSON pointer so that the compiler resolves the schemas' own $refs.
type parser struct {
	doc map[string]any
	c   *jsonschema.Compiler
	err error
}

// esc escapes a JSON pointer token.
func esc(tok string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(tok)
}

// resolve follows a local $ref; it returns the object and its pointer.
func (p *parser) resolve(v any, ptr string) (map[string]any, string) {
	for range 10 {
		m, _ := v.(map[string]any)
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, ptr
		}
		target, found := strings.CutPrefix(ref, "#")
		if !found {
			p.fail(fmt.Errorf("openapi: %s: only local $refs are supported, not %q", ptr, ref))
			return nil, ptr
		}
		ptr = target
		v = p.lookup(target)
	}
	p.fail(fmt.Errorf("openapi: %s: $ref chain too long", ptr))
	return nil, ptr
}

func (p *parser) lookup(ptr string) any {
	var v any = p.doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		m, ok := v.(map[string]any)
		if !ok {
			p.fail(fmt.Errorf("openapi: no %s in the document", ptr))
			return nil
		}
		v = m[tok]
	}
	if v == nil {
		p.fail(fmt.Errorf("openapi: no %s in the document", ptr))
	}
	return v
}

func (p *parser) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}

func (p *parser) compile(ptr string) *jsonschema.Schema {
	var sb strings.Builder
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		sb.WriteByte('/')
		sb.WriteString(url.PathEscape(tok))
	}
	sch, err := p.c.Compile(docURL + "#" + sb.String())
	if err != nil {
		p.fail(fmt.Errorf("openapi: schema %s: %w", ptr, err))
	}
	return sch
}

func (p *parser) params(v any, ptr string) []*param {
	list, _ := v.([]any)
	var out []*param
	for i, raw := range list {
		m, mptr := p.resolve(raw, fmt.Sprintf("%s/%d", ptr, i))
		if m == nil {
			continue
		}
		pr := &param{in: str(m["in"]), name: str(m["name"]), required: m["required"] == true}
		pr.schema = p.compile(mptr + "/schema")
		sm, _ := p.resolve(m["schema"], mptr+"/schema")
		pr.typ = str(sm["type"])
		if items, ok := sm["items"]; ok {
			im, _ := p.resolve(items, mptr+"/schema/items")
			pr.items = str(im["type"])
		}
		out = append(out, pr)
	}
	return out
}

func (p *parser) operation(method, path string, raw any, ptr string, common []*param) (*Operation, error) {
	m, ptr := p.resolve(raw, ptr)
	o := &Operation{Method: method, Path: path, ID: str(m["operationId"]), segs: strings.Split(path, "/"), responses: map[int]*Response{}}
	own := p.params(m["parameters"], ptr+"/parameters")
	o.params = append(o.params, own...)
	for _, c := range common {
		if !slices.ContainsFunc(own, func(q *param) bool { return q.name == c.name && q.in == c.in }) {
			o.params = append(o.params, c)
		}
	}
	sec, ok := m["security"]
	if !ok {
		sec = p.doc["security"]
	}
	for _, req := range asList(sec) {
		rm, _ := req.(map[string]any)
		one := map[string][]string{}
		for scheme, roles := range rm {
			for _, r := range asList(roles) {
				one[scheme] = append(one[scheme], str(r))
			}
		}
		o.Security = append(o.Security, one)
	}
	if rb, ok := m["requestBody"]; ok {
		bm, bptr := p.resolve(rb, ptr+"/requestBody")
		o.body = &body{required: bm["required"] == true, media: map[string]*jsonschema.Schema{}}
		content, _ := bm["content"].(map[string]any)
		for mt := range content {
			o.body.media[mt] = p.compile(bptr + "/content/" + esc(mt) + "/schema")
		}
	}
	responses, _ := m["responses"].(map[string]any)
	for code, raw := range responses {
		status, err := strconv.Atoi(code)
		if err != nil {
			return nil, fmt.Errorf("openapi: %s %s: response %q is not a status (every status is listed, no ranges or default)", method, path, code)
		}
		r, err := p.response(status, raw, ptr+"/responses/"+code)
		if err != nil {
			return nil, err
		}
		o.responses[status] = r
	}
	if p.err != nil {
		return nil, p.err
	}
	return o, nil
}

func (p *parser) response(status int, raw any, ptr string) (*Response, error) {
	m, ptr := p.resolve(raw, ptr)
	if m == nil {
		return nil, p.err
	}
	r := &Response{Status: status, media: map[string]*jsonschema.Schema{}}
	content, _ := m["content"].(map[string]any)
	for mt := range content {
		var sch *jsonschema.Schema
		if isJSON(mt) {
			sch = p.compile(ptr + "/content/" + esc(mt) + "/schema")
		}
		r.media[mt] = sch
	}
	headers, _ := m["headers"].(map[string]any)
	for name, h := range headers {
		hm, _ := p.resolve(h, ptr+"/headers/"+esc(name))
		if hm["required"] == true {
			r.headers = append(r.headers, name)
		}
	}
	sort.Strings(r.headers)
	return r, p.err
}

func isJSON(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

func str(v any) string { s, _ := v.(string); return s }

func asList(v any) []any { l, _ := v.([]any); return l }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Find returns the operation serving method and a concrete (escaped) path,
// and the path parameters' values. A path template's literal segments win
// over parameters, as in a ServeMux. HEAD finds the GET operation.
func (s *Spec) Find(method, escapedPath string) (*Operation, map[string]string, bool) {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	segs := strings.Split(escapedPath, "/")
	var best *Operation
	var bestVals map[string]string
	bestLit := -1
	for _, o := range s.ops {
		if o.Method != method || len(o.segs) != len(segs) {
			continue
		}
		vals, lit, ok := match(o.segs, segs)
		if ok && lit > bestLit {
			best, bestVals, bestLit = o, vals, lit
		}
	}
	return best, bestVals, best != nil
}

func match(tmpl, segs []string) (map[string]string, int, bool) {
	vals := map[string]string{}
	lit := 0
	for i, t := range tmpl {
		if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
			if segs[i] == "" {
				return nil, 0, false
			}
			v, err := url.PathUnescape(segs[i])
			if err != nil {
				return nil, 0, false
			}
			vals[t[1:len(t)-1]] = v
			continue
		}
		if t != segs[i] {
			return nil, 0, false
		}
		lit++
	}
	return vals, lit, true
}

// InSubtree reports whether path lies under a prefix the document
// describes by one page only (River UI's own pages and JSON API).
func (s *Spec) InSubtree(path string) bool {
	for _, p := range s.subtrees {
		if path == p || strings.HasPrefix(path, p+"/") {
			return !s.exact(path)
		}
	}
	return false
}

// exact reports whether some operation's path is exactly path.
func (s *Spec) exact(path string) bool {
	return slices.ContainsFunc(s.ops, func(o *Operation) bool { return o.Path == path })
}

// Exchange is one request and its answer.
type Exchange struct {
	Method         string
	URL            *url.URL
	RequestHeader  http.Header
	RequestBody    []byte
	Status         int
	ResponseHeader http.Header
	ResponseBody   []byte
}

// Outcome says how an exchange was checked.
type Outcome int

const (
	// Checked: an operation was found and the exchange checked against it.
	Checked Outcome = iota
	// Unrouted: no operation serves the request, and the server answered
	// as the document says it answers such a request (404, 405, or a
	// refusal before routing).
	Unrouted
	// Subtree: the path lies under a prefix documented by one page only.
	Subtree
)

// Result is what Check found.
type Result struct {
	Outcome Outcome
	// Op is the operation, for Checked.
	Op *Operation
	// RequestProblem is why the request does not conform to the document,
	// if it does not: expected of a request the server refused (4xx), an
	// error when the server accepted it.
	RequestProblem error
}

// Check checks an exchange against the document. A request that does not
// conform is an error only when the server accepted it (2xx): the document
// would then say less than the server takes. A nonconforming request the
// server refused is what the tests of refusals send.
func (s *Spec) Check(x *Exchange) (Result, error) {
	op, vals, ok := s.Find(x.Method, x.URL.EscapedPath())
	if !ok {
		if s.InSubtree(x.URL.Path) {
			return Result{Outcome: Subtree}, nil
		}
		r, known := s.unrouted[x.Status]
		if !known {
			return Result{Outcome: Unrouted}, fmt.Errorf("no operation of the document serves %s %s, yet the server answered %d", x.Method, x.URL.Path, x.Status)
		}
		if err := r.check(x); err != nil {
			return Result{Outcome: Unrouted}, fmt.Errorf("no operation serves %s %s; its %d answer does not match the document's: %w", x.Method, x.URL.Path, x.Status, err)
		}
		return Result{Outcome: Unrouted}, nil
	}
	res := Result{Outcome: Checked, Op: op, RequestProblem: op.checkRequest(x, vals)}
	if res.RequestProblem != nil && x.Status >= 200 && x.Status < 300 {
		return res, fmt.Errorf("the server accepted (%d) a request the document says is invalid: %w", x.Status, res.RequestProblem)
	}
	r, documented := op.responses[x.Status]
	if !documented {
		return res, fmt.Errorf("status %d is not documented for %s (documented: %v)", x.Status, op.Key(), op.Statuses())
	}
	if err := r.check(x); err != nil {
		return res, fmt.Errorf("the %d answer does not match the document: %w", x.Status, err)
	}
	return res, nil
}

func (o *Operation) checkRequest(x *Exchange, vals map[string]string) error {
	var problems []string
	query := x.URL.Query()
	for _, p := range o.params {
		switch p.in {
		case "path":
			if err := p.schema.Validate(p.value([]string{vals[p.name]})); err != nil {
				problems = append(problems, fmt.Sprintf("path parameter %s: %v", p.name, err))
			}
		case "query":
			v, ok := query[p.name]
			if !ok {
				if p.required {
					problems = append(problems, fmt.Sprintf("query parameter %s is required", p.name))
				}
				continue
			}
			if err := p.schema.Validate(p.value(v)); err != nil {
				problems = append(problems, fmt.Sprintf("query parameter %s: %v", p.name, err))
			}
		}
	}
	for _, name := range sortedKeys(query) {
		if !slices.ContainsFunc(o.params, func(p *param) bool { return p.in == "query" && p.name == name }) {
			problems = append(problems, fmt.Sprintf("query parameter %s is not documented", name))
		}
	}
	switch {
	case o.body == nil && len(x.RequestBody) > 0:
		problems = append(problems, "the operation takes no body")
	case o.body == nil:
	case len(x.RequestBody) == 0:
		if o.body.required {
			problems = append(problems, "the body is required")
		}
	default:
		mt, _, _ := mime.ParseMediaType(x.RequestHeader.Get("Content-Type"))
		sch, ok := o.body.media[mt]
		if !ok {
			problems = append(problems, fmt.Sprintf("the body's content type %q is not documented", mt))
			break
		}
		if err := validateJSON(sch, x.RequestBody); err != nil {
			problems = append(problems, "body: "+err.Error())
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// value reads a parameter's text as the JSON value its schema describes:
// a number for an integer or number, a boolean for a boolean; text that is
// not one stays a string, which the schema then refuses.
func (p *param) value(v []string) any {
	if p.typ == "array" {
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = scalar(p.items, s)
		}
		return out
	}
	if len(v) == 0 {
		return nil
	}
	return scalar(p.typ, v[0])
}

func scalar(typ, s string) any {
	switch typ {
	case "integer", "number":
		if _, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXpP_ ") {
			return json.Number(s)
		}
	case "boolean":
		if b, err := strconv.ParseBool(s); err == nil && (s == "true" || s == "false") {
			return b
		}
	}
	return s
}

func (r *Response) check(x *Exchange) error {
	for _, h := range r.headers {
		if x.ResponseHeader.Get(h) == "" {
			return fmt.Errorf("the %s header is required", h)
		}
	}
	if x.Method == http.MethodHead {
		return nil
	}
	if len(r.media) == 0 {
		if len(x.ResponseBody) > 0 {
			return fmt.Errorf("the document gives this answer no body; it has %d bytes", len(x.ResponseBody))
		}
		return nil
	}
	mt, _, err := mime.ParseMediaType(x.ResponseHeader.Get("Content-Type"))
	if err != nil {
		return fmt.Errorf("content type %q: %v", x.ResponseHeader.Get("Content-Type"), err)
	}
	sch, ok := r.media[mt]
	if !ok {
		return fmt.Errorf("content type %q is not documented (documented: %v)", mt, sortedKeys(r.media))
	}
	if sch == nil {
		return nil
	}
	return validateJSON(sch, x.ResponseBody)
}

func validateJSON(sch *jsonschema.Schema, raw []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	return sch.Validate(v)
}
