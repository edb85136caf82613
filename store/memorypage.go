package store

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MemoryCursor is a position in ListMemories' order (importance
// descending, then created_at, then id): a page reads on after it, by the
// index, however many memories the user has (issue 34 §3: 21,000 memories
// were one 8.9 MB answer).
type MemoryCursor struct {
	Importance int
	CreatedAt  time.Time
	ID         string
}

// String is the cursor as an opaque token.
func (c MemoryCursor) String() string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(c.Importance) + "|" +
		c.CreatedAt.UTC().Format(time.RFC3339Nano) + "|" + c.ID))
}

// ParseMemoryCursor reads what String wrote.
func ParseMemoryCursor(s string) (MemoryCursor, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return MemoryCursor{}, fmt.Errorf("not a cursor")
	}
	parts := strings.SplitN(string(raw), "|", 3)
	if len(parts) != 3 || parts[2] == "" {
		return MemoryCursor{}, fmt.Errorf("not a cursor")
	}
	imp, err1 := strconv.Atoi(parts[0])
	at, err2 := time.Parse(time.RFC3339Nano, parts[1])
	if err1 != nil || err2 != nil {
		return MemoryCursor{}, fmt.Errorf("not a cursor")
	}
	return MemoryCursor{Importance: imp, CreatedAt: at, ID: parts[2]}, nil
}

func (q queries) PageMemories(ctx context.Context, userID string, f MemoryFilter, after *MemoryCursor, limit int) ([]Memory, *MemoryCursor, error) {
	sql := "SELECT " + memoryCols + " FROM mnemo_memories WHERE user_id = $1"
	args := []any{userID}
	if f.AsOf != nil {
		f.All = true // as ListMemories: valid time is decided in Go
	}
	if !f.All {
		args = append(args, f.Status)
		if f.Status == "" {
			args[len(args)-1] = MemoryActive
		}
		sql += fmt.Sprintf(" AND status = $%d", len(args))
	}
	if f.Category != "" {
		args = append(args, f.Category)
		sql += fmt.Sprintf(" AND category = $%d", len(args))
	}
	if after != nil {
		args = append(args, after.Importance, after.CreatedAt, after.ID)
		i, c, id := len(args)-2, len(args)-1, len(args)
		sql += fmt.Sprintf(" AND (importance < $%d OR (importance = $%d AND (created_at > $%d OR (created_at = $%d AND id > $%d))))", i, i, c, c, id)
	}
	limit = max(limit, 1)
	args = append(args, limit+1)
	sql += memoryOrder + fmt.Sprintf(" LIMIT $%d", len(args))
	ms, err := queryAll(ctx, q, sql, args, scanMemory)
	if err != nil {
		return nil, nil, err
	}
	var next *MemoryCursor
	if len(ms) > limit {
		ms = ms[:limit]
		last := ms[limit-1]
		next = &MemoryCursor{Importance: last.Importance, CreatedAt: last.CreatedAt, ID: last.ID}
	}
	if f.AsOf != nil {
		out := ms[:0]
		for _, m := range ms {
			if m.ValidAt(*f.AsOf) {
				out = append(out, m)
			}
		}
		ms = out
	}
	return ms, next, nil
}
