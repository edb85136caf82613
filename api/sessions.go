package api

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/internal/apperr"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/schedule"
	"github.com/mnemo-ai/mnemo/store"
)

// Data is what the data routes need.
type Data struct {
	Store   store.Store
	Handoff handoff.Deps
	// MaxBodyBytes limits request bodies (413 beyond).
	MaxBodyBytes int64
	// Profile bounds a profile as an edit would leave it.
	Profile ProfileLimits
	// Now reads the clock; nil is time.Now.
	Now func() time.Time
	// Schedules are the batches' schedules, by batch name: an aggregate not
	// computed yet answers when its batch runs next.
	Schedules map[string]*schedule.Schedule
	// CareNoteDays is how many days after a risk finding the context pack
	// carries a care note (MNEMO_CARE_NOTE_DAYS); 0 is
	// memory.DefaultCareNoteDays.
	CareNoteDays int
	// MaxExportsPerUser is how many exports a user keeps at most
	// (MNEMO_MAX_EXPORTS_PER_USER); a new one replaces the oldest. 0 is
	// DefaultMaxExportsPerUser.
	MaxExportsPerUser int
}

// DefaultMaxExportsPerUser is how many exports a user keeps unless set.
const DefaultMaxExportsPerUser = 3

func (d Data) maxExportsPerUser() int { return cmp.Or(d.MaxExportsPerUser, DefaultMaxExportsPerUser) }

func (d Data) careNoteDays() int {
	if d.CareNoteDays > 0 {
		return d.CareNoteDays
	}
	return memory.DefaultCareNoteDays
}

func (d Data) now() time.Time {
	if d.Now != nil {
		return d.Now().UTC()
	}
	return time.Now().UTC()
}

// Mount registers the session and user routes on s.
func (s *Server) Mount(d Data) {
	h := &handlers{Data: d, log: s.log}
	s.Handle("POST /v1/sessions/{session_id}/close", ScopeService, http.HandlerFunc(h.closeSession))
	s.Handle("POST /v1/sessions/{session_id}/messages", ScopeService, http.HandlerFunc(h.appendMessages))
	s.Handle("GET /v1/sessions/{session_id}", ScopeService, http.HandlerFunc(h.getSession))
	s.Handle("GET /v1/users/{user_id}/memories", ScopeService, http.HandlerFunc(h.listMemories))
	s.Handle("GET /v1/users/{user_id}/profile", ScopeService, http.HandlerFunc(h.getProfile))
	s.Handle("GET /v1/users/{user_id}/context", ScopeService, http.HandlerFunc(h.getContext))
	s.Handle("GET /v1/users/{user_id}/analytics", ScopeService, http.HandlerFunc(h.getAnalytics))
	s.Handle("GET /v1/users/{user_id}/trends", ScopeService, http.HandlerFunc(h.getTrends))
	s.Handle("GET /v1/admin/insights", ScopeAdmin, http.HandlerFunc(h.getInsights))
	h.mountUsers(s)
	h.mountAdmin(s)
	h.mountCare(s)
}

type handlers struct {
	Data
	log *slog.Logger
}

// fail answers err as JSON and logs what the client is not told.
func (h *handlers) fail(w http.ResponseWriter, r *http.Request, err error) {
	pub := publicError(err)
	switch status, code := ErrorStatusCode(pub.Code), pub.Code; {
	case status == http.StatusServiceUnavailable:
		// The database is down or read-only: the client is told to come
		// back, and the operator sees a warning per request, not an error.
		w.Header().Set("Retry-After", "1")
		h.log.WarnContext(r.Context(), "request refused", slog.String("route", r.Pattern), slog.String("code", string(code)), slog.String("error", err.Error()))
	case status >= 500:
		h.log.ErrorContext(r.Context(), "request failed", slog.String("route", r.Pattern), slog.String("error", err.Error()))
	}
	writeError(w, pub)
}

