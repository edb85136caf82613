package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// eraseTables are the tables whose rows TestEraseResumesWhereItStopped
// counts.
var eraseTables = []string{"mnemo_users", "mnemo_sessions", "mnemo_transcript_chunks", "mnemo_memories",
	"mnemo_memory_statements", "mnemo_memory_history", "mnemo_erasures", "river_job"}

// countRows counts the rows of each of eraseTables.
func countRows(t *testing.T, st store.Store) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	out := map[string]int64{}
	for _, table := range eraseTables {
		var n int64
		var err error
		switch s := st.(type) {
		case *store.Postgres:
			err = s.Pool().QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n)
		case *store.SQLite:
			err = s.DB().QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n)
		default:
			t.Fatalf("store %T", st)
		}
		if err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// seedEraseUser gives a user three sessions with a transcript chunk each
// and five memories, three of them expired (an audit row each).
func seedEraseUser(t *testing.T, st store.Store, user string, now time.Time) {
	t.Helper()
	ctx := context.Background()
	if err := st.UpsertUser(ctx, store.User{ID: user, App: "mona", Timezone: "UTC", CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		sid := fmt.Sprintf("%s-s%d", user, i)
		closed := now.Add(time.Duration(i) * time.Hour)
		if err := st.CreateSession(ctx, store.Session{ID: sid, UserID: user, App: "mona", Status: store.StatusClosed, StartedAt: closed,
			EndedAt: closed, Timezone: "UTC", MessageCount: 1, ClosedAt: &closed, UpdatedAt: closed}); err != nil {
			t.Fatal(err)
		}
		if err := st.InsertChunks(ctx, []store.Chunk{{SessionID: sid, Seq: 0, UserID: user, KeyID: "k", Nonce: []byte{1},
			Ciphertext: []byte{1}, SHA256: []byte{1}, CreatedAt: closed}}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		exp := now.Add(time.Duration(i-2) * time.Hour) // three due by now
		if err := st.InsertMemory(ctx, store.Memory{ID: fmt.Sprintf("%s-m%d", user, i), UserID: user, App: "mona", Key: fmt.Sprintf("event:e%d", i),
			Value: "x", Category: "event", Importance: 60, Confidence: 0.6, Status: store.MemoryActive, Confirmations: 1, ExpiresAt: &exp,
			CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEraseResumesWhereItStopped: an erasure killed after it deleted part
// of the user's rows (its bounded transactions) finishes when its job runs
// again, and leaves what one uninterrupted erasure of the same user leaves.
func TestEraseResumesWhereItStopped(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			x := setupExtract(t, b, false)
			ctx := context.Background()
			now := time.Now().UTC().Truncate(time.Second)
			for _, u := range []string{"other", "once", "resumed"} {
				seedEraseUser(t, x.st, u, now)
			}
			if n, err := x.st.ExpireMemories(ctx, now, 100); err != nil || n != 9 {
				t.Fatalf("expired %d memories (%v); want 3 of each user", n, err)
			}
			erase := func(user, erasure string) {
				t.Helper()
				var job int64
				if err := x.st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
					if err := tx.CreateErasure(ctx, store.Erasure{ID: erasure, UserID: user, RequestedAt: now}); err != nil {
						return err
					}
					ins, err := x.q.InsertTx(ctx, tx, queue.EraseArgs{ErasureID: erasure}, nil)
					job = ins.ID
					return err
				}); err != nil {
					t.Fatal(err)
				}
				x.waitJob(t, job)
			}
			before := countRows(t, x.st)
			erase("once", "er-once")
			afterOnce := countRows(t, x.st)

			// A killed erasure: its request is there and part of the user's
			// rows are gone (two of its pages, of up to two rows each).
			if err := x.st.CreateErasure(ctx, store.Erasure{ID: "er-killed", UserID: "resumed", RequestedAt: now}); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if n, err := x.st.DeleteUserRows(ctx, "resumed", 2); err != nil || n < 1 || n > 2 {
					t.Fatalf("a page deleted %d rows (%v); want 1 or 2", n, err)
				}
			}
			if _, err := x.st.GetUser(ctx, "resumed"); err != nil {
				t.Fatalf("the user is gone before the erasure's last transaction: %v", err)
			}
			// Its job runs again (River retries it; here a new job of the
			// same erasure, whose request is still there).
			if err := x.st.DeleteErasure(ctx, "er-killed"); err != nil {
				t.Fatal(err)
			}
			erase("resumed", "er-resumed")
			afterResumed := countRows(t, x.st)

			for _, table := range eraseTables {
				once, resumed := before[table]-afterOnce[table], afterOnce[table]-afterResumed[table]
				if once != resumed {
					t.Errorf("%s: one erasure took %d rows, the resumed one %d", table, once, resumed)
				}
			}
			want := map[string]int64{"mnemo_users": 1, "mnemo_sessions": 3, "mnemo_transcript_chunks": 3, "mnemo_memories": 5, "mnemo_memory_history": 3}
			for table, n := range want {
				if got := before[table] - afterOnce[table]; got != n {
					t.Errorf("%s: an erasure took %d rows; want the user's %d", table, got, n)
				}
			}
			for _, u := range []string{"once", "resumed"} {
				if _, err := x.st.GetUser(ctx, u); !errors.Is(err, store.ErrNotFound) {
					t.Errorf("user %s after the erasure: %v", u, err)
				}
				if s, err := x.st.ListUserSessions(ctx, u); err != nil || len(s) != 0 {
					t.Errorf("user %s keeps %d sessions (%v)", u, len(s), err)
				}
			}
			if m, err := x.st.ListMemories(ctx, "other", store.MemoryFilter{}); err != nil || len(m) != 2 {
				t.Errorf("the other user keeps %d active memories (%v); want 2", len(m), err)
			}
		})
	}
}

