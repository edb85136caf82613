package storetest

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-ai/mnemo/store"
)

// Issue 13: exports expire and go with what they export; an erasure scrubs
// River's jobs that name the user.

func init() {
	cases = append(cases, exportCases...)
}

var exportCases = []testCase{
	{"ExportsExpireAndGoWithTheUser", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-2", "s-2")
		mk := func(id, user string, created time.Time, expires *time.Time) {
			t.Helper()
			must(t, s.CreateExport(ctx, store.Export{ID: id, UserID: user, Status: "pending", CreatedAt: created}))
			if expires != nil {
				must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
					return tx.FinishExport(ctx, id, store.ExportResult{Status: "done", Chunks: []store.Chunk{{Seq: 0, KeyID: "k", Nonce: []byte{1}, Ciphertext: []byte{2}, SHA256: []byte{3}}}, FinishedAt: created, ExpiresAt: expires})
				}))
			}
		}
		week := 7 * 24 * time.Hour
		mk("e-old", "u-1", T0, ptr(T0.Add(week)))
		mk("e-new", "u-1", T0.Add(time.Hour), ptr(T0.Add(time.Hour+week)))
		mk("e-pending", "u-1", T0, nil)
		mk("e-other", "u-2", T0, ptr(T0.Add(week)))

		e, err := s.GetExport(ctx, "e-old")
		must(t, err)
		if e.ExpiresAt == nil || !e.ExpiresAt.Equal(T0.Add(week)) || e.UserID != "u-1" {
			t.Fatalf("export = %+v; want expiring at %v", e, T0.Add(week))
		}
		if p, _ := s.GetExport(ctx, "e-pending"); p.ExpiresAt != nil {
			t.Fatalf("a pending export expires at %v", p.ExpiresAt)
		}
		list, err := s.ListUserExports(ctx, "u-1")
		must(t, err)
		if ids := exportIDs(list); !slices.Equal(ids, []string{"e-old", "e-pending", "e-new"}) {
			t.Fatalf("u-1's exports = %v", ids)
		}

		// Expiry: only what expired by now, and a never finished export
		// requested before the cutoff.
		n, err := s.DeleteExpiredExports(ctx, T0.Add(week), T0.Add(-time.Hour), 10)
		must(t, err)
		if n != 2 {
			t.Fatalf("deleted %d expired exports; want 2 (e-old, e-other)", n)
		}
		if chunks, _ := s.ListExportChunks(ctx, "e-old"); len(chunks) != 0 {
			t.Fatal("an expired export's archive was kept")
		}
		n, err = s.DeleteExpiredExports(ctx, T0.Add(week), T0.Add(time.Minute), 10)
		must(t, err)
		if n != 1 {
			t.Fatalf("deleted %d; want the pending export requested before the cutoff", n)
		}

		// A user's exports since a time, then all of them.
		mk("e-a", "u-1", T0.Add(2*time.Hour), ptr(T0.Add(week)))
		n, err = s.DeleteUserExports(ctx, "u-1", T0.Add(90*time.Minute))
		must(t, err)
		if n != 1 {
			t.Fatalf("deleted %d exports since 90m; want 1", n)
		}
		if _, err := s.GetExport(ctx, "e-new"); err != nil {
			t.Fatalf("an export requested before 'since' was deleted: %v", err)
		}
		n, err = s.DeleteUserExports(ctx, "u-1", time.Time{})
		must(t, err)
		if n != 1 {
			t.Fatalf("deleted %d of the rest; want 1", n)
		}
		if _, err := s.GetExport(ctx, "e-new"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("get a deleted export: %v", err)
		}
	}},
	{"ErasureKeepsJobRefs", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		refs := store.JobRefs{UserID: "u-1", SessionIDs: []string{"s-1", "s-2"}, ExportIDs: []string{"e-1"}}
		must(t, s.CreateErasure(ctx, store.Erasure{ID: "er-1", UserID: "u-1", RequestedAt: T0}))
		must(t, s.CreateErasure(ctx, store.Erasure{ID: "er-2", UserID: "u-1", RequestedAt: T0, Refs: &refs}))
		e, err := s.GetErasure(ctx, "er-1")
		must(t, err)
		if e.Refs != nil {
			t.Fatalf("an erasure without refs reads %+v", e.Refs)
		}
		e, err = s.GetErasure(ctx, "er-2")
		must(t, err)
		if e.Refs == nil || !slices.Equal(e.Refs.All(), refs.All()) {
			t.Fatalf("refs = %+v; want %+v", e.Refs, refs)
		}
		must(t, s.DeleteErasure(ctx, "er-2"))
		if _, err := s.GetErasure(ctx, "er-2"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("get a deleted erasure: %v", err)
		}
	}},
	{"ScrubJobsOfAUser", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		jobs := riverJobs(t, s)
		jobs.add(t, "completed", `{"session_id":"s-1"}`, `{"river:log":[{"log":"attempt started job_id=1 kind=extract"}]}`)
		jobs.add(t, "available", `{"session_id":"s-2"}`, `{}`)
		jobs.add(t, "retryable", `{"export_id":"e-1"}`, `{}`)
		jobs.add(t, "discarded", `{"user_id":"u-1","session_id":"s-9"}`, `{}`)
		jobs.add(t, "running", `{"session_id":"s-1"}`, `{}`)
		// A finished batch whose log names a session of the user.
		jobs.add(t, "completed", `{"batch":"session-expiry"}`, `{"river:log":[{"log":"expired session_id=s-2"}]}`)
		// Another user's jobs stay, a finished one whose log holds one of
		// the ids inside a longer id (s-10 holds s-1) too.
		jobs.add(t, "completed", `{"session_id":"s-10"}`, `{"river:log":[{"log":"session_id=s-10"}]}`)
		jobs.add(t, "completed", `{"session_id":"x-1"}`, `{"river:log":[{"log":"session_id=x-1"}]}`)
		jobs.add(t, "available", `{"session_id":"s-10"}`, `{}`)
		// A batch not yet run whose log mentions the id stays (it is not finished).
		jobs.add(t, "available", `{"batch":"trends"}`, `{"note":"s-1"}`)

		deleted, running, err := s.ScrubJobs(ctx, store.JobRefs{UserID: "u-1", SessionIDs: []string{"s-1", "s-2"}, ExportIDs: []string{"e-1"}})
		must(t, err)
		if deleted != 5 || running != 1 {
			t.Fatalf("scrub deleted %d, left %d running; want 5 and 1", deleted, running)
		}
		if left := jobs.count(t); left != 5 {
			t.Fatalf("%d jobs left; want 5 (the running one, another user's three, the pending batch)", left)
		}
		if d, r, err := s.ScrubJobs(ctx, store.JobRefs{}); err != nil || d != 0 || r != 0 {
			t.Fatalf("scrub of no refs = %d, %d, %v", d, r, err)
		}
	}},
	{"ScrubJobsInPages", func(t *testing.T, s store.Store) {
		// The pages an erasure takes outside any transaction leave what
		// ScrubJobs leaves, count the running jobs that name the user, and
		// a second pass finds nothing.
		ctx := context.Background()
		jobs := riverJobs(t, s)
		var gone, kept []int64
		for i := range 7 {
			// Finished jobs whose logs name the user's session, among
			// others that do not, across pages of two.
			if i%2 == 0 {
				gone = append(gone, jobs.add(t, "completed", `{"batch":"session-expiry"}`, fmt.Sprintf(`{"river:log":[{"log":"expired session_id=s-1 n=%d"}]}`, i)))
			} else {
				kept = append(kept, jobs.add(t, "completed", `{"batch":"session-expiry"}`, fmt.Sprintf(`{"river:log":[{"log":"expired session_id=s-10 n=%d"}]}`, i)))
			}
		}
		gone = append(gone, jobs.add(t, "available", `{"session_id":"s-1"}`, `{}`))
		kept = append(kept, jobs.add(t, "running", `{"session_id":"s-1"}`, `{}`))
		// A running job whose log names the user is not counted: only its
		// args say it is theirs.
		kept = append(kept, jobs.add(t, "running", `{"batch":"trends"}`, `{"river:log":[{"log":"user u-1"}]}`))
		gone = append(gone, jobs.addErrors(t, "discarded", `{"batch":"trends"}`, `{}`, `{"attempt":1,"error":"user u-1: decode"}`))
		refs := store.JobRefs{UserID: "u-1", SessionIDs: []string{"s-1"}}

		pass := func() (deleted, running int64, pages int) {
			for after, done := int64(0), false; !done; pages++ {
				var d, r int64
				var err error
				d, r, after, done, err = s.ScrubJobsPage(ctx, refs, after, 2)
				must(t, err)
				deleted, running = deleted+d, running+r
			}
			return deleted, running, pages
		}
		deleted, running, pages := pass()
		if deleted != int64(len(gone)) || running != 1 || pages != 6 {
			t.Fatalf("the pages deleted %d, counted %d running, in %d pages; want %d, 1, in 6 (eleven jobs by two)", deleted, running, pages, len(gone))
		}
		left, err := jobs.ids(ctx)
		must(t, err)
		if !slices.Equal(left, kept) {
			t.Fatalf("jobs left %v; want %v", left, kept)
		}
		if again, running, _ := pass(); again != 0 || running != 1 {
			t.Fatalf("a second pass deleted %d jobs and counted %d running; want none and 1", again, running)
		}
		if d, r, next, done, err := s.ScrubJobsPage(ctx, store.JobRefs{}, 0, 2); err != nil || d != 0 || r != 0 || next != 0 || !done {
			t.Fatalf("a page for no ids = %d, %d, %d, %v, %v; want nothing, done", d, r, next, done, err)
		}
	}},
	{"ScrubJobsOfAOneLetterUser", func(t *testing.T, s store.Store) {
		// Erasing user "e" deletes the jobs that name "e", s-e1 or x-e as a
		// whole id, and none of the many whose args, logs or errors merely
		// hold the letter (issue 22).
		ctx := context.Background()
		jobs := riverJobs(t, s)
		gone := []int64{
			jobs.add(t, "completed", `{"user_id":"e","session_id":"s-e1"}`, `{}`),
			jobs.add(t, "discarded", `{"export_id":"x-e"}`, `{}`),
			jobs.add(t, "completed", `{"batch":"session-expiry"}`,
				`{"river:log":[{"attempt":1,"log":"time=2026-01-05T10:00:00Z level=INFO msg=\"session expired\" user_id=e took=1.5e-05s\n"}]}`),
			jobs.addErrors(t, "discarded", `{"batch":"trends"}`, `{}`, `{"attempt":1,"error":"session s-e1: decode summary"}`),
			jobs.add(t, "cancelled", `{"batch":"weekly"}`, `{"river:log":[{"attempt":1,"log":"user \"e\" skipped"}]}`),
		}
		kept := []int64{
			// A discarded export of another app's user, whose log and error
			// are full of the letter.
			jobs.addErrors(t, "discarded", `{"export_id":"ex-7"}`,
				`{"river:log":[{"attempt":5,"log":"level=ERROR msg=\"attempt finished\" kind=export result=error\n"}]}`,
				`{"attempt":5,"error":"export ex-7: seal archive: key rewrapped elsewhere"}`),
			jobs.add(t, "completed", `{"session_id":"se-2"}`, `{"river:log":[{"attempt":1,"log":"msg=\"attempt started\" kind=extract queue=extract\n"}]}`),
			jobs.add(t, "completed", `{"user_id":"u-e","session_id":"e-mail"}`, `{"river:log":[{"log":"user_id=u-e session_id=e-mail took=2e-3s"}]}`),
			jobs.add(t, "completed", `{"user_id":"E"}`, `{"river:log":[{"log":"user_id=E"}]}`),
			jobs.addErrors(t, "completed", `{"batch":"decay"}`, `{"e":"ee"}`, `{"attempt":1,"error":"the e1 e-2 3e e:x"}`),
			jobs.add(t, "available", `{"batch":"trends"}`, `{"river:log":[{"log":"user_id=e"}]}`),
		}
		deleted, running, err := s.ScrubJobs(ctx, store.JobRefs{UserID: "e", SessionIDs: []string{"s-e1"}, ExportIDs: []string{"x-e"}})
		must(t, err)
		if deleted != int64(len(gone)) || running != 0 {
			t.Fatalf("scrub deleted %d, left %d running; want %d and 0", deleted, running, len(gone))
		}
		left, err := jobs.ids(ctx)
		must(t, err)
		if !slices.Equal(left, kept) {
			t.Fatalf("jobs left %v; want %v (deleted: %v)", left, kept, gone)
		}
	}},
}