// readBody reads a body up to the limit; false means an error was answered.
func (h *handlers) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if ct := r.Header.Get("Content-Type"); ct != "" && !isJSON(ct) {
		writeError(w, apperr.Errorf(apperr.EUnsupportedMedia, "send application/json"))
		return nil, false
	}
	// Room for the announced length, up to 64 KiB (an announcement is not
	// an allocation), saves io.ReadAll's regrowing from 512 bytes.
	size := int64(bytes.MinRead)
	if n := r.ContentLength; n > 0 {
		size += max(0, min(n, h.MaxBodyBytes, 64<<10))
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, h.MaxBodyBytes))
	body := buf.Bytes()
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, apperr.Errorf(apperr.ETooLarge, "the body exceeds the size limit of %d bytes", mbe.Limit))
			return nil, false
		}
		if errors.Is(err, ErrSlowBody) {
			h.log.WarnContext(r.Context(), "request body cut off: slower than the minimum rate", slog.String("path", r.URL.Path), slog.Int("bytes_read", len(body)))
			writeError(w, apperr.Errorf(apperr.ETooSlow, "the body arrived slower than the minimum rate (MNEMO_MIN_BODY_BYTES_PER_SECOND); send it again at a steady pace"))
			return nil, false
		}
		writeError(w, apperr.Errorf(apperr.EBadRequest, "the body could not be read"))
		return nil, false
	}
	return body, true
}

func isJSON(ct string) bool {
	return JSONMediaType(ct)
}

// decodeRequest reads, decodes and validates a handoff body; false means an
// error was answered.
func decodeRequest[T any](h *handlers, w http.ResponseWriter, r *http.Request, decode func([]byte) (T, error),
	validate func(string, *T, map[string]*prompts.App, time.Time) error) (req T, now time.Time, ok bool) {
	body, ok := h.readBody(w, r)
	if !ok {
		return req, now, false
	}
	req, err := decode(body)
	if err != nil {
		writeBodyError(w, err)
		return req, now, false
	}
	now = h.now()
	if err := validate(r.PathValue("session_id"), &req, h.Handoff.Apps, now); err != nil {
		h.fail(w, r, err)
		return req, now, false
	}
	return req, now, true
}

// handoffTx runs fn in a transaction, and once more when it lost a race with
// an identical request to create the same rows: the second pass finds the
// winner's rows and answers as a repeat. Conflicts fn reports itself (a
// different body, a closed session) are final.
func (h *handlers) handoffTx(ctx context.Context, fn func(ctx context.Context, tx store.Tx) error) error {
	for attempt := 0; ; attempt++ {
		err := h.Store.InTx(ctx, fn)
		if err == nil || attempt > 0 || !errors.Is(err, store.ErrConflict) ||
			errors.Is(err, handoff.ErrDifferentBody) || errors.Is(err, handoff.ErrSessionClosed) {
			return err
		}
	}
}

func (h *handlers) closeSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("session_id")
	req, now, ok := decodeRequest(h, w, r, handoff.Decode, handoff.Validate)
	if !ok {
		return
	}
	if !h.handsOver(w, r, req.App) {
		return
	}
	var res handoff.Result
	err := h.handoffTx(r.Context(), func(ctx context.Context, tx store.Tx) (err error) {
		if err := tenantCheck(ctx, tx, r, id, req.UserID); err != nil {
			return err
		}
		res, err = handoff.Close(ctx, tx, h.Handoff, id, req, now)
		return err
	})
	if errors.Is(err, handoff.ErrDifferentBody) {
		writeError(w, apperr.Errorf(apperr.EConflict, "this session was already closed with a different body"))
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.log.InfoContext(r.Context(), "session handed over", slog.String("session_id", id), slog.String("app", req.App),
		slog.Int("messages", len(req.Messages)), slog.Int("events", len(req.Events)), slog.Bool("duplicate", res.Duplicate))
	WriteJSON(w, http.StatusAccepted, res)
}

