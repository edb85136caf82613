package store_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// BenchmarkExpiryAndRetention measures the memory-ttl and retention steps
// on Postgres over MNEMO_BENCH_RETENTION_ROWS rows (1000000 for the
// issue 25 figure), in the pages the batches use (MNEMO_BENCH_RETENTION_PAGE,
// default 10,000 as jobs.BatchConfig.SweepRows on Postgres), one
// transaction a page committed lazily (MNEMO_BENCH_RETENTION_LAZY=0 waits
// for each commit's flush), each page continuing where the last ended, as
// the batches do: ExpireMemoriesAfter
// over that many active memories past their expiry (each expiry audited),
// then DeleteOlderAfter of as many audit rows, then of the memories, now
// inactive. It reports rows/s of each. Unset, it is skipped: seeding a
// million rows takes a minute, and the README's test command runs no
// benchmarks anyway.
//
//	MNEMO_BENCH_RETENTION_ROWS=1000000 TEST_DATABASE_URL='postgres://postgres@127.0.0.1:5432/mnemo?sslmode=disable' \
//	    go test ./store -run '^$' -bench ExpiryAndRetention -benchtime 1x
func BenchmarkExpiryAndRetention(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("MNEMO_BENCH_RETENTION_ROWS"))
	if n <= 0 || os.Getenv("TEST_DATABASE_URL") == "" {
		b.Skip("set MNEMO_BENCH_RETENTION_ROWS and TEST_DATABASE_URL to run it")
	}
	const users = 10_000
	page := 10_000
	if p, _ := strconv.Atoi(os.Getenv("MNEMO_BENCH_RETENTION_PAGE")); p > 0 {
		page = p
	}
	lazy := os.Getenv("MNEMO_BENCH_RETENTION_LAZY") != "0"
	ctx := context.Background()
	// inTx runs one page in a transaction, as jobs' sweep does.
	inTx := func(st store.Store, fn func(tx store.Tx) (int64, store.SweepKey, error)) (n int64, key store.SweepKey, err error) {
		err = st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			if lazy {
				if err := tx.LazyCommit(ctx); err != nil {
					return err
				}
			}
			n, key, err = fn(tx)
			return err
		})
		return n, key, err
	}
	var expireTook, historyTook, memoriesTook time.Duration
	for range b.N {
		b.StopTimer()
		st := storetest.Postgres(b)
		pool := st.(*store.Postgres).Pool()
		now := time.Now().UTC()
		old := now.AddDate(0, -2, 0)
		copyRows(b, pool, "mnemo_users", []string{"id", "app", "created_at", "updated_at"}, users, func(i int) []any {
			return []any{fmt.Sprintf("u-%05d", i), "appA", old, old}
		})
		copyRows(b, pool, "mnemo_memories", []string{"id", "user_id", "app", "key", "value", "category", "importance", "confidence",
			"status", "source_session_id", "confirmations", "expires_at", "created_at", "updated_at", "stated_at"}, n, func(k int) []any {
			exp := old.Add(time.Duration(k) * time.Second)
			return []any{store.NewID(), fmt.Sprintf("u-%05d", k%users), "appA", fmt.Sprintf("event:e%04d", k/users), "something upcoming",
				"event", 60, 0.8, store.MemoryActive, "s-seed", 1, exp, old, old, old}
		})
		if _, err := pool.Exec(ctx, "VACUUM (ANALYZE) mnemo_users, mnemo_memories"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		var key store.SweepKey
		expired := drainPages(b, page, func() (n int64, err error) {
			n, key, err = inTx(st, func(tx store.Tx) (int64, store.SweepKey, error) { return tx.ExpireMemoriesAfter(ctx, now, key, page) })
			return n, err
		})
		t1 := time.Now()
		var from store.SweepKey
		audit := drainPages(b, page, func() (n int64, err error) {
			n, from, err = inTx(st, func(tx store.Tx) (int64, store.SweepKey, error) {
				return tx.DeleteOlderAfter(ctx, "memory_history", now.Add(time.Second), from, page)
			})
			return n, err
		})
		t2 := time.Now()
		from = store.SweepKey{}
		inactive := drainPages(b, page, func() (n int64, err error) {
			n, from, err = inTx(st, func(tx store.Tx) (int64, store.SweepKey, error) {
				return tx.DeleteOlderAfter(ctx, "inactive_memories", now.Add(time.Second), from, page)
			})
			return n, err
		})
		t3 := time.Now()
		b.StopTimer()
		if expired != int64(n) || audit != int64(n) || inactive != int64(n) {
			b.Fatalf("expired %d, audit rows deleted %d, memories deleted %d; want %d each", expired, audit, inactive, n)
		}
		expireTook += t1.Sub(t0)
		historyTook += t2.Sub(t1)
		memoriesTook += t3.Sub(t2)
	}
	rows := float64(n * b.N)
	b.ReportMetric(rows/expireTook.Seconds(), "expire-rows/s")
	b.ReportMetric(rows/historyTook.Seconds(), "audit-delete-rows/s")
	b.ReportMetric(rows/memoriesTook.Seconds(), "memory-delete-rows/s")
}

// drainPages runs step until it returns fewer rows than a page, as the
// batches do, and returns the rows it touched.
func drainPages(b *testing.B, page int, step func() (int64, error)) int64 {
	var total int64
	for {
		n, err := step()
		if err != nil {
			b.Fatal(err)
		}
		total += n
		if n < int64(page) {
			return total
		}
	}
}

// copyRows COPYs n rows made by row into table.
func copyRows(b *testing.B, pool interface {
	CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error)
}, table string, cols []string, n int, row func(i int) []any) {
	b.Helper()
	i := 0
	got, err := pool.CopyFrom(context.Background(), pgx.Identifier{table}, cols, pgx.CopyFromFunc(func() ([]any, error) {
		if i == n {
			return nil, nil
		}
		i++
		return row(i - 1), nil
	}))
	if err != nil || got != int64(n) {
		b.Fatalf("copy %s: %d rows, %v", table, got, err)
	}
}
