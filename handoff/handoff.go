// Package handoff is how a finished session reaches Mnemo: it validates the
// session-close body, stores the user, the session, its events and the sealed
// transcript, and enqueues the processing jobs in the same database
// transaction, so a session is either fully handed over or not at all. The
// HTTP API uses it, and so can a Go chat service sharing Mnemo's Postgres,
// inside a transaction of its own (see Client).
package handoff

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/zones"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/transcript"
)

// Limits of one session-close body.
const (
	MaxMessages       = 5000
	MaxMessageBytes   = 32 << 10
	MaxEvents         = 10000
	MaxEventDataBytes = 8 << 10
	MaxIDLength       = 128
)

// Request is the session-close body (docs/api.md, "Handing a session over").
type Request struct {
	UserID      string            `json:"user_id"`
	App         string            `json:"app"`
	StartedAt   time.Time         `json:"started_at"`
	EndedAt     time.Time         `json:"ended_at"`
	Timezone    string            `json:"timezone,omitempty"`
	DisplayName string            `json:"display_name,omitempty"`
	Messages    []extract.Message `json:"messages"`
	Events      []extract.Event   `json:"events,omitempty"`

	// zoneNamed records that the body named a zone (Validate puts UTC in
	// Timezone when it did not): only a named zone becomes the user's.
	zoneNamed bool
	// tools marks the turns Decode read as OpenAI tool traffic, which
	// Validate drops once the body has passed (chat.go).
	tools toolTurns
}

// Result is the answer to a handoff.
type Result struct {
	SessionID string         `json:"session_id"`
	Jobs      []store.JobRef `json:"jobs"`
	// Duplicate is true when the same body had been handed over before.
	Duplicate bool `json:"-"`
}

// ValidationError says what is wrong with a body; it never quotes message content.
type ValidationError struct {
	Field  string
	Reason string
	// err is what the refusal is, for errors.Is (ErrUserOfAnotherApp).
	err error
}

func (e *ValidationError) Error() string { return e.Field + ": " + e.Reason }

func (e *ValidationError) Unwrap() error { return e.err }

// ErrUserOfAnotherApp is what the refusal of a session for a user id that a
// user of another app holds is, for errors.Is; ErrSessionOfAnotherApp
// likewise for a session id another app's session holds (the HTTP layer's
// check of a token bound to an app). Neither is ever told: the refusal
// (OtherAppUser, OtherAppSession) is word for word that of a malformed id,
// so that no caller learns what another app holds (docs/api.md, "Users and
// apps").
var (
	ErrUserOfAnotherApp    = errors.New("user id of another app")
	ErrSessionOfAnotherApp = errors.New("session id of another app")
)

// The refusals of a user or session id that cannot be used: malformed, or
// held by another app's user or session. One text serves both cases.
var (
	userIDRule    = fmt.Sprintf("must be 1–%d characters of letters, digits and . _ : @ - that no other app's user holds", MaxIDLength)
	sessionIDRule = fmt.Sprintf("must be 1–%d characters of letters, digits and . _ : @ - that no other app's session holds", MaxIDLength)
)

// OtherAppUser is the refusal of a user id another app's user holds: the
// same as a malformed user id's.
func OtherAppUser() error {
	return &ValidationError{Field: "user_id", Reason: userIDRule, err: ErrUserOfAnotherApp}
}

// OtherAppSession is the refusal of a session id another app's session
// holds: the same as a malformed session id's.
func OtherAppSession() error {
	return &ValidationError{Field: "session_id", Reason: sessionIDRule, err: ErrSessionOfAnotherApp}
}

// checkIDs refuses a malformed session or user id of a body.
func checkIDs(sessionID, userID string) error {
	if !ValidID(sessionID) {
		return &ValidationError{Field: "session_id", Reason: sessionIDRule}
	}
	if !ValidID(userID) {
		return &ValidationError{Field: "user_id", Reason: userIDRule}
	}
	return nil
}

func invalid(field, format string, a ...any) error {
	return &ValidationError{Field: field, Reason: fmt.Sprintf(format, a...)}
}

// ValidID reports whether s may name a user, session or message: 1 to
// MaxIDLength of [A-Za-z0-9._:@-], starting with a letter or digit.
func ValidID(s string) bool {
	if len(s) == 0 || len(s) > MaxIDLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			i > 0 && (c == '.' || c == '_' || c == ':' || c == '@' || c == '-') {
			continue
		}
		return false
	}
	return true
}

