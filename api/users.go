package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/internal/apperr"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/views"
)

// mountUsers registers the user data controls.
func (h *handlers) mountUsers(s *Server) {
	s.Handle("PATCH /v1/users/{user_id}/profile", ScopeService, http.HandlerFunc(h.patchProfile))
	s.Handle("DELETE /v1/users/{user_id}/profile", ScopeService, http.HandlerFunc(h.deleteProfile))
	s.Handle("GET /v1/users/{user_id}/cues", ScopeService, http.HandlerFunc(h.listCues))
	s.Handle("DELETE /v1/users/{user_id}/memories/{memory_id}", ScopeService, http.HandlerFunc(h.forgetMemory))
	s.Handle("DELETE /v1/users/{user_id}/memories", ScopeService, http.HandlerFunc(h.forgetCategory))
	s.Handle("PUT /v1/users/{user_id}/settings", ScopeService, http.HandlerFunc(h.putSettings))
	s.Handle("POST /v1/users/{user_id}/export", ScopeService, http.HandlerFunc(h.startExport))
	s.Handle("GET /v1/users/{user_id}/exports/{export_id}", ScopeService, http.HandlerFunc(h.getExport))
	s.Handle("GET /v1/exports/{export_id}", ScopeService, http.HandlerFunc(h.exportMoved))
	s.Handle("DELETE /v1/users/{user_id}", ScopeService, http.HandlerFunc(h.eraseUser))
}

// writeUnknownUser is the one answer to a user that does not exist, and to
// a user of another app than the caller's token is bound to: the two cannot
// be told apart.
func writeUnknownUser(w http.ResponseWriter) {
	writeError(w, apperr.Errorf(apperr.ENotFound, "not found"))
}

// userOf reads the user of the path for a route that reads or changes the
// user's data; false means an error was answered. Every such route goes
// through it: a user of another app than the token's answers as an unknown
// user, and one whose data is not the token's to read (views.MayRead: a
// caregiver-only kind's user's, for the admin token) is 403.
func (h *handlers) userOf(w http.ResponseWriter, r *http.Request) (store.User, bool) {
	u, ok := h.userReached(w, r)
	if !ok || !h.mayRead(w, r, u.App) {
		return store.User{}, false
	}
	return u, true
}

// mayRead applies the one rule of who reads a user's data (views.MayRead)
// to the request's token and a user of app; false means the refusal was
// answered.
func (h *handlers) mayRead(w http.ResponseWriter, r *http.Request, app string) bool {
	scope, _ := r.Context().Value(scopeKey{}).(string)
	open, _ := r.Context().Value(openKey{}).(bool)
	status, why := views.MayRead(views.Viewer{Open: open, Scope: scope, App: boundApp(r)}, app, h.Handoff.Apps[app])
	switch status {
	case 0:
		return true
	case http.StatusNotFound:
		writeUnknownUser(w)
	default:
		// views.MayRead refuses with 404 or 403 only.
		writeError(w, apperr.Errorf(apperr.EForbidden, "%s", why))
	}
	return false
}

// seesCaregiverNotes reports whether the request's token sees what is for
// the caregiver alone (views.SeesCaregiverNotes).
func (h *handlers) seesCaregiverNotes(r *http.Request, app string) bool {
	scope, _ := r.Context().Value(scopeKey{}).(string)
	open, _ := r.Context().Value(openKey{}).(bool)
	return views.SeesCaregiverNotes(views.Viewer{Open: open, Scope: scope, App: boundApp(r)}, h.Handoff.Apps[app])
}

// withoutNotes is a stored summary without its caregiver-only part (the
// kind's extract.View.WithoutNotes); one that holds none, or does not
// decode as an object, is given as it is.
func withoutNotes(raw json.RawMessage, view extract.View) json.RawMessage {
	if view.CaregiverNotes == "" || view.WithoutNotes == nil {
		return raw
	}
	var sum map[string]any
	if json.Unmarshal(raw, &sum) != nil || sum == nil {
		return raw
	}
	if _, ok := sum[view.CaregiverNotes]; !ok {
		return raw
	}
	b, err := json.Marshal(view.WithoutNotes(sum))
	if err != nil {
		return raw
	}
	return b
}

