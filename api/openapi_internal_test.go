package api

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/views"
)

// documented lists the document's operations as ServeMux patterns
// ("GET /v1/users/{user_id}/memories"), each with the roles its bearer
// security needs (none for a route without a token).
func documented(t *testing.T) map[string][]string {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for path, item := range doc.Paths {
		for method, raw := range item {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
			default:
				continue
			}
			var op struct {
				Security []map[string][]string `json:"security"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			roles := []string{}
			for _, req := range op.Security {
				roles = append(roles, req["bearerAuth"]...)
			}
			out[strings.ToUpper(method)+" "+path] = roles
		}
	}
	return out
}

// fullServer is a Server with every route mounted, whose handlers are never
// reached: a test of routing and auth only.
func fullServer() *Server {
	s := New(Config{Tokens: []Token{{Scope: ScopeService, Value: "service-token-0123456789"}, {Scope: ScopeAdmin, Value: "admin-token-0123456789"}},
		Ready: func(context.Context) error { return nil }})
	// A queue, so that the admin routes are mounted too; routing never calls it.
	s.Mount(Data{Handoff: handoff.Deps{Queue: fakeQueue{}}})
	s.MountMetrics(http.NotFoundHandler())
	s.MountUI(http.NotFoundHandler())
	s.MountViews(views.Config{Store: fakeStore{}})
	return s
}

// fakeQueue is a non-nil queue.Queue whose methods are never called.
type fakeQueue struct{ queue.Queue }

// fakeStore is a non-nil store.Store whose methods are never called.
type fakeStore struct{ store.Store }

// concrete fills a path template's parameters with a value each accepts.
func concrete(path string) string {
	return regexp.MustCompile(`\{[a-z_]+\}`).ReplaceAllStringFunc(path, func(p string) string {
		if p == "{job_id}" {
			return "1"
		}
		return "x-1"
	})
}

// TestDocumentedOperationsAreServed: every operation of api/openapi.json is
// a route of the server, under exactly that pattern, and asks for the token
// the document says: no token is 401 where it lists a role and not where it
// lists none, and a service token on an admin route is 403.
func TestDocumentedOperationsAreServed(t *testing.T) {
	s := fullServer()
	for key, roles := range documented(t) {
		method, path, _ := strings.Cut(key, " ")
		req := httptest.NewRequest(method, concrete(path), nil)
		req.Host = "localhost"
		_, pattern := s.mux.Handler(req)
		if pattern != key && !(path == UIPrefix+"/" && pattern == UIPrefix+"/") {
			t.Errorf("%s is documented; the server routes %s %s to %q", key, method, concrete(path), pattern)
			continue
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		switch {
		case len(roles) > 0 && rec.Code != http.StatusUnauthorized:
			t.Errorf("%s without a token = %d; the document lists roles %v, so want 401", key, rec.Code, roles)
		case len(roles) == 0 && rec.Code == http.StatusUnauthorized:
			t.Errorf("%s without a token = 401; the document says it needs none", key)
		}
		if slices.Equal(roles, []string{ScopeAdmin}) {
			req := httptest.NewRequest(method, concrete(path), nil)
			req.Header.Set("Authorization", "Bearer service-token-0123456789")
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != http.StatusForbidden {
				t.Errorf("%s with a service token = %d; the document says admin only, so want 403", key, rec.Code)
			}
		}
	}
}

// TestServedRoutesAreDocumented: every route pattern the module's code
// registers on the API server (Server.Handle calls with a scope, the
// server's own mux registrations) is an operation of api/openapi.json. The
// patterns are read from the source, so that a route added anywhere in the
// module fails here until it is documented.
func TestServedRoutesAreDocumented(t *testing.T) {
	doc := documented(t)
	fset := token.NewFileSet()
	files := parseModule(t, fset)
	consts := constExprs(files)
	found := 0
	for _, f := range files {
		pkg := f.Name.Name
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			params := map[string]bool{}
			for _, field := range fn.Type.Params.List {
				for _, name := range field.Names {
					params[name.Name] = true
				}
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "Handle" && sel.Sel.Name != "HandleFunc") || len(call.Args) == 0 {
					return true
				}
				// Server.Handle(pattern, scope, handler), or the server's own
				// mux (s.mux.Handle…) in package api.
				onServer := len(call.Args) == 3 && mentions(call.Args[1], "Scope")
				onMux := pkg == "api" && isMux(sel.X)
				if !onServer && !onMux {
					return true
				}
				if id, ok := call.Args[0].(*ast.Ident); ok && params[id.Name] {
					return true // a function passing its caller's pattern on (Server.Handle itself)
				}
				pattern, ok := evalString(call.Args[0], pkg, consts, 0)
				if !ok {
					t.Errorf("%s: a route whose pattern is not a constant string; document it and teach this test to read it", fset.Position(call.Pos()))
					return true
				}
				found++
				key := pattern
				if !strings.Contains(pattern, " ") {
					key = "GET " + pattern // a pattern without a method: its GET is documented
				}
				if _, ok := doc[key]; !ok {
					t.Errorf("%s: route %q is not in api/openapi.json", fset.Position(call.Pos()), pattern)
				}
				return true
			})
		}
	}
	if found < len(doc) {
		t.Errorf("found %d route registrations in the source and %d documented operations: the source scan misses routes", found, len(doc))
	}
}

// parseModule parses the module's Go files but tests.
func parseModule(t *testing.T, fset *token.FileSet) []*ast.File {
	t.Helper()
	root := ".."
	var files []*ast.File
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// constExprs maps "package.Name" to each package-level constant's
// expression, across the module (package names stand for import names).
func constExprs(files []*ast.File) map[string]ast.Expr {
	out := map[string]ast.Expr{}
	for _, f := range files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						out[f.Name.Name+"."+name.Name] = vs.Values[i]
					}
				}
			}
		}
	}
	return out
}

// evalString evaluates a constant string expression of package pkg: a
// literal, a constant of the package or another (views.Prefix), a sum.
func evalString(e ast.Expr, pkg string, consts map[string]ast.Expr, depth int) (string, bool) {
	if depth > 8 {
		return "", false
	}
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		v, err := strconv.Unquote(x.Value)
		return v, err == nil
	case *ast.ParenExpr:
		return evalString(x.X, pkg, consts, depth+1)
	case *ast.Ident:
		if c, ok := consts[pkg+"."+x.Name]; ok {
			return evalString(c, pkg, consts, depth+1)
		}
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			if c, ok := consts[id.Name+"."+x.Sel.Name]; ok {
				return evalString(c, id.Name, consts, depth+1)
			}
		}
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return "", false
		}
		a, ok1 := evalString(x.X, pkg, consts, depth+1)
		b, ok2 := evalString(x.Y, pkg, consts, depth+1)
		return a + b, ok1 && ok2
	}
	return "", false
}

// mentions reports whether an expression names an identifier containing s.
func mentions(e ast.Expr, s string) bool {
	hit := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && strings.Contains(id.Name, s) {
			hit = true
		}
		return !hit
	})
	return hit
}

func isMux(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "mux"
}