// validEventType reports whether s may name an event type: [a-z][a-z0-9_]{0,63}.
func validEventType(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || i > 0 && ('0' <= c && c <= '9' || c == '_') {
			continue
		}
		return false
	}
	return true
}

// item names the i-th element of a list of the body in errors
// (messages[3]), built only for an error.
type item struct {
	list string
	i    int
}

func (it item) String() string { return it.list + "[" + strconv.Itoa(it.i) + "]" }

// dot names a field of the element (messages[3].at).
func (it item) dot(name string) string { return it.String() + "." + name }

// Decode reads a session-close body strictly: valid UTF-8, one JSON object,
// names in their exact case, none unknown and none twice, at every level
// (event data included); no NUL character, no number beyond MaxNumber, every
// timestamp RFC 3339. Errors name the JSON path; an error about the body as
// a whole (not JSON, not an object) has Field "body". A turn may be an
// OpenAI chat message (chat.go).
func Decode(body []byte) (Request, error) {
	w, msgs, tools, err := decodeWire(body, func(w *wireRequest) []wireMessage { return w.Messages })
	if err != nil {
		return Request{}, err
	}
	return Request{UserID: w.UserID, App: w.App, StartedAt: w.StartedAt, EndedAt: w.EndedAt, Timezone: w.Timezone,
		DisplayName: w.DisplayName, Messages: msgs, Events: w.Events, tools: tools}, nil
}

// jsonProblem describes a decoding error CheckJSON did not foresee, without
// echoing the input.
func jsonProblem(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return invalid("body", "is not valid JSON (offset %d)", se.Offset)
	case errors.As(err, &te) && te.Field != "":
		return invalid(te.Field, "has the wrong type")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return invalid("body", "is empty or truncated")
	}
	return invalid("body", "could not be decoded")
}

// Validate checks a decoded body against the known apps and the clock.
func Validate(sessionID string, req *Request, apps map[string]*prompts.App, now time.Time) error {
	if err := checkIDs(sessionID, req.UserID); err != nil {
		return err
	}
	if _, ok := apps[req.App]; !ok {
		return invalid("app", "unknown app %q (known: %s)", clipName(req.App), strings.Join(prompts.Names(apps), ", "))
	}
	if err := checkTime("started_at", req.StartedAt, now, true); err != nil {
		return err
	}
	if err := checkTime("ended_at", req.EndedAt, now, true); err != nil {
		return err
	}
	if req.EndedAt.Before(req.StartedAt) {
		return invalid("ended_at", "is before started_at")
	}
	if req.EndedAt.Sub(req.StartedAt) > 7*24*time.Hour {
		return invalid("ended_at", "a session may last at most 7 days")
	}
	if req.Timezone == "" {
		req.Timezone = "UTC"
	} else {
		req.zoneNamed = true
	}
	if len(req.Timezone) > 64 {
		return invalid("timezone", "is too long")
	}
	if _, err := zones.Load(req.Timezone); err != nil {
		return invalid("timezone", "is not an IANA time zone such as Europe/Berlin")
	}
	if utf8.RuneCountInString(req.DisplayName) > 100 {
		return invalid("display_name", "is longer than 100 characters")
	}
	if req.Messages == nil {
		return invalid("messages", "is required (an empty list for a session without turns)")
	}
	if len(req.Messages) > MaxMessages {
		return invalid("messages", "more than %d messages", MaxMessages)
	}
	seen := make(map[string]bool, len(req.Messages))
	for i, m := range req.Messages {
		f := item{"messages", i}
		if err := checkTurn(f, &req.Messages[i], seen, !req.tools.dropped(i, m)); err != nil {
			return err
		}
		if r := timeProblem(m.At, now, false); r != "" {
			return invalid(f.dot("at"), "%s", r)
		}
		if !m.At.IsZero() && (m.At.Before(req.StartedAt.Add(-time.Hour)) || m.At.After(req.EndedAt.Add(time.Hour))) {
			return invalid(f.dot("at"), "lies outside the session")
		}
	}
	var dropped map[string]bool
	req.Messages, dropped = req.tools.keep(req.Messages)
	req.tools = nil
	if len(req.Events) > MaxEvents {
		return invalid("events", "more than %d events", MaxEvents)
	}
	events := apps[req.App].EventSchema()
	for i, e := range req.Events {
		f := item{"events", i}
		if !validEventType(e.Type) {
			return invalid(f.dot("kind"), "must be a lower-case name such as emotion or urge")
		}
		if r := timeProblem(e.At, now, true); r != "" {
			return invalid(f.dot("at"), "%s", r)
		}
		if dropped[e.MessageID] {
			return invalid(f.dot("message_id"), "names a tool message or an assistant message of tool calls alone, which Mnemo does not keep")
		}
		if e.MessageID != "" && !seen[e.MessageID] {
			return invalid(f.dot("message_id"), "names no message of this session")
		}
		if len(e.Data) > MaxEventDataBytes {
			return invalid(f.dot("data"), "is larger than %d bytes", MaxEventDataBytes)
		}
		if len(e.Data) > 0 && !bytes.HasPrefix(bytes.TrimSpace(e.Data), []byte("{")) && string(bytes.TrimSpace(e.Data)) != "null" {
			return invalid(f.dot("data"), "must be a JSON object")
		}
		if err := checkEvent(f, events, e); err != nil {
			return err
		}
	}
	return nil
}

