package jobs_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
	"github.com/mnemo-ai/mnemo/transcript"
)

func keyring(t *testing.T, spec string) *seal.Keyring {
	t.Helper()
	k, err := seal.ParseKeys(spec)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestKeyRotation: after a new key is added, old transcripts stay readable,
// new ones are sealed under the new key, and the rewrap job moves the old
// ones under it so the old key can be retired.
func TestKeyRotation(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtractWith(t, b, false, false)
			x.closeSession(t, "old-1", monaSession("u-1"))
			k2 := "k2:" + base64.StdEncoding.EncodeToString([]byte("abcdefghijklmnopqrstuvwxyz012345"))
			x.deps.Keys = keyring(t, testKey+","+k2)
			x.closeSession(t, "new-1", monaSession("u-2"))
			for id, want := range map[string]string{"old-1": "k1", "new-1": "k2"} {
				chunks, err := x.st.ListChunks(ctx, id)
				if err != nil || len(chunks) == 0 || chunks[0].KeyID != want {
					t.Fatalf("%s sealed under %v (%v); want %s", id, chunks, err, want)
				}
				if _, err := transcript.Load(ctx, x.st, x.deps.Keys, id); err != nil {
					t.Fatalf("%s unreadable with both keys: %v", id, err)
				}
			}
			n, err := jobs.Rewrap(ctx, x.deps)
			if err != nil || n != 1 {
				t.Fatalf("rewrapped %d (%v); want the one old transcript", n, err)
			}
			onlyNew := keyring(t, k2)
			for _, id := range []string{"old-1", "new-1"} {
				msgs, err := transcript.Load(ctx, x.st, onlyNew, id)
				if err != nil || len(msgs) != 4 {
					t.Fatalf("%s after rewrap with the new key alone: %d messages, %v", id, len(msgs), err)
				}
			}
			if left, _ := x.st.SessionsWithOldKeys(ctx, "k2", 10); len(left) != 0 {
				t.Fatalf("sessions still under old keys: %v", left)
			}
		})
	}
}

// TestTamperedChunkIsDetected: a stored chunk changed behind Mnemo's back is
// refused on read with a clear error; the worker cancels the job instead of
// crashing or storing garbage.
func TestTamperedChunkIsDetected(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtractWith(t, b, false, false)
			id := x.closeSession(t, "s-1", monaSession("u-1"))
			chunks, err := x.st.ListChunks(ctx, "s-1")
			if err != nil || len(chunks) == 0 {
				t.Fatal(err)
			}
			chunks[0].Ciphertext[len(chunks[0].Ciphertext)/2] ^= 0x01
			if err := x.st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				if _, err := tx.DeleteChunks(ctx, "s-1"); err != nil {
					return err
				}
				return tx.InsertChunks(ctx, chunks)
			}); err != nil {
				t.Fatal(err)
			}
			_, err = transcript.Load(ctx, x.st, x.deps.Keys, "s-1")
			if !errors.Is(err, seal.ErrTampered) || !strings.Contains(err.Error(), "s-1") {
				t.Fatalf("reading a tampered transcript: %v; want ErrTampered naming the session", err)
			}
			err = jobs.NewExtractWorker(x.deps).Work(ctx, &river.Job[queue.ExtractArgs]{
				JobRow: &rivertype.JobRow{ID: id, Attempt: 1, MaxAttempts: 5}, Args: queue.ExtractArgs{SessionID: "s-1"}})
			var cancel *rivertype.JobCancelError
			if !errors.As(err, &cancel) || !errors.Is(err, seal.ErrTampered) {
				t.Fatalf("worker on a tampered transcript returned %v; want a cancelled job", err)
			}
			// Not processed, and not left "closed" forever either: a chat
			// service polling the session sees that it ended.
			if s, _ := x.st.GetSession(ctx, "s-1"); s.Status != store.StatusFailed {
				t.Fatalf("session status %s; a tampered transcript must not be processed, and the session must say it failed", s.Status)
			}
		})
	}
}

// TestResummarizeAfterPromptChange: a new prompt version re-summarises the
// stored transcripts into summaries of that version; the old ones stay.
func TestResummarizeAfterPromptChange(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtract(t, b, false)
			req := monaSession("u-c")
			req.App = "coach"
			req.Messages[2].Content = "I will call my mentor this week. My goal is to speak up in meetings."
			x.waitJob(t, x.closeSession(t, "c-1", req))
			// The operator ships coach prompts v2 and back-fills.
			x.deps.Apps["coach"].PromptVersion = "coach-v2"
			ins, err := x.q.Insert(ctx, jobs.ResummarizeArgs{SessionID: "c-1", PromptVersion: "coach-v2"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			again, err := x.q.Insert(ctx, jobs.ResummarizeArgs{SessionID: "c-1", PromptVersion: "coach-v2"}, nil)
			if err != nil || !again.Duplicate {
				t.Fatalf("a second back-fill of the same version enqueued again: %+v, %v", again, err)
			}
			x.waitJob(t, ins.ID)
			sum, err := x.st.GetSummary(ctx, "c-1")
			if err != nil || sum.PromptVersion != "coach-v2" || !strings.Contains(string(sum.Data), "Call my mentor this week") {
				t.Fatalf("newest summary = %+v, %v; want the v2 summary", sum, err)
			}
		})
	}
}

// TestResummarizeNamesOnlyWhatIsStored (issue 22, item 2): a summary
// written again from the kept transcript after the user forgot a memory
// of the session neither names nor counts it.
func TestResummarizeNamesOnlyWhatIsStored(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtract(t, b, false)
			x.deps.Apps["mona"].Policy.TranscriptRetention = prompts.Duration(time.Hour)
			req := monaSession("u-r")
			req.Messages[2].Content = "I like bazzlefizz."
			x.waitJob(t, x.closeSession(t, "s-r", req))
			mems, err := x.st.ListMemories(ctx, "u-r", store.MemoryFilter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range mems {
				if m.Key != "likes:bazzlefizz" {
					continue
				}
				if err := x.st.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
					if err := tx.DeleteMemory(ctx, "u-r", m.ID); err != nil {
						return err
					}
					return tx.InsertMemoryChange(ctx, store.MemoryChange{MemoryID: m.ID, UserID: "u-r", Action: "forget", Actor: "user", At: time.Now().UTC(), Key: m.Key})
				}); err != nil {
					t.Fatal(err)
				}
			}
			x.deps.Apps["mona"].PromptVersion = "mona-v2"
			ins, err := x.q.Insert(ctx, jobs.ResummarizeArgs{SessionID: "s-r", PromptVersion: "mona-v2"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			x.waitJob(t, ins.ID)
			sum, err := x.st.GetSummary(ctx, "s-r")
			var doc map[string]any
			_ = json.Unmarshal(sum.Data, &doc)
			if err != nil || sum.PromptVersion != "mona-v2" || strings.Contains(string(sum.Data), "bazzlefizz") || doc["memories"] != float64(len(mems)-1) {
				t.Fatalf("summary written again = %s (%v); want the %d memories still stored, not the forgotten one", sum.Data, err, len(mems)-1)
			}
		})
	}
}
