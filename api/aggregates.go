package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/mnemo-ai/mnemo/aggregate"
	"github.com/mnemo-ai/mnemo/batch"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/apperr"
	"github.com/mnemo-ai/mnemo/store"
)

// weekParam reads a week_ending date; false means an error was answered.
func weekParam(w http.ResponseWriter, r *http.Request) (string, bool) {
	week := r.URL.Query().Get("week_ending")
	if _, err := time.Parse(time.DateOnly, week); err != nil {
		writeError(w, apperr.Errorf(apperr.EBadRequest, "week_ending must be a date such as 2026-11-22"))
		return "", false
	}
	return week, true
}

// Weeks listed per page of GET /v1/users/{id}/analytics without week_ending.
const (
	DefaultWeeksLimit = 10
	MaxWeeksLimit     = 100
)

// getAnalytics answers one week's analytics with ?week_ending=, or without
// it the weeks that exist, newest first, in pages.
func (h *handlers) getAnalytics(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userOf(w, r)
	if !ok {
		return
	}
	userID := u.ID
	if !r.URL.Query().Has("week_ending") {
		h.listWeeks(w, r, u)
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

// weekView is one week of a user's analytics in a list.
type weekView struct {
	WeekEnding string          `json:"week_ending"`
	UpdatedAt  time.Time       `json:"updated_at"`
	Analytics  json.RawMessage `json:"analytics"`
}

// listWeeks answers {"user_id", "app", "weeks": [...], "next_before"}:
// up to ?limit= weeks (default 10, at most 100) ending before ?before=
// (a date; the newest when absent), newest first. next_before is the
// before of the next page, null on the last one.
func (h *handlers) listWeeks(w http.ResponseWriter, r *http.Request, u store.User) {
	q := r.URL.Query()
	limit := DefaultWeeksLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxWeeksLimit {
			writeError(w, apperr.Errorf(apperr.EBadRequest, "limit must be a number from 1 to %d", MaxWeeksLimit))
			return
		}
		limit = n
	}
	before := q.Get("before")
	if before != "" {
		if _, err := time.Parse(time.DateOnly, before); err != nil {
			writeError(w, apperr.Errorf(apperr.EBadRequest, "before must be a date such as 2026-11-22"))
			return
		}
	}
	rows, err := h.Store.ListWeeks(r.Context(), u.ID, before, limit+1)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var next *string
	if len(rows) > limit {
		rows = rows[:limit]
		next = &rows[limit-1].WeekEnding
	}
	weeks := make([]weekView, len(rows))
	for i, row := range rows {
		weeks[i] = weekView{WeekEnding: row.WeekEnding, UpdatedAt: row.UpdatedAt, Analytics: json.RawMessage(row.Data)}
	}
	WriteJSON(w, http.StatusOK, map[string]any{"user_id": u.ID, "app": u.App, "weeks": weeks, "next_before": next})
}

// getTrends answers the trends of a user whose kind runs the trends batch with "status": "ready"; before
// the trends batch has computed them, 200 with "trends": null, "status":
// "pending" and "next_run_at", the batch's next scheduled instant. A user of
// an app whose trends are never computed is 404.
func (h *handlers) getTrends(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userOf(w, r)
	if !ok {
		return
	}
	var next *time.Time
	if s := h.Schedules[aggregate.BatchTrends]; s != nil {
		if t := s.Next(h.now()); !t.IsZero() {
			t = t.UTC()
			next = &t
		}
	}
	row, err := h.Store.GetTrends(r.Context(), u.ID)
	switch {
	case err == nil:
		WriteJSON(w, http.StatusOK, map[string]any{"user_id": row.UserID, "app": row.App, "status": "ready",
			"trends": json.RawMessage(row.Data), "updated_at": row.UpdatedAt, "next_run_at": next})
		return
	case !errors.Is(err, store.ErrNotFound):
		h.fail(w, r, err)
		return
	}
	if app := h.Handoff.Apps[u.App]; app == nil || !batch.Declares(extract.KindOfApp(app), aggregate.BatchTrends) {
		writeError(w, apperr.Errorf(apperr.ENotFound, "trends are computed only for users of an app with %s's rules",
			KindsLabel(func(k extract.Kind) bool { return batch.Declares(k, aggregate.BatchTrends) })))
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"user_id": u.ID, "app": u.App, "status": "pending",
		"trends": nil, "updated_at": nil, "next_run_at": next})
}

func (h *handlers) getInsights(w http.ResponseWriter, r *http.Request) {
	app := r.URL.Query().Get("app")
	if _, ok := h.Handoff.Apps[app]; !ok {
		writeError(w, apperr.Errorf(apperr.EBadRequest, "app must name a configured app"))
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