// The range a timestamp of a body may take: from MinTime to a day after
// the server's clock (clocks of chat services drift; a session does not
// happen in the future).
var MinTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// MaxAhead is how far after the server's clock a timestamp may lie.
const MaxAhead = 24 * time.Hour

// checkTime refuses a timestamp outside [MinTime, now+MaxAhead]; a zero one
// is refused when required and otherwise means "not given".
func checkTime(field string, t, now time.Time, required bool) error {
	if r := timeProblem(t, now, required); r != "" {
		return invalid(field, "%s", r)
	}
	return nil
}

// timeProblem is checkTime's reason, "" for none.
func timeProblem(t, now time.Time, required bool) string {
	switch {
	case t.IsZero() && required:
		return "is required"
	case t.IsZero():
		return ""
	case t.Before(MinTime):
		return "is before " + MinTime.Format("2006-01-02")
	case t.After(now.Add(MaxAhead)):
		return "is more than a day in the future"
	}
	return ""
}

// checkEvent checks an event against the event types and fields its app
// declares (events.schema.json).
func checkEvent(f item, s *prompts.EventSchema, e extract.Event) error {
	var data any
	if len(e.Data) > 0 {
		dec := json.NewDecoder(bytes.NewReader(e.Data))
		dec.UseNumber()
		if err := dec.Decode(&data); err != nil {
			return invalid(f.dot("data"), "must be a JSON object")
		}
	}
	err := s.Validate(e.Type, data)
	var ee *prompts.EventError
	if err == nil || !errors.As(err, &ee) {
		return err
	}
	if ee.UnknownType {
		return invalid(f.dot("kind"), "%s", ee.Reason)
	}
	path := f.dot("data")
	for _, p := range ee.Path {
		if _, err := strconv.Atoi(p); err == nil {
			path += "[" + p + "]"
		} else {
			path = join(path, p)
		}
	}
	return invalid(path, "%s", ee.Reason)
}

func clipName(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}

// Fingerprint is the SHA-256 of the body's canonical form: the same session
// sent again has the same fingerprint however it is formatted, in whatever
// order its objects' names come (event data included), whichever escapes
// its strings use, whatever offset its timestamps are written in (they are
// compared as instants) and however its numbers are written: numbers are
// compared as exact decimals, so 1, 1.0, 1e0 and 10e-1 are one number, and
// 0.1 and 0.10000000000000001 are two. An event's data of null, {} or none
// at all is the same (each is stored as {}).
func Fingerprint(sessionID string, req Request) string {
	canon := req
	canon.StartedAt, canon.EndedAt = req.StartedAt.UTC(), req.EndedAt.UTC()
	canon.Messages = make([]extract.Message, len(req.Messages))
	for i, m := range req.Messages {
		m.At = m.At.UTC()
		canon.Messages[i] = m
	}
	if req.Events != nil {
		canon.Events = make([]extract.Event, len(req.Events))
		for i, e := range req.Events {
			e.At = e.At.UTC()
			e.Data = canonicalData(e.Data)
			canon.Events[i] = e
		}
	}
	return fingerprint(sessionID, canon)
}

// legacyFingerprint is the fingerprint workers before issue 22 stored: the
// body's values in struct order, but event data compacted as sent (names in
// the sender's order) and timestamps in the sender's offsets. A session
// handed over then is recognised when sent again as it was first sent.
func legacyFingerprint(sessionID string, req Request) string { return fingerprint(sessionID, req) }

