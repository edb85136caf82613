package memory

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/transcript"
)

// Archive is everything Mnemo stores about a user, transcripts decrypted.
// Its JSON Schema is docs/export.schema.json.
type Archive struct {
	Format         string             `json:"format"`
	ExportedAt     time.Time          `json:"exported_at"`
	User           ArchiveUser        `json:"user"`
	Profile        json.RawMessage    `json:"profile"`
	ProfileHistory []ArchiveChange    `json:"profile_history"`
	Memories       []ArchiveMemory    `json:"memories"`
	Statements     []ArchiveStatement `json:"memory_statements"`
	MemoryAudit    []ArchiveAudit     `json:"memory_audit"`
	Sessions       []ArchiveSession   `json:"sessions"`
	Records        []ArchiveRecord    `json:"records"`
	Cues           []ArchiveCue       `json:"cues"`
	Analytics      []ArchiveAggregate `json:"weekly_analytics"`
	Trends         json.RawMessage    `json:"trends"`
}

// ArchiveUser is the user row.
type ArchiveUser struct {
	ID             string    `json:"id"`
	App            string    `json:"app"`
	DisplayName    string    `json:"display_name"`
	Timezone       string    `json:"timezone"`
	MemoryDisabled bool      `json:"memory_disabled"`
	CreatedAt      time.Time `json:"created_at"`
}

// ArchiveChange is one profile version.
type ArchiveChange struct {
	Version   int             `json:"version"`
	Doc       json.RawMessage `json:"doc"`
	Changed   json.RawMessage `json:"changed"`
	Actor     string          `json:"actor"`
	SessionID string          `json:"session_id"`
	At        time.Time       `json:"at"`
	StatedAt  time.Time       `json:"stated_at"`
	Older     json.RawMessage `json:"older"`
}

// ArchiveMemory is one memory of any status.
type ArchiveMemory struct {
	ID              string     `json:"id"`
	Key             string     `json:"key"`
	Value           string     `json:"value"`
	Category        string     `json:"category"`
	Importance      int        `json:"importance"`
	Confidence      float64    `json:"confidence"`
	Status          string     `json:"status"`
	SupersedesID    string     `json:"supersedes_id"`
	SourceSessionID string     `json:"source_session_id"`
	ExpiresAt       *time.Time `json:"expires_at"`
	CreatedAt       time.Time  `json:"created_at"`
	StatedAt        time.Time  `json:"stated_at"`
	InvalidatedAt   *time.Time `json:"invalidated_at"`
	InvalidatedBy   string     `json:"invalidated_by"`
	EventDate       string     `json:"event_date"`
	Wording         string     `json:"wording"`
}

// ArchiveStatement is one time a memory was said.
type ArchiveStatement struct {
	MemoryID  string    `json:"memory_id"`
	Key       string    `json:"key"`
	Value     string    `json:"value"`
	StatedAt  time.Time `json:"stated_at"`
	SessionID string    `json:"session_id"`
	MessageID string    `json:"message_id"`
	EventDate string    `json:"event_date"`
	// Weight is how many times the memory was said that the statement
	// stands for: 1, or more for one that a long timeline's old
	// statements were folded into.
	Weight int `json:"weight"`
}

// ArchiveAudit is one audited memory write: who or what wrote, when, from which session.
type ArchiveAudit struct {
	MemoryID  string    `json:"memory_id"`
	Action    string    `json:"action"`
	Actor     string    `json:"actor"`
	SessionID string    `json:"session_id"`
	At        time.Time `json:"at"`
	Key       string    `json:"key"`
}

// ArchiveSession is a session with its events, summary and transcript.
type ArchiveSession struct {
	ID         string            `json:"id"`
	Status     string            `json:"status"`
	StartedAt  time.Time         `json:"started_at"`
	EndedAt    time.Time         `json:"ended_at"`
	Summary    json.RawMessage   `json:"summary"`
	Events     []ArchiveEvent    `json:"events"`
	Transcript []extract.Message `json:"transcript"`
}

// ArchiveEvent is one session event.
type ArchiveEvent struct {
	Kind      string          `json:"kind"`
	At        time.Time       `json:"at"`
	MessageID string          `json:"message_id"`
	Data      json.RawMessage `json:"data"`
}

// ArchiveRecord is one derived record.
type ArchiveRecord struct {
	Kind     string          `json:"kind"`
	Key      string          `json:"key"`
	Data     json.RawMessage `json:"data"`
	StatedAt time.Time       `json:"stated_at"`
}

// ArchiveCue is one cue for a next session.
type ArchiveCue struct {
	Kind   string          `json:"kind"`
	Field  string          `json:"field"`
	Detail json.RawMessage `json:"detail"`
	At     time.Time       `json:"at"`
}

// ArchiveAggregate is one week of analytics.
type ArchiveAggregate struct {
	WeekEnding string          `json:"week_ending"`
	Data       json.RawMessage `json:"data"`
}

