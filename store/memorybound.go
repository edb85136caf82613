package store

import (
	"context"
	"fmt"
	"time"
)

// MemoryEvicted is the audit action of a memory the per-user bound took
// out of the active set, and MemoryBoundActor its actor.
const (
	MemoryEvicted    = "evict"
	MemoryBoundActor = "bound"
)

// evictPage bounds the memories one EvictOverBound statement takes.
const evictPage = 500

// EvictOverBound takes a user's active memories beyond keep out of the
// active set (status expired, an audit row each, action MemoryEvicted),
// at most evictPage at a time: unconfirmed ones (said once) before
// confirmed ones, then the least important, then the oldest said (issue
// 34 §3: one session made a user 7,000 memories, and nothing bounded
// what followed). It returns how many it took; call it again while that
// is evictPage.
func (q queries) EvictOverBound(ctx context.Context, userID string, keep int, at time.Time) (int64, error) {
	active, err := q.CountActiveMemories(ctx, userID)
	if err != nil {
		return 0, err
	}
	over := min(active-int64(keep), evictPage)
	if over <= 0 {
		return 0, nil
	}
	var ids []string
	ids, err = queryAll(ctx, q, `SELECT id FROM mnemo_memories WHERE user_id = $1 AND status = '`+MemoryActive+`'
		ORDER BY CASE WHEN confirmations > 1 THEN 1 ELSE 0 END, importance, stated_at, id LIMIT $2`, []any{userID, over},
		func(r rows) (id string, err error) { return id, r.Scan(&id) })
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	args, lists := q.inLists([]any{userID, at}, ids)
	var n int64
	for i := range args {
		k, err := q.e.exec(ctx, "UPDATE mnemo_memories SET status = 'expired', updated_at = $2 WHERE user_id = $1 AND status = '"+
			MemoryActive+"' AND id IN ("+lists[i]+")", args[i]...)
		if err != nil {
			return n, fmt.Errorf("evict memories: %w", err)
		}
		n += k
	}
	audit := make([]MemoryChange, len(ids))
	for i, id := range ids {
		audit[i] = MemoryChange{ID: NewID(), MemoryID: id, UserID: userID, Action: MemoryEvicted, Actor: MemoryBoundActor, At: at}
	}
	if err := q.InsertMemoryChanges(ctx, audit); err != nil {
		return n, err
	}
	return n, nil
}

// CountActiveMemories counts a user's active memories (the partial index
// on (user_id, key) of the active ones answers it).
func (q queries) CountActiveMemories(ctx context.Context, userID string) (int64, error) {
	var n int64
	err := q.queryOne(ctx, "SELECT count(*) FROM mnemo_memories WHERE user_id = $1 AND status = '"+MemoryActive+"'", []any{userID},
		func(r rows) error { return r.Scan(&n) })
	return n, err
}
