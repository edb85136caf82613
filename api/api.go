// Package api is Mnemo's HTTP layer: session handoff, user controls, the
// context pack, admin routes, bearer-token auth with scopes, health and
// readiness. It speaks JSON and maps every error to one small JSON shape
// without internal details.
package api

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/internal/apperr"
	"github.com/mnemo-ai/mnemo/store"
)

// Scopes a token may carry.
const (
	ScopeService = "service"
	ScopeAdmin   = "admin"
	// ScopeCaregiver reads the views of one caregiver-only app's users (package
	// views) and nothing else; such a token is always bound to an app.
	ScopeCaregiver = "caregiver"
)

// Token is one accepted bearer token, its scope and, for a service token
// bound to an app, that app: such a token reads, edits, erases and hands
// over only that app's users and sessions.
type Token struct {
	Scope string
	Value string
	// App binds a service (or caregiver) token to one app; empty reaches every app.
	App string
}

// appNameRE is what an app name in a token spec may look like.
var appNameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// ParseTokens reads MNEMO_API_TOKENS: comma-separated scope:token pairs,
// where a service scope may name an app (service@APP:token) and a
// caregiver scope must (caregiver@APP:token). Whether the app exists is
// for the caller to check. Errors never echo a token.
func ParseTokens(s string) ([]Token, error) {
	var out []Token
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		spec, value, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("entry %d is not scope:token or service@app:token", i+1)
		}
		scope, app, bound := strings.Cut(spec, "@")
		if scope != ScopeService && scope != ScopeAdmin && scope != ScopeCaregiver {
			return nil, fmt.Errorf("entry %d has scope %q; want service, service@APP, caregiver@APP or admin", i+1, scope)
		}
		if bound && scope == ScopeAdmin {
			return nil, fmt.Errorf("entry %d: only a service or caregiver token may be bound to an app (admin reaches every app)", i+1)
		}
		if !bound && scope == ScopeCaregiver {
			return nil, fmt.Errorf("entry %d: a caregiver token must be bound to an app (caregiver@APP)", i+1)
		}
		if bound && !appNameRE.MatchString(app) {
			return nil, fmt.Errorf("entry %d: %q is not an app name", i+1, app)
		}
		if len(value) < 16 {
			return nil, fmt.Errorf("entry %d: token is shorter than 16 characters", i+1)
		}
		out = append(out, Token{Scope: scope, Value: value, App: app})
	}
	return out, nil
}

// Readiness reports whether the database is reachable and fully migrated.
type Readiness func(ctx context.Context) error

// Server holds the HTTP handlers' dependencies.
type Server struct {
	tokens []Token
	ready  Readiness
	log    *slog.Logger
	mux    *http.ServeMux
	// open is true when no tokens are configured (loopback only): every
	// request is treated as admin.
	open bool
	// bodies bounds the request body bytes in flight; nil is no bound.
	bodies *bodyBudget
}

// Config configures a Server.
type Config struct {
	Tokens []Token
	Ready  Readiness
	Logger *slog.Logger
	// BodyBytesInFlight bounds the request body bytes held at once, each
	// request reserving its Content-Length (MaxBodyBytes when unannounced);
	// a request that finds no room within BodyWait (0: DefaultBodyWait) is
	// answered 503 busy with Retry-After. 0 is no bound.
	BodyBytesInFlight int64
	MaxBodyBytes      int64
	BodyWait          time.Duration
	// BodyBytesPerToken bounds the body bytes one token's requests hold
	// at once (open mode's requests share one such bound), at least
	// MaxBodyBytes; 0 is BodyBytesInFlight, no share.
	BodyBytesPerToken int64
	// MinBodyBytesPerSecond is the slowest a request body may arrive once
	// BodyRateGrace (0: DefaultBodyRateGrace) has passed: a slower one is
	// cut off with 408 and its bytes given back. 0 is no minimum.
	MinBodyBytesPerSecond int64
	BodyRateGrace         time.Duration
	// BodyReadTimeout is the server's read timeout, which the minimum
	// rate's deadlines never go past (0: none).
	BodyReadTimeout time.Duration
}