func fingerprint(sessionID string, req Request) string {
	b, _ := json.Marshal(struct {
		ID  string  `json:"id"`
		Req Request `json:"req"`
	}{sessionID, req})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// canonicalData is an event's data in canonical JSON (see canonicalJSON);
// nil for none, null or {}. Data that does not parse (Validate refuses it)
// is left as it is.
func canonicalData(data json.RawMessage) json.RawMessage {
	if len(data) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return data
	}
	if m, ok := v.(map[string]any); v == nil || ok && len(m) == 0 {
		return nil
	}
	var buf bytes.Buffer
	canonicalJSON(&buf, v)
	return buf.Bytes()
}

// canonicalJSON writes a decoded JSON value (numbers as json.Number) with
// object names sorted, strings escaped as encoding/json escapes them and
// numbers in canonicalNumber's form.
func canonicalJSON(buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		slices.Sort(names)
		buf.WriteByte('{')
		for i, k := range names {
			if i > 0 {
				buf.WriteByte(',')
			}
			canonicalJSON(buf, k)
			buf.WriteByte(':')
			canonicalJSON(buf, v[k])
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			canonicalJSON(buf, e)
		}
		buf.WriteByte(']')
	case json.Number:
		buf.WriteString(canonicalNumber(string(v)))
	default: // strings, booleans, null
		b, _ := json.Marshal(v)
		buf.Write(b)
	}
}

