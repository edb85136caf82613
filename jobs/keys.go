package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mnemo-ai/mnemo/queue"

	"github.com/riverqueue/river"

	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
)

// RewrapArgs re-encrypts stored transcripts under the newest key, a page at a
// time, after a key rotation (MNEMO_ENCRYPTION_KEY gained a new last key).
type RewrapArgs struct {
	// KeyID is the key to rewrap under; a job for an older primary is done.
	KeyID string `json:"key_id"`
}

// Kind is the River job kind.
func (RewrapArgs) Kind() string { return "rewrap" }

// InsertOpts keeps one rewrap per key.
func (RewrapArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queue.QueueBatch, MaxAttempts: 10, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// RewrapWorker rewraps transcripts sealed under older keys.
type RewrapWorker struct {
	river.WorkerDefaults[RewrapArgs]
	deps *Deps
}

// Work rewraps every transcript not under the primary key, one session per
// transaction.
func (w *RewrapWorker) Work(ctx context.Context, job *river.Job[RewrapArgs]) error {
	n, err := Rewrap(ctx, w.deps)
	w.deps.log().InfoContext(ctx, "rewrapped transcripts", slog.Int64("sessions", n), slog.String("key_id", w.deps.Keys.PrimaryID()))
	if err != nil {
		return err
	}
	// Derived data sealed under seal_derived (summaries, profiles, their
	// history, display names) moves to the new key too.
	if r, ok := w.deps.Store.(store.Resealer); ok {
		m, err := r.ResealDerived(ctx)
		w.deps.log().InfoContext(ctx, "resealed derived data", slog.Int64("values", m), slog.String("key_id", w.deps.Keys.PrimaryID()))
		return err
	}
	return nil
}

// Rewrap re-encrypts every stored transcript that is not under the
// keyring's primary key and returns how many sessions it rewrapped.
func Rewrap(ctx context.Context, d *Deps) (int64, error) {
	primary := d.Keys.PrimaryID()
	var done int64
	for {
		ids, err := d.Store.SessionsWithOldKeys(ctx, primary, 100)
		if err != nil {
			return done, err
		}
		if len(ids) == 0 {
			return done, nil
		}
		for _, id := range ids {
			err := d.Store.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
				chunks, err := tx.ListChunks(ctx, id)
				if err != nil || len(chunks) == 0 {
					return err
				}
				sealed := make([]seal.Chunk, len(chunks))
				for i, c := range chunks {
					sealed[i] = seal.Chunk{Seq: c.Seq, KeyID: c.KeyID, Nonce: c.Nonce, Ciphertext: c.Ciphertext, SHA256: c.SHA256}
				}
				fresh, err := d.Keys.Rewrap(id, sealed)
				if err != nil {
					return fmt.Errorf("rewrap session %s: %w", id, err)
				}
				if _, err := tx.DeleteChunks(ctx, id); err != nil {
					return err
				}
				out := make([]store.Chunk, len(fresh))
				for i, c := range fresh {
					out[i] = store.Chunk{SessionID: id, Seq: c.Seq, UserID: chunks[0].UserID, KeyID: c.KeyID, Nonce: c.Nonce,
						Ciphertext: c.Ciphertext, SHA256: c.SHA256, CreatedAt: chunks[0].CreatedAt}
				}
				return tx.InsertChunks(ctx, out)
			})
			if errors.Is(err, seal.ErrUnknownKey) || errors.Is(err, seal.ErrTampered) {
				// A transcript that cannot be opened cannot be rewrapped; say so and go on.
				d.log().ErrorContext(ctx, "transcript not rewrapped", slog.String("session_id", id), slog.String("error", err.Error()))
				continue
			}
			if err != nil {
				return done, err
			}
			done++
		}
		if len(ids) < 100 {
			return done, nil
		}
	}
}
