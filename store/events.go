// Queries of mnemo_session_events: a session's structured events.

package store

import (
	"context"
	"fmt"
	"time"
)

const eventCols = "session_id, seq, user_id, kind, at, message_id, data"

func scanEvent(r rows) (Event, error) {
	var e Event
	err := r.Scan(&e.SessionID, &e.Seq, &e.UserID, &e.Type, scanTime{&e.At}, &e.MessageID, scanJSON{&e.Data})
	return e, err
}

func (q queries) InsertEvents(ctx context.Context, events []Event) error {
	steps, err := q.insertSteps("insert events", "INSERT INTO mnemo_session_events ("+eventCols+")", 7, len(events), func(i int) []any {
		e := events[i]
		return []any{e.SessionID, e.Seq, e.UserID, e.Type, e.At, e.MessageID, jsonArg(e.Data, "{}")}
	}, "")
	if err != nil {
		return fmt.Errorf("insert events: %w", err)
	}
	return q.later(ctx, steps...)
}

// listEventsSQL lists a session's events ($1) in order.
const listEventsSQL = "SELECT " + eventCols + " FROM mnemo_session_events WHERE session_id = $1 ORDER BY seq"

func (q queries) ListEvents(ctx context.Context, sessionID string) ([]Event, error) {
	return queryAll(ctx, q, listEventsSQL, []any{sessionID}, scanEvent)
}

func (q queries) ListUserEvents(ctx context.Context, userID string, kinds []string, since time.Time) ([]Event, error) {
	all, err := queryAll(ctx, q, "SELECT "+eventCols+" FROM mnemo_session_events WHERE user_id = $1 AND at >= $2 ORDER BY at, session_id, seq",
		[]any{userID, since}, scanEvent)
	if err != nil || len(kinds) == 0 {
		return all, err
	}
	want := map[string]bool{}
	for _, k := range kinds {
		want[k] = true
	}
	out := all[:0]
	for _, e := range all {
		if want[e.Type] {
			out = append(out, e)
		}
	}
	return out, nil
}
