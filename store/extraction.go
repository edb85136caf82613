package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// What an extraction reads and writes, in as few round trips as the
// database allows (issue 14): each method is the statements of the methods
// it names, in their order, with their results; on Postgres they go in one
// round trip (a pipeline), on SQLite, in process, one after another.

// SessionInput is a session with what its extraction reads of it.
type SessionInput struct {
	Session Session
	Chunks  []Chunk // ListChunks
	Events  []Event // ListEvents
}

// ExtractionReads says what LockExtraction reads besides the session and
// its user.
type ExtractionReads struct {
	// Forgets reads the user's forget markers (ListMemoryChangesOf "forget").
	Forgets bool
	// Memories reads every memory of the user (ListMemories, All) and
	// every statement (ListStatements, all keys).
	Memories bool
	// Keys, when not empty, narrows Memories to the statements of these
	// keys and the memories of these keys or of those statements: an
	// extraction reads what its candidates' keys have, not the user's
	// whole history.
	Keys []string
}

// ExtractionLock is what an extraction's transaction reads first.
type ExtractionLock struct {
	Session Session
	User    User
	// Forgets, Memories and Statements are nil unless asked for.
	Forgets []MemoryChange
	// KeyHash compares a key with the forget markers' (set with Forgets).
	KeyHash    KeyHasher
	Memories   []Memory
	Statements []Statement
}

// MemoryWrites are the writes of the memory timelines an extraction
// touched, in the order they are made: memories leaving the active set
// (updated), memories entering it (updated), new memories (inserted), the
// audit, statements moved to another memory, new statements. One active
// memory per key means memories leave the active set before another enters
// it; a new memory is inserted after every update.
type MemoryWrites struct {
	// Leaving and Entering are updated as UpdateMemory updates.
	Leaving, Entering []Memory
	// New are inserted (InsertMemories).
	New []Memory
	// Changes are the audit rows (InsertMemoryChanges).
	Changes []MemoryChange
	// Moves make statement ID part of memory MemoryID (MoveStatement).
	Moves []Statement
	// Statements are new statements (InsertStatements).
	Statements []Statement
	// Folds compact long timelines: each rewrites a stored statement (by
	// UserID and ID) to stand for older ones of its run as well (Weight,
	// Importance, Confidence, ExpiresAt, EventDate, Wording), and Folded
	// are the ids of the statements it now stands for, deleted.
	Folds  []Statement
	Folded []string
}

// Settlement is how an extraction leaves its session.
type Settlement struct {
	SessionID string
	UserID    string
	Summary   Summary       // UpsertSummary
	Run       ExtractionRun // InsertExtractionRun
	// KeepUntil is when the kept transcript goes (retained); nil deletes it
	// now and, when there was one, the user's exports requested at or after
	// ExportsSince, which may hold it (DeleteUserExports).
	KeepUntil    *time.Time
	ExportsSince time.Time
	// At is when the session is processed.
	At time.Time
}

