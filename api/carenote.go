package api

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/mnemo-ai/mnemo/memory"
)

// The care note's end by an operator: the context pack carries a care note
// for a while after a user's risk finding (BuildContextCare) until an
// operator, having seen to the user, resolves the user's findings.

// mountCare registers the operator's resolution of a user's risk findings.
func (h *handlers) mountCare(s *Server) {
	s.Handle("POST /v1/admin/users/{user_id}/risk/resolve", ScopeAdmin, http.HandlerFunc(h.resolveRisk))
}

// riskResolution is the answer of a resolution: how many open findings it
// resolved, and when. It names no finding's class or words: the admin
// token does not read every app's users (a caregiver-only kind's).
type riskResolution struct {
	UserID     string    `json:"user_id"`
	Resolved   int       `json:"resolved"`
	ResolvedAt time.Time `json:"resolved_at"`
}

// resolveRisk resolves every open risk finding of the user recorded until
// now: the next context pack carries no care note for them, and a later
// finding carries one again. The resolution is kept on the findings
// (resolved_at, which GET /v1/users/{id}/cues shows) and logged with the
// user, the app and the count.
func (h *handlers) resolveRisk(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userReached(w, r)
	if !ok {
		return
	}
	now := h.now().Truncate(time.Microsecond) // as the databases keep it
	got, err := h.Store.ResolveCues(r.Context(), u.ID, memory.CueRisk, now)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.log.InfoContext(r.Context(), "risk findings resolved by an operator", slog.String("user_id", u.ID), slog.String("app", u.App),
		slog.Int("resolved", len(got)))
	WriteJSON(w, http.StatusOK, riskResolution{UserID: u.ID, Resolved: len(got), ResolvedAt: now})
}
