package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/mnemo-ai/mnemo/handoff"
)

// weekParam reads a week_ending date; false means an error was answered.
func weekParam(w http.ResponseWriter, r *http.Request) (string, bool) {
	week := r.URL.Query().Get("week_ending")
	if _, err := time.Parse(time.DateOnly, week); err != nil {
		WriteError(w, http.StatusBadRequest, "bad_request", "week_ending must be a date such as 2026-11-22")
		return "", false
	}
	return week, true
}

func (h *handlers) getAnalytics(w http.ResponseWriter, r *http.Request) {
	userID := r.PathValue("user_id")
	if !handoff.ValidID(userID) {
		WriteError(w, http.StatusNotFound, "not_found", "not found")
		return
	}
	week, ok := weekParam(w, r)
	if !ok {
		return
	}
	row, err := h.Store.GetWeekly(r.Context(), userID, week)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"user_id": row.UserID, "app": row.App, "week_ending": row.WeekEnding,
		"analytics": json.RawMessage(row.Data), "updated_at": row.UpdatedAt})
}

func (h *handlers) getTrends(w http.ResponseWriter, r *http.Request) {
	userID := r.PathValue("user_id")
	if !handoff.ValidID(userID) {
		WriteError(w, http.StatusNotFound, "not_found", "not found")
		return
	}
	row, err := h.Store.GetTrends(r.Context(), userID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"user_id": row.UserID, "app": row.App, "trends": json.RawMessage(row.Data), "updated_at": row.UpdatedAt})
}

func (h *handlers) getInsights(w http.ResponseWriter, r *http.Request) {
	app := r.URL.Query().Get("app")
	if _, ok := h.Handoff.Apps[app]; !ok {
		WriteError(w, http.StatusBadRequest, "bad_request", "app must name a configured app")
		return
	}
	week, ok := weekParam(w, r)
	if !ok {
		return
	}
	in, err := h.Store.GetInsight(r.Context(), app, week)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, json.RawMessage(in.Data))
}