func (h *handlers) appendMessages(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("session_id")
	req, now, ok := decodeRequest(h, w, r, handoff.DecodeMessages, handoff.ValidateMessages)
	if !ok {
		return
	}
	if !h.handsOver(w, r, req.App) {
		return
	}
	var res handoff.AppendResult
	err := h.handoffTx(r.Context(), func(ctx context.Context, tx store.Tx) (err error) {
		if err := tenantCheck(ctx, tx, r, id, req.UserID); err != nil {
			return err
		}
		res, err = handoff.Append(ctx, tx, h.Handoff, id, req, now)
		return err
	})
	if errors.Is(err, handoff.ErrSessionClosed) {
		writeError(w, apperr.Errorf(apperr.EConflict, "this session was already closed"))
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	WriteJSON(w, http.StatusAccepted, res)
}

// handsOver refuses a handoff for another app than the token is bound to;
// false means the refusal was answered.
func (h *handlers) handsOver(w http.ResponseWriter, r *http.Request, app string) bool {
	if mayReach(r, app) {
		return true
	}
	writeError(w, apperr.Errorf(apperr.EForbidden, "this token hands over sessions of its own app only"))
	return false
}

// tenantCheck, inside the handoff's transaction, refuses to a token bound to
// an app a session id or user id that another app's session or user holds,
// in the words that refuse a malformed id (handoff.OtherAppSession,
// handoff.OtherAppUser): the token learns nothing of other apps. A user id
// another app holds is refused so to every caller (handoff.Close).
func tenantCheck(ctx context.Context, tx store.Tx, r *http.Request, sessionID, userID string) error {
	if boundApp(r) == "" {
		return nil
	}
	sess, err := tx.GetSession(ctx, sessionID)
	switch {
	case err == nil && !mayReach(r, sess.App):
		return handoff.OtherAppSession()
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return err
	}
	u, err := tx.GetUser(ctx, userID)
	switch {
	case err == nil && !mayReach(r, u.App):
		return handoff.OtherAppUser()
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return err
	}
	return nil
}

// sessionView is the public shape of a session.
type sessionView struct {
	SessionID          string          `json:"session_id"`
	UserID             string          `json:"user_id"`
	App                string          `json:"app"`
	Status             string          `json:"status"`
	StartedAt          time.Time       `json:"started_at"`
	EndedAt            time.Time       `json:"ended_at"`
	MessageCount       int             `json:"message_count"`
	Summary            json.RawMessage `json:"summary"`
	RollingSummary     *rollingView    `json:"rolling_summary,omitempty"`
	Records            []recordView    `json:"records"`
	Extraction         *extractionView `json:"extraction"`
	TranscriptRetained bool            `json:"transcript_retained"`
	RetainUntil        *time.Time      `json:"transcript_retained_until,omitempty"`
	Jobs               []store.JobRef  `json:"jobs"`
	// Risks are the distress and crisis statements found in the session
	// (class, severity, message, actor, source, and the frame when the
	// model lowered one; never the text).
	Risks []riskView `json:"risks"`
	// RiskLowered are the findings the model lowered with a frame
	// code (extract.CombineRisks): message, classes, severities and frame;
	// never the text.
	RiskLowered []loweredView `json:"risk_lowered"`
}

// loweredView is a risk finding the model lowered.
type loweredView struct {
	MessageID    string    `json:"message_id"`
	FromClass    string    `json:"from_class"`
	FromSeverity string    `json:"from_severity"`
	ToClass      string    `json:"to_class"`
	ToSeverity   string    `json:"to_severity,omitempty"`
	Frame        string    `json:"frame"`
	At           time.Time `json:"at"`
}

// riskView is a session's risk cue.
type riskView struct {
	Class     string `json:"class"`
	Severity  string `json:"severity"`
	MessageID string `json:"message_id"`
	Actor     string `json:"actor,omitempty"`
	// Source is who found it: rules, trained or model (absent on a cue
	// recorded before sources were).
	Source string `json:"source,omitempty"`
	// Lowered is the frame code the model lowered the finding with: the
	// cue was recorded and counted, not posted (docs/safety.md, "Sources
	// and the policy").
	Lowered string `json:"lowered,omitempty"`
}

// recordView is a record the session wrote (a learner's progress, a
// repetition record, …).
type recordView struct {
	Kind string          `json:"kind"`
	Key  string          `json:"key"`
	Data json.RawMessage `json:"data"`
}

type rollingView struct {
	Summary         json.RawMessage `json:"summary"`
	MessagesCovered int             `json:"messages_covered"`
	UpdatedAt       time.Time       `json:"updated_at"`
}

type extractionView struct {
	Source        string `json:"source"`
	Outcome       string `json:"outcome"`
	PromptVersion string `json:"prompt_version"`
	Model         string `json:"model,omitempty"`
	Attempts      int    `json:"attempts"`
}

func (h *handlers) getSession(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	id := r.PathValue("session_id")
	if !handoff.ValidID(id) {
		writeError(w, apperr.Errorf(apperr.ENotFound, "not found"))
		return
	}
	sess, err := h.Store.GetSession(ctx, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if !h.mayRead(w, r, sess.App) {
		// Another app's session is not there for a bound token.
		return
	}
	v := sessionView{SessionID: sess.ID, UserID: sess.UserID, App: sess.App, Status: sess.Status, StartedAt: sess.StartedAt,
		EndedAt: sess.EndedAt, MessageCount: sess.MessageCount, TranscriptRetained: sess.TranscriptRetained,
		RetainUntil: sess.RetainUntil, Jobs: sess.Jobs, Summary: json.RawMessage("null"), Records: []recordView{}}
	if sum, err := h.Store.GetSummary(ctx, id); err == nil {
		v.Summary = sum.Data
		if !h.seesCaregiverNotes(r, sess.App) {
			v.Summary = withoutNotes(sum.Data, extract.KindOfApp(h.Handoff.Apps[sess.App]).View())
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		h.fail(w, r, err)
		return
	}
	recs, err := h.Store.ListSessionRecords(ctx, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	for _, rec := range recs {
		v.Records = append(v.Records, recordView{Kind: rec.Type, Key: rec.Key, Data: rec.Data})
	}
	if rs, err := h.Store.GetRollingSummary(ctx, id); err == nil {
		v.RollingSummary = &rollingView{Summary: rs.Summary, MessagesCovered: rs.MessagesCovered, UpdatedAt: rs.UpdatedAt}
	} else if !errors.Is(err, store.ErrNotFound) {
		h.fail(w, r, err)
		return
	}
	cues, err := h.Store.ListSessionCues(ctx, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Risks = []riskView{}
	for _, c := range cues {
		if c.Type != memory.CueRisk {
			continue
		}
		var rv riskView
		_ = json.Unmarshal(c.Detail, &rv)
		rv.MessageID = c.Field
		v.Risks = append(v.Risks, rv)
	}
	lowered, err := h.Store.ListRiskLowerings(ctx, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.RiskLowered = make([]loweredView, len(lowered))
	for i, l := range lowered {
		v.RiskLowered[i] = loweredView{MessageID: l.MessageID, FromClass: l.FromClass, FromSeverity: l.FromSeverity,
			ToClass: l.ToClass, ToSeverity: l.ToSeverity, Frame: l.Frame, At: l.CreatedAt}
	}
	runs, err := h.Store.ListExtractionRuns(ctx, id)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if len(runs) > 0 {
		last := runs[len(runs)-1]
		for _, run := range runs {
			if run.Final {
				last = run
			}
		}
		v.Extraction = &extractionView{Source: last.Source, Outcome: last.Outcome, PromptVersion: last.PromptVersion,
			Model: last.Model, Attempts: len(runs)}
	}
	WriteJSON(w, http.StatusOK, v)
}

// memoryView is the public shape of a memory.
type memoryView struct {
	ID              string     `json:"id"`
	Key             string     `json:"key"`
	Value           string     `json:"value"`
	Category        string     `json:"category"`
	Importance      int        `json:"importance"`
	Confidence      float64    `json:"confidence"`
	Status          string     `json:"status"`
	SupersedesID    string     `json:"supersedes_id,omitempty"`
	SourceSessionID string     `json:"source_session_id,omitempty"`
	SourceMessageID string     `json:"source_message_id,omitempty"`
	Confirmations   int        `json:"confirmations"`
	ExpiresAt       *time.Time `json:"expires_at"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	// Valid time: when the user said it, and when and by which memory a
	// newer statement replaced it. Recorded time: when Mnemo learnt it.
	StatedAt      time.Time  `json:"stated_at"`
	RecordedAt    time.Time  `json:"recorded_at"`
	InvalidatedAt *time.Time `json:"invalidated_at,omitempty"`
	InvalidatedBy string     `json:"invalidated_by,omitempty"`
	// An event memory's date (YYYY-MM-DD, in the user's zone) and the words
	// that named it.
	EventDate string `json:"event_date,omitempty"`
	Wording   string `json:"wording,omitempty"`
}

func viewMemory(m store.Memory) memoryView {
	return memoryView{ID: m.ID, Key: m.Key, Value: m.Value, Category: m.Category, Importance: m.Importance,
		Confidence: m.Confidence, Status: m.Status, SupersedesID: m.SupersedesID, SourceSessionID: m.SourceSessionID,
		SourceMessageID: m.SourceMessageID, Confirmations: m.Confirmations, ExpiresAt: m.ExpiresAt,
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, StatedAt: m.StatedAt, RecordedAt: m.CreatedAt,
		InvalidatedAt: m.InvalidatedAt, InvalidatedBy: m.InvalidatedBy, EventDate: m.EventDate, Wording: m.Wording}
}

// asOfParam reads ?as_of=RFC3339; nil when absent, false when an error was
// answered.
func asOfParam(w http.ResponseWriter, r *http.Request) (*time.Time, bool) {
	v := r.URL.Query().Get("as_of")
	if v == "" {
		return nil, true
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		writeError(w, apperr.Errorf(apperr.EBadRequest, "as_of must be an RFC 3339 time such as 2026-11-20T09:00:00Z"))
		return nil, false
	}
	t = t.UTC()
	return &t, true
}

func (h *handlers) listMemories(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userOf(w, r)
	if !ok {
		return
	}
	userID := u.ID
	f := store.MemoryFilter{Status: r.URL.Query().Get("status"), Category: r.URL.Query().Get("category")}
	asOf, ok := asOfParam(w, r)
	if !ok {
		return
	}
	if asOf != nil && f.Status != "" {
		writeError(w, apperr.Errorf(apperr.EBadRequest, "as_of lists what was true then and cannot be combined with status"))
		return
	}
	f.AsOf = asOf
	if f.Category != "" && !categories[f.Category] {
		writeError(w, apperr.Errorf(apperr.EBadRequest, "category must be one of fact, preference, event, feeling, other"))
		return
	}
	switch f.Status {
	case "", store.MemoryActive, store.MemoryDeprecated, store.MemoryExpired, store.MemoryForgotten:
	case "all":
		f.All = true
	default:
		writeError(w, apperr.Errorf(apperr.EBadRequest, "status must be active, deprecated, expired, forgotten or all"))
		return
	}
	limit, after, ok := memoryPageParams(w, r)
	if !ok {
		return
	}
	mems, next, err := h.Store.PageMemories(r.Context(), userID, f, after, limit)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var nextCursor *string
	if next != nil {
		c := next.String()
		nextCursor = &c
	}
	now := h.now()
	out := make([]memoryView, 0, len(mems))
	for _, m := range mems {
		// An active memory past its expiry is no longer remembered, even before
		// the hourly TTL batch marks it.
		if m.Status == store.MemoryActive && m.ExpiresAt != nil && !m.ExpiresAt.After(now) && !f.All && f.AsOf == nil {
			continue
		}
		out = append(out, viewMemory(m))
	}
	WriteJSON(w, http.StatusOK, map[string]any{"memories": out, "next_cursor": nextCursor})
}

// A page of GET /v1/users/{user_id}/memories holds DefaultMemoriesPage
// memories unless limit asks for another number, up to MaxMemoriesPage; a
// user with more gets next_cursor, to send back as cursor (issue 34 §3:
// 21,000 memories were one 8.9 MB answer).
const (
	DefaultMemoriesPage = 500
	MaxMemoriesPage     = 1000
)

// memoryPageParams reads limit and cursor; a bad one is answered 400.
func memoryPageParams(w http.ResponseWriter, r *http.Request) (int, *store.MemoryCursor, bool) {
	limit := DefaultMemoriesPage
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxMemoriesPage {
			writeError(w, apperr.Errorf(apperr.EBadRequest, "limit must be a whole number from 1 to %d", MaxMemoriesPage))
			return 0, nil, false
		}
		limit = n
	}
	var after *store.MemoryCursor
	if v := r.URL.Query().Get("cursor"); v != "" {
		c, err := store.ParseMemoryCursor(v)
		if err != nil {
			writeError(w, apperr.Errorf(apperr.EBadRequest, "cursor is not a next_cursor this API gave"))
			return 0, nil, false
		}
		after = &c
	}
	return limit, after, true
}

func (h *handlers) getProfile(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userOf(w, r)
	if !ok {
		return
	}
	userID := u.ID
	asOf, ok := asOfParam(w, r)
	if !ok {
		return
	}
	p, err := h.Store.GetProfile(r.Context(), userID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	history, err := h.Store.ListProfileHistory(r.Context(), userID)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if asOf == nil {
		// The statement behind each field's current value.
		fields := memory.ProfileAsOf(history, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
		var doc map[string]any
		if err := json.Unmarshal(p.Doc, &doc); err != nil {
			h.fail(w, r, err)
			return
		}
		for k := range fields {
			if _, ok := doc[k]; !ok {
				delete(fields, k)
			}
		}
		WriteJSON(w, http.StatusOK, map[string]any{"user_id": p.UserID, "app": p.App, "profile": p.Doc,
			"version": p.Version, "updated_at": p.UpdatedAt, "fields": fields})
		return
	}
	fields := memory.ProfileAsOf(history, *asOf)
	doc := make(map[string]any, len(fields))
	for k, f := range fields {
		doc[k] = f.Value
	}
	WriteJSON(w, http.StatusOK, map[string]any{"user_id": p.UserID, "app": p.App, "as_of": *asOf, "profile": doc, "fields": fields})
}
