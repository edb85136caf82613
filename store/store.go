// Package store holds Mnemo's domain types and the Store interface, with one
// implementation per database: Postgres (pgx v5 pool) and SQLite (modernc,
// pure Go). Both run the same statements through a small dialect layer and
// pass one conformance suite (package storetest). SQL lives only here and in
// package migrations.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Sentinel errors, checked with errors.Is.
var (
	// ErrNotFound is returned when the row asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict is returned when a write would break a uniqueness rule or a
	// version check.
	ErrConflict = errors.New("conflict")
)

// Dialects.
const (
	DialectPostgres = "postgres"
	DialectSQLite   = "sqlite"
)

// Session statuses (docs/api.md, "What lags, and how to wait for it").
const (
	StatusActive    = "active"
	StatusClosed    = "closed"
	StatusProcessed = "processed"
	StatusFailed    = "failed"
	StatusExpired   = "expired"
)

// Memory statuses.
const (
	MemoryActive     = "active"
	MemoryDeprecated = "deprecated"
	MemoryExpired    = "expired"
	MemoryForgotten  = "forgotten"
)

// User is an end user of one chat app, known by the chat service's id.
type User struct {
	ID             string
	App            string
	DisplayName    string
	Timezone       string
	MemoryDisabled bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// JobRef names a job enqueued for a session.
type JobRef struct {
	ID   int64  `json:"id"`
	Kind string `json:"kind"`
}

// Session is one chat session handed over by a chat service.
type Session struct {
	ID                 string
	UserID             string
	App                string
	Status             string
	StartedAt          time.Time
	EndedAt            time.Time
	Timezone           string
	MessageCount       int
	BodySHA256         string
	Jobs               []JobRef
	TranscriptRetained bool
	RetainUntil        *time.Time
	ClosedAt           *time.Time
	ProcessedAt        *time.Time
	UpdatedAt          time.Time
}

// Event is one structured session event.
type Event struct {
	SessionID string
	Seq       int
	UserID    string
	Type      string
	At        time.Time
	MessageID string
	Data      json.RawMessage
}

// Chunk is one sealed piece of a transcript. The store never sees plaintext.
type Chunk struct {
	SessionID  string
	Seq        int
	UserID     string
	KeyID      string
	Nonce      []byte
	Ciphertext []byte
	SHA256     []byte
	CreatedAt  time.Time
}

// Summary is a session summary written under one prompt version.
type Summary struct {
	SessionID     string
	PromptVersion string
	UserID        string
	App           string
	Source        string
	Data          json.RawMessage
	CreatedAt     time.Time
	// SessionAt is the end of the summarised session (its statement time);
	// ListSummaries fills it in and orders by it.
	SessionAt time.Time
}

// Profile is a user's profile document and its version.
type Profile struct {
	UserID  string
	App     string
	Doc     json.RawMessage
	Version int
	// Stated says, per field of Doc, when its value was stated and by what:
	// {"field": {"at": RFC 3339, "by": session id or actor}} (see
	// FieldStatement). A field missing from it was stated before statement
	// times were kept.
	Stated    json.RawMessage
	UpdatedAt time.Time
}

// FieldStatement is when a profile field's value was stated and by what
// (a session id, or the actor of an edit): the order of truth between two
// values of one field.
type FieldStatement struct {
	At time.Time `json:"at"`
	By string    `json:"by"`
	// Removed marks a field an edit removed: it is not in Doc, and its
	// entry keeps Newest.
	Removed bool `json:"removed,omitempty"`
	// Newest is the field's newest statement, so that a write newer than it
	// needs none of the profile's history; absent on entries written before
	// it was kept.
	Newest *NewestStatement `json:"newest,omitempty"`
}

// NewestStatement is a profile field's newest statement and where the run
// of equal values it ends began.
type NewestStatement struct {
	At    time.Time `json:"at"`
	By    string    `json:"by"`
	Edit  bool      `json:"edit,omitempty"`
	RunAt time.Time `json:"run_at"`
	RunBy string    `json:"run_by"`
}

// ProfileChange is one recorded version of a profile.
type ProfileChange struct {
	UserID    string
	Version   int
	Doc       json.RawMessage
	Changed   json.RawMessage
	Actor     string // "extraction", "user", "operator"
	SessionID string
	At        time.Time
	// StatedAt is when the values of this change were stated (the
	// session's time for extraction, At for an edit).
	StatedAt time.Time
	// Older holds values this change brought that were older than the
	// profile's own and so were kept here only, as history.
	Older json.RawMessage
	// Said holds every value the change stated, an unchanged one too (null
	// for a field an edit removed): the statements each field's value and
	// statement time are derived from.
	Said json.RawMessage
}

// Memory is one remembered key/value fact about a user.
type Memory struct {
	ID              string
	UserID          string
	App             string
	Key             string
	Value           string
	Category        string
	Importance      int
	Confidence      float64
	Status          string
	SupersedesID    string
	SourceSessionID string
	SourceMessageID string
	Confirmations   int
	ExpiresAt       *time.Time
	LastUsedAt      *time.Time
	// CreatedAt is when Mnemo recorded the memory (recorded time).
	CreatedAt time.Time
	UpdatedAt time.Time
	// StatedAt is when the user said it (valid time starts): the source
	// message's time, or the earliest confirmation's.
	StatedAt time.Time
	// InvalidatedAt and InvalidatedBy say when a newer statement replaced
	// this one, and which memory that is; nil and "" while it is current.
	InvalidatedAt *time.Time
	InvalidatedBy string
	// EventDate (YYYY-MM-DD in the user's zone) and Wording are an event
	// memory's resolved date and the words that named it.
	EventDate string
	Wording   string
}

// PackMemory is what a context pack reads of an active memory: the fields
// of Memory it needs, and no more.
type PackMemory struct {
	ID, Key, Value, Category string
	Importance               int
	ExpiresAt, LastUsedAt    *time.Time
	UpdatedAt, StatedAt      time.Time
	EventDate                string
}

// ValidAt reports whether m was true at t (valid time): stated at or before
// t, not yet replaced by a newer statement, not yet past its expiry, and not
// forgotten (a forgotten memory is gone at every time).
func (m Memory) ValidAt(t time.Time) bool {
	switch {
	case m.Status == MemoryForgotten, m.StatedAt.After(t):
		return false
	case m.InvalidatedAt != nil && !m.InvalidatedAt.After(t):
		return false
	case m.ExpiresAt != nil && !m.ExpiresAt.After(t):
		return false
	}
	return true
}

// Statement is one time a memory was said. A key's statements, ordered by
// StatedAt, are the timeline its memories are derived from: a memory is a
// run of consecutive statements of one value.
type Statement struct {
	ID         string
	MemoryID   string
	UserID     string
	Key        string
	Value      string
	Category   string
	Importance int
	Confidence float64
	ExpiresAt  *time.Time
	StatedAt   time.Time
	SessionID  string
	MessageID  string
	// Weight is how many confirmations the statement stands for: 1, or a
	// memory's count for one stored before statements were kept.
	Weight    int
	EventDate string
	Wording   string
	CreatedAt time.Time
}

// MemoryChange is one audit row of a memory write: what happened, who did it.
type MemoryChange struct {
	ID       string
	MemoryID string
	UserID   string
	// Action is insert, insert_older, insert_expired, bump, deprecate,
	// reorder, expire or forget: changes of state. A memory merely said
	// again has its statement and no audit row; bump is a re-statement
	// that changed the memory's state (an expired memory active again).
	Action    string
	Actor     string // extraction, user, ttl
	SessionID string
	At        time.Time
	// Key is the forgotten memory's key, for a forget of one memory: what
	// was said of it before then is not remembered again. The store keeps
	// and reads it hashed (KeyHasher), never as text.
	Key string
}

// Cue is a significant change recorded for the next session.
type Cue struct {
	ID         string
	UserID     string
	App        string
	Type       string
	Field      string
	Detail     json.RawMessage
	SessionID  string
	CreatedAt  time.Time
	ResolvedAt *time.Time
}

// RiskLowering is a rules risk finding the model lowered with a frame code
// (extract.Lowering), as stored: which message, the rules' class and
// severity, the model's class (none when it removed the finding) and
// severity, and the frame. It never holds the message's text.
type RiskLowering struct {
	ID           string
	UserID       string
	App          string
	SessionID    string
	MessageID    string
	FromClass    string
	FromSeverity string
	ToClass      string
	ToSeverity   string
	Frame        string
	CreatedAt    time.Time
}

// ExtractionRun records one extraction attempt and what it cost.
type ExtractionRun struct {
	ID            string
	SessionID     string
	UserID        string
	App           string
	Model         string
	PromptVersion string
	Source        string
	Outcome       string
	InputTokens   int
	OutputTokens  int
	CostUSD       float64
	DurationMS    int64
	Attempt       int
	Final         bool
	Error         string
	CreatedAt     time.Time
}

// BatchRun is the ledger row of one batch and period.
type BatchRun struct {
	Batch        string
	Period       string
	ScheduledFor time.Time
	StartedAt    *time.Time
	FinishedAt   *time.Time
	RowsTouched  int64
	Outcome      string
	// Cursor is where an unfinished run stands: written after each page it
	// commits (SetBatchCursor), in that page's transaction, and opaque to
	// the store (package batch encodes it); "" when none.
	Cursor string
}

// Record is a per-user record a preset derives (learning progress, emotional
// counts, a repetition record, a preference, reinforcement metrics),
// identified by kind and key within the user.
type Record struct {
	UserID    string
	App       string
	Type      string
	Key       string
	Data      json.RawMessage
	SessionID string
	UpdatedAt time.Time
	// StatedAt is the time of the newest session the record holds (valid
	// time); UpdatedAt is when it was written.
	StatedAt time.Time
}

// RecordKey names one record: its user, kind and key.
type RecordKey struct {
	UserID string
	Type   string
	Key    string
}

// BufferMessage is one sealed turn of a session's rolling buffer.
type BufferMessage struct {
	SessionID  string
	Seq        int
	UserID     string
	MessageID  string
	KeyID      string
	Nonce      []byte
	Ciphertext []byte
	SHA256     []byte
	CreatedAt  time.Time
}

// BufferHead is the head of a session's rolling buffer (see
// Querier.BufferHead).
type BufferHead struct {
	// Next is one past the highest sequence number buffered (0 when none):
	// how many turns the session has buffered, as turns are numbered from 0
	// and only the age cleanup removes them.
	Next int
	// Known holds the asked message ids that are buffered already.
	Known map[string]bool
}

// RollingSummary summarises the first MessagesCovered turns of a session.
type RollingSummary struct {
	SessionID       string
	UserID          string
	App             string
	Summary         json.RawMessage
	MessagesCovered int
	UpdatedAt       time.Time
}

// MemoryFilter narrows ListMemories.
type MemoryFilter struct {
	// Status limits the list to one status; empty means active.
	Status string
	// All lists every status and overrides Status.
	All bool
	// Category limits the list to one category; empty means all.
	Category string
	// AsOf lists what was true at that time (valid time, Memory.ValidAt)
	// instead of by status; Status and All are then ignored.
	AsOf *time.Time
}

// Querier is every read and write Mnemo makes. Store and Tx both implement it.
type Querier interface {
	// UpsertUser inserts u or updates its display name and time zone (an empty
	// one keeps the stored value) and updated_at; the display name is sealed
	// when the app's data is.
	UpsertUser(ctx context.Context, u User) error
	// LockUser serialises writers of one user's data until the transaction
	// ends (a row lock on Postgres; SQLite's write lock already does).
	LockUser(ctx context.Context, id string) error
	// GetUser reads a user, its display name opened; ErrNotFound when there is
	// none.
	GetUser(ctx context.Context, id string) (User, error)
	// GetUserForUpdate reads a user and, on Postgres, locks its row for the
	// rest of the transaction (LockUser and GetUser in one statement).
	GetUserForUpdate(ctx context.Context, id string) (User, error)
	// EnsureUser upserts u as UpsertUser does and returns the row as
	// stored, in one statement. The stored time zone is kept unless
	// zoneNamed or it is empty. A user of the same id and another app is
	// left alone: ErrConflict.
	EnsureUser(ctx context.Context, u User, zoneNamed bool) (User, error)
	// OpenHandoff is a handoff's first round trip: GetSessionForUpdate of
	// sessionID and, unless that session is there and no longer active (a
	// handoff sent again, which writes nothing), EnsureUser of u. Found
	// says whether the session was there. A user of another app is
	// ErrConflict, as is a session closed by a concurrent handoff between
	// the two (the caller's retry then finds it).
	OpenHandoff(ctx context.Context, sessionID string, u User, zoneNamed bool) (HandoffStart, error)

	// CreateSession inserts a new session; ErrConflict if the id exists.
	// In a Postgres transaction it, InsertEvents, InsertChunks and
	// MarkDirtyAll wait for the transaction's next statement or its COMMIT
	// and go in that round trip: their errors are then that statement's or
	// the commit's (named: "create session: …"), and the transaction rolls
	// back as it would have.
	CreateSession(ctx context.Context, s Session) error
	// GetSession reads a session; ErrNotFound when there is none.
	GetSession(ctx context.Context, id string) (Session, error)
	// GetSessionInput reads a session (GetSession: ErrNotFound when there
	// is none), its transcript chunks (ListChunks) and its events
	// (ListEvents): what its extraction reads, in one round trip on
	// Postgres.
	GetSessionInput(ctx context.Context, id string) (SessionInput, error)
	// GetSessionForUpdate reads a session and, on Postgres, locks its row for the
	// rest of the transaction so that concurrent workers serialise on it.
	GetSessionForUpdate(ctx context.Context, id string) (Session, error)
	// SetSessionJobs replaces the jobs recorded on a session; ErrNotFound when
	// there is no such session.
	SetSessionJobs(ctx context.Context, id string, jobs []JobRef, at time.Time) error
	// SetSessionStatus moves a session to status; processed sets processed_at.
	SetSessionStatus(ctx context.Context, id, status string, at time.Time) error
	// SetTranscriptRetention records whether a session's transcript is kept
	// and until when; ErrNotFound when there is no such session.
	SetTranscriptRetention(ctx context.Context, id string, retained bool, until *time.Time, at time.Time) error
	// SetSessionProcessed is SetTranscriptRetention and SetSessionStatus
	// (processed) in one statement.
	SetSessionProcessed(ctx context.Context, id string, retained bool, until *time.Time, at time.Time) error
	// LockExtraction is the start of an extraction's transaction:
	// GetSessionForUpdate and GetUserForUpdate of its user in one statement
	// (ErrNotFound when the session is gone), then, after the locks, what
	// reads asks of the user's: forget markers (ListMemoryChangesOf
	// "forget"), memories (ListMemories, All) and statements
	// (ListStatements), or only those of reads.Keys — in one round trip on
	// Postgres.
	LockExtraction(ctx context.Context, sessionID string, reads ExtractionReads) (ExtractionLock, error)
	// FinishExtraction is the end of an extraction's transaction: the
	// memory writes m (see MemoryWrites: UpdateMemories, InsertMemories,
	// InsertMemoryChanges, MoveStatement, InsertStatements), then
	// UpsertSummary, InsertExtractionRun, the transcript deleted with the
	// exports that may hold it or kept (DeleteChunks, DeleteUserExports) and
	// the session processed (SetSessionProcessed) — in one round trip on
	// Postgres, that of the transaction's COMMIT (or its next statement).
	// A memory or statement to update that does not exist, or the session,
	// is ErrNotFound: checked in the database, before the COMMIT.
	FinishExtraction(ctx context.Context, m MemoryWrites, s Settlement) error
	// EvictOverBound takes a user's active memories beyond keep out of the
	// active set, a page at a time (see queries.EvictOverBound).
	EvictOverBound(ctx context.Context, userID string, keep int, at time.Time) (int64, error)
	// CountActiveMemories counts a user's active memories.
	CountActiveMemories(ctx context.Context, userID string) (int64, error)
	// WriteMemories is FinishExtraction's memory writes m of user userID
	// alone, for a page of a large extraction applied before it settles.
	WriteMemories(ctx context.Context, userID string, m MemoryWrites) error

	// InsertEvents inserts a session's events, as few statements as the
	// parameter limit allows; ErrConflict if a (session, seq) exists.
	InsertEvents(ctx context.Context, events []Event) error
	// ListEvents lists a session's events by seq; empty when there are none.
	ListEvents(ctx context.Context, sessionID string) ([]Event, error)
	// ListUserEvents lists a user's events of the given kinds at or after since, oldest first.
	ListUserEvents(ctx context.Context, userID string, kinds []string, since time.Time) ([]Event, error)

	// InsertChunks inserts sealed transcript chunks, as few statements as the
	// parameter limit allows; ErrConflict if a (session, seq) exists.
	InsertChunks(ctx context.Context, chunks []Chunk) error
	// ListChunks lists a session's transcript chunks by seq; empty when the
	// session has none (or its transcript was deleted).
	ListChunks(ctx context.Context, sessionID string) ([]Chunk, error)
	// DeleteChunks removes a session's transcript and returns how many chunks went.
	DeleteChunks(ctx context.Context, sessionID string) (int64, error)

	// UpsertSummary writes the summary of a session under a prompt version,
	// replacing an earlier one of the same version.
	UpsertSummary(ctx context.Context, s Summary) error
	// GetSummary returns the newest summary of a session.
	GetSummary(ctx context.Context, sessionID string) (Summary, error)
	// ListSummaries returns the summaries of a user's newest sessions (by
	// the session's end, not by when the summary was written), newest first.
	ListSummaries(ctx context.Context, userID string, limit int) ([]Summary, error)

	// GetProfile reads a user's profile, its document opened; ErrNotFound when
	// the user has none.
	GetProfile(ctx context.Context, userID string) (Profile, error)
	// SaveProfile writes p with version p.Version when the stored version is
	// p.Version-1 (or absent and p.Version is 1), and records change; otherwise ErrConflict.
	SaveProfile(ctx context.Context, p Profile, change ProfileChange) error
	// ListProfileHistory lists every recorded version of a user's profile,
	// oldest version first, opened; empty when there is none.
	ListProfileHistory(ctx context.Context, userID string) ([]ProfileChange, error)

	// ListMemories lists a user's memories that f selects (active ones by
	// default), by importance (highest first), then creation time and id;
	// empty when none match.
	ListMemories(ctx context.Context, userID string, f MemoryFilter) ([]Memory, error)
	// PageMemories is one page of ListMemories: at most limit memories in
	// its order after the position after (nil: from the start), and the
	// position to read on from (nil when nothing follows). With f.AsOf the
	// page may hold fewer than limit though more follow.
	PageMemories(ctx context.Context, userID string, f MemoryFilter, after *MemoryCursor, limit int) ([]Memory, *MemoryCursor, error)
	// ListPackMemories lists what a context pack reads of a user's active
	// memories (the same memories as ListMemories with an empty filter), in
	// no particular order; empty when there is none.
	ListPackMemories(ctx context.Context, userID string) ([]PackMemory, error)
	// ReadPackMemories reads the memories of a user that pr names (PackRead)
	// and the number of their active unexpired memories, in one statement
	// through the indexes of migration 0016: a context pack's bounded read.
	ReadPackMemories(ctx context.Context, userID string, pr PackRead) (PackRows, error)
	// MarkMemoriesUsed sets last_used_at to at on the user's memories of
	// ids, and nothing else, in one statement (per 1 000 ids); an id the
	// user has no memory of is skipped.
	MarkMemoriesUsed(ctx context.Context, userID string, ids []string, at time.Time) error
	// GetMemory reads one memory of a user; ErrNotFound when the user has no
	// memory of that id.
	GetMemory(ctx context.Context, userID, id string) (Memory, error)
	// InsertMemory adds m; ErrConflict if an active memory of the same key exists.
	InsertMemory(ctx context.Context, m Memory) error
	// InsertMemories adds every memory of ms in one statement (per 1 400
	// memories): a batch of InsertMemory.
	InsertMemories(ctx context.Context, ms []Memory) error
	// UpdateMemory rewrites the mutable fields of m (value, importance,
	// confidence, status, confirmations, expiry, last use, updated_at).
	UpdateMemory(ctx context.Context, m Memory) error
	// UpdateMemories is a batch of UpdateMemory, in one statement (per
	// 1 600 memories); ErrNotFound when one does not exist. Two writes of
	// one memory leave the later.
	UpdateMemories(ctx context.Context, ms []Memory) error
	// ListStatements lists the statements of a user's memories of the given
	// keys (all keys when empty).
	ListStatements(ctx context.Context, userID string, keys []string) ([]Statement, error)
	// InsertStatement records one statement of a memory (a new id when s.ID is
	// empty, weight at least 1).
	InsertStatement(ctx context.Context, s Statement) error
	// InsertStatements is a batch of InsertStatement, in one statement.
	InsertStatements(ctx context.Context, ss []Statement) error
	// MoveStatement makes statement s.ID of user s.UserID part of memory
	// s.MemoryID (as MemoryWrites.Moves does); ErrNotFound when the user
	// has no such statement.
	MoveStatement(ctx context.Context, s Statement) error
	// InsertMemoryChange records one audit row of a memory write (a new id
	// when c.ID is empty). A forget marker's key is stored hashed
	// (ForgetKeyHasher), and the user's markers of the same key, category
	// or profile that are not newer go: one marker of each is kept.
	InsertMemoryChange(ctx context.Context, c MemoryChange) error
	// InsertMemoryChanges is a batch of InsertMemoryChange, in one statement;
	// it hashes forget markers' keys but keeps every row.
	InsertMemoryChanges(ctx context.Context, cs []MemoryChange) error
	// ForgetKeyHasher is what forget markers keep of a key: compare a key
	// with a marker's by hashing it.
	ForgetKeyHasher(ctx context.Context) (KeyHasher, error)
	// ListMemoryChanges lists a user's memory audit rows, oldest first (by
	// time, then id); empty when there are none.
	ListMemoryChanges(ctx context.Context, userID string) ([]MemoryChange, error)
	// ListMemoryChangesOf lists the changes of one action ("forget", say)
	// of a user's memories, oldest first, as ListMemoryChanges orders them.
	ListMemoryChangesOf(ctx context.Context, userID, action string) ([]MemoryChange, error)

	// InsertCue records a cue; a cue of the same session, kind and field already
	// recorded is left as it is.
	InsertCue(ctx context.Context, c Cue) error
	// ListCues lists a user's cues, all or only the unresolved ones, oldest
	// first (by creation time, then id); empty when there are none.
	ListCues(ctx context.Context, userID string, unresolvedOnly bool) ([]Cue, error)
	// ListSessionCues lists the cues a session recorded (those of its user
	// with its id), oldest first (by creation time, then id), as ListCues
	// orders them; empty when there are none or no such session.
	ListSessionCues(ctx context.Context, sessionID string) ([]Cue, error)
	// DeleteCues removes every cue of a user (a fresh start) and returns how many.
	DeleteCues(ctx context.Context, userID string) (int64, error)
	// ResolveCues marks the user's unresolved cues of kind recorded at or
	// before at as resolved at at (an operator's resolution), and returns
	// them as they are now, oldest first; empty when there were none. A cue
	// resolved before keeps its time.
	ResolveCues(ctx context.Context, userID, kind string, at time.Time) ([]Cue, error)

	// InsertRiskLowering records a lowered risk finding; one of the same
	// session and message already recorded is left as it is. It reports
	// whether l was recorded.
	InsertRiskLowering(ctx context.Context, l RiskLowering) (bool, error)
	// ListRiskLowerings lists a session's lowered risk findings, oldest first.
	ListRiskLowerings(ctx context.Context, sessionID string) ([]RiskLowering, error)

	// InsertExtractionRun records a run; a second final run for the same
	// session and prompt version is ErrConflict.
	InsertExtractionRun(ctx context.Context, r ExtractionRun) error
	// ListExtractionRuns lists a session's extraction runs, oldest first (by
	// creation time, then id); empty when there are none.
	ListExtractionRuns(ctx context.Context, sessionID string) ([]ExtractionRun, error)
	// SumExtractionCost adds up the cost of runs created in [from, to).
	SumExtractionCost(ctx context.Context, from, to time.Time) (float64, error)

	// ListRecords lists a user's records of the given kinds (all when empty), by kind and key.
	ListRecords(ctx context.Context, userID string, kinds []string) ([]Record, error)
	// ListSessionRecords lists the records a session wrote last (those of
	// its user whose SessionID is the session's), by kind and key as
	// ListRecords orders them; empty when there are none or no such session.
	ListSessionRecords(ctx context.Context, sessionID string) ([]Record, error)
	// UpsertRecord writes a record, replacing the one of the same user, kind and key.
	UpsertRecord(ctx context.Context, r Record) error
	// DeleteRecord removes a user's record of one kind and key; a record not
	// there is no error.
	DeleteRecord(ctx context.Context, k RecordKey) error

	// AppendBuffer adds turns to a session's rolling buffer; a message id
	// already buffered is skipped. It returns how many turns were added.
	AppendBuffer(ctx context.Context, msgs []BufferMessage) (int, error)
	// ListBuffer lists a session's buffered turns by seq; empty when there
	// are none.
	ListBuffer(ctx context.Context, sessionID string) ([]BufferMessage, error)
	// CountBuffer is the number of turns buffered for a session.
	CountBuffer(ctx context.Context, sessionID string) (int, error)
	// BufferHead reads what appending turns to a session's buffer needs
	// without reading the buffer: the next sequence number and which of
	// messageIDs are buffered already. Its cost grows with len(messageIDs),
	// not with the buffer.
	BufferHead(ctx context.Context, sessionID string, messageIDs []string) (BufferHead, error)
	// UpsertRollingSummary stores s unless a summary covering at least as
	// many messages is already stored; it reports whether s was stored.
	UpsertRollingSummary(ctx context.Context, s RollingSummary) (bool, error)
	// GetRollingSummary reads a session's rolling summary; ErrNotFound when
	// there is none.
	GetRollingSummary(ctx context.Context, sessionID string) (RollingSummary, error)
	// LatestRollingSummary is the user's most recently updated rolling summary.
	LatestRollingSummary(ctx context.Context, userID string) (RollingSummary, error)
	Forgetting

	// CloseActiveSession turns an active session (one that received messages)
	// into a closed one with s's fields; ErrConflict if it is not active.
	CloseActiveSession(ctx context.Context, s Session) error

	// UpsertBatchRun writes the ledger row of a batch and period: a new one
	// (outcome "pending" when empty), or the start (kept when r has none),
	// finish, rows touched, outcome and cursor (none when r.Cursor is "")
	// of the stored one.
	UpsertBatchRun(ctx context.Context, r BatchRun) error
	// SetBatchCursor writes where the run of a batch and period stands
	// ("" clears it), in the caller's transaction: the page's writes and
	// its cursor commit together. ErrNotFound when the ledger has no row.
	SetBatchCursor(ctx context.Context, batch, period, cursor string) error
	// GetBatchRun reads the ledger row of a batch and period; ErrNotFound when
	// there is none.
	GetBatchRun(ctx context.Context, batch, period string) (BatchRun, error)
	// ListBatchRuns lists up to limit ledger rows of a batch, newest
	// scheduled period first; empty when there are none.
	ListBatchRuns(ctx context.Context, batch string, limit int) ([]BatchRun, error)

	// ListWeeks lists up to limit of a user's weekly analytics rows, newest
	// week first, of weeks ending before before ("YYYY-MM-DD"; "" for the newest).
	ListWeeks(ctx context.Context, userID, before string, limit int) ([]AggregateRow, error)
}

// Resealer seals derived data again under the newest key (store/seal.go).
type Resealer interface {
	// ResealDerived seals again, under the newest key, every sealed derived
	// value (summaries, profiles, profile history, display names) sealed under
	// an older one, and returns how many; 0 without a sealer.
	ResealDerived(ctx context.Context) (int64, error)
}

// Tx is a Querier bound to one database transaction.
type Tx interface {
	Querier
	Batcher
	Privacy
	// Raw is the driver's transaction (pgx.Tx or *sql.Tx), for River's InsertTx.
	Raw() any
}

// Migration describes one schema migration and whether it is applied.
type Migration struct {
	Line      string // "mnemo"
	Version   int
	Name      string
	AppliedAt *time.Time
}

// Store is a database holding Mnemo's data.
type Store interface {
	Querier
	Batcher
	Privacy
	// InTx runs fn in a transaction, committed when fn returns nil.
	InTx(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error
	// Dialect names the database: DialectPostgres or DialectSQLite.
	Dialect() string
	// Ping checks that the database answers.
	Ping(ctx context.Context) error
	// MigrateUp applies every pending migration and returns the versions applied.
	MigrateUp(ctx context.Context) ([]int, error)
	// MigrateDown rolls back the newest n migrations.
	MigrateDown(ctx context.Context, n int) ([]int, error)
	// MigrationStatus lists every known migration, oldest version first, with
	// when it was applied (nil when pending).
	MigrationStatus(ctx context.Context) ([]Migration, error)
	// Pending reports how many migrations are not applied.
	Pending(ctx context.Context) (int, error)
	// Raw is the driver's pool (*pgxpool.Pool or *sql.DB), for River's driver.
	Raw() any
	// Close releases the database's connections.
	Close() error
}
