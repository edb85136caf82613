package jobs

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store"
)

// memoryPage is how many candidate memories one transaction applies when
// a session holds more. SQLite has one writer: 7,000 memories applied in
// the extraction's one transaction held every other app's handoff 13–20 s
// (issue 34 §3). Applied a page at a time, each page a transaction of its
// own, the writer is free between pages; the extraction's last
// transaction settles the session with what the pages kept. A retry
// applies again only what a page did not commit: the rest it finds
// applied (extract.Plan: already_applied). PostgreSQL's writers do not
// wait for one another, and each page costs it round trips, so its pages
// are larger (BenchmarkScaleLargeSessionOthersWait, docs/benchmarks.md).
func memoryPage(dialect string) int {
	if dialect == store.DialectSQLite {
		return 100
	}
	return 1000
}

// pagedMemories are what the pages kept and left out, for the session's
// summary.
type pagedMemories struct {
	kept []extract.Memory
	gone []extract.Mention
}

// keptNow is what the pages kept and left out, with what the user forgot
// since moved to the left out.
func (p *pagedMemories) keptNow(forgot *memory.Forgets) ([]extract.Memory, []extract.Mention) {
	if forgot == nil {
		return p.kept, p.gone
	}
	kept, gone := make([]extract.Memory, 0, len(p.kept)), slices.Clone(p.gone)
	for _, m := range p.kept {
		if forgot.Forgot(m) {
			gone = append(gone, extract.Mention{Key: m.Key, Value: m.Value})
		} else {
			kept = append(kept, m)
		}
	}
	return kept, gone
}

// applyMemoryPages applies cands a page at a time when they are more than
// one page, and returns what the pages kept (nil when cands are one page,
// for the extraction's transaction to apply). The pages hold whole
// subjects (the keys a candidate's merge reads), so that no two pages plan
// one timeline. A session already processed, or a user with memory off,
// gets nothing.
func applyMemoryPages(ctx context.Context, st store.Store, app *prompts.App, in extract.Session, sessionID string,
	cands []extract.Memory, perPage int, now time.Time) (*pagedMemories, error) {
	if len(cands) <= perPage {
		return nil, nil
	}
	paged := &pagedMemories{}
	bySubject := map[string][]extract.Memory{}
	var order []string
	for _, c := range cands {
		k := strings.Join(extract.KeysToRead([]extract.Memory{c}), ",")
		if _, ok := bySubject[k]; !ok {
			order = append(order, k)
		}
		bySubject[k] = append(bySubject[k], c)
	}
	var page []extract.Memory
	flush := func() error {
		if len(page) == 0 {
			return nil
		}
		var kept []extract.Memory
		var gone []extract.Mention
		err := st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			lock, err := tx.LockExtraction(ctx, sessionID, store.ExtractionReads{Forgets: true, Memories: true, Keys: extract.KeysToRead(page)})
			if err != nil {
				return err
			}
			if lock.Session.Status == store.StatusProcessed || lock.User.MemoryDisabled {
				return errSettled
			}
			f := memory.FoldForgets(lock.Forgets, lock.KeyHash)
			forgot := &f
			var mw store.MemoryWrites
			if mw, kept, gone, err = applyMemories(ctx, tx, lock.Session, app, in, page, &forgot, lock, now); err != nil {
				return err
			}
			return tx.WriteMemories(ctx, lock.Session.UserID, mw)
		})
		if err == nil {
			paged.kept, paged.gone = append(paged.kept, kept...), append(paged.gone, gone...)
		}
		page = page[:0]
		return err
	}
	for _, k := range order {
		if len(page) > 0 && len(page)+len(bySubject[k]) > perPage {
			if err := flush(); err != nil {
				return paged, ignoreSettled(err)
			}
		}
		page = append(page, bySubject[k]...)
	}
	return paged, ignoreSettled(flush())
}

// errSettled stops the pages of a session that needs none.
var errSettled = errors.New("session settled or memory off")

func ignoreSettled(err error) error {
	if errors.Is(err, errSettled) {
		return nil
	}
	return err
}

// DefaultMaxUserMemories is how many active memories a user keeps unless
// MNEMO_MAX_USER_MEMORIES says otherwise.
const DefaultMaxUserMemories = 5000

// boundUserMemories takes the user's active memories beyond the bound out
// of the active set, a page per transaction (the writer is free between
// them); it runs after each extraction, and again on a retry finds nothing
// more to take.
func boundUserMemories(ctx context.Context, d *Deps, userID string, now time.Time) error {
	keep := cmp.Or(d.MaxUserMemories, DefaultMaxUserMemories)
	// A read first: under the bound, as nearly every user is, no write
	// transaction is begun (on SQLite it would wait for the writer).
	if n, err := d.Store.CountActiveMemories(ctx, userID); err != nil || n <= int64(keep) {
		return err
	}
	for {
		var n int64
		err := d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) (err error) {
			n, err = tx.EvictOverBound(ctx, userID, keep, now)
			return err
		})
		if err != nil || n == 0 {
			return err
		}
		d.log().InfoContext(ctx, "memories beyond the user's bound left the active set", slog.String("user_id", userID), slog.Int64("memories", n))
	}
}