// BuildArchive reads everything stored about a user.
func BuildArchive(ctx context.Context, q store.Store, keys *seal.Keyring, userID string, now time.Time) (Archive, error) {
	a := Archive{Format: "mnemo-export/1", ExportedAt: now, Profile: json.RawMessage("null"), Trends: json.RawMessage("null"),
		ProfileHistory: []ArchiveChange{}, Memories: []ArchiveMemory{}, Statements: []ArchiveStatement{}, MemoryAudit: []ArchiveAudit{}, Sessions: []ArchiveSession{},
		Records: []ArchiveRecord{}, Cues: []ArchiveCue{}, Analytics: []ArchiveAggregate{}}
	u, err := q.GetUser(ctx, userID)
	if err != nil {
		return a, err
	}
	a.User = ArchiveUser{ID: u.ID, App: u.App, DisplayName: u.DisplayName, Timezone: u.Timezone, MemoryDisabled: u.MemoryDisabled, CreatedAt: u.CreatedAt}
	if p, err := q.GetProfile(ctx, userID); err == nil {
		a.Profile = p.Doc
	} else if !errors.Is(err, store.ErrNotFound) {
		return a, err
	}
	hist, err := q.ListProfileHistory(ctx, userID)
	if err != nil {
		return a, err
	}
	for _, h := range hist {
		a.ProfileHistory = append(a.ProfileHistory, ArchiveChange{Version: h.Version, Doc: h.Doc, Changed: h.Changed, Actor: h.Actor, SessionID: h.SessionID, At: h.At,
			StatedAt: h.StatedAt, Older: h.Older})
		if len(h.Older) == 0 {
			a.ProfileHistory[len(a.ProfileHistory)-1].Older = json.RawMessage("{}")
		}
	}
	mems, err := q.ListMemories(ctx, userID, store.MemoryFilter{All: true})
	if err != nil {
		return a, err
	}
	for _, m := range mems {
		a.Memories = append(a.Memories, ArchiveMemory{ID: m.ID, Key: m.Key, Value: m.Value, Category: m.Category, Importance: m.Importance,
			Confidence: m.Confidence, Status: m.Status, SupersedesID: m.SupersedesID, SourceSessionID: m.SourceSessionID, ExpiresAt: m.ExpiresAt, CreatedAt: m.CreatedAt,
			StatedAt: m.StatedAt, InvalidatedAt: m.InvalidatedAt, InvalidatedBy: m.InvalidatedBy, EventDate: m.EventDate, Wording: m.Wording})
	}
	stmts, err := q.ListStatements(ctx, userID, nil)
	if err != nil {
		return a, err
	}
	for _, st := range stmts {
		a.Statements = append(a.Statements, ArchiveStatement{MemoryID: st.MemoryID, Key: st.Key, Value: st.Value, StatedAt: st.StatedAt,
			SessionID: st.SessionID, MessageID: st.MessageID, EventDate: st.EventDate, Weight: max(st.Weight, 1)})
	}
	audit, err := q.ListMemoryChanges(ctx, userID)
	if err != nil {
		return a, err
	}
	for _, c := range audit {
		a.MemoryAudit = append(a.MemoryAudit, ArchiveAudit{MemoryID: c.MemoryID, Action: c.Action, Actor: c.Actor, SessionID: c.SessionID, At: c.At, Key: c.Key})
	}
	sessions, err := q.ListUserSessions(ctx, userID)
	if err != nil {
		return a, err
	}
	for _, s := range sessions {
		as := ArchiveSession{ID: s.ID, Status: s.Status, StartedAt: s.StartedAt, EndedAt: s.EndedAt, Summary: json.RawMessage("null"),
			Events: []ArchiveEvent{}, Transcript: []extract.Message{}}
		if sum, err := q.GetSummary(ctx, s.ID); err == nil {
			as.Summary = sum.Data
		} else if !errors.Is(err, store.ErrNotFound) {
			return a, err
		}
		events, err := q.ListEvents(ctx, s.ID)
		if err != nil {
			return a, err
		}
		for _, e := range events {
			as.Events = append(as.Events, ArchiveEvent{Kind: e.Type, At: e.At, MessageID: e.MessageID, Data: e.Data})
		}
		msgs, err := transcript.Load(ctx, q, keys, s.ID)
		if err != nil {
			return a, err
		}
		buffered, err := transcript.OpenBuffer(ctx, q, keys, s.ID)
		if err != nil {
			return a, err
		}
		if len(msgs) == 0 {
			msgs = buffered
		}
		as.Transcript = append(as.Transcript, msgs...)
		a.Sessions = append(a.Sessions, as)
	}
	recs, err := q.ListRecords(ctx, userID, nil)
	if err != nil {
		return a, err
	}
	for _, r := range recs {
		a.Records = append(a.Records, ArchiveRecord{Kind: r.Type, Key: r.Key, Data: r.Data, StatedAt: r.StatedAt})
	}
	cues, err := q.ListCues(ctx, userID, false)
	if err != nil {
		return a, err
	}
	for _, c := range cues {
		a.Cues = append(a.Cues, ArchiveCue{Kind: c.Type, Field: c.Field, Detail: c.Detail, At: c.CreatedAt})
	}
	weeks, err := q.ListUserWeekly(ctx, userID)
	if err != nil {
		return a, err
	}
	for _, w := range weeks {
		a.Analytics = append(a.Analytics, ArchiveAggregate{WeekEnding: w.WeekEnding, Data: w.Data})
	}
	if tr, err := q.GetTrends(ctx, userID); err == nil {
		a.Trends = tr.Data
	} else if !errors.Is(err, store.ErrNotFound) {
		return a, err
	}
	return a, nil
}

// OpenExport returns a finished export's archive JSON.
func OpenExport(ctx context.Context, p store.Privacy, keys *seal.Keyring, id string) ([]byte, error) {
	chunks, err := p.ListExportChunks(ctx, id)
	if err != nil {
		return nil, err
	}
	sealed := make([]seal.Chunk, len(chunks))
	for i, c := range chunks {
		sealed[i] = seal.Chunk{Seq: c.Seq, KeyID: c.KeyID, Nonce: c.Nonce, Ciphertext: c.Ciphertext, SHA256: c.SHA256}
	}
	return keys.Open("export/"+id, sealed)
}
