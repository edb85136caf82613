package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/listsession"
	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store"
)

// BenchmarkScaleLargeSessionOthersWait (issue 34 §3): while the worker
// applies one session of 7,000 memories (1,000 messages each naming seven
// things the user likes, with the rules' per-session cap raised to let
// them all through), other users of another app hand sessions over at a
// steady 20 a second; what they wait is the measure (p50, p99, max), with
// how long the large session's extraction took. On SQLite every write
// waits for the one writer: a large application used to hold it for its
// whole transaction.
//
//	TEST_DATABASE_URL='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' \
//	    go test ./bench -run '^$' -bench 'ScaleLargeSession' -benchtime 1x
func BenchmarkScaleLargeSessionOthersWait(b *testing.B) {
	for _, bk := range backends() {
		b.Run(bk.name, func(b *testing.B) {
			for range b.N {
				largeSessionRun(b, bk)
			}
		})
	}
}

func largeSessionRun(b *testing.B, bk backend) {
	b.StopTimer()
	ctx := context.Background()
	e := newEnv(b, bk)
	t0 := time.Now().UTC().Add(-3 * time.Hour).Truncate(time.Second)
	body, err := json.Marshal(listsession.Session("mona", "big", t0, 1000, 7))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := e.handOver(ctx, "big-1", body); err != nil {
		b.Fatal(err)
	}
	deps := &jobs.Deps{Store: e.st, Apps: e.apps, Keys: e.keys, RulesMaxMemories: 10_000, MaxUserMemories: 1_000_000, Logger: infoLogger()}
	w, err := queue.New(e.st, queue.Config{
		Concurrency:       map[string]int{queue.QueueExtract: 1, queue.QueueDefault: 1, queue.QueueBatch: 1},
		Workers:           jobs.NewWorkers(deps),
		FetchPollInterval: 20 * time.Millisecond,
		JobTimeout:        10 * time.Minute,
		Logger:            infoLogger(),
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = w.StopAndCancel(context.Background()) })
	// The others: Elder Tree users, one session each, 20 a second.
	others := make([][]byte, 0, 4000)
	for i := range cap(others) {
		req := monaSession(fmt.Sprintf("o-%d", i), t0)
		req.App = "eldertree"
		req.Events = nil
		body, err := json.Marshal(req)
		if err != nil {
			b.Fatal(err)
		}
		others = append(others, body)
	}
	stop := make(chan struct{})
	var mu sync.Mutex
	var waits latencies
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for i := 0; i < len(others); i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				start := time.Now()
				if _, err := e.handOver(ctx, fmt.Sprintf("o-%d", i), others[i]); err != nil {
					b.Error(err)
					return
				}
				mu.Lock()
				waits = append(waits, time.Since(start))
				mu.Unlock()
			}(i)
		}
	}()
	b.StartTimer()
	started := time.Now()
	if err := w.Start(ctx); err != nil {
		b.Fatal(err)
	}
	testwait.Until(b, "the large session", func() (bool, string) {
		s, err := e.st.GetSession(ctx, "big-1")
		if err != nil {
			b.Fatal(err)
		}
		return s.Status == store.StatusProcessed, "status " + s.Status
	})
	took := time.Since(started)
	b.StopTimer()
	close(stop)
	wg.Wait()
	mems, err := e.st.ListMemories(ctx, "big", store.MemoryFilter{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(mems)), "memories")
	b.ReportMetric(took.Seconds(), "large-s")
	b.ReportMetric(float64(len(waits)), "others")
	waits.report(b)
	b.ReportMetric(ms(slicesMax(waits)), "max-ms")
}
