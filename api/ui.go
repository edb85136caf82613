package api

import (
	"database/sql"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"riverqueue.com/riverui"
	"riverqueue.com/riverui/uiendpoints"

	"github.com/mnemo-ai/mnemo/queue"
)

// UIPrefix is where River UI is served: its pages under /ui/, its JSON API
// under /ui/api/.
const UIPrefix = "/ui"

// NewUI builds River UI over the queue's River client, on Postgres or
// SQLite. The handler must be started (Start) before it serves.
func NewUI(q queue.Queue, log *slog.Logger) (*riverui.Handler, error) {
	var endpoints uiendpoints.Bundle
	switch c := q.Client().(type) {
	case *river.Client[pgx.Tx]:
		endpoints = riverui.NewEndpoints(c, nil)
	case *river.Client[*sql.Tx]:
		endpoints = riverui.NewEndpoints(c, nil)
	default:
		return nil, fmt.Errorf("river ui: unsupported river client %T", c)
	}
	h, err := riverui.NewHandler(&riverui.HandlerOpts{Endpoints: endpoints, Logger: log, Prefix: UIPrefix})
	if err != nil {
		return nil, fmt.Errorf("river ui: %w", err)
	}
	return h, nil
}

// MountUI serves h, River UI, under /ui/ for admin tokens only.
//
// A browser cannot add a bearer header to the UI's own requests, so the UI
// also takes the token as the password of HTTP Basic authentication (any user
// name): its 401 asks the browser for it. Because a browser then sends those
// credentials by itself, unsafe cross-origin requests are refused and the UI
// may not be framed.
func (s *Server) MountUI(h http.Handler) {
	protected := http.NewCrossOriginProtection().Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
		h.ServeHTTP(w, r)
	}))
	s.mux.Handle(UIPrefix+"/", basicAsBearer(s.auth(ScopeAdmin, protected)))
}

// basicAsBearer takes the password of HTTP Basic credentials as the bearer
// token, and adds a Basic challenge to a 401 so that browsers ask for it.
func basicAsBearer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, token, ok := r.BasicAuth(); ok {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+token)
		}
		h.ServeHTTP(&basicChallenge{ResponseWriter: w}, r)
	})
}

// basicChallenge adds `WWW-Authenticate: Basic` to a 401.
type basicChallenge struct {
	http.ResponseWriter
}

func (w *basicChallenge) WriteHeader(code int) {
	if code == http.StatusUnauthorized {
		w.Header().Add("WWW-Authenticate", `Basic realm="mnemo", charset="UTF-8"`)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *basicChallenge) Unwrap() http.ResponseWriter { return w.ResponseWriter }