func exportIDs(es []store.Export) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

// riverJobTable is River's job table as far as ScrubJobs reads it, created
// when River's migrations have not run on the test database.
type riverJobTable struct {
	exec func(ctx context.Context, q string, args ...any) error
	one  func(ctx context.Context, q string) (int, error)
	// ids lists the jobs' ids in order.
	ids func(ctx context.Context) ([]int64, error)
	dia string
}

func riverJobs(t *testing.T, s store.Store) riverJobTable {
	t.Helper()
	ctx := context.Background()
	var j riverJobTable
	switch db := s.Raw().(type) {
	case *pgxpool.Pool:
		j = riverJobTable{dia: store.DialectPostgres,
			exec: func(ctx context.Context, q string, args ...any) error { _, err := db.Exec(ctx, q, args...); return err },
			one: func(ctx context.Context, q string) (n int, err error) {
				err = db.QueryRow(ctx, q).Scan(&n)
				return n, err
			},
			ids: func(ctx context.Context) ([]int64, error) {
				r, err := db.Query(ctx, "SELECT id FROM river_job ORDER BY id")
				if err != nil {
					return nil, err
				}
				return pgx.CollectRows(r, pgx.RowTo[int64])
			}}
		must(t, j.exec(ctx, `CREATE TABLE IF NOT EXISTS river_job (id bigserial PRIMARY KEY, state text NOT NULL,
			args jsonb NOT NULL, metadata jsonb NOT NULL, errors jsonb[], finalized_at timestamptz)`))
	case *sql.DB:
		j = riverJobTable{dia: store.DialectSQLite,
			exec: func(ctx context.Context, q string, args ...any) error {
				_, err := db.ExecContext(ctx, q, args...)
				return err
			},
			one: func(ctx context.Context, q string) (n int, err error) {
				err = db.QueryRowContext(ctx, q).Scan(&n)
				return n, err
			},
			ids: func(ctx context.Context) ([]int64, error) {
				r, err := db.QueryContext(ctx, "SELECT id FROM river_job ORDER BY id")
				if err != nil {
					return nil, err
				}
				defer r.Close()
				var out []int64
				for r.Next() {
					var id int64
					if err := r.Scan(&id); err != nil {
						return nil, err
					}
					out = append(out, id)
				}
				return out, r.Err()
			}}
		// River's SQLite driver keeps args and metadata as JSONB blobs.
		must(t, j.exec(ctx, `CREATE TABLE IF NOT EXISTS river_job (id integer PRIMARY KEY, state text NOT NULL,
			args blob NOT NULL, metadata blob NOT NULL, errors blob, finalized_at text)`))
	default:
		t.Fatalf("unknown store %T", s.Raw())
	}
	return j
}

