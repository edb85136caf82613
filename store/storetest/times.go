package storetest

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-ai/mnemo/store"
)

// Issue 22 item 6: a model's event date of 9999-12-31 gave a memory an
// expiry in the year 10000. On SQLite the user's memories could not be read
// and memory-ttl, comparing text, expired the memory at once; on Postgres
// the times could not be written as JSON. The store keeps every time within
// store.EarliestTime .. store.LatestTime, and migration 0012 repairs the
// rows stored before.

func init() {
	cases = append(cases, timeCases...)
}

// rawSQL runs q on the store's database below the store, as a row written
// before the store clamped times (or by hand) is, and returns the count a
// SELECT count(*) reads.
func rawSQL(t *testing.T, s store.Store, q string) int64 {
	t.Helper()
	ctx := context.Background()
	var n int64
	var err error
	switch db := s.Raw().(type) {
	case *sql.DB:
		if len(q) > 6 && q[:6] == "SELECT" {
			err = db.QueryRowContext(ctx, q).Scan(&n)
		} else {
			_, err = db.ExecContext(ctx, q)
		}
	case *pgxpool.Pool:
		if len(q) > 6 && q[:6] == "SELECT" {
			err = db.QueryRow(ctx, q).Scan(&n)
		} else {
			_, err = db.Exec(ctx, q)
		}
	default:
		t.Fatalf("unknown store %T", s.Raw())
	}
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// tooLate and tooEarly are a time after the year 9999 and one before the
// year 1 as each database holds it: SQLite the text Go writes for such a
// time, Postgres its own timestamps and infinities.
func tooLate(s store.Store, infinity bool) string {
	switch {
	case s.Dialect() == store.DialectSQLite:
		return "'10000-01-01T00:00:00.000000Z'"
	case infinity:
		return "'infinity'"
	}
	return "'10000-01-01T00:00:00Z'"
}

func tooEarly(s store.Store, infinity bool) string {
	switch {
	case s.Dialect() == store.DialectSQLite:
		return "'-0001-12-31T00:00:00.000000Z'"
	case infinity:
		return "'-infinity'"
	}
	return "'0002-12-31 00:00:00+00 BC'"
}

// Both ends as either database holds them once clamped.
const (
	latestSQL   = "'9999-12-31T23:59:59.999999Z'"
	earliestSQL = "'0001-01-01T00:00:00.000000Z'"
)

var timeCases = []testCase{
	{"TimesOutsideTheRangeAreClampedAndExpireInOrder", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		year10000 := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC).Add(48 * time.Hour)
		beforeYear1 := time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC)
		due := T0.Add(-time.Hour)
		mem := func(id string, exp time.Time) store.Memory {
			return store.Memory{ID: id, UserID: "u-1", App: appE, Key: "event:" + id, Value: id, Category: "event", Importance: 50,
				Confidence: 0.9, Status: store.MemoryActive, ExpiresAt: &exp, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0}
		}
		must(t, s.InsertMemories(ctx, []store.Memory{mem("m-far", year10000), mem("m-past", beforeYear1), mem("m-due", due)}))
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error { return tx.InsertMemory(ctx, mem("m-far-tx", year10000)) }))
		must(t, s.InsertStatement(ctx, store.Statement{ID: "st-1", MemoryID: "m-far", UserID: "u-1", Key: "event:m-far", Value: "m-far",
			ExpiresAt: &year10000, StatedAt: year10000, SessionID: "s-1", CreatedAt: T0}))

		list, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{All: true})
		must(t, err)
		want := map[string]time.Time{"m-far": store.LatestTime, "m-far-tx": store.LatestTime, "m-past": store.EarliestTime, "m-due": due}
		for _, m := range list {
			if m.ExpiresAt == nil || !m.ExpiresAt.Equal(want[m.ID]) {
				t.Errorf("memory %s expires at %v; want %v", m.ID, m.ExpiresAt, want[m.ID])
			}
		}
		if b, err := json.Marshal(list); err != nil || len(list) != 4 {
			t.Fatalf("%d memories, JSON %d bytes, %v; want the four, written as JSON", len(list), len(b), err)
		}
		// Stored clamped, not only read so.
		if n := rawSQL(t, s, "SELECT count(*) FROM mnemo_memories WHERE expires_at = "+latestSQL); n != 2 {
			t.Errorf("%d memories stored expiring at the latest time; want m-far and m-far-tx", n)
		}
		if n := rawSQL(t, s, "SELECT count(*) FROM mnemo_memories WHERE expires_at = "+earliestSQL); n != 1 {
			t.Errorf("%d memories stored expiring at the earliest time; want m-past", n)
		}
		sts, err := s.ListStatements(ctx, "u-1", nil)
		must(t, err)
		if len(sts) != 1 || !sts[0].StatedAt.Equal(store.LatestTime) || !sts[0].ExpiresAt.Equal(store.LatestTime) {
			t.Fatalf("statements = %+v; want one stated and expiring at the latest time", sts)
		}
		// memory-ttl: what was due and what lay before the year 1 expire;
		// what lay past the year 9999 does not (SQLite compared
		// "10000-01-02" before "2026" as text and expired it).
		n, err := s.ExpireMemories(ctx, T0, 10)
		must(t, err)
		far, err := s.GetMemory(ctx, "u-1", "m-far")
		must(t, err)
		if n != 2 || far.Status != store.MemoryActive {
			t.Fatalf("memory-ttl expired %d, m-far %s; want 2 expired and m-far active", n, far.Status)
		}
	}},
	{"StoredTimesOutsideTheRangeAreReadAndRepaired", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		seedSession(t, s, "u-1", "s-2")
		exp := T0.Add(24 * time.Hour)
		must(t, s.InsertMemories(ctx, []store.Memory{
			{ID: "m-far", UserID: "u-1", App: appE, Key: "event:launch", Value: "launch", Category: "event", Importance: 50, Confidence: 0.9,
				Status: store.MemoryActive, ExpiresAt: &exp, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0, EventDate: "9999-12-31"},
			{ID: "m-old", UserID: "u-1", App: appE, Key: "event:birth", Value: "birth", Category: "event", Importance: 50, Confidence: 0.9,
				Status: store.MemoryActive, ExpiresAt: &exp, CreatedAt: T0, UpdatedAt: T0, StatedAt: T0},
			{ID: "m-due", UserID: "u-1", App: appE, Key: "event:due", Value: "due", Category: "event", Importance: 50, Confidence: 0.9,
				Status: store.MemoryActive, ExpiresAt: ptr(T0.Add(-time.Hour)), CreatedAt: T0, UpdatedAt: T0, StatedAt: T0},
		}))
		must(t, s.InsertStatement(ctx, store.Statement{ID: "st-1", MemoryID: "m-far", UserID: "u-1", Key: "event:launch", Value: "launch",
			ExpiresAt: &exp, StatedAt: T0, SessionID: "s-1", CreatedAt: T0}))
		must(t, s.UpsertRecord(ctx, store.Record{UserID: "u-1", App: appE, Type: "goal", Key: "run", Data: json.RawMessage(`{}`),
			SessionID: "s-1", UpdatedAt: T0, StatedAt: T0}))
		doc := json.RawMessage(`{"name":"Wren"}`)
		must(t, s.SaveProfile(ctx, store.Profile{UserID: "u-1", App: appE, Doc: doc, Version: 1, UpdatedAt: T0},
			store.ProfileChange{UserID: "u-1", Version: 1, Doc: doc, Changed: doc, Actor: "operator", At: T0, StatedAt: T0}))
		must(t, s.InsertEvents(ctx, []store.Event{{SessionID: "s-1", Seq: 0, UserID: "u-1", Type: "mood", At: T0, Data: json.RawMessage(`{}`)}}))

		// What a model's 9999-12-31 and 0001-01-01 left, and older rows:
		// written below the store, past its clamp.
		for _, q := range []string{
			"UPDATE mnemo_memories SET expires_at = " + tooLate(s, false) + " WHERE id = 'm-far'",
			"UPDATE mnemo_memories SET expires_at = " + tooEarly(s, false) + ", stated_at = " + tooEarly(s, false) + " WHERE id = 'm-old'",
			"UPDATE mnemo_memory_statements SET expires_at = " + tooLate(s, true) + ", stated_at = " + tooEarly(s, true),
			"UPDATE mnemo_records SET stated_at = " + tooLate(s, false),
			"UPDATE mnemo_profile_history SET stated_at = " + tooLate(s, true),
			"UPDATE mnemo_sessions SET ended_at = " + tooLate(s, false) + ", retain_until = " + tooLate(s, true) + " WHERE id = 's-2'",
			"UPDATE mnemo_session_events SET at = " + tooEarly(s, false),
		} {
			rawSQL(t, s, q)
		}

		// Read as they are, each at the nearer end of the range.
		check := func(when string) {
			t.Helper()
			list, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{All: true})
			if err != nil || len(list) != 3 {
				t.Fatalf("%s: %d memories, %v; want the three", when, len(list), err)
			}
			if _, err := json.Marshal(list); err != nil {
				t.Fatalf("%s: memories cannot be written as JSON: %v", when, err)
			}
			for _, m := range list {
				switch {
				case m.ID == "m-far" && !m.ExpiresAt.Equal(store.LatestTime),
					m.ID == "m-old" && (!m.ExpiresAt.Equal(store.EarliestTime) || !m.StatedAt.Equal(store.EarliestTime)):
					t.Errorf("%s: memory %s expires at %v, stated at %v", when, m.ID, m.ExpiresAt, m.StatedAt)
				}
			}
			sts, err := s.ListStatements(ctx, "u-1", nil)
			must(t, err)
			if len(sts) != 1 || !sts[0].ExpiresAt.Equal(store.LatestTime) || !sts[0].StatedAt.Equal(store.EarliestTime) {
				t.Errorf("%s: statements = %+v", when, sts)
			}
			recs, err := s.ListRecords(ctx, "u-1", nil)
			must(t, err)
			if len(recs) != 1 || !recs[0].StatedAt.Equal(store.LatestTime) {
				t.Errorf("%s: records = %+v", when, recs)
			}
			hist, err := s.ListProfileHistory(ctx, "u-1")
			must(t, err)
			if len(hist) != 1 || !hist[0].StatedAt.Equal(store.LatestTime) {
				t.Errorf("%s: profile history = %+v", when, hist)
			}
			sess, err := s.GetSession(ctx, "s-2")
			must(t, err)
			if !sess.EndedAt.Equal(store.LatestTime) || sess.RetainUntil == nil || !sess.RetainUntil.Equal(store.LatestTime) {
				t.Errorf("%s: session ends %v, retained until %v", when, sess.EndedAt, sess.RetainUntil)
			}
			evs, err := s.ListEvents(ctx, "s-1")
			must(t, err)
			if len(evs) != 1 || !evs[0].At.Equal(store.EarliestTime) {
				t.Errorf("%s: events = %+v", when, evs)
			}
		}
		check("before the migration")

		// Migration 0012 applied to these rows repairs them where they lie:
		// it and the newer ones are rolled back, then applied again.
		rollBackTo(t, s, 12, "time_range")
		_, err := s.MigrateUp(ctx)
		must(t, err)
		for _, c := range []struct {
			table, cond string
			want        int64
		}{
			{"mnemo_memories", "id = 'm-far' AND expires_at = " + latestSQL, 1},
			{"mnemo_memories", "id = 'm-old' AND expires_at = " + earliestSQL + " AND stated_at = " + earliestSQL, 1},
			{"mnemo_memory_statements", "expires_at = " + latestSQL + " AND stated_at = " + earliestSQL, 1},
			{"mnemo_records", "stated_at = " + latestSQL, 1},
			{"mnemo_profile_history", "stated_at = " + latestSQL, 1},
			{"mnemo_sessions", "id = 's-2' AND ended_at = " + latestSQL + " AND retain_until = " + latestSQL, 1},
			{"mnemo_sessions", "id = 's-1' AND ended_at = '2026-11-20T09:20:00.000000Z'", 1},
			{"mnemo_session_events", "at = " + earliestSQL, 1},
			{"mnemo_memories", "id = 'm-due' AND expires_at = '2026-11-20T08:00:00.000000Z'", 1},
		} {
			if n := rawSQL(t, s, "SELECT count(*) FROM "+c.table+" WHERE "+c.cond); n != c.want {
				t.Errorf("after 0012, %s WHERE %s: %d rows; want %d", c.table, c.cond, n, c.want)
			}
		}
		check("after the migration")

		// memory-ttl now compares in time order on both databases: the due
		// memory and the one before the year 1 expire, the far one not.
		n, err := s.ExpireMemories(ctx, T0, 10)
		must(t, err)
		far, err := s.GetMemory(ctx, "u-1", "m-far")
		must(t, err)
		if n != 2 || far.Status != store.MemoryActive {
			t.Fatalf("memory-ttl expired %d, m-far %s; want 2 expired and m-far active", n, far.Status)
		}
	}},
}
