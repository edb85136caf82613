// Package transcript keeps a session's messages at rest: sealed with the
// deployment's keyring into chunks the store holds, opened only in memory.
package transcript

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
)

// Store seals messages and stores them as the session's transcript chunks.
func Store(ctx context.Context, q store.Querier, keys *seal.Keyring, sessionID, userID string, msgs []extract.Message, now time.Time) error {
	plain, err := json.Marshal(msgs)
	if err != nil {
		return fmt.Errorf("encode transcript: %w", err)
	}
	sealed, err := keys.Seal(sessionID, plain, 0)
	if err != nil {
		return fmt.Errorf("seal transcript: %w", err)
	}
	chunks := make([]store.Chunk, len(sealed))
	for i, c := range sealed {
		chunks[i] = store.Chunk{SessionID: sessionID, Seq: c.Seq, UserID: userID, KeyID: c.KeyID, Nonce: c.Nonce,
			Ciphertext: c.Ciphertext, SHA256: c.SHA256, CreatedAt: now}
	}
	return q.InsertChunks(ctx, chunks)
}

// Load reads and opens a session's transcript; a session without
// one yields no messages.
func Load(ctx context.Context, q store.Querier, keys *seal.Keyring, sessionID string) ([]extract.Message, error) {
	chunks, err := q.ListChunks(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if len(chunks) == 0 {
		return nil, nil
	}
	sealed := make([]seal.Chunk, len(chunks))
	for i, c := range chunks {
		sealed[i] = seal.Chunk{Seq: c.Seq, KeyID: c.KeyID, Nonce: c.Nonce, Ciphertext: c.Ciphertext, SHA256: c.SHA256}
	}
	plain, err := keys.Open(sessionID, sealed)
	if err != nil {
		return nil, fmt.Errorf("open transcript of session %s: %w", sessionID, err)
	}
	var msgs []extract.Message
	if err := json.Unmarshal(plain, &msgs); err != nil {
		return nil, fmt.Errorf("decode transcript of session %s: %w", sessionID, err)
	}
	return msgs, nil
}

// SealMessage seals one buffered turn on its own: a rolling buffer grows a
// turn at a time and each turn must be readable without the others. The seal
// is bound to the session and the turn's position.
func SealMessage(keys *seal.Keyring, sessionID string, seq int, m extract.Message) (seal.Chunk, error) {
	plain, err := json.Marshal(m)
	if err != nil {
		return seal.Chunk{}, fmt.Errorf("encode turn: %w", err)
	}
	chunks, err := keys.Seal(bufferID(sessionID, seq), plain, len(plain)+1)
	if err != nil {
		return seal.Chunk{}, fmt.Errorf("seal turn: %w", err)
	}
	return chunks[0], nil
}

// OpenBuffer opens a session's buffered turns in order.
func OpenBuffer(ctx context.Context, q store.Querier, keys *seal.Keyring, sessionID string) ([]extract.Message, error) {
	buf, err := q.ListBuffer(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	out := make([]extract.Message, 0, len(buf))
	for _, b := range buf {
		plain, err := keys.Open(bufferID(sessionID, b.Seq), []seal.Chunk{{Seq: 0, KeyID: b.KeyID, Nonce: b.Nonce, Ciphertext: b.Ciphertext, SHA256: b.SHA256}})
		if err != nil {
			return nil, fmt.Errorf("open buffered turn %d of session %s: %w", b.Seq, sessionID, err)
		}
		var m extract.Message
		if err := json.Unmarshal(plain, &m); err != nil {
			return nil, fmt.Errorf("decode buffered turn %d of session %s: %w", b.Seq, sessionID, err)
		}
		out = append(out, m)
	}
	return out, nil
}

func bufferID(sessionID string, seq int) string { return fmt.Sprintf("%s/buffer/%d", sessionID, seq) }