// addFinishedJob adds a completed River job with args and metadata (JSON)
// and returns its id.
func addFinishedJob(t *testing.T, st store.Store, args, metadata string) int64 {
	t.Helper()
	ctx := context.Background()
	var id int64
	var err error
	switch s := st.(type) {
	case *store.Postgres:
		err = s.Pool().QueryRow(ctx, `INSERT INTO river_job (args, kind, max_attempts, metadata, queue, state, finalized_at)
			VALUES ($1::jsonb, 'batch', 5, $2::jsonb, 'default', 'completed', now()) RETURNING id`, args, metadata).Scan(&id)
	case *store.SQLite:
		err = s.DB().QueryRowContext(ctx, `INSERT INTO river_job (args, kind, max_attempts, metadata, queue, state, finalized_at)
			VALUES (jsonb(?), 'batch', 5, jsonb(?), 'default', 'completed', CURRENT_TIMESTAMP) RETURNING id`, args, metadata).Scan(&id)
	default:
		t.Fatalf("store %T", st)
	}
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestEraseKilledAfterItsUserScrubsOnResume: an erasure whose process died
// after the transaction that deleted the user, before it had read River's
// finished jobs, scrubs them when its job runs again: the jobs whose log
// lines name the user's sessions or the user go, another user's stay, and
// the request (which held the ids meanwhile) is deleted.
func TestEraseKilledAfterItsUserScrubsOnResume(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			x := setupExtract(t, b, false)
			ctx := context.Background()
			now := time.Now().UTC().Truncate(time.Second)
			for _, u := range []string{"gone", "other"} {
				seedEraseUser(t, x.st, u, now)
			}
			var named, kept []int64
			for i := range 3 {
				named = append(named, addFinishedJob(t, x.st, `{"batch":"session-expiry"}`,
					fmt.Sprintf(`{"river:log":[{"attempt":1,"log":"expired session_id=gone-s%d"}]}`, i)))
				kept = append(kept, addFinishedJob(t, x.st, `{"batch":"session-expiry"}`,
					fmt.Sprintf(`{"river:log":[{"attempt":1,"log":"expired session_id=other-s%d"}]}`, i)))
			}
			named = append(named, addFinishedJob(t, x.st, `{"batch":"weekly-analytics"}`, `{"river:log":[{"attempt":1,"log":"user_id=gone skipped"}]}`))

			// Where the killed erasure stopped: the user gone, the request
			// holding the ids to scrub, the finished jobs not yet read.
			refs := store.JobRefs{UserID: "gone", SessionIDs: []string{"gone-s0", "gone-s1", "gone-s2"}, ExportIDs: []string{}}
			if err := x.st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				if err := tx.EraseUser(ctx, "er-killed", "gone"); err != nil {
					return err
				}
				return tx.CreateErasure(ctx, store.Erasure{ID: "er-killed", RequestedAt: now, Refs: &refs})
			}); err != nil {
				t.Fatal(err)
			}
			var job int64
			if err := x.st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				ins, err := x.q.InsertTx(ctx, tx, queue.EraseArgs{ErasureID: "er-killed"}, nil)
				job = ins.ID
				return err
			}); err != nil {
				t.Fatal(err)
			}
			x.waitJob(t, job)

			for _, id := range named {
				if jobExists(t, x.st, id) {
					t.Errorf("finished job %d names the erased user and is still there", id)
				}
			}
			for _, id := range kept {
				if !jobExists(t, x.st, id) {
					t.Errorf("finished job %d of another user was deleted", id)
				}
			}
			if _, err := x.st.GetErasure(ctx, "er-killed"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("the erasure request after its scrub: %v; want it gone", err)
			}
		})
	}
}

// jobExists reports whether River's job id is in its table.
func jobExists(t *testing.T, st store.Store, id int64) bool {
	t.Helper()
	ctx := context.Background()
	var n int
	var err error
	switch s := st.(type) {
	case *store.Postgres:
		err = s.Pool().QueryRow(ctx, "SELECT count(*) FROM river_job WHERE id = $1", id).Scan(&n)
	case *store.SQLite:
		err = s.DB().QueryRowContext(ctx, "SELECT count(*) FROM river_job WHERE id = ?", id).Scan(&n)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}