// userReached reads the user of the path for a route that reads none of
// the user's data (an erasure); false means an error was answered. A user
// of another app than the token's answers as an unknown user.
func (h *handlers) userReached(w http.ResponseWriter, r *http.Request) (store.User, bool) {
	id := r.PathValue("user_id")
	if !handoff.ValidID(id) {
		writeUnknownUser(w)
		return store.User{}, false
	}
	u, err := h.Store.GetUser(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		writeUnknownUser(w)
		return store.User{}, false
	}
	if err != nil {
		h.fail(w, r, err)
		return u, false
	}
	if !mayReach(r, u.App) {
		writeUnknownUser(w)
		return store.User{}, false
	}
	return u, true
}

// mayReach reports whether the request's token may see data of app: an
// unbound token sees every app, a bound one its own.
func mayReach(r *http.Request, app string) bool {
	bound := boundApp(r)
	return bound == "" || bound == app
}

// decodeObject reads a body holding one JSON object.
func (h *handlers) decodeObject(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	body, ok := h.readBody(w, r)
	if !ok {
		return nil, false
	}
	obj, err := DecodeObject(body)
	if err != nil {
		writeBodyError(w, err)
		return nil, false
	}
	return obj, true
}

// editActor is who a profile edit is recorded as: the user (through their
// chat service), or an operator with ?actor=operator, which needs an admin
// token. false means an error was answered.
func editActor(w http.ResponseWriter, r *http.Request) (string, bool) {
	switch r.URL.Query().Get("actor") {
	case "", memory.ActorUser:
		return memory.ActorUser, true
	case memory.ActorOperator:
		if r.Context().Value(scopeKey{}) != ScopeAdmin {
			writeError(w, apperr.Errorf(apperr.EForbidden, "an edit as an operator needs an admin token"))
			return "", false
		}
		return memory.ActorOperator, true
	}
	writeError(w, apperr.Errorf(apperr.EBadRequest, "actor must be user or operator"))
	return "", false
}

// patchProfile applies a JSON merge patch (RFC 7396) to the profile and
// records it as the user's (or an operator's) edit. A significant change
// raises the same cues as one an extraction makes, in the same transaction.
func (h *handlers) patchProfile(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userOf(w, r)
	if !ok {
		return
	}
	actor, ok := editActor(w, r)
	if !ok {
		return
	}
	patch, ok := h.decodeObject(w, r)
	if !ok {
		return
	}
	if refused := h.Profile.checkPatch(patch); refused != nil {
		writeError(w, refused)
		return
	}
	if refused := checkFields(patch, h.Handoff.Apps[u.App]); refused != nil {
		writeError(w, refused)
		return
	}
	now := h.now()
	var saved store.Profile
	err := h.Store.InTx(r.Context(), func(ctx context.Context, tx store.Tx) error {
		if err := tx.LockUser(ctx, u.ID); err != nil {
			return err
		}
		doc := map[string]any{}
		cur, err := tx.GetProfile(ctx, u.ID)
		switch {
		case err == nil:
			if err := json.Unmarshal(cur.Doc, &doc); err != nil {
				return err
			}
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
		patch := dropNoOpRemovals(patch, doc, cur.Stated, h.Handoff.Apps[u.App])
		// The edit states the merged value of every field it touches (null
		// for one it removes), as the newest statement of that field: a
		// session handed over late, from before the edit, changes none of them.
		merged, _ := MergePatch(maps.Clone(doc), patch).(map[string]any)
		// The merged result is bounded, and checked against the app's
		// profile fields, before anything is written.
		if refused := h.Profile.checkProfile(merged, h.Handoff.Apps[u.App]); refused != nil {
			return refused
		}
		updates := map[string]any{}
		for k := range patch {
			updates[k] = merged[k]
		}
		written, err := memory.WriteProfile(ctx, tx, memory.ProfileWrite{UserID: u.ID, App: u.App, Updates: updates, StatedAt: now,
			By: actor, Actor: actor, Edit: true, MaxRemoved: h.Profile.withDefaults().MaxFields}, now)
		if err != nil {
			return err
		}
		if saved, err = tx.GetProfile(ctx, u.ID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				// An empty patch of a user with no profile: nothing to show.
				saved = store.Profile{UserID: u.ID, App: u.App, Doc: json.RawMessage("{}"), UpdatedAt: now}
				return nil
			}
			return err
		}
		_, err = memory.RecordProfileCues(ctx, tx, h.Handoff.Apps[u.App],
			memory.CueSource{UserID: u.ID, App: u.App, Version: saved.Version, Actor: actor}, written.Before, written.After, now)
		return err
	})
	if err != nil {
		// A refused edit is an *apperr.Error and answers as such.
		h.fail(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"user_id": u.ID, "app": u.App, "profile": saved.Doc, "version": saved.Version, "updated_at": saved.UpdatedAt})
}

