package jobs_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

type echoArgs struct {
	N int `json:"n"`
}

func (echoArgs) Kind() string { return "test_echo" }

// echoWorker fails while fail is set and reports each success on done.
type echoWorker struct {
	river.WorkerDefaults[echoArgs]
	fail chan struct{} // closed: stop failing
	done chan int
}

func (w *echoWorker) Work(ctx context.Context, j *river.Job[echoArgs]) error {
	select {
	case <-w.fail:
	default:
		return errors.New("not yet")
	}
	w.done <- j.Args.N
	return nil
}

func newQueue(t *testing.T, st store.Store, w *echoWorker) queue.Queue {
	t.Helper()
	ctx := context.Background()
	if _, err := queue.MigrateRiver(ctx, st); err != nil {
		t.Fatal(err)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, w)
	q, err := queue.New(st, queue.Config{
		Concurrency:       map[string]int{queue.QueueDefault: 2, "side": 1},
		Workers:           workers,
		FetchPollInterval: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func waitFor[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-testwait.Deadline(t):
		t.Fatal("timed out waiting for the worker")
	}
	var zero T
	return zero
}

// TestQueue exercises the queue interface on both databases as an operator and
// the API use it: enqueue in a transaction, list, pause and resume, retry, cancel.
func TestQueue(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := b.Open(t)
			w := &echoWorker{fail: make(chan struct{}), done: make(chan int, 10)}
			close(w.fail)
			q := newQueue(t, st, w)

			// A job inserted in a rolled-back transaction never exists.
			rollback := errors.New("rollback")
			err := st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				if _, err := q.InsertTx(ctx, tx, echoArgs{N: 1}, nil); err != nil {
					t.Fatal(err)
				}
				return rollback
			})
			if !errors.Is(err, rollback) {
				t.Fatal(err)
			}
			if rows, err := q.List(ctx, queue.ListFilter{Kinds: []string{"test_echo"}}); err != nil || len(rows) != 0 {
				t.Fatalf("jobs after rollback: %d, %v; want none", len(rows), err)
			}

			// A paused queue holds its jobs while another queue keeps working.
			if err := q.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = q.Stop(context.Background()) })
			// River registers a queue when its producer starts, and a producer reads
			// the paused flag when it starts (other processes' pauses reach it by
			// polling, within seconds on SQLite); restart so the test is exact.
			pauseWhenKnown(t, q, queue.QueueDefault)
			if err := q.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			if err := q.Start(ctx); err != nil {
				t.Fatal(err)
			}
			events, cancel := q.Subscribe(river.EventKindJobCompleted)
			defer cancel()
			if err := st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				_, err := q.InsertTx(ctx, tx, echoArgs{N: 2}, nil)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if _, err := q.Insert(ctx, echoArgs{N: 3}, &river.InsertOpts{Queue: "side"}); err != nil {
				t.Fatal(err)
			}
			if n := waitFor(t, w.done); n != 3 {
				t.Fatalf("job %d ran while its queue was paused", n)
			}
			waitFor(t, events)
			rows, err := q.List(ctx, queue.ListFilter{States: []rivertype.JobState{rivertype.JobStateAvailable}, Kinds: []string{"test_echo"}})
			if err != nil || len(rows) != 1 || rows[0].Queue != queue.QueueDefault {
				all, _ := q.List(ctx, queue.ListFilter{})
				for _, r := range all {
					t.Logf("job %d %s %s %s", r.ID, r.Kind, r.Queue, r.State)
				}
				t.Fatalf("available jobs while paused = %d, %v; want 1", len(rows), err)
			}
			if err := q.Resume(ctx, queue.QueueDefault); err != nil {
				t.Fatal(err)
			}
			if n := waitFor(t, w.done); n != 2 {
				t.Fatalf("worked job %d; want 2", n)
			}
			ev := waitFor(t, events)
			if ev.Job.Kind != "test_echo" {
				t.Fatalf("completed event for %s", ev.Job.Kind)
			}

			// Cancel a job sitting in a queue nobody works.
			probe, err := q.Insert(ctx, echoArgs{N: 99}, &river.InsertOpts{Queue: "other"})
			if err != nil {
				t.Fatal(err)
			}
			row, err := q.Cancel(ctx, probe.ID)
			if err != nil || row.State != rivertype.JobStateCancelled {
				t.Fatalf("cancel: %v, %v", row, err)
			}
			// Retry brings a cancelled job back to available.
			row, err = q.Retry(ctx, probe.ID)
			if err != nil || row.State != rivertype.JobStateAvailable {
				t.Fatalf("retry: state %v, %v; want available", row.State, err)
			}
			if _, err := q.Get(ctx, 424242); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("Get(missing): %v; want ErrNotFound", err)
			}
			if err := q.Pause(ctx, "no-such-queue"); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("Pause(missing): %v; want ErrNotFound", err)
			}
		})
	}
}

// pauseWhenKnown pauses a queue once River has registered it (a queue row
// appears when the client's producer for it starts).
func pauseWhenKnown(t *testing.T, q queue.Queue, name string) {
	t.Helper()
	deadline := testwait.GiveUpAt(t)
	for {
		err := q.Pause(context.Background(), name)
		if err == nil {
			return
		}
		if !errors.Is(err, store.ErrNotFound) || testwait.Past(deadline) {
			t.Fatalf("pause %s: %v", name, err)
		}
		<-time.After(20 * time.Millisecond)
	}
}
