package main

import (
	"strings"
	"testing"
	"time"
)

// MNEMO_PG_POOLER=transaction needs Postgres, derives a 200 ms poll (River
// polls only) unless one is set, and refuses values it does not know.
func TestPGPoolerSetting(t *testing.T) {
	t.Parallel()
	pg := map[string]string{"DATABASE_URL": "postgres://mnemo@127.0.0.1:5432/mnemo"}
	c, err := configOf(t, pg)
	if err != nil || c.PGPooler != PoolerNone || c.PollInterval != time.Second {
		t.Fatalf("default: pooler %q, poll %s, %v; want none and 1s", c.PGPooler, c.PollInterval, err)
	}
	c, err = configOf(t, pg, "--pg-pooler", "transaction")
	if err != nil || c.PGPooler != PoolerTransaction || c.PollInterval != 200*time.Millisecond || c.Tuning.Source["poll-interval"] != fromMachine {
		t.Fatalf("transaction: pooler %q, poll %s (%s), %v; want transaction and a derived 200ms", c.PGPooler, c.PollInterval, c.Tuning.Source["poll-interval"], err)
	}
	c, err = configOf(t, map[string]string{"DATABASE_URL": pg["DATABASE_URL"], "MNEMO_PG_POOLER": "transaction", "MNEMO_POLL_INTERVAL": "50ms"})
	if err != nil || c.PollInterval != 50*time.Millisecond {
		t.Fatalf("transaction with a poll set: %s, %v; want 50ms", c.PollInterval, err)
	}
	for _, bad := range []map[string]string{
		{"DATABASE_URL": pg["DATABASE_URL"], "MNEMO_PG_POOLER": "statement"},
		{"MNEMO_PG_POOLER": "transaction"}, // SQLite has no pooler
	} {
		if _, err := configOf(t, bad); err == nil || !strings.Contains(err.Error(), "MNEMO_PG_POOLER") {
			t.Errorf("%v: %v; want an error naming MNEMO_PG_POOLER", bad, err)
		}
	}
}