// deleteProfile is a fresh start: the profile, its history and the open
// cues go. It raises no cue itself: a user who asked to be forgotten has not
// dropped their fellowship or lost their sponsor, and the cues that quoted
// the old profile (a sponsor's name) would bring it back into the next
// session.
func (h *handlers) deleteProfile(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userOf(w, r)
	if !ok {
		return
	}
	err := h.Store.InTx(r.Context(), func(ctx context.Context, tx store.Tx) error {
		if err := tx.LockUser(ctx, u.ID); err != nil {
			return err
		}
		if err := tx.DeleteProfile(ctx, u.ID); err != nil {
			return err
		}
		// A session from before the fresh start, handed over late, must not
		// fill the new profile with what the user asked to forget.
		if err := tx.InsertMemoryChange(ctx, store.MemoryChange{MemoryID: memory.ProfileForgotten, UserID: u.ID, Action: "forget",
			Actor: "user", At: h.now()}); err != nil {
			return err
		}
		if _, err := tx.DeleteCues(ctx, u.ID); err != nil {
			return err
		}
		return forgetExports(ctx, tx, u.ID)
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *handlers) forgetMemory(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userOf(w, r)
	if !ok {
		return
	}
	id := r.PathValue("memory_id")
	if !handoff.ValidID(id) {
		// No memory has such an id (a NUL, bytes that are not UTF-8, which
		// Postgres would refuse to compare).
		writeError(w, apperr.Errorf(apperr.ENotFound, "not found"))
		return
	}
	now := h.now()
	err := h.Store.InTx(r.Context(), func(ctx context.Context, tx store.Tx) error {
		if err := tx.LockUser(ctx, u.ID); err != nil {
			return err
		}
		m, err := tx.GetMemory(ctx, u.ID, id)
		if err != nil {
			return err
		}
		// Forgetting a memory forgets its key: "forget where I live" means
		// the old addresses too. Every version of the key's subject (what a
		// newer statement replaced, a like become a dislike) goes with its
		// statements, as a category's forget takes every version of it.
		keys := extract.SubjectKeys(m.Key)
		all, err := tx.ListMemories(ctx, u.ID, store.MemoryFilter{All: true})
		if err != nil {
			return err
		}
		f := memory.Forgetting{}
		for _, v := range all {
			if slices.Contains(keys, v.Key) {
				f.Memories = append(f.Memories, extract.Mention{Key: v.Key, Value: v.Value})
			}
		}
		if _, err := tx.DeleteKeyMemories(ctx, u.ID, keys); err != nil {
			return err
		}
		// The key is kept with the forget, so that a session from before it,
		// handed over late, does not bring the memory back.
		if err := tx.InsertMemoryChange(ctx, store.MemoryChange{MemoryID: id, UserID: u.ID, Action: "forget", Actor: "user", At: now, Key: m.Key}); err != nil {
			return err
		}
		if err := memory.ForgetDerived(ctx, tx, u.ID, f); err != nil {
			return err
		}
		return forgetExports(ctx, tx, u.ID)
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.checkpoint(r)
	w.WriteHeader(http.StatusNoContent)
}

// checkpoint, on SQLite, moves the write-ahead log into the database file
// and truncates it, as an erase does: the old copies of the pages a forget
// or memory off rewrote go now, not at the next automatic checkpoint. What
// was asked is done by then: a checkpoint that fails (a long reader) is
// logged, and the log is checkpointed later as usual.
func (h *handlers) checkpoint(r *http.Request) {
	c, ok := h.Store.(interface{ Checkpoint(context.Context) error })
	if !ok {
		return
	}
	if err := c.Checkpoint(r.Context()); err != nil {
		h.log.WarnContext(r.Context(), "checkpoint after forget", slog.String("route", r.Pattern), slog.String("error", err.Error()))
	}
}

var categories = map[string]bool{"fact": true, "preference": true, "event": true, "feeling": true, "other": true}

func (h *handlers) forgetCategory(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userOf(w, r)
	if !ok {
		return
	}
	cat := r.URL.Query().Get("category")
	if !categories[cat] {
		writeError(w, apperr.Errorf(apperr.EBadRequest, "category must be one of fact, preference, event, feeling, other"))
		return
	}
	now := h.now()
	var n int64
	err := h.Store.InTx(r.Context(), func(ctx context.Context, tx store.Tx) (err error) {
		if err := tx.LockUser(ctx, u.ID); err != nil {
			return err
		}
		if err := forgetExports(ctx, tx, u.ID); err != nil {
			return err
		}
		mems, err := tx.ListMemories(ctx, u.ID, store.MemoryFilter{All: true, Category: cat})
		if err != nil {
			return err
		}
		if n, err = tx.DeleteMemories(ctx, u.ID, cat); err != nil {
			return err
		}
		// The marker is kept even when no memory of the category is stored
		// yet: a session in progress may have said one, and its rolling
		// summary, or its extraction when it closes, must not keep it.
		if err := tx.InsertMemoryChange(ctx, store.MemoryChange{MemoryID: "category:" + cat, UserID: u.ID, Action: "forget", Actor: "user", At: now}); err != nil {
			return err
		}
		f := memory.Forgetting{Category: cat}
		for _, m := range mems {
			f.Memories = append(f.Memories, extract.Mention{Key: m.Key, Value: m.Value})
		}
		return memory.ForgetDerived(ctx, tx, u.ID, f)
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.checkpoint(r)
	WriteJSON(w, http.StatusOK, map[string]any{"forgotten": n})
}

func (h *handlers) putSettings(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userOf(w, r)
	if !ok {
		return
	}
	body, ok := h.readBody(w, r)
	if !ok {
		return
	}
	var s struct {
		MemoryEnabled *bool `json:"memory_enabled"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil || s.MemoryEnabled == nil {
		writeError(w, apperr.Errorf(apperr.EBadRequest, `send {"memory_enabled": true|false}`))
		return
	}
	err := h.Store.InTx(r.Context(), func(ctx context.Context, tx store.Tx) error {
		if err := tx.SetMemoryDisabled(ctx, u.ID, !*s.MemoryEnabled, h.now()); err != nil {
			return err
		}
		if *s.MemoryEnabled {
			return nil
		}
		// Memory off: nothing of the user is kept any more, copies included,
		// nor what a session in progress buffered and summarised.
		if err := memory.MemoryOff(ctx, tx, u.ID); err != nil {
			return err
		}
		return forgetExports(ctx, tx, u.ID)
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if !*s.MemoryEnabled {
		h.checkpoint(r)
	}
	WriteJSON(w, http.StatusOK, map[string]any{"user_id": u.ID, "memory_enabled": *s.MemoryEnabled})
}

func (h *handlers) startExport(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userOf(w, r)
	if !ok {
		return
	}
	id := store.NewID()
	var job queue.Inserted
	replaced := []string{}
	err := h.Store.InTx(r.Context(), func(ctx context.Context, tx store.Tx) (err error) {
		// One user's requests one at a time, so that the bound holds.
		if err := tx.LockUser(ctx, u.ID); err != nil {
			return err
		}
		if err := tx.CreateExport(ctx, store.Export{ID: id, UserID: u.ID, Status: "pending", CreatedAt: h.now()}); err != nil {
			return err
		}
		// At most MaxExportsPerUser archives of a user are kept (each is
		// all their data, for days): the new one replaces the oldest, whose
		// job, if it is still waiting, finds it gone and stops.
		gone, err := tx.KeepNewestExports(ctx, u.ID, h.maxExportsPerUser())
		if err != nil {
			return err
		}
		replaced = append(replaced[:0], gone...)
		job, err = h.Handoff.Queue.InsertTx(ctx, tx, queue.ExportArgs{ExportID: id}, nil)
		return err
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	WriteJSON(w, http.StatusAccepted, map[string]any{"export_id": id, "url": "/v1/users/" + u.ID + "/exports/" + id,
		"jobs": []store.JobRef{{ID: job.ID, Kind: job.Kind}}, "replaced": replaced})
}

// forgetExports deletes every export of a user: an archive is a copy of
// what the user just asked to forget (or to stop keeping), and must not
// outlive it.
func forgetExports(ctx context.Context, tx store.Tx, userID string) error {
	_, err := tx.DeleteUserExports(ctx, userID, time.Time{})
	return err
}

// exportMoved answers the old, unbound export path: an export is fetched
// under its user's path, so that an export id alone names nothing.
func (h *handlers) exportMoved(w http.ResponseWriter, r *http.Request) {
	writeError(w, apperr.Errorf(apperr.EMoved, "exports are fetched at GET /v1/users/{user_id}/exports/{export_id}"))
}

// getExport answers a user's export: 202 while it is built, the archive
// once done; 404 for an id that is not this user's, an export deleted (the
// user forgot something or turned memory off) or one past its expiry.
func (h *handlers) getExport(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userOf(w, r)
	if !ok {
		return
	}
	id := r.PathValue("export_id")
	if !handoff.ValidID(id) {
		writeError(w, apperr.Errorf(apperr.ENotFound, "not found"))
		return
	}
	e, err := h.Store.GetExport(r.Context(), id)
	if err == nil && (e.UserID != u.ID || (e.ExpiresAt != nil && !h.now().Before(*e.ExpiresAt))) {
		err = store.ErrNotFound
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	switch e.Status {
	case "pending":
		WriteJSON(w, http.StatusAccepted, map[string]any{"export_id": id, "status": e.Status})
		return
	case "failed":
		writeError(w, apperr.Errorf(apperr.EExportFailed, "the export could not be built"))
		return
	}
	archive, err := memory.OpenExport(r.Context(), h.Store, h.Handoff.Keys, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="mnemo-export-`+id+`.json"`)
	// The archive is all the user's data: not to be sniffed into a page,
	// nor kept by a browser or proxy cache.
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(archive)
}

func (h *handlers) eraseUser(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userReached(w, r) // the operator erases any user
	if !ok {
		return
	}
	id := store.NewID()
	var job queue.Inserted
	err := h.Store.InTx(r.Context(), func(ctx context.Context, tx store.Tx) (err error) {
		if err := tx.CreateErasure(ctx, store.Erasure{ID: id, UserID: u.ID, RequestedAt: h.now()}); err != nil {
			return err
		}
		job, err = h.Handoff.Queue.InsertTx(ctx, tx, queue.EraseArgs{ErasureID: id}, nil)
		return err
	})
	if err != nil {
		h.fail(w, r, err)
		return
	}
	WriteJSON(w, http.StatusAccepted, map[string]any{"erasure_id": id, "jobs": []store.JobRef{{ID: job.ID, Kind: job.Kind}}})
}

// cueView is a cue as the chat service sees it. A cue raised by a session's
// extraction names the session; one raised by an edit names the profile
// version the edit wrote. detail.actor says who made the change.
type cueView struct {
	ID             string          `json:"id"`
	Kind           string          `json:"kind"`
	Field          string          `json:"field,omitempty"`
	Detail         json.RawMessage `json:"detail"`
	SessionID      string          `json:"session_id,omitempty"`
	ProfileVersion int             `json:"profile_version,omitempty"`
	CreatedAt      time.Time       `json:"created_at"`
	ResolvedAt     *time.Time      `json:"resolved_at"`
}

// listCues answers {"cues": [...]}, newest first: the open cues, or every
// cue with ?all=true.
func (h *handlers) listCues(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userOf(w, r)
	if !ok {
		return
	}
	all := false
	switch r.URL.Query().Get("all") {
	case "", "false":
	case "true":
		all = true
	default:
		writeError(w, apperr.Errorf(apperr.EBadRequest, "all must be true or false"))
		return
	}
	cues, err := h.Store.ListCues(r.Context(), u.ID, !all)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := make([]cueView, 0, len(cues))
	for i := len(cues) - 1; i >= 0; i-- {
		c := cues[i]
		v := cueView{ID: c.ID, Kind: c.Type, Field: c.Field, Detail: c.Detail, CreatedAt: c.CreatedAt, ResolvedAt: c.ResolvedAt}
		if version, ok := memory.EditVersion(u.ID, c.SessionID); ok {
			v.ProfileVersion = version
		} else {
			v.SessionID = c.SessionID
		}
		if len(v.Detail) == 0 {
			v.Detail = json.RawMessage("{}")
		}
		out = append(out, v)
	}
	WriteJSON(w, http.StatusOK, map[string]any{"user_id": u.ID, "cues": out})
}
