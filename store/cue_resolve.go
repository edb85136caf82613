// An operator's resolution of a user's cues (the risk findings whose care
// note the context pack carries: POST /v1/admin/users/{id}/risk/resolve).

package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

func (q queries) ResolveCues(ctx context.Context, userID, kind string, at time.Time) ([]Cue, error) {
	got, err := queryAll(ctx, q, `UPDATE mnemo_cues SET resolved_at = $3
		WHERE user_id = $1 AND kind = $2 AND resolved_at IS NULL AND created_at <= $3
		RETURNING `+strings.ReplaceAll(cueCols, "c.", ""), []any{userID, kind, at}, scanCue)
	if err != nil {
		return nil, fmt.Errorf("resolve cues: %w", err)
	}
	// Oldest first, as ListCues orders them (RETURNING keeps no order).
	slices.SortFunc(got, func(a, b Cue) int { return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID)) })
	return got, nil
}
