package batch

import (
	"context"

	"github.com/mnemo-ai/mnemo/store"
)

// Cursor is where a run of a ready-made batch stands: the last key of the
// last page it committed. The engine keeps it in the ledger row of the
// batch and period (store.BatchRun.Cursor), written by Env.Mark in the
// page's own transaction, so that a run killed mid-way and run again
// continues after the last page that committed, never before it (pages
// written twice) nor past it (pages lost).
type Cursor struct {
	// Kind is the declaring kind whose run it is (the engine fills it in;
	// a batch several kinds declare runs once per kind, in name order).
	Kind string `json:"kind,omitempty"`
	// App is the app the page belongs to (Env.Apps, in order).
	App string `json:"app"`
	// Step is the rule of a decay batch, by index, whose records the page
	// holds: a decay batch runs its rules in order over each app.
	Step int `json:"step,omitempty"`
	// User and Key are the last user of the page, and for a page of
	// records, the last record key of that user.
	User string `json:"user"`
	Key  string `json:"key,omitempty"`
}

// start is where a run over app's step begins: after user and key, or not
// at all (skip) when the run being resumed had passed it. Apps and steps
// run in order, so a resumed run skips those before its cursor's and runs
// those after from their beginning.
func (env Env) start(app string, step int) (user, key string, skip bool) {
	c := env.After
	switch {
	case c == nil || app > c.App:
		return "", "", false
	case app < c.App:
		return "", "", true
	case step < c.Step:
		return "", "", true
	case step > c.Step:
		return "", "", false
	}
	return c.User, c.Key, false
}

// mark records c in tx, the transaction of the page it ends.
func (env Env) mark(ctx context.Context, tx store.Tx, c Cursor) error {
	if env.Mark == nil {
		return nil
	}
	return env.Mark(ctx, tx, c)
}