// New builds the server and its routes.
func New(cfg Config) *Server {
	s := &Server{tokens: cfg.Tokens, ready: cfg.Ready, log: cfg.Logger, mux: http.NewServeMux(), open: len(cfg.Tokens) == 0}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.bodies = newBodyBudget(cfg, s.log)
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /readyz", s.readyz)
	s.mux.HandleFunc("GET /openapi.json", s.serveOpenAPI)
	return s
}

// Handle registers h for pattern, reachable only with a token of scope (or admin).
// A request with a body first waits for room among the body bytes in
// flight, once its token is checked.
func (s *Server) Handle(pattern, scope string, h http.Handler) {
	s.mux.Handle(pattern, s.auth(scope, s.bodies.wrap(h)))
}

// ServeHTTP serves every route; unknown routes answer a JSON 404, a wrong
// method a JSON 405 with Allow.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.guard(w, r) {
		return
	}
	if _, pattern := s.mux.Handler(r); pattern == "" {
		s.mux.ServeHTTP(&routeMiss{ResponseWriter: w, method: r.Method}, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	if err := s.ready(ctx); err != nil {
		s.log.WarnContext(ctx, "not ready", slog.String("error", err.Error()))
		writeError(w, apperr.Errorf(apperr.ENotReady, "database unreachable, not migrated or read-only"))
		return
	}
	WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// guard refuses what a web page the developer visits could make a browser
// send, before auth: in open mode a Host that is not a loopback name (DNS
// rebinding) and any request a browser marks as another site's or whose
// Origin names another origin, reads included (an <img> or a fetch on any
// page would read the pack and mark its memories used); then on every state-changing request a cross-site one, then a body
// that is not JSON. false means the refusal was answered.
func (s *Server) guard(w http.ResponseWriter, r *http.Request) bool {
	probe := r.URL.Path == "/healthz" || r.URL.Path == "/readyz"
	if s.open && !probe && !loopbackHost(r.Host) {
		writeError(w, apperr.Errorf(apperr.EMisdirected, "without MNEMO_API_TOKENS only localhost, 127.0.0.1 and [::1] are served"))
		return false
	}
	if s.open && !probe && r.URL.Path != "/openapi.json" && (crossSite(r) || foreignOrigin(r)) {
		writeError(w, apperr.Errorf(apperr.ECrossSite, "without MNEMO_API_TOKENS, requests from another site's pages are refused, reads included: open Mnemo's pages directly"))
		return false
	}
	if err := crossOrigin.Check(r); err != nil {
		writeError(w, apperr.Errorf(apperr.ECrossSite, "cross-site requests that change state are refused"))
		return false
	}
	// River UI's own requests post text bodies; its routes have their own
	// cross-origin protection and the admin login.
	ui := r.URL.Path == UIPrefix || strings.HasPrefix(r.URL.Path, UIPrefix+"/")
	safe := r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions
	if !safe && r.ContentLength != 0 && !ui && !JSONMediaType(r.Header.Get("Content-Type")) {
		writeError(w, apperr.Errorf(apperr.EUnsupportedMedia, "send the body as application/json (a merge patch may be application/merge-patch+json)"))
		return false
	}
	return true
}

// crossOrigin refuses a state-changing request a browser marks as sent by
// another site (Sec-Fetch-Site other than same-origin or none) or whose
// Origin names another host than the request's; clients that send neither
// header (servers, curl) pass.
var crossOrigin = http.NewCrossOriginProtection()

// crossSite reports whether a browser marks r as sent by a page of another
// origin: Sec-Fetch-Site same-site (another port of localhost) or
// cross-site. Clients that send no such header (servers, curl) are not.
func crossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-site", "cross-site":
		return true
	}
	return false
}

// foreignOrigin reports whether r names, in its Origin header, another
// origin than the one it is sent to: a browser without Fetch Metadata still
// sends Origin on a cross-origin fetch, reads included. "null" (a sandboxed
// frame, a file) is foreign. Clients that send no Origin (servers, curl,
// a page's own navigation) are not.
func foreignOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return false
	}
	u, err := url.Parse(o)
	return err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host)
}

