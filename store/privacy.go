package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Export is a user's data export; its archive is stored sealed, in chunks.
type Export struct {
	ID         string
	UserID     string
	Status     string // pending, done, failed
	Error      string
	CreatedAt  time.Time
	FinishedAt *time.Time
	// ExpiresAt is when the archive stops being served and is deleted; nil
	// while it is being built.
	ExpiresAt *time.Time
}

// ExportResult is what FinishExport stores of a built export.
type ExportResult struct {
	Status string // done or failed
	Error  string
	// Chunks are the sealed archive, in order.
	Chunks     []Chunk
	FinishedAt time.Time
	ExpiresAt  *time.Time
}

// Erasure is a pending request to erase a user.
type Erasure struct {
	ID          string
	UserID      string
	RequestedAt time.Time
	// Refs, once the user's rows are gone, are the ids River jobs still
	// running at the erase named; a later pass scrubs those jobs.
	Refs *JobRefs
}

// JobRefs are the ids by which River's jobs (their args, logs and errors)
// name a user: the user, their sessions and their exports.
type JobRefs struct {
	UserID     string   `json:"user_id"`
	SessionIDs []string `json:"session_ids"`
	ExportIDs  []string `json:"export_ids"`
}

// All lists every id of refs.
func (r JobRefs) All() []string {
	out := make([]string, 0, 1+len(r.SessionIDs)+len(r.ExportIDs))
	if r.UserID != "" {
		out = append(out, r.UserID)
	}
	out = append(out, r.SessionIDs...)
	return append(out, r.ExportIDs...)
}

