package extract_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
)

// TestFoldStatementsFoldsToTheSameRun: a run whose first k statements are
// replaced by their fold folds to the memory the whole run folds to, for
// random runs (weights, importances, expiries, event dates) and every k.
func TestFoldStatementsFoldsToTheSameRun(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 1))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for round := range 200 {
		n := 2 + r.IntN(30)
		stmts := make([]extract.Statement, n)
		for i := range stmts {
			s := extract.Statement{ID: fmt.Sprintf("st-%03d", i), MemoryID: "m-1", Key: "name", Value: "Peggy", Category: "fact",
				Importance: r.IntN(101), Confidence: r.Float64(), StatedAt: t0.Add(time.Duration(i) * time.Hour),
				SessionID: fmt.Sprintf("s-%03d", i), Weight: 1 + r.IntN(3)}
			if r.IntN(3) > 0 {
				exp := t0.Add(time.Duration(r.IntN(1000)) * time.Hour)
				s.ExpiresAt = &exp
			}
			if r.IntN(4) == 0 {
				s.EventDate, s.Wording = fmt.Sprintf("2026-02-%02d", 1+r.IntN(28)), "on a day"
			}
			stmts[i] = s
		}
		want := extract.Timeline(stmts)
		if len(want) != 1 {
			t.Fatalf("round %d: %d runs of one value", round, len(want))
		}
		for k := 2; k <= n; k++ {
			folded := append([]extract.Statement{extract.FoldStatements(stmts[:k])}, stmts[k:]...)
			got := extract.Timeline(folded)
			if len(got) != 1 {
				t.Fatalf("round %d, k %d: %d runs", round, k, len(got))
			}
			g, w := got[0], want[0]
			sameExpiry := (g.ExpiresAt == nil) == (w.ExpiresAt == nil) && (g.ExpiresAt == nil || g.ExpiresAt.Equal(*w.ExpiresAt))
			g.Statements, w.Statements, g.ExpiresAt, w.ExpiresAt = nil, nil, nil, nil
			if fmt.Sprint(g) != fmt.Sprint(w) || !sameExpiry {
				t.Fatalf("round %d, k %d: folded run %+v; want %+v", round, k, g, w)
			}
		}
	}
}
