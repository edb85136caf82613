package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// killingStore counts the pages a batch run reads (users with their
// sessions, or records) and, when armed, kills the run in the middle of a
// page: the page's transaction does its writes, then the run's context is
// cancelled and the transaction rolls back, as a process killed before the
// commit leaves it.
type killingStore struct {
	store.Store
	mu     sync.Mutex
	pages  int
	txs    int
	killAt int // the page transaction that dies; 0: none
	cancel context.CancelFunc
}

var errKilled = errors.New("killed before the commit")

func (s *killingStore) page() {
	s.mu.Lock()
	s.pages++
	s.mu.Unlock()
}

// reset starts counting a run; killAt > 0 kills it in its killAt-th page
// transaction through cancel.
func (s *killingStore) reset(killAt int, cancel context.CancelFunc) {
	s.mu.Lock()
	s.pages, s.txs, s.killAt, s.cancel = 0, 0, killAt, cancel
	s.mu.Unlock()
}

func (s *killingStore) read() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pages
}

func (s *killingStore) PageSessions(ctx context.Context, app string, from, to time.Time, after string, limit int) (store.SessionPage, error) {
	s.page()
	return s.Store.PageSessions(ctx, app, from, to, after, limit)
}

func (s *killingStore) InTx(ctx context.Context, fn func(ctx context.Context, tx store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err // the process is gone: nothing more is written
	}
	s.mu.Lock()
	s.txs++
	kill := s.killAt > 0 && s.txs == s.killAt
	s.mu.Unlock()
	return s.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
		if err := fn(ctx, countingTx{tx, s}); err != nil {
			return err
		}
		if kill {
			s.cancel()
			return errKilled
		}
		return nil
	})
}

type countingTx struct {
	store.Tx
	s *killingStore
}

func (t countingTx) PageRecords(ctx context.Context, p store.RecordPage) ([]store.Record, error) {
	t.s.page()
	return t.Tx.PageRecords(ctx, p)
}

// resumeCase is one paging batch over a seeded database: what it leaves,
// read back for comparison.
type resumeCase struct {
	batch, period string
	now           time.Time
	seed          func(t *testing.T, st store.Store)
	result        func(t *testing.T, st store.Store) string
}

