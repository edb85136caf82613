package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/mnemo-ai/mnemo/store"
)

// Issue 34 §2: a session of thousands of list items reads, writes and
// forgets tens of thousands of keys; no statement may carry more
// parameters than the driver takes (SQLite 32,766; Postgres answered "too
// many parameter format codes").

func init() {
	cases = append(cases, manyKeysCases...)
}

// manyKeys is more keys than one statement of either database may name.
const manyKeys = 70_000

func keysOf(n int, f string) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf(f, i)
	}
	return keys
}

var manyKeysCases = []testCase{
	{"ExtractionReadsAndForgetsManyKeys", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		keys := keysOf(manyKeys, "likes:thing%05d")
		// Three memories, one at each end of the key list and one whose
		// statement sits under another key: the reads find every one.
		var mems []store.Memory
		for i, k := range []string{keys[0], keys[manyKeys/2], keys[manyKeys-1]} {
			mems = append(mems, store.Memory{ID: fmt.Sprintf("mem-%d", i), UserID: "u-1", App: appE, Key: k, Value: "v", Category: "preference",
				Importance: 50 + i, Confidence: 0.7, Status: store.MemoryActive, Confirmations: 1, CreatedAt: T0, UpdatedAt: T0})
		}
		must(t, s.InsertMemories(ctx, mems))
		must(t, s.InsertStatements(ctx, []store.Statement{{ID: "st-0", MemoryID: "mem-2", UserID: "u-1", Key: keys[manyKeys-2],
			Value: "v", Category: "preference", Importance: 50, Confidence: 0.7, StatedAt: T0, SessionID: "s-1", CreatedAt: T0}}))
		var lock store.ExtractionLock
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) (err error) {
			lock, err = tx.LockExtraction(ctx, "s-1", store.ExtractionReads{Forgets: true, Memories: true, Keys: keys})
			return err
		}))
		if len(lock.Memories) != 3 || lock.Memories[0].ID != "mem-2" || lock.Memories[2].ID != "mem-0" || len(lock.Statements) != 1 {
			t.Fatalf("read %d memories (%+v) and %d statements of %d keys; want 3, most important first, and 1",
				len(lock.Memories), lock.Memories, len(lock.Statements), manyKeys)
		}
		// Many new memories go in one extraction.
		var fresh []store.Memory
		for i, k := range keys[1:3000] {
			fresh = append(fresh, store.Memory{ID: fmt.Sprintf("new-%d", i), UserID: "u-1", App: appE, Key: k, Value: "v", Category: "preference",
				Importance: 40, Confidence: 0.7, Status: store.MemoryActive, Confirmations: 1, CreatedAt: T0, UpdatedAt: T0})
		}
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			return tx.FinishExtraction(ctx, store.MemoryWrites{New: fresh}, store.Settlement{SessionID: "s-1", UserID: "u-1",
				Summary: store.Summary{SessionID: "s-1", PromptVersion: "v1", UserID: "u-1", App: appE, Source: "rules", CreatedAt: T0},
				Run:     store.ExtractionRun{SessionID: "s-1", UserID: "u-1", App: appE, PromptVersion: "v1", Source: "rules", Outcome: "ok", Final: true, CreatedAt: T0},
				At:      T0})
		}))
		// A forget of every key takes every memory.
		n, err := s.DeleteKeyMemories(ctx, "u-1", keys)
		must(t, err)
		left, err := s.ListMemories(ctx, "u-1", store.MemoryFilter{All: true})
		must(t, err)
		if n != 3+int64(len(fresh)) || len(left) != 0 {
			t.Fatalf("forgetting %d keys deleted %d memories, %d left; want %d and none", manyKeys, n, len(left), 3+len(fresh))
		}
	}},
	{"BufferHeadOfManyMessages", func(t *testing.T, s store.Store) {
		ctx := context.Background()
		seedSession(t, s, "u-1", "s-1")
		_, err := s.AppendBuffer(ctx, []store.BufferMessage{{SessionID: "s-1", Seq: 0, UserID: "u-1", MessageID: "msg-69999", KeyID: "k",
			Nonce: []byte{1}, Ciphertext: []byte{2}, SHA256: []byte{3}, CreatedAt: T0}})
		must(t, err)
		h, err := s.BufferHead(ctx, "s-1", keysOf(manyKeys, "msg-%d"))
		must(t, err)
		if h.Next != 1 || len(h.Known) != 1 || !h.Known["msg-69999"] {
			t.Fatalf("buffer head of %d message ids = %+v; want next 1 and msg-69999 known", manyKeys, h)
		}
	}},
}