func (j riverJobTable) add(t *testing.T, state, args, metadata string) int64 {
	t.Helper()
	return j.addErrors(t, state, args, metadata)
}

// addErrors adds a job with the errors River records of failed attempts
// (each a JSON object), and returns its id.
func (j riverJobTable) addErrors(t *testing.T, state, args, metadata string, errs ...string) int64 {
	t.Helper()
	ctx := context.Background()
	if j.dia == store.DialectSQLite {
		list, _ := json.Marshal(errs)
		must(t, j.exec(ctx, `INSERT INTO river_job (state, args, metadata, errors)
			VALUES (?1, jsonb(?2), jsonb(?3), CASE WHEN ?4 = '[]' THEN NULL ELSE (SELECT jsonb_group_array(jsonb(value)) FROM json_each(?4)) END)`,
			state, args, metadata, string(list)))
	} else {
		must(t, j.exec(ctx, "INSERT INTO river_job (state, args, metadata, errors) VALUES ($1, $2::jsonb, $3::jsonb, $4::jsonb[])",
			state, args, metadata, errs))
	}
	id, err := j.one(ctx, "SELECT max(id) FROM river_job")
	must(t, err)
	return int64(id)
}

func (j riverJobTable) count(t *testing.T) int {
	t.Helper()
	n, err := j.one(context.Background(), "SELECT count(*) FROM river_job")
	must(t, err)
	return n
}

