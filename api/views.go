package api

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"

	"github.com/mnemo-ai/mnemo/views"
)

// MountViews serves the pages of package views under /views/: a user's page
// per app, the supervisors' insights and the operations page. A browser
// sends the token as the password of HTTP Basic authentication (any user
// name), as for River UI, or a client sends it as a bearer token. Who sees
// what is decided by the views from the token's scope and app (see
// views.Viewer): an admin token sees everything but the users of a
// caregiver-only kind (extract.View.CaregiverOnly), a service token bound to
// an app that app's users unless the kind is caregiver-only, a caregiver
// token (caregiver@APP) the users of its caregiver-only app and nothing else. The
// stylesheet and icon under /views/static/ are served without a token.
//
// It panics when the embedded templates do not parse, which the views'
// tests rule out.
//
// cfg says what the views read (internal/workerviews builds it from the
// worker's dependencies); its UIPrefix and Logger are the server's.
func (s *Server) MountViews(cfg views.Config) {
	cfg.UIPrefix, cfg.Logger = UIPrefix, s.log
	h, err := views.New(cfg)
	if err != nil {
		panic(fmt.Sprintf("mount views: %v", err))
	}
	s.mux.Handle("GET "+views.Prefix+"/", basicAsBearer(s.viewer(h)))
}

// viewer puts the caller's views.Viewer in the request's context; a
// request without a valid token is answered 401 with an HTML page (and,
// through basicAsBearer, a Basic challenge the browser answers).
func (s *Server) viewer(h *views.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.open {
			h.ServeHTTP(w, r.WithContext(views.WithViewer(r.Context(), views.Viewer{Open: true})))
			return
		}
		if strings.HasPrefix(r.URL.Path, views.Prefix+"/static/") {
			h.ServeHTTP(w, r.WithContext(views.WithViewer(r.Context(), views.Viewer{})))
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		scope, app := "", ""
		if ok && got != "" {
			for _, t := range s.tokens {
				if subtle.ConstantTimeCompare([]byte(got), []byte(t.Value)) == 1 {
					scope, app = t.Scope, t.App
				}
			}
		}
		if scope == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mnemo"`)
			h.Error(w, r, http.StatusUnauthorized, "Sign in",
				"These pages need a token: sign in with any user name and the token as the password.")
			return
		}
		h.ServeHTTP(w, r.WithContext(views.WithViewer(r.Context(), views.Viewer{Scope: scope, App: app})))
	})
}
