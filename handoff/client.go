package handoff

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/seal"
	"github.com/mnemo-ai/mnemo/store"
)

// Client hands sessions over from a Go chat service that shares Mnemo's
// Postgres database, inside the service's own transactions: the session and
// its jobs commit or roll back with the service's writes. The database must
// have been migrated by a Mnemo worker (`worker migrate up`).
type Client struct {
	deps Deps
	now  func() time.Time
}

// ClientConfig configures a Client.
type ClientConfig struct {
	// EncryptionKey is the workers' MNEMO_ENCRYPTION_KEY: transcripts are
	// sealed before they reach the database.
	EncryptionKey string
	// AppsDir is the workers' MNEMO_APPS_DIR, if they use one.
	AppsDir string
	// Now reads the clock; nil is time.Now.
	Now func() time.Time
}

// NewClient builds a client over the service's pgx pool.
func NewClient(pool *pgxpool.Pool, cfg ClientConfig) (*Client, error) {
	if cfg.EncryptionKey == "" {
		return nil, fmt.Errorf("handoff client: EncryptionKey is required (the workers' MNEMO_ENCRYPTION_KEY)")
	}
	keys, err := seal.ParseKeys(cfg.EncryptionKey)
	if err != nil {
		return nil, fmt.Errorf("handoff client: %w", err)
	}
	apps, err := prompts.Load(cfg.AppsDir)
	if err != nil {
		return nil, fmt.Errorf("handoff client: %w", err)
	}
	// An insert-only River client: it enqueues, the workers work.
	q, err := queue.New(store.PostgresFromPool(pool), queue.Config{})
	if err != nil {
		return nil, fmt.Errorf("handoff client: %w", err)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Client{deps: Deps{Queue: q, Apps: apps, Keys: keys}, now: now}, nil
}

// CloseTx validates req and hands the session over inside tx. Errors are
// *ValidationError for a bad body, ErrDifferentBody for a session closed
// before with another body, or the database's.
func (c *Client) CloseTx(ctx context.Context, tx pgx.Tx, sessionID string, req Request) (Result, error) {
	now := c.now().UTC()
	if err := Validate(sessionID, &req, c.deps.Apps, now); err != nil {
		return Result{}, err
	}
	return Close(ctx, store.PgxTx(tx), c.deps, sessionID, req, now)
}
