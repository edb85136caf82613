package handoff

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/zones"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/transcript"
)

// MaxAppend is the most turns one messages request may carry.
const MaxAppend = 200

// MessagesRequest appends turns of a session still in progress to its
// rolling buffer.
type MessagesRequest struct {
	UserID   string            `json:"user_id"`
	App      string            `json:"app"`
	Timezone string            `json:"timezone,omitempty"`
	Messages []extract.Message `json:"messages"`

	// tools marks the turns DecodeMessages read as OpenAI tool traffic,
	// which ValidateMessages drops once the body has passed (chat.go).
	tools toolTurns
}

// AppendResult answers a messages request.
type AppendResult struct {
	SessionID string `json:"session_id"`
	Added     int    `json:"added"`
	Buffered  int    `json:"buffered"`
	// Jobs are the rolling-summary jobs this request enqueued.
	Jobs []store.JobRef `json:"jobs"`
	// Kept is false when the turns were not kept, for Reason: the user
	// turned memory off ("memory_disabled").
	Kept   bool   `json:"kept"`
	Reason string `json:"reason,omitempty"`
}

// ReasonMemoryDisabled is why turns of a user with memory off are not kept.
const ReasonMemoryDisabled = "memory_disabled"

// DecodeMessages reads a messages body strictly, as Decode reads a
// session-close body.
func DecodeMessages(body []byte) (MessagesRequest, error) {
	w, msgs, tools, err := decodeWire(body, func(w *wireMessagesRequest) []wireMessage { return w.Messages })
	if err != nil {
		return MessagesRequest{}, err
	}
	return MessagesRequest{UserID: w.UserID, App: w.App, Timezone: w.Timezone, Messages: msgs, tools: tools}, nil
}

// ValidateMessages checks a messages body.
func ValidateMessages(sessionID string, req *MessagesRequest, apps map[string]*prompts.App, now time.Time) error {
	if err := checkIDs(sessionID, req.UserID); err != nil {
		return err
	}
	if _, ok := apps[req.App]; !ok {
		return invalid("app", "unknown app %q", clipName(req.App))
	}
	if req.Timezone == "" {
		req.Timezone = "UTC"
	}
	if len(req.Timezone) > 64 {
		return invalid("timezone", "is too long")
	}
	if _, err := zones.Load(req.Timezone); err != nil {
		return invalid("timezone", "is not an IANA time zone such as Europe/Berlin")
	}
	if len(req.Messages) == 0 || len(req.Messages) > MaxAppend {
		return invalid("messages", "must hold 1–%d messages", MaxAppend)
	}
	seen := map[string]bool{}
	for i, m := range req.Messages {
		f := item{"messages", i}
		if err := checkTurn(f, &req.Messages[i], seen, !req.tools.dropped(i, m)); err != nil {
			return err
		}
		if r := timeProblem(m.At, now, false); r != "" {
			return invalid(f.dot("at"), "%s", r)
		}
		if m.At.IsZero() {
			req.Messages[i].At = now
		}
	}
	// A request of tool traffic alone keeps nothing, and answers as one
	// that added nothing.
	req.Messages, _ = req.tools.keep(req.Messages)
	req.tools = nil
	return nil
}

// ErrSessionClosed is returned when turns arrive for a session already handed over.
var ErrSessionClosed = fmt.Errorf("session already closed: %w", store.ErrConflict)

// Append buffers turns of an active session (creating it on its first turns)
// inside tx, each sealed on its own, and enqueues a rolling-summary job each
// time the buffer crosses a multiple of the app's RollingSummaryEvery.
func Append(ctx context.Context, tx store.Tx, d Deps, sessionID string, req MessagesRequest, now time.Time) (AppendResult, error) {
	res := AppendResult{SessionID: sessionID, Jobs: []store.JobRef{}, Kept: true}
	// Memory off keeps nothing of a session in progress: no turn, no
	// session row, no rolling-summary job; the answer says so.
	off := func(u store.User) bool {
		if u.MemoryDisabled {
			res.Kept, res.Reason = false, ReasonMemoryDisabled
		}
		return u.MemoryDisabled
	}
	sess, err := tx.GetSessionForUpdate(ctx, sessionID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		// Locked: memory turned off meanwhile waits for these turns, and
		// deletes them.
		u, err := tx.GetUserForUpdate(ctx, req.UserID)
		if err == nil && u.App != req.App {
			return res, OtherAppUser()
		}
		if err == nil && off(u) {
			return res, nil
		}
		if len(req.Messages) == 0 {
			// Tool traffic alone (ValidateMessages dropped it) starts no
			// session: nothing was added.
			return res, nil
		}
		if err := tx.UpsertUser(ctx, store.User{ID: req.UserID, App: req.App, Timezone: req.Timezone, CreatedAt: now, UpdatedAt: now}); err != nil {
			return res, err
		}
		start := req.Messages[0].At
		sess = store.Session{ID: sessionID, UserID: req.UserID, App: req.App, Status: store.StatusActive, StartedAt: start,
			EndedAt: start, Timezone: req.Timezone, UpdatedAt: now}
		if err := tx.CreateSession(ctx, sess); err != nil {
			return res, err
		}
	case err != nil:
		return res, err
	case sess.Status != store.StatusActive:
		return res, ErrSessionClosed
	case sess.UserID != req.UserID || sess.App != req.App:
		return res, invalid("user_id", "does not match the session's user and app")
	default:
		u, err := tx.GetUserForUpdate(ctx, req.UserID)
		if err != nil || off(u) {
			return res, err
		}
	}
	// The buffer's head, not the buffer: an append costs what it adds.
	ids := make([]string, len(req.Messages))
	for i, m := range req.Messages {
		ids[i] = m.ID
	}
	head, err := tx.BufferHead(ctx, sessionID, ids)
	if err != nil {
		return res, err
	}
	next, before := head.Next, head.Next
	fresh := 0
	for _, m := range req.Messages {
		if !head.Known[m.ID] {
			fresh++
		}
	}
	if before+fresh > MaxMessages {
		// What a close may carry, the buffer may hold: nothing is added.
		return res, invalid("messages", "the session's rolling buffer holds %d turns and may hold at most %d; these %d new turns do not fit: close the session and start a new one",
			before, MaxMessages, fresh)
	}
	buf := make([]store.BufferMessage, 0, fresh)
	for _, m := range req.Messages {
		if head.Known[m.ID] {
			continue // sent again: already buffered
		}
		c, err := transcript.SealMessage(d.Keys, sessionID, next, m)
		if err != nil {
			return res, err
		}
		buf = append(buf, store.BufferMessage{SessionID: sessionID, Seq: next, UserID: req.UserID, MessageID: m.ID,
			KeyID: c.KeyID, Nonce: c.Nonce, Ciphertext: c.Ciphertext, SHA256: c.SHA256, CreatedAt: now})
		next++
	}
	if res.Added, err = tx.AppendBuffer(ctx, buf); err != nil {
		return res, err
	}
	res.Buffered = before + res.Added
	every := d.Apps[req.App].Policy.RollingSummaryEvery
	if every > 0 && res.Buffered/every > before/every {
		ins, err := d.Queue.InsertTx(ctx, tx, queue.RollingSummaryArgs{SessionID: sessionID, Upto: res.Buffered / every * every}, nil)
		if err != nil {
			return res, err
		}
		if !ins.Duplicate {
			res.Jobs = append(res.Jobs, store.JobRef{ID: ins.ID, Kind: ins.Kind})
		}
	}
	return res, nil
}