// EncodeJobRefs is the form refs are kept in an erasure row.
func EncodeJobRefs(r JobRefs) string {
	if r.SessionIDs == nil {
		r.SessionIDs = []string{}
	}
	if r.ExportIDs == nil {
		r.ExportIDs = []string{}
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// DecodeJobRefs reads what EncodeJobRefs wrote; the empty string is nil (no
// refs kept). Anything else that is not such an object is an error.
func DecodeJobRefs(s string) (*JobRefs, error) {
	if s == "" {
		return nil, nil
	}
	var r JobRefs
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return nil, fmt.Errorf("erasure job refs: %w", err)
	}
	if r.SessionIDs == nil {
		r.SessionIDs = []string{}
	}
	if r.ExportIDs == nil {
		r.ExportIDs = []string{}
	}
	return &r, nil
}

// Privacy is what user data controls read and write.
type Privacy interface {
	// SetMemoryDisabled turns a user's memory off (disabled) or on again and
	// sets updated_at; ErrNotFound when there is no such user.
	SetMemoryDisabled(ctx context.Context, userID string, disabled bool, at time.Time) error
	// DeleteMemory forgets one memory of a user; ErrNotFound if it is not theirs.
	DeleteMemory(ctx context.Context, userID, id string) error
	// DeleteMemories forgets a user's memories of one category and returns how many.
	DeleteMemories(ctx context.Context, userID, category string) (int64, error)
	// DeleteProfile removes a user's profile and its history (a fresh start).
	DeleteProfile(ctx context.Context, userID string) error

	// CreateExport records a requested export (its id, user, status and
	// creation time); ErrConflict if the id exists.
	CreateExport(ctx context.Context, e Export) error
	// GetExport reads an export's status and times, without its archive;
	// ErrNotFound when there is none.
	GetExport(ctx context.Context, id string) (Export, error)
	// FinishExport stores export id's archive (replacing any stored before),
	// its status and error, when it finished and when it expires;
	// ErrNotFound when there is no such export.
	FinishExport(ctx context.Context, id string, r ExportResult) error
	// ListExportChunks lists an export's sealed archive in order (by seq);
	// each chunk's SessionID holds the export id. Empty when there is none.
	ListExportChunks(ctx context.Context, id string) ([]Chunk, error)
	// ListUserExports lists a user's exports, oldest first.
	ListUserExports(ctx context.Context, userID string) ([]Export, error)
	// DeleteUserExports deletes a user's exports (with their archives)
	// requested at or after since; the zero time deletes them all.
	DeleteUserExports(ctx context.Context, userID string, since time.Time) (int64, error)
	// KeepNewestExports deletes a user's exports (with their archives) but
	// the newest keep (by request time, then id), and returns the ids of
	// those it deleted: a new export replaces the oldest (issue 34 §6).
	KeepNewestExports(ctx context.Context, userID string, keep int) ([]string, error)
	// DeleteExpiredExports deletes up to limit exports that expired by now or
	// were requested before createdBefore (one never finished).
	DeleteExpiredExports(ctx context.Context, now, createdBefore time.Time, limit int) (int64, error)

	// ListUserSessions lists a user's sessions, oldest first.
	ListUserSessions(ctx context.Context, userID string) ([]Session, error)
	// ListUserWeekly lists a user's weekly analytics, oldest first.
	ListUserWeekly(ctx context.Context, userID string) ([]AggregateRow, error)

	// SessionsWithOldKeys lists up to limit sessions with transcript chunks
	// sealed under another key than keyID.
	SessionsWithOldKeys(ctx context.Context, keyID string, limit int) ([]string, error)

	// SessionsWithTranscripts pages an app's sessions that still hold a
	// transcript, by id.
	SessionsWithTranscripts(ctx context.Context, app, after string, limit int) ([]string, error)

	// CreateErasure records an erasure request with the job refs it must
	// scrub; ErrConflict if the id exists.
	CreateErasure(ctx context.Context, e Erasure) error
	// GetErasure reads an erasure request; ErrNotFound when there is none (it
	// is deleted once its user is erased).
	GetErasure(ctx context.Context, id string) (Erasure, error)
	// DeleteErasure deletes an erasure request (its user's rows are gone).
	DeleteErasure(ctx context.Context, id string) error
	// ScrubJobs deletes River's jobs that name refs: by their args (a
	// session, export or user id, as the whole value) in any state but
	// running, and finished jobs whose log lines or errors name one of the
	// ids as a token (never as part of a longer word). It returns how many
	// it deleted and how many running jobs still name refs.
	ScrubJobs(ctx context.Context, refs JobRefs) (deleted, running int64, err error)
	// ScrubJobsPage is ScrubJobs a page at a time: it reads up to limit of
	// River's jobs after job id after (in any state), deletes those that
	// name refs as ScrubJobs does, and returns how many it deleted, how
	// many of the page name refs but were running (and stay), and the id to
	// continue after; done when the page was the last. Each page is a
	// statement or two of its own, so that a scrub of the millions of
	// finished jobs River keeps for a month holds no transaction (on
	// SQLite, the writer) for long.
	ScrubJobsPage(ctx context.Context, refs JobRefs, after int64, limit int) (deleted, running, next int64, done bool, err error)
	// EraseUser deletes the user and, by cascade, every row of theirs, then
	// the erasure request itself.
	EraseUser(ctx context.Context, erasureID, userID string) error
	// DeleteUserRows deletes up to limit rows of a user from the first of
	// their bulk tables that holds any (children before parents: timelines,
	// audit, memories, events, transcripts, summaries; not the sessions,
	// whose ids the erasure's last transaction reads) and returns how many; 0 when none is left. An
	// erasure takes the bulk of a user's rows this way, a bounded
	// transaction each, before EraseUser deletes the rest with the user.
	DeleteUserRows(ctx context.Context, userID string, limit int) (int64, error)
}

// userBulkTables are a user's tables that grow with their history, in the
// order DeleteUserRows empties them: each before what it references.
// The sessions themselves are not among them: the erasure lists them in
// its last transaction, as the ids River's jobs may name, and deletes them
// with the user there.
var userBulkTables = []string{"mnemo_memory_statements", "mnemo_memory_history", "mnemo_memories", "mnemo_session_events",
	"mnemo_transcript_chunks", "mnemo_session_summaries"}

func (q queries) DeleteUserRows(ctx context.Context, userID string, limit int) (int64, error) {
	for _, t := range userBulkTables {
		// By physical address (ctid on Postgres, rowid on SQLite) through
		// the table's user index; on Postgres the user is checked again as
		// an expression, so that the planner keeps the TID scan instead of
		// walking the user's index entries again for the delete.
		sql := fmt.Sprintf("DELETE FROM %[1]s WHERE rowid IN (SELECT rowid FROM %[1]s WHERE user_id = $1 LIMIT $2)", t)
		if q.e.dialect() == DialectPostgres {
			sql = fmt.Sprintf("DELETE FROM %[1]s WHERE ctid = ANY(ARRAY(SELECT ctid FROM %[1]s WHERE user_id = $1 LIMIT $2)) AND user_id || '' = $1", t)
		}
		n, err := q.e.exec(ctx, sql, userID, limit)
		if err != nil {
			return 0, fmt.Errorf("erase user rows of %s: %w", t, err)
		}
		if n > 0 {
			return n, nil
		}
	}
	return 0, nil
}

func (q queries) SetMemoryDisabled(ctx context.Context, userID string, disabled bool, at time.Time) error {
	n, err := q.e.exec(ctx, "UPDATE mnemo_users SET memory_disabled = $2, updated_at = $3 WHERE id = $1", userID, disabled, at)
	return mustAffect(n, err, "set memory disabled")
}

func (q queries) DeleteMemory(ctx context.Context, userID, id string) error {
	n, err := q.e.exec(ctx, "DELETE FROM mnemo_memories WHERE user_id = $1 AND id = $2", userID, id)
	return mustAffect(n, err, "forget memory")
}

func (q queries) DeleteMemories(ctx context.Context, userID, category string) (int64, error) {
	n, err := q.e.exec(ctx, "DELETE FROM mnemo_memories WHERE user_id = $1 AND category = $2", userID, category)
	if err != nil {
		return 0, fmt.Errorf("forget category: %w", err)
	}
	return n, nil
}

func (q queries) DeleteProfile(ctx context.Context, userID string) error {
	if _, err := q.e.exec(ctx, "DELETE FROM mnemo_profile_history WHERE user_id = $1", userID); err != nil {
		return fmt.Errorf("delete profile history: %w", err)
	}
	n, err := q.e.exec(ctx, "DELETE FROM mnemo_profiles WHERE user_id = $1", userID)
	return mustAffect(n, err, "delete profile")
}

func (q queries) CreateExport(ctx context.Context, e Export) error {
	if _, err := q.e.exec(ctx, "INSERT INTO mnemo_exports (id, user_id, status, created_at) VALUES ($1, $2, $3, $4)",
		e.ID, e.UserID, e.Status, e.CreatedAt); err != nil {
		return fmt.Errorf("create export: %w", err)
	}
	return nil
}

func (q queries) GetExport(ctx context.Context, id string) (Export, error) {
	var e Export
	err := q.queryOne(ctx, "SELECT "+exportCols+" FROM mnemo_exports WHERE id = $1", []any{id},
		func(r rows) (err error) { e, err = scanExport(r); return err })
	return e, err
}

const exportCols = "id, user_id, status, error, created_at, finished_at, expires_at"

func scanExport(r rows) (Export, error) {
	var e Export
	err := r.Scan(&e.ID, &e.UserID, &e.Status, &e.Error, scanTime{&e.CreatedAt}, scanNullTime{&e.FinishedAt}, scanNullTime{&e.ExpiresAt})
	return e, err
}

func (q queries) ListUserExports(ctx context.Context, userID string) ([]Export, error) {
	return queryAll(ctx, q, "SELECT "+exportCols+" FROM mnemo_exports WHERE user_id = $1 ORDER BY created_at, id", []any{userID}, scanExport)
}

func (q queries) DeleteUserExports(ctx context.Context, userID string, since time.Time) (int64, error) {
	// Chunks go by cascade.
	n, err := q.e.exec(ctx, "DELETE FROM mnemo_exports WHERE user_id = $1 AND created_at >= $2", userID, since)
	if err != nil {
		return 0, fmt.Errorf("delete exports: %w", err)
	}
	return n, nil
}

func (q queries) KeepNewestExports(ctx context.Context, userID string, keep int) ([]string, error) {
	// A user has a few exports at most: they are read whole, and deleted
	// by id (chunks go by cascade).
	all, err := q.ListUserExports(ctx, userID)
	if err != nil || len(all) <= keep {
		return nil, err
	}
	var gone []string
	for _, e := range all[:len(all)-max(keep, 0)] {
		if _, err := q.e.exec(ctx, "DELETE FROM mnemo_exports WHERE id = $1 AND user_id = $2", e.ID, userID); err != nil {
			return gone, fmt.Errorf("replace exports: %w", err)
		}
		gone = append(gone, e.ID)
	}
	return gone, nil
}

func (q queries) DeleteExpiredExports(ctx context.Context, now, createdBefore time.Time, limit int) (int64, error) {
	n, err := q.e.exec(ctx, `DELETE FROM mnemo_exports WHERE id IN (SELECT id FROM mnemo_exports
		WHERE expires_at <= $1 OR created_at < $2 ORDER BY id LIMIT $3)`, now, createdBefore, limit)
	if err != nil {
		return 0, fmt.Errorf("delete expired exports: %w", err)
	}
	return n, nil
}

func (q queries) FinishExport(ctx context.Context, id string, x ExportResult) error {
	if _, err := q.e.exec(ctx, "DELETE FROM mnemo_export_chunks WHERE export_id = $1", id); err != nil {
		return err
	}
	for _, c := range x.Chunks {
		if _, err := q.e.exec(ctx, "INSERT INTO mnemo_export_chunks (export_id, seq, key_id, nonce, ciphertext, sha256) VALUES ($1, $2, $3, $4, $5, $6)",
			id, c.Seq, c.KeyID, c.Nonce, c.Ciphertext, c.SHA256); err != nil {
			return fmt.Errorf("store export chunk: %w", err)
		}
	}
	n, err := q.e.exec(ctx, "UPDATE mnemo_exports SET status = $2, error = $3, finished_at = $4, expires_at = $5 WHERE id = $1", id, x.Status, x.Error, x.FinishedAt, x.ExpiresAt)
	return mustAffect(n, err, "finish export")
}

func (q queries) ListExportChunks(ctx context.Context, id string) ([]Chunk, error) {
	return queryAll(ctx, q, "SELECT export_id, seq, key_id, nonce, ciphertext, sha256 FROM mnemo_export_chunks WHERE export_id = $1 ORDER BY seq",
		[]any{id}, func(r rows) (Chunk, error) {
			var c Chunk
			return c, r.Scan(&c.SessionID, &c.Seq, &c.KeyID, &c.Nonce, &c.Ciphertext, &c.SHA256)
		})
}

func (q queries) CreateErasure(ctx context.Context, e Erasure) error {
	refs := ""
	if e.Refs != nil {
		refs = EncodeJobRefs(*e.Refs)
	}
	if _, err := q.e.exec(ctx, "INSERT INTO mnemo_erasures (id, user_id, requested_at, job_refs) VALUES ($1, $2, $3, $4)", e.ID, e.UserID, e.RequestedAt, refs); err != nil {
		return fmt.Errorf("request erasure: %w", err)
	}
	return nil
}

func (q queries) GetErasure(ctx context.Context, id string) (Erasure, error) {
	var e Erasure
	err := q.queryOne(ctx, "SELECT id, user_id, requested_at, job_refs FROM mnemo_erasures WHERE id = $1", []any{id},
		func(r rows) error {
			var refs string
			if err := r.Scan(&e.ID, &e.UserID, scanTime{&e.RequestedAt}, &refs); err != nil {
				return err
			}
			var err error
			e.Refs, err = DecodeJobRefs(refs)
			return err
		})
	return e, err
}

func (q queries) DeleteErasure(ctx context.Context, id string) error {
	if _, err := q.e.exec(ctx, "DELETE FROM mnemo_erasures WHERE id = $1", id); err != nil {
		return fmt.Errorf("delete erasure: %w", err)
	}
	return nil
}

// scrubJobsSQL reads and deletes River's jobs naming refs, per dialect.
// page reads up to $5 jobs after job $4 by id, in any state: whether
// their args name refs (the args' id fields compared as whole values: $1
// session ids, $2 export ids, JSON arrays; $3 the user id), whether they
// are running, and, for a finished job, the text of its metadata and
// errors, for ScrubJobsPage to look for the ids as tokens. byID deletes the
// jobs of $1 (a JSON array of job ids) that are not running.
var scrubJobsSQL = map[string]struct{ page, byID string }{
	DialectPostgres: {
		page: `SELECT id, state = 'running',
				coalesce(args->>'session_id' IN (SELECT jsonb_array_elements_text($1::jsonb))
					OR args->>'export_id' IN (SELECT jsonb_array_elements_text($2::jsonb))
					OR ($3 <> '' AND args->>'user_id' = $3), false),
				CASE WHEN state IN ('completed', 'cancelled', 'discarded') THEN metadata::text ELSE '' END,
				CASE WHEN state IN ('completed', 'cancelled', 'discarded') THEN coalesce(array_to_json(errors)::text, '') ELSE '' END
			FROM river_job WHERE id > $4 ORDER BY id LIMIT $5`,
		byID: `DELETE FROM river_job WHERE state <> 'running' AND id IN (SELECT jsonb_array_elements_text($1::jsonb)::bigint)`,
	},
	DialectSQLite: {
		page: `SELECT id, state = 'running',
				coalesce(json_extract(args, '$.session_id') IN (SELECT value FROM json_each($1))
					OR json_extract(args, '$.export_id') IN (SELECT value FROM json_each($2))
					OR ($3 <> '' AND json_extract(args, '$.user_id') = $3), 0),
				CASE WHEN state IN ('completed', 'cancelled', 'discarded') THEN json(metadata) ELSE '' END,
				CASE WHEN state IN ('completed', 'cancelled', 'discarded') THEN coalesce(json(errors), '') ELSE '' END
			FROM river_job WHERE id > $4 ORDER BY id LIMIT $5`,
		byID: `DELETE FROM river_job WHERE state <> 'running' AND id IN (SELECT value FROM json_each($1))`,
	},
}

// scrubPage is how many jobs ScrubJobs reads at a time.
const scrubPage = 1000

// ScrubJobs is linear in River's jobs: it reads each once, in pages by id
// (ScrubJobsPage), where it once searched every job's text for every id in
// SQL (jobs × ids substring searches). It runs where it is called (in one
// transaction, if the caller holds one); the erasure takes its pages
// outside any.
func (q queries) ScrubJobs(ctx context.Context, refs JobRefs) (deleted, running int64, err error) {
	for after, done := int64(0), false; !done; {
		var d, r int64
		if d, r, after, done, err = q.ScrubJobsPage(ctx, refs, after, scrubPage); err != nil {
			return deleted, running, err
		}
		deleted, running = deleted+d, running+r
	}
	return deleted, running, nil
}

func (q queries) ScrubJobsPage(ctx context.Context, refs JobRefs, after int64, limit int) (deleted, running, next int64, done bool, err error) {
	// The text of a finished job names an id only where the id stands as a
	// token: "e" is not named by "kind=export" or by "u-e" (issue 22).
	set := make(map[string]bool)
	for _, id := range refs.All() {
		if id != "" {
			set[id] = true
		}
	}
	if len(set) == 0 {
		return 0, 0, after, true, nil
	}
	sq, ok := scrubJobsSQL[q.e.dialect()]
	if !ok {
		return 0, 0, after, false, fmt.Errorf("scrub jobs: dialect %q", q.e.dialect())
	}
	if limit < 1 {
		limit = scrubPage
	}
	sessions, _ := json.Marshal(nonNil(refs.SessionIDs))
	exports, _ := json.Marshal(nonNil(refs.ExportIDs))
	type job struct {
		id             int64
		running, named bool
	}
	page, err := queryAll(ctx, q, sq.page, []any{string(sessions), string(exports), refs.UserID, after, limit}, func(r rows) (job, error) {
		var j job
		var metadata, errs string
		if err := r.Scan(&j.id, &j.running, &j.named, &metadata, &errs); err != nil {
			return j, err
		}
		j.named = j.named || jsonNamesAny(metadata, set) || jsonNamesAny(errs, set)
		return j, nil
	})
	if err != nil {
		return 0, 0, after, false, fmt.Errorf("scrub jobs: %w", err)
	}
	var named []int64
	for _, j := range page {
		if j.named {
			named = append(named, j.id)
		}
	}
	if len(named) > 0 {
		list, _ := json.Marshal(named)
		if deleted, err = q.e.exec(ctx, sq.byID, string(list)); err != nil {
			return 0, 0, after, false, fmt.Errorf("scrub jobs: %w", err)
		}
	}
	if len(page) > 0 {
		after = page[len(page)-1].id
	}
	// What names refs and was not deleted was running when deleted (its
	// worker holds it; it may have started since the page was read).
	return deleted, int64(len(named)) - deleted, after, len(page) < limit, nil
}

// jsonNamesAny reports whether a string anywhere in the JSON document doc
// (a job's metadata, whose "river:log" lines are strings, or its errors)
// names one of ids as a token (namesAnyToken); a document that does not
// parse is searched as text.
func jsonNamesAny(doc string, ids map[string]bool) bool {
	if doc == "" {
		return false
	}
	// Without an escape, every string of the document stands in its text
	// as it decodes, between quotes (bytes ids are not made of): a text
	// that names none of ids has no string that does, and most jobs are
	// let go without decoding them. A text that names one is decoded, as
	// the id may stand in an object key only.
	if !strings.Contains(doc, `\`) && !namesAnyToken(doc, ids) {
		return false
	}
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		return namesAnyToken(doc, ids)
	}
	return walkStrings(v, func(s string) bool { return namesAnyToken(s, ids) })
}

// namesAnyToken is namesToken against a set, in one pass over text (the
// fuzz test FuzzNamesAnyToken holds the two to the same answers): an id
// is named where it begins a run of id bytes and the rest of the run is
// trailing punctuation (. _ : @ -), so each run is looked up with each of
// its trailing punctuation bytes dropped in turn.
func namesAnyToken(text string, ids map[string]bool) bool {
	for i := 0; i < len(text); {
		if !idByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && idByte(text[j]) {
			j++
		}
		run := text[i:j]
		for k := len(run); k > 0; k-- {
			if ids[run[:k]] {
				return true
			}
			if c := run[k-1]; c != '.' && c != '_' && c != ':' && c != '@' && c != '-' {
				break
			}
		}
		i = j
	}
	return false
}

// walkStrings calls f on every string value of a decoded JSON value (not on
// object keys, which name fields) until f returns true, and reports whether
// one did.
func walkStrings(v any, f func(string) bool) bool {
	switch v := v.(type) {
	case string:
		return f(v)
	case []any:
		for _, e := range v {
			if walkStrings(e, f) {
				return true
			}
		}
	case map[string]any:
		for _, e := range v {
			if walkStrings(e, f) {
				return true
			}
		}
	}
	return false
}

// namesToken reports whether text names one of ids as a token: an
// occurrence not preceded by a character ids are made of (letters, digits,
// . _ : @ -) and not followed by one, but for trailing punctuation (. _ :
// @ -) that ends the token, as in "session s-1: gone" or "erased e.". Ids
// are what handoff.ValidID accepts. So "e" is named by "user_id=e" and
// "\"e\"", not by "kind=export", "u-e" or "e-mail"; "s-1" is not named by
// "s-10".
func namesToken(text string, ids []string) bool {
	for _, id := range ids {
		if id == "" {
			continue
		}
		for from := 0; ; {
			i := strings.Index(text[from:], id)
			if i < 0 {
				break
			}
			i += from
			end := i + len(id)
			if (i == 0 || !idByte(text[i-1])) && tokenEnds(text[end:]) {
				return true
			}
			from = i + 1
		}
	}
	return false
}

// tokenEnds reports whether an id ends where rest begins: rest is empty,
// starts with a byte ids do not hold, or with punctuation that runs to such
// a byte or the end.
func tokenEnds(rest string) bool {
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case !idByte(c):
			return true
		case c == '.' || c == '_' || c == ':' || c == '@' || c == '-':
			continue
		default: // a letter or digit: the id goes on
			return false
		}
	}
	return true
}

// idByte reports whether c may be part of an id.
func idByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '.' || c == '_' || c == ':' || c == '@' || c == '-'
}

// Vacuum vacuums Mnemo's tables and River's job table, so that the rows an
// erase deleted are removed from the heap and indexes now rather than at
// autovacuum's next pass. VACUUM cannot run in a transaction; a table it may
// not vacuum (another role owns it) is skipped and named in the error.
func (s *Postgres) Vacuum(ctx context.Context) error {
	var tables []string
	r, err := s.pool.Query(ctx, `SELECT quote_ident(table_name) FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND (table_name LIKE 'mnemo\_%' OR table_name = 'river_job')
		ORDER BY table_name`)
	if err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	for r.Next() {
		var t string
		if err := r.Scan(&t); err != nil {
			r.Close()
			return err
		}
		tables = append(tables, t)
	}
	r.Close()
	if err := r.Err(); err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	var errs []error
	for _, t := range tables {
		if _, err := s.pool.Exec(ctx, "VACUUM "+t); err != nil {
			errs = append(errs, fmt.Errorf("vacuum %s: %w", t, err))
		}
	}
	return errors.Join(errs...)
}

func (q queries) EraseUser(ctx context.Context, erasureID, userID string) error {
	// Sessions cascade to transcript chunks, events, summaries and runs; the
	// user row to everything else of theirs.
	if _, err := q.e.exec(ctx, "DELETE FROM mnemo_users WHERE id = $1", userID); err != nil {
		return fmt.Errorf("erase user: %w", err)
	}
	if _, err := q.e.exec(ctx, "DELETE FROM mnemo_erasures WHERE id = $1 OR user_id = $2", erasureID, userID); err != nil {
		return fmt.Errorf("erase user: %w", err)
	}
	return nil
}

func (q queries) ListUserSessions(ctx context.Context, userID string) ([]Session, error) {
	return queryAll(ctx, q, "SELECT "+sessionCols+" FROM mnemo_sessions WHERE user_id = $1 ORDER BY started_at, id", []any{userID}, scanSession)
}

func (q queries) ListUserWeekly(ctx context.Context, userID string) ([]AggregateRow, error) {
	return queryAll(ctx, q, "SELECT user_id, app, week_ending, data, updated_at FROM mnemo_weekly_analytics WHERE user_id = $1 ORDER BY week_ending",
		[]any{userID}, scanAggregate)
}

func (q queries) SessionsWithOldKeys(ctx context.Context, keyID string, limit int) ([]string, error) {
	return queryAll(ctx, q, "SELECT DISTINCT session_id FROM mnemo_transcript_chunks WHERE key_id <> $1 ORDER BY session_id LIMIT $2",
		[]any{keyID, limit}, func(r rows) (string, error) {
			var id string
			return id, r.Scan(&id)
		})
}

func (q queries) SessionsWithTranscripts(ctx context.Context, app, after string, limit int) ([]string, error) {
	return queryAll(ctx, q, `SELECT id FROM mnemo_sessions WHERE app = $1 AND transcript_retained AND id > $2 ORDER BY id LIMIT $3`,
		[]any{app, after, limit}, func(r rows) (string, error) {
			var id string
			return id, r.Scan(&id)
		})
}