// canonicalNumber writes a JSON number as an exact decimal in one form:
// its significant digits without leading or trailing zeros, then the
// exponent that places them (1.50 and 15e-1 are 15e-1, 100 is 1e2, -0 is
// 0). It never rounds, so two numbers share a form only when they are
// equal.
func canonicalNumber(n string) string {
	sign := ""
	if strings.HasPrefix(n, "-") {
		sign, n = "-", n[1:]
	}
	mant, exp, _ := strings.Cut(strings.ToLower(n), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	e, err := strconv.Atoi(exp)
	if exp == "" {
		e, err = 0, nil
	}
	if err != nil { // an exponent beyond int: compared as written
		return sign + n
	}
	digits := strings.TrimLeft(whole+frac, "0")
	e -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	e += len(digits) - len(trimmed)
	if trimmed == "" {
		return "0"
	}
	if e == 0 {
		return sign + trimmed
	}
	return sign + trimmed + "e" + strconv.Itoa(e)
}

// Deps is what a handoff needs besides the transaction.
type Deps struct {
	Queue queue.Queue
	Apps  map[string]*prompts.App
	Keys  *seal.Keyring
	// MaxEvents bounds the events of one session (MNEMO_MAX_SESSION_EVENTS),
	// as MaxMessages bounds its turns; 0 or more than MaxEvents is MaxEvents.
	// A session's events are written in its handoff's transaction, which
	// holds SQLite's one writer: 10 000 of them held it 5.5 s (issue 22).
	MaxEvents int
}

// DefaultMaxEvents is MNEMO_MAX_SESSION_EVENTS' default: a handoff of as
// many events took 0.7–1.2 s on SQLite (10 000: 5.5 s).
const DefaultMaxEvents = 2000

// maxEvents is the events bound in force.
func (d Deps) maxEvents() int {
	if d.MaxEvents <= 0 || d.MaxEvents > MaxEvents {
		return MaxEvents
	}
	return d.MaxEvents
}

// ErrDifferentBody is returned when a closed session is handed over again
// with a different body.
var ErrDifferentBody = fmt.Errorf("session already closed with a different body: %w", store.ErrConflict)

// Close hands a validated session over inside tx. The same body again returns
// the first answer and writes nothing; a different body is ErrDifferentBody.
func Close(ctx context.Context, tx store.Tx, d Deps, sessionID string, req Request, now time.Time) (Result, error) {
	if limit := d.maxEvents(); len(req.Events) > limit {
		return Result{}, invalid("events", "more than %d events, the limit of a session (MNEMO_MAX_SESSION_EVENTS)", limit)
	}
	fp := Fingerprint(sessionID, req)
	// One round trip reads the session, locked, and upserts the user unless
	// the session is closed already. The user's row says what Close needs
	// of it: a session that names no zone is in the user's zone (UTC for a
	// new user) and leaves it as it was, rather than resetting it; memory
	// off keeps no transcript (issue 13).
	start, err := tx.OpenHandoff(ctx, sessionID, store.User{ID: req.UserID, App: req.App, DisplayName: req.DisplayName,
		Timezone: req.Timezone, CreatedAt: now, UpdatedAt: now}, req.zoneNamed)
	existing := start.Session
	active := false
	switch {
	case errors.Is(err, store.ErrOtherAppUser):
		return Result{}, OtherAppUser()
	case err != nil:
		return Result{}, err
	case start.Found && existing.Status == store.StatusActive:
		// The session received turns while in progress; now it ends.
		if existing.UserID != req.UserID || existing.App != req.App {
			return Result{}, invalid("user_id", "does not match the session's user and app")
		}
		active = true
	case start.Found:
		// A session handed over before issue 22 holds the legacy fingerprint.
		if existing.BodySHA256 != fp && existing.BodySHA256 != legacyFingerprint(sessionID, req) {
			return Result{}, ErrDifferentBody
		}
		return Result{SessionID: sessionID, Jobs: existing.Jobs, Duplicate: true}, nil
	}
	u := start.User
	memoryOff := u.MemoryDisabled
	req.Timezone = u.Timezone
	args := queue.ExtractArgs{SessionID: sessionID}
	if memoryOff {
		// Memory off is not safety off: the screen's findings, never the
		// words, go with the job; the transcript is not stored.
		args.Risks = screenMemoryOff(d.Apps[req.App], sessionID, req)
	}
	// The job goes in first, so that the session row is written once, with it.
	ins, err := d.Queue.InsertTx(ctx, tx, args, &river.InsertOpts{
		UniqueOpts: river.UniqueOpts{ByArgs: true},
	})
	if err != nil {
		return Result{}, err
	}
	refs := []store.JobRef{{ID: ins.ID, Kind: ins.Kind}}
	closedAt := now
	closed := store.Session{ID: sessionID, UserID: req.UserID, App: req.App, Status: store.StatusClosed,
		StartedAt: req.StartedAt, EndedAt: req.EndedAt, Timezone: req.Timezone, MessageCount: len(req.Messages),
		BodySHA256: fp, Jobs: refs, TranscriptRetained: !memoryOff, ClosedAt: &closedAt, UpdatedAt: now}
	if active {
		err = tx.CloseActiveSession(ctx, closed)
	} else {
		err = tx.CreateSession(ctx, closed)
	}
	if err != nil {
		return Result{}, err
	}
	events := make([]store.Event, len(req.Events))
	for i, e := range req.Events {
		data := e.Data
		if len(data) == 0 || string(bytes.TrimSpace(data)) == "null" {
			data = json.RawMessage(`{}`)
		}
		events[i] = store.Event{SessionID: sessionID, Seq: i, UserID: req.UserID, Type: e.Type, At: e.At, MessageID: e.MessageID, Data: data}
	}
	if len(events) > 0 {
		if err := tx.InsertEvents(ctx, events); err != nil {
			return Result{}, err
		}
	}
	if !memoryOff { // memory off: its extraction sees no transcript, and nothing of it is kept
		if err := transcript.Store(ctx, tx, d.Keys, sessionID, req.UserID, req.Messages, now); err != nil {
			return Result{}, err
		}
	}
	// A session of a period a batch already covered (handed over late)
	// marks that period dirty, so that the scheduler re-runs it.
	if err := MarkLateSession(ctx, tx, d.Apps[req.App], req.EndedAt, now); err != nil {
		return Result{}, err
	}
	return Result{SessionID: sessionID, Jobs: refs}, nil
}

// checkTurn validates what every turn must be, handed over whole or
// streamed: a unique id (recorded in seen), a role (developer, OpenAI's
// newer name for system, becomes system), content within the size limit
// and without NUL characters. A turn that is not kept (a tool's output)
// has no size limit but the body's. f names the turn in errors.
func checkTurn(f item, m *extract.Message, seen map[string]bool, kept bool) error {
	if !ValidID(m.ID) {
		return invalid(f.dot("id"), "must be 1–%d characters of letters, digits and . _ : @ -", MaxIDLength)
	}
	if seen[m.ID] {
		return invalid(f.dot("id"), "repeats an earlier message id")
	}
	seen[m.ID] = true
	switch m.Role {
	case "user", "assistant", "system", "tool":
	case "developer":
		m.Role = "system"
	default:
		return invalid(f.dot("role"), "must be user, assistant or system (or an OpenAI chat message's tool or developer)")
	}
	if kept && len(m.Content) > MaxMessageBytes {
		return invalid(f.dot("content"), "is longer than %d bytes", MaxMessageBytes)
	}
	if strings.IndexByte(m.Content, 0) >= 0 {
		return invalid(f.dot("content"), "contains a NUL character")
	}
	return nil
}
