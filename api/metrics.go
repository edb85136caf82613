package api

import "net/http"

// Metrics is what the HTTP layer reports to an exporter.
type Metrics interface {
	// Handoff is one request to a handoff route, "close" or "messages", and
	// the HTTP status it was answered with.
	Handoff(endpoint string, status int)
}

// handoffRoutes names the handoff routes' patterns for Metrics.
var handoffRoutes = map[string]string{
	"POST /v1/sessions/{session_id}/close":    "close",
	"POST /v1/sessions/{session_id}/messages": "messages",
}

// MountMetrics serves h, the Prometheus exposition, at GET /metrics for
// admin tokens only.
func (s *Server) MountMetrics(h http.Handler) {
	s.Handle("GET /metrics", ScopeAdmin, h)
}

// Observed returns s as a handler that reports every handoff request's
// answer to m, refusals (401, 403, 413, …) included.
func (s *Server) Observed(m Metrics) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pattern := s.mux.Handler(r)
		endpoint, ok := handoffRoutes[pattern]
		if !ok {
			s.ServeHTTP(w, r)
			return
		}
		sw := &statusWriter{ResponseWriter: w}
		s.ServeHTTP(sw, r)
		m.Handoff(endpoint, sw.code())
	})
}

// statusWriter remembers the status a handler answered with.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) code() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}