// TestBatchResumesAfterAKill: a paging batch killed in the middle of its
// k+1-th page, then run again, reads only the pages it had not committed
// and leaves what one uninterrupted run leaves; the ledger holds the cursor
// while the run is unfinished and none after. Running the finished period
// again reads every page (run twice = one run), and a period marked dirty
// after a kill is run again from its first page.
func TestBatchResumesAfterAKill(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 16, 12, 30, 0, 0, time.UTC)
	cases := []resumeCase{
		{batch: jobs.BatchWeeklyAnalytics, period: "2026-11-15", now: now,
			seed: func(t *testing.T, st store.Store) {
				for u := 0; u < 9; u++ {
					for d := 0; d < 3; d++ {
						end := time.Date(2026, 11, 10+d, 18, u, 0, 0, time.UTC)
						storeSession(t, st, "eldertree", fmt.Sprintf("et-%02d", u), fmt.Sprintf("et-%02d-%d", u, d), end,
							[]string{fmt.Sprintf(`{"intensity":%d,"trigger":"loneliness","strategy":"called_sponsor","outcome":"resisted"}`, 3+(u+d)%6)}, "")
					}
				}
			},
			result: func(t *testing.T, st store.Store) string {
				rows, err := st.PageWeekly(context.Background(), store.WeeklyPage{App: "eldertree", WeekEnding: "2026-11-15", Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				out := ""
				for _, r := range rows {
					out += r.UserID + " " + string(r.Data) + "\n"
				}
				return out
			}},
		{batch: jobs.BatchTrends, period: "", now: time.Date(2026, 11, 16, 3, 0, 0, 0, time.UTC),
			seed: func(t *testing.T, st store.Store) {
				for u := 0; u < 7; u++ {
					for d := 0; d < 2; d++ {
						end := time.Date(2026, 11, 10+d, 10, u, 0, 0, time.UTC)
						storeSession(t, st, "clara", fmt.Sprintf("cl-%02d", u), fmt.Sprintf("cl-%02d-%d", u, d), end,
							[]string{fmt.Sprintf(`{"emotion":"anxious","distress_score":0.%d}`, 1+(u+d)%9)}, "")
					}
				}
			},
			result: func(t *testing.T, st store.Store) string {
				out := ""
				for u := 0; u < 7; u++ {
					r, err := st.GetTrends(context.Background(), fmt.Sprintf("cl-%02d", u))
					if errors.Is(err, store.ErrNotFound) {
						continue
					}
					if err != nil {
						t.Fatal(err)
					}
					out += r.UserID + " " + string(r.Data) + "\n"
				}
				return out
			}},
		{batch: jobs.BatchPreferenceDecay, period: "", now: time.Date(2026, 11, 25, 4, 30, 0, 0, time.UTC),
			seed: func(t *testing.T, st store.Store) {
				ctx := context.Background()
				at := time.Date(2026, 11, 25, 4, 30, 0, 0, time.UTC)
				old := at.AddDate(0, -8, 0)
				for u := 0; u < 4; u++ {
					user := fmt.Sprintf("kid-%d", u)
					if err := st.UpsertUser(ctx, store.User{ID: user, App: "lara", Timezone: "UTC", CreatedAt: old, UpdatedAt: old}); err != nil {
						t.Fatal(err)
					}
					for i, seen := range []int{3, 40 + 10*u, 200} {
						data, _ := json.Marshal(map[string]any{"user_id": user, "value": fmt.Sprintf("thing-%d", i), "polarity": "likes",
							"first_seen": at.AddDate(0, 0, -300).Format(time.RFC3339), "last_seen": at.AddDate(0, 0, -seen).Format(time.RFC3339)})
						if err := st.UpsertRecord(ctx, store.Record{UserID: user, App: "lara", Type: "preference", Key: fmt.Sprintf("likes:thing-%d", i),
							Data: data, UpdatedAt: old}); err != nil {
							t.Fatal(err)
						}
					}
				}
			},
			result: func(t *testing.T, st store.Store) string {
				out := ""
				for u := 0; u < 4; u++ {
					recs, err := st.ListRecords(context.Background(), fmt.Sprintf("kid-%d", u), nil)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range recs {
						out += fmt.Sprintf("%s %s %s %s %s\n", r.UserID, r.Type, r.Key, r.Data, r.UpdatedAt.UTC().Format(time.RFC3339))
					}
				}
				return out
			}},
	}
	for _, b := range storetest.Backends(t) {
		for _, c := range cases {
			t.Run(b.Name+"/"+c.batch, func(t *testing.T) {
				t.Parallel()
				testResume(t, b, c)
			})
		}
	}
}

func testResume(t *testing.T, b storetest.Backend, c resumeCase) {
	ctx := context.Background()
	open := func() (*extractBundle, *killingStore) {
		x := setupExtractWith(t, b, false, false)
		withSchedules(t, x, &clock{t: c.now})
		x.deps.Batch.Rows = 2 // two users (or records) a page
		ks := &killingStore{Store: x.st}
		x.deps.Store = ks
		c.seed(t, x.st)
		return x, ks
	}
	run := func(x *extractBundle, ks *killingStore, killAt int) (int, error) {
		t.Helper()
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ks.reset(killAt, cancel)
		_, err := jobs.RunBatch(rctx, x.deps, c.batch, c.period, c.now)
		return ks.read(), err
	}
	ledger := func(x *extractBundle) store.BatchRun {
		t.Helper()
		runs, err := x.st.ListBatchRuns(ctx, c.batch, 1)
		if err != nil || len(runs) != 1 {
			t.Fatalf("ledger: %v, %v", runs, err)
		}
		return runs[0]
	}

	// One uninterrupted run, on a database of its own.
	whole, wks := open()
	full, err := run(whole, wks, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := c.result(t, whole.st)
	if full < 4 || want == "" {
		t.Fatalf("the uninterrupted run read %d pages and left %q; the case needs several pages", full, want)
	}
	if r := ledger(whole); r.Outcome != jobs.LedgerOK || r.Cursor != "" {
		t.Fatalf("finished run's ledger row: %+v; want ok without a cursor", r)
	}
	// A second whole run: what a run over the result reads (a decay that
	// removed records has fewer pages to read the second time).
	again, err := run(whole, wks, 0)
	if err != nil || c.result(t, whole.st) != want {
		t.Fatalf("a second uninterrupted run: %v, or it changed the result", err)
	}

	// Killed in its third page, after two committed.
	const k = 2
	x, ks := open()
	read, err := run(x, ks, k+1)
	if !errors.Is(err, context.Canceled) && !errors.Is(err, errKilled) {
		t.Fatalf("killed run: %v", err)
	}
	if read != k+1 {
		t.Fatalf("killed run read %d pages; want %d", read, k+1)
	}
	if r := ledger(x); r.Outcome != jobs.LedgerRunning || r.Cursor == "" {
		t.Fatalf("killed run's ledger row: %+v; want running with a cursor", r)
	}
	if got := c.result(t, x.st); got == want {
		t.Fatalf("the killed run left what a whole run leaves:\n%s", got)
	}
	// Run again: only the pages after the two committed.
	read, err = run(x, ks, 0)
	if err != nil {
		t.Fatal(err)
	}
	if read != full-k {
		t.Fatalf("the run after the kill read %d pages; want %d of the %d a whole run reads", read, full-k, full)
	}
	if got := c.result(t, x.st); got != want {
		t.Fatalf("resumed result differs from an uninterrupted run:\n%s\nwant\n%s", got, want)
	}
	if r := ledger(x); r.Outcome != jobs.LedgerOK || r.Cursor != "" {
		t.Fatalf("resumed run's ledger row: %+v; want ok without a cursor", r)
	}
	// Run twice = one run: a finished period runs whole and leaves the same.
	if read, err = run(x, ks, 0); err != nil || read != again {
		t.Fatalf("re-run of the finished period read %d pages, %v; want all %d", read, err, again)
	}
	if got := c.result(t, x.st); got != want {
		t.Fatalf("a second run changed the result:\n%s\nwant\n%s", got, want)
	}

	// Killed again, then marked dirty (late data): the next run starts from
	// the first page.
	if _, err := run(x, ks, k+1); err == nil {
		t.Fatal("the second kill did not stop the run")
	}
	r := ledger(x)
	if _, err := x.st.MarkDirty(ctx, store.DirtyMark{Batch: c.batch, Period: r.Period, At: c.now, Reason: jobs.ReasonLateSession}); err != nil {
		t.Fatal(err)
	}
	if read, err = run(x, ks, 0); err != nil || read != again {
		t.Fatalf("the run after late data read %d pages, %v; want all %d", read, err, again)
	}
	if got := c.result(t, x.st); got != want {
		t.Fatalf("the run after late data left:\n%s\nwant\n%s", got, want)
	}
}
