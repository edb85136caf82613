package queue

import (
	"context"
	"fmt"
	"slices"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
)

// SubscribeBuffered is Subscribe with a channel buffer of size events: River
// drops events that find a subscriber's buffer full.
func (q *riverQueue[TTx]) SubscribeBuffered(size int, kinds ...river.EventKind) <-chan *river.Event {
	events, _ := q.client.SubscribeConfig(&river.SubscribeConfig{ChanSize: size, Kinds: kinds})
	return events
}

// QueueDepth is one queue's backlog as an operator sees it.
type QueueDepth struct {
	Queue string
	// Available jobs wait for a worker now; Running ones are being worked.
	Available int64
	Running   int64
	Paused    bool
}

// QueueDepths counts the available and running jobs of Mnemo's queues and of
// every other queue River knows (one a worker serves or served), across all
// workers sharing the database.
func QueueDepths(ctx context.Context, q Queue) ([]QueueDepth, error) {
	counter, ok := q.(interface {
		countByQueue(ctx context.Context, names []string) ([]*riverdriver.JobCountByQueueAndStateResult, error)
	})
	if !ok {
		return nil, fmt.Errorf("queue depths: unsupported queue %T", q)
	}
	known, err := q.Queues(ctx)
	if err != nil {
		return nil, err
	}
	byName := map[string]*QueueDepth{}
	var names []string
	add := func(name string) *QueueDepth {
		if d := byName[name]; d != nil {
			return d
		}
		d := &QueueDepth{Queue: name}
		byName[name] = d
		names = append(names, name)
		return d
	}
	for _, name := range []string{QueueDefault, QueueExtract, QueueBatch} {
		add(name)
	}
	for _, k := range known {
		add(k.Name).Paused = k.PausedAt != nil
	}
	counts, err := counter.countByQueue(ctx, names)
	if err != nil {
		return nil, fmt.Errorf("queue depths: %w", err)
	}
	for _, c := range counts {
		d := add(c.Queue)
		d.Available, d.Running = c.CountAvailable, c.CountRunning
	}
	slices.Sort(names)
	out := make([]QueueDepth, 0, len(names))
	for _, name := range names {
		out = append(out, *byName[name])
	}
	return out, nil
}

func (q *riverQueue[TTx]) countByQueue(ctx context.Context, names []string) ([]*riverdriver.JobCountByQueueAndStateResult, error) {
	return q.client.Driver().GetExecutor().JobCountByQueueAndState(ctx,
		&riverdriver.JobCountByQueueAndStateParams{QueueNames: names, Schema: q.client.Schema()})
}