func init() {
	cases = append(cases, testCase{"KeepNewestExports", func(t *testing.T, s store.Store) {
		// Issue 34 §6: at most N exports per user, a new one replacing the
		// oldest; another user's are theirs.
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-2", "s-2")
		for i, id := range []string{"e-1", "e-2", "e-3", "e-4"} {
			must(t, s.CreateExport(ctx, store.Export{ID: id, UserID: "u-1", Status: "pending", CreatedAt: T0.Add(time.Duration(i) * time.Minute)}))
		}
		must(t, s.CreateExport(ctx, store.Export{ID: "e-x", UserID: "u-2", Status: "pending", CreatedAt: T0}))
		gone, err := s.KeepNewestExports(ctx, "u-1", 2)
		must(t, err)
		left, err := s.ListUserExports(ctx, "u-1")
		must(t, err)
		other, err := s.ListUserExports(ctx, "u-2")
		must(t, err)
		if !slices.Equal(gone, []string{"e-1", "e-2"}) || !slices.Equal(exportIDs(left), []string{"e-3", "e-4"}) || len(other) != 1 {
			t.Fatalf("kept 2 of 4: deleted %v, left %v, other user's %d", gone, exportIDs(left), len(other))
		}
		if gone, err := s.KeepNewestExports(ctx, "u-1", 2); err != nil || len(gone) != 0 {
			t.Fatalf("again: deleted %v, %v; want none", gone, err)
		}
	}})
}