// qualified prefixes each column of a column list with alias.
func qualified(alias, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

func (q queries) GetSessionInput(ctx context.Context, id string) (SessionInput, error) {
	var in SessionInput
	found := false
	err := q.pipeline(ctx,
		step{sql: "SELECT " + sessionCols + " FROM mnemo_sessions WHERE id = $1", args: []any{id}, scan: func(r rows) (err error) {
			in.Session, err = scanSession(r)
			found = true
			return err
		}},
		step{sql: listChunksSQL, args: []any{id}, scan: func(r rows) error {
			c, err := scanChunk(r)
			in.Chunks = append(in.Chunks, c)
			return err
		}},
		step{sql: listEventsSQL, args: []any{id}, scan: func(r rows) error {
			e, err := scanEvent(r)
			in.Events = append(in.Events, e)
			return err
		}})
	switch {
	case err != nil:
		return SessionInput{}, err
	case !found:
		return SessionInput{}, ErrNotFound
	}
	in.Chunks, in.Events = nonNil(in.Chunks), nonNil(in.Events)
	return in, nil
}

// sessionUser is a session's user: the reads that follow the lock take
// the user from the session they locked.
const sessionUser = "(SELECT user_id FROM mnemo_sessions WHERE id = $1)"

func (q queries) LockExtraction(ctx context.Context, sessionID string, reads ExtractionReads) (ExtractionLock, error) {
	var l ExtractionLock
	found := false
	steps := []step{{
		// Both rows are locked, the session's first (Postgres locks the
		// rows of a join in the order of its FROM list), as GetSessionForUpdate
		// then GetUserForUpdate would.
		sql: "SELECT " + qualified("s", sessionCols) + ", " + qualified("u", userCols) + `
			FROM mnemo_sessions s JOIN mnemo_users u ON u.id = s.user_id WHERE s.id = $1 FOR UPDATE`,
		args: []any{sessionID},
		scan: func(r rows) error {
			var s Session
			var u User
			var jobs json.RawMessage
			if err := r.Scan(append(sessionDest(&s, &jobs), userDest(&u)...)...); err != nil {
				return err
			}
			if err := s.decodeJobs(jobs); err != nil {
				return err
			}
			var err error
			if u, err = q.openUser(u); err != nil {
				return err
			}
			l.Session, l.User, found = s, u, true
			return nil
		},
	}}
	// The reads below run after the lock is held, each with a snapshot
	// of its own, as they would sent one by one.
	if reads.Forgets {
		var err error
		if l.KeyHash, err = q.ForgetKeyHasher(ctx); err != nil {
			return ExtractionLock{}, err
		}
		l.Forgets = []MemoryChange{}
		steps = append(steps, step{sql: "SELECT " + memoryChangeCols + " FROM mnemo_memory_history WHERE user_id = " + sessionUser +
			forgetsOnly + memoryChangeOrder, args: []any{sessionID}, scan: func(r rows) error {
			c, err := scanMemoryChange(r)
			l.Forgets = append(l.Forgets, c)
			return err
		}})
	}
	var keyArgs [][]any // the arguments of each read of the keys
	var keyLists []string
	if reads.Memories {
		l.Memories, l.Statements = []Memory{}, []Statement{}
		keyArgs, keyLists = [][]any{{sessionID}}, []string{""}
		if len(reads.Keys) > 0 {
			// The filter of both reads, one pair of reads per IN list.
			keyArgs, keyLists = q.inLists([]any{sessionID}, reads.Keys)
		}
		for i, args := range keyArgs {
			ofKeys := ""
			if keyLists[i] != "" {
				ofKeys = " AND key IN (" + keyLists[i] + ")"
			}
			steps = append(steps,
				step{sql: "SELECT " + memoryCols + " FROM mnemo_memories WHERE user_id = " + sessionUser + ofKeys + memoryOrder,
					args: args, scan: func(r rows) error {
						m, err := scanMemory(r)
						l.Memories = append(l.Memories, m)
						return err
					}},
				step{sql: "SELECT " + statementCols + " FROM mnemo_memory_statements WHERE user_id = " + sessionUser + ofKeys + statementOrder,
					args: args, scan: func(r rows) error {
						s, err := scanStatement(r)
						l.Statements = append(l.Statements, s)
						return err
					}})
		}
	}
	if err := q.pipeline(ctx, steps...); err != nil {
		return ExtractionLock{}, err
	}
	if !found {
		return ExtractionLock{}, ErrNotFound
	}
	if len(keyArgs) > 1 {
		l.Memories, l.Statements = sortMemories(l.Memories), sortStatements(l.Statements)
	}
	if len(reads.Keys) > 0 && reads.Memories {
		return l, q.readStatementsMemories(ctx, &l, sessionID, reads.Keys)
	}
	return l, nil
}

// readStatementsMemories reads again, with the memories of the keys, those
// of the keys' statements that have another key. The timelines never make
// one (a memory is a run of its subject's statements, and the keys hold
// whole subjects), so this costs nothing but a look; but should the data
// hold one, the extraction must find the memory its statement belongs to
// rather than take it for a new one.
func (q queries) readStatementsMemories(ctx context.Context, l *ExtractionLock, sessionID string, keys []string) error {
	read := make(map[string]bool, len(l.Memories))
	for _, m := range l.Memories {
		read[m.ID] = true
	}
	var ids []string
	for _, s := range l.Statements {
		if !read[s.MemoryID] {
			read[s.MemoryID] = true
			ids = append(ids, s.MemoryID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if len(keys)+len(ids) <= q.inListMax() {
		args := []any{sessionID}
		for _, v := range append(slices.Clone(keys), ids...) {
			args = append(args, v)
		}
		ms, err := queryAll(ctx, q, "SELECT "+memoryCols+" FROM mnemo_memories WHERE user_id = "+sessionUser+" AND (key IN ("+
			placeholders(2, len(keys))+") OR id IN ("+placeholders(len(keys)+2, len(ids))+"))"+memoryOrder, args, scanMemory)
		if err == nil {
			l.Memories = ms
		}
		return err
	}
	// Too many for one statement: the memories of the keys again and
	// those of the ids, a statement per list, in memoryOrder once each.
	var ms []Memory
	var steps []step
	for _, by := range []struct {
		col  string
		vals []string
	}{{"key", keys}, {"id", ids}} {
		args, lists := q.inLists([]any{sessionID}, by.vals)
		for i := range args {
			steps = append(steps, step{sql: "SELECT " + memoryCols + " FROM mnemo_memories WHERE user_id = " + sessionUser +
				" AND " + by.col + " IN (" + lists[i] + ")", args: args[i], scan: func(r rows) error {
				m, err := scanMemory(r)
				ms = append(ms, m)
				return err
			}})
		}
	}
	if err := q.pipeline(ctx, steps...); err != nil {
		return err
	}
	l.Memories = sortMemories(ms)
	return nil
}

// memoryUpdateCols are the columns UpdateMemory writes, after the key
// (user_id, id), with their Postgres types.
var memoryUpdateCols = []struct{ name, pgType string }{
	{"user_id", "text"}, {"id", "text"},
	{"value", "text"}, {"importance", "integer"}, {"confidence", "float8"}, {"status", "text"}, {"confirmations", "integer"},
	{"expires_at", "timestamptz"}, {"last_used_at", "timestamptz"}, {"updated_at", "timestamptz"}, {"stated_at", "timestamptz"},
	{"invalidated_at", "timestamptz"}, {"invalidated_by", "text"}, {"supersedes_id", "text"}, {"event_date", "text"},
	{"wording", "text"}, {"category", "text"}, {"source_session_id", "text"}, {"source_message_id", "text"},
}

func memoryUpdateRow(m Memory) []any {
	return []any{m.UserID, m.ID, m.Value, m.Importance, m.Confidence, m.Status, m.Confirmations, m.ExpiresAt, m.LastUsedAt,
		m.UpdatedAt, statedOr(m.StatedAt, m.CreatedAt), m.InvalidatedAt, m.InvalidatedBy, m.SupersedesID, m.EventDate, m.Wording,
		m.Category, m.SourceSessionID, m.SourceMessageID}
}

// lastOfEach keeps the last write of each memory: updating one memory twice
// leaves the second write, which rewrites every field the first did.
func lastOfEach(ms []Memory) []Memory {
	last := map[string]int{}
	for i, m := range ms {
		last[m.ID] = i
	}
	if len(last) == len(ms) {
		return ms
	}
	out := make([]Memory, 0, len(last))
	for i, m := range ms {
		if last[m.ID] == i {
			out = append(out, m)
		}
	}
	return out
}

// updateMemoriesSteps are the statements of UpdateMemories: one multi-row
// UPDATE … FROM (VALUES …) per parameter limit, each of which must change
// a row for every row of its list.
func (q queries) updateMemoriesSteps(ms []Memory) ([]step, error) {
	casts := make([]string, len(memoryUpdateCols))
	var set strings.Builder
	for i, c := range memoryUpdateCols {
		casts[i] = c.pgType
		if i >= 2 {
			if i > 2 {
				set.WriteString(", ")
			}
			fmt.Fprintf(&set, "%s = v.column%d", c.name, i+1)
		}
	}
	steps, err := q.valuesSteps("update memory", len(memoryUpdateCols), len(ms), func(i int) []any { return memoryUpdateRow(ms[i]) }, casts,
		func(values string) string {
			return "UPDATE mnemo_memories SET " + set.String() + " FROM (VALUES " + values + `) AS v
				WHERE mnemo_memories.user_id = v.column1 AND mnemo_memories.id = v.column2`
		})
	if err != nil {
		return nil, err
	}
	for i := range steps {
		steps[i].want = int64(len(steps[i].args) / len(memoryUpdateCols))
	}
	return steps, nil
}

func (q queries) UpdateMemories(ctx context.Context, ms []Memory) error {
	steps, err := q.updateMemoriesSteps(lastOfEach(ms))
	if err != nil {
		return err
	}
	return q.pipeline(ctx, steps...)
}

// memoryWriteSteps are the statements of m, the writes of user userID's
// memory timelines.
func (q queries) memoryWriteSteps(ctx context.Context, userID string, m MemoryWrites) (steps []step, err error) {
	if m.Changes, err = q.hashForgetKeys(ctx, m.Changes); err != nil {
		return nil, err
	}
	for _, group := range [][]Memory{m.Leaving, m.Entering} {
		st, err := q.updateMemoriesSteps(lastOfEach(group))
		if err != nil {
			return nil, err
		}
		steps = append(steps, st...)
	}
	inserts := []struct {
		what, head string
		width, n   int
		row        func(i int) []any
	}{
		{"insert memories", "INSERT INTO mnemo_memories (" + memoryCols + ")", 22, len(m.New), func(i int) []any { return memoryInsertRow(m.New[i]) }},
		{"record memory changes", "INSERT INTO mnemo_memory_history (" + memoryChangeCols + ")", 8, len(m.Changes), func(i int) []any { return memoryChangeRow(m.Changes[i]) }},
	}
	for _, in := range inserts {
		st, err := q.insertSteps(in.what, in.head, in.width, in.n, in.row, "")
		if err != nil {
			return nil, err
		}
		steps = append(steps, st...)
	}
	for _, mv := range m.Moves {
		steps = append(steps, moveStatementStep(Statement{UserID: userID, ID: mv.ID, MemoryID: mv.MemoryID}))
	}
	steps = append(steps, foldSteps(userID, m.Folds, m.Folded)...)
	st, err := q.insertSteps("insert memory statements", "INSERT INTO mnemo_memory_statements ("+statementCols+")", 16, len(m.Statements),
		func(i int) []any { return statementRow(m.Statements[i]) }, "")
	if err != nil {
		return nil, err
	}
	return append(steps, st...), nil
}

// WriteMemories is FinishExtraction's writes of m without the settlement:
// a large extraction applies its memories a page at a time, each in a
// transaction of its own, before it settles the session.
func (q queries) WriteMemories(ctx context.Context, userID string, m MemoryWrites) error {
	steps, err := q.memoryWriteSteps(ctx, userID, m)
	if err != nil {
		return err
	}
	return q.later(ctx, steps...)
}

// FinishExtraction's writes need no answer: in a Postgres transaction they
// go with the COMMIT, in its round trip (queries.later), and the database
// checks that each update found its row (mnemo_expect_rows).
func (q queries) FinishExtraction(ctx context.Context, m MemoryWrites, s Settlement) error {
	steps, err := q.memoryWriteSteps(ctx, s.UserID, m)
	if err != nil {
		return err
	}

	sum, err := q.upsertSummaryStep(s.Summary)
	if err != nil {
		return err
	}
	steps = append(steps, sum, insertRunStep(s.Run))
	if s.KeepUntil == nil {
		// The exports go when the transcript they may hold was there,
		// which the chunks say until the next statement deletes them.
		steps = append(steps,
			step{what: "delete exports", sql: `DELETE FROM mnemo_exports WHERE user_id = $1 AND created_at >= $2
				AND EXISTS (SELECT 1 FROM mnemo_transcript_chunks WHERE session_id = $3)`, args: []any{s.UserID, s.ExportsSince, s.SessionID}},
			step{what: "delete transcript", sql: deleteChunksSQL, args: []any{s.SessionID}})
	}
	steps = append(steps, sessionProcessedStep(s.SessionID, s.KeepUntil != nil, s.KeepUntil, s.At))
	return q.later(ctx, steps...)
}