// loopbackHost reports whether a Host header names this machine: localhost
// or a loopback address, with any port. A DNS name that resolves to
// 127.0.0.1 (rebinding) is not one.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// JSONMediaType reports whether a Content-Type is JSON: application/json or
// a structured +json type such as application/merge-patch+json.
func JSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	sub, ok := strings.CutPrefix(mt, "application/")
	return ok && (sub == "json" || strings.HasSuffix(sub, "+json"))
}

// scopeKey carries the caller's scope in the request context.
type scopeKey struct{}

// appKey carries the app a caller's token is bound to ("" for none).
type appKey struct{}

// openKey marks a request served in open mode (no tokens configured).
type openKey struct{}

// tokenKey carries the index of the caller's token among the configured
// ones (its share of the body budget).
type tokenKey struct{}

// boundApp is the app the request's token is bound to; "" when it reaches
// every app (an unbound service token, an admin token, open mode).
func boundApp(r *http.Request) string {
	app, _ := r.Context().Value(appKey{}).(string)
	return app
}

// auth lets a request through when it carries a bearer token of the wanted
// scope; admin tokens reach every scope.
func (s *Server) auth(scope string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.open {
			ctx := context.WithValue(context.WithValue(r.Context(), scopeKey{}, ScopeAdmin), openKey{}, true)
			h.ServeHTTP(w, r.WithContext(ctx))
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || got == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mnemo"`)
			writeError(w, apperr.Errorf(apperr.EUnauthorized, "a bearer token is required"))
			return
		}
		have, app, which := "", "", -1
		for i, t := range s.tokens {
			if subtle.ConstantTimeCompare([]byte(got), []byte(t.Value)) == 1 {
				have, app, which = t.Scope, t.App, i
			}
		}
		switch {
		case have == "":
			w.Header().Set("WWW-Authenticate", `Bearer realm="mnemo", error="invalid_token"`)
			writeError(w, apperr.Errorf(apperr.EUnauthorized, "the bearer token is not valid"))
		case have != scope && have != ScopeAdmin:
			writeError(w, apperr.Errorf(apperr.EForbidden, "the token's scope does not allow this route"))
		default:
			ctx := context.WithValue(context.WithValue(r.Context(), scopeKey{}, have), tokenKey{}, which)
			if app != "" {
				ctx = context.WithValue(ctx, appKey{}, app)
			}
			h.ServeHTTP(w, r.WithContext(ctx))
		}
	})
}

// WriteJSON writes v as a JSON response. v is encoded before the status is
// sent: a value that cannot be encoded (a time after the year 9999, a NaN)
// answers 500 with the error shape, never the status asked for with an
// empty or partial body.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		buf.Reset()
		status = http.StatusInternalServerError
		_ = json.NewEncoder(&buf).Encode(errorBody("internal", "the response could not be encoded"))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

func errorBody(code, message string) map[string]any {
	return map[string]any{"error": map[string]string{"code": code, "message": message}}
}

// WriteError writes the one error shape: {"error": {"code", "message"}}.
func WriteError(w http.ResponseWriter, status int, code, message string) {
	WriteJSON(w, status, errorBody(code, message))
}

// publicError maps any error onto what the caller may be told: an
// *apperr.Error as it is, a rejected field as invalid, the store's errors
// by their kind, and anything else as internal, without internal details.
func publicError(err error) *apperr.Error {
	var (
		pub *apperr.Error
		ve  *handoff.ValidationError
	)
	switch {
	case errors.As(err, &pub):
		return pub
	case errors.As(err, &ve):
		return apperr.Errorf(apperr.EInvalid, "%s", ve.Error())
	case errors.Is(err, store.ErrNotFound):
		return apperr.Errorf(apperr.ENotFound, "not found")
	case errors.Is(err, store.ErrConflict):
		return apperr.Errorf(apperr.EConflict, "conflicts with the stored state")
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return apperr.Errorf(apperr.EUnavailable, "the request could not be completed in time")
	case store.IsUnavailable(err):
		return apperr.Errorf(apperr.EUnavailable, "the database is unreachable; send the request again later")
	case store.IsReadOnly(err):
		return apperr.Errorf(apperr.EReadOnly, "the database cannot accept writes right now")
	}
	return apperr.Errorf(apperr.EInternal, "internal error")
}
