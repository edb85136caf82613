// Package batch declares Mnemo's scheduled batches, each once, as a Batch:
// its name, its default schedule, the computation it runs, what it reads
// (so that late data marks it dirty) and which batches read its output. A
// kind declares the batches that run over its data (Declarer); the engine
// declares its own (memory TTL, buffer cleanup, session expiry, retention)
// the same way in package jobs, which schedules them all, keeps the ledger
// and runs them on River.
//
// The package also holds what the computations share: paging an app's
// users with their sessions (StreamUsers), encoding one user's result
// (EncodeUser), leaving out a user whose data cannot be read (Skipped,
// Guard), bounded steps (Drain) and paging records through a rule (Decay).
// The ready-made batches over aggregate/ and decay/ (WeeklyAnalytics,
// Trends, Insights, Decays) are constructors here that a kind lists.
package batch

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/schedule"
	"github.com/mnemo-ai/mnemo/store"
)

// Batch is one scheduled batch, as River declares a PeriodicJob: what runs,
// and when when the operator does not say.
type Batch struct {
	// Name names the batch in the ledger, in `batch run NAME`, in the
	// metrics and in its schedule setting (MNEMO_SCHEDULE_<NAME>, with
	// dashes as underscores).
	Name string
	// Spec is the default schedule, "[CRON_TZ=Zone] cron spec[; latest|all
	// WINDOW|skip]": the format the operator overrides it in
	// (schedule.ParseLine).
	Spec string
	// Run does one period's work and returns the rows it touched. It writes
	// by idempotent upsert or delete, so that a re-run recomputes the
	// period. A kind's batch runs once per declaring kind, over env.Apps,
	// that kind's configured apps; a user whose data it cannot read is
	// skipped (Skipped, Guard), never the run.
	Run func(ctx context.Context, env Env, p schedule.Period, now time.Time) (rows int64, err error)
	// Reads is what of the declaring kinds' data a run reads, so that data
	// arriving after a run that should have covered it marks the run dirty.
	// The zero value reads nothing a session changes: the engine's own
	// tables, or another batch's output (see Feeds).
	Reads Reads
	// LatestOnly: a run is the user's latest state, not a record of its
	// period (trends), so a late session re-runs the newest run only, never
	// the earlier periods it falls in.
	LatestOnly bool
	// Feeds names the batches that read this one's output (weekly analytics
	// feed insights): when a period of this batch runs again, the period of
	// the same name of each is marked dirty, and a dirty period of each
	// waits while this batch's period is queued or running.
	Feeds []string
}

// Reads is what a batch reads of its declaring kinds' data.
type Reads struct {
	// Sessions, when not nil, says the batch reads the sessions of its
	// kinds' apps: a session that ends after a run that should have covered
	// it marks that run dirty (handoff.MarkLateSession). It returns the
	// earliest end of a session a run of p at now reads; a dirty period
	// waits, for at most an hour, while sessions that ended from then until
	// its scheduled instant are not processed yet.
	Sessions func(p schedule.Period, now time.Time) time.Time
}

// ReadsSessions reports whether late sessions mark the batch dirty.
func (b Batch) ReadsSessions() bool { return b.Reads.Sessions != nil }

// Env is what one Run needs.
type Env struct {
	Store store.Store
	// Apps are the configured apps the run is for, sorted: those whose kind
	// declares the batch, or every configured app for the engine's batches.
	Apps []string
	// Rows is how many rows one bounded transaction touches.
	Rows int
	// Decay is the policy the decay rules apply; zero fields take decay's
	// defaults.
	Decay decay.Policy
	// InsightsK suppresses insight groups of fewer users.
	InsightsK int
	// After, when not nil, is where an earlier run of the same period
	// stopped (killed after a page committed): the ready-made batches that
	// page users or records (weekly analytics, trends, the decays) continue
	// after it. Nil: from the beginning.
	After *Cursor
	// Mark, when not nil, records where the run stands in tx, the
	// transaction that writes a page, after that page's writes: the ledger
	// keeps it, so that a run after a kill continues there (After).
	Mark func(ctx context.Context, tx store.Tx, c Cursor) error
}

// rows is env.Rows, or 1000 when unset.
func (env Env) rows() int { return cmp.Or(env.Rows, 1000) }

// userPage is how many users one page of weekly analytics or trends holds:
// 500 (pageSize), or env.Rows when smaller.
func (env Env) userPage() int { return min(pageSize, env.rows()) }

// Declarer is implemented by a kind that runs batches over its data. A
// kind lists ready-made batches (WeeklyAnalytics, Trends, Insights,
// Decays) or its own; the same name declared by several kinds is one batch
// with one schedule, run for each of them.
type Declarer interface {
	Batches() []Batch
}

// Of lists the batches kind k declares; none for a kind that declares none.
func Of(k extract.Kind) []Batch {
	if d, ok := k.(Declarer); ok && k != nil {
		return d.Batches()
	}
	return nil
}

// Declaration is one batch as the engine schedules it: its declaration, and
// who declared it.
type Declaration struct {
	Batch
	// Kinds are the kinds that declare the batch, sorted, each with its own
	// Run; empty for an engine batch.
	Kinds []KindRun
}

// KindRun is one kind's declaration of a batch.
type KindRun struct {
	Kind string
	Run  func(ctx context.Context, env Env, p schedule.Period, now time.Time) (int64, error)
}

// Engine reports whether the engine, not a kind, declared the batch.
func (d Declaration) Engine() bool { return len(d.Kinds) == 0 }

// Registry is every batch: the registered kinds' and the engine's.
type Registry struct {
	list []Declaration
	by   map[string]int
}

// Collect reads the batches every registered kind declares (extract's
// registry) and adds the engine's. A name declared by several kinds is
// one batch: their declarations must agree on its Spec, LatestOnly and
// Feeds. The list is in a stable order: the ready-made batches in the
// order of this package, then the kinds' own by name, then the engine's
// in the order given.
func Collect(engine ...Batch) (*Registry, error) {
	names := extract.KindNames()
	kinds := make([]extract.Kind, len(names))
	for i, name := range names {
		kinds[i] = extract.KindOf(name)
	}
	return collect(kinds, engine)
}

// collect is Collect over the kinds given, sorted by name.
func collect(ks []extract.Kind, engine []Batch) (*Registry, error) {
	r := &Registry{by: map[string]int{}}
	var kinds []Declaration
	for _, k := range ks {
		name := k.Name()
		for _, b := range Of(k) {
			if err := check(b); err != nil {
				return nil, fmt.Errorf("kind %s: %w", name, err)
			}
			i := slices.IndexFunc(kinds, func(d Declaration) bool { return d.Name == b.Name })
			if i < 0 {
				kinds = append(kinds, Declaration{Batch: b})
				i = len(kinds) - 1
			} else if err := agree(kinds[i], b, name); err != nil {
				return nil, err
			}
			kinds[i].Kinds = append(kinds[i].Kinds, KindRun{Kind: name, Run: b.Run})
		}
	}
	slices.SortStableFunc(kinds, func(a, b Declaration) int {
		ra, rb := rank(a.Name), rank(b.Name)
		if ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, d := range kinds {
		r.add(d)
	}
	for _, b := range engine {
		if err := check(b); err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		if i, dup := r.by[b.Name]; dup {
			return nil, fmt.Errorf("batch %s: declared by the engine and by kind %s", b.Name, r.list[i].Kinds[0].Kind)
		}
		r.add(Declaration{Batch: b})
	}
	for _, d := range r.list {
		for _, f := range d.Feeds {
			if _, ok := r.by[f]; !ok {
				return nil, fmt.Errorf("batch %s feeds %q, which no kind or the engine declares", d.Name, f)
			}
		}
	}
	return r, nil
}

func (r *Registry) add(d Declaration) {
	r.by[d.Name] = len(r.list)
	r.list = append(r.list, d)
}

// check refuses a declaration without a name, a schedule or a computation.
func check(b Batch) error {
	switch {
	case b.Name == "":
		return fmt.Errorf("a batch without a name")
	case b.Spec == "":
		return fmt.Errorf("batch %s: no default schedule (Spec)", b.Name)
	case b.Run == nil:
		return fmt.Errorf("batch %s: nothing to run (Run)", b.Name)
	}
	return nil
}

// agree refuses a second kind's declaration of a batch that says otherwise
// than the first of when it runs or what the late data rules do.
func agree(d Declaration, b Batch, kind string) error {
	first := d.Kinds[0].Kind
	switch {
	case d.Spec != b.Spec:
		return fmt.Errorf("batch %s: kinds %s and %s declare different schedules (%q, %q)", b.Name, first, kind, d.Spec, b.Spec)
	case d.LatestOnly != b.LatestOnly:
		return fmt.Errorf("batch %s: kinds %s and %s disagree on LatestOnly", b.Name, first, kind)
	case !slices.Equal(d.Feeds, b.Feeds):
		return fmt.Errorf("batch %s: kinds %s and %s declare different Feeds (%v, %v)", b.Name, first, kind, d.Feeds, b.Feeds)
	case d.ReadsSessions() != b.ReadsSessions():
		return fmt.Errorf("batch %s: kinds %s and %s disagree on whether it reads sessions", b.Name, first, kind)
	}
	return nil
}

// List is every batch, in the registry's order.
func (r *Registry) List() []Declaration { return r.list }

// Names are the batches' names, in the registry's order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.list))
	for i, d := range r.list {
		out[i] = d.Name
	}
	return out
}

// Get is the batch named name.
func (r *Registry) Get(name string) (Declaration, bool) {
	i, ok := r.by[name]
	if !ok {
		return Declaration{}, false
	}
	return r.list[i], true
}

// FedBy lists the batches whose output the batch named name reads (their
// Feeds name it), in the registry's order.
func (r *Registry) FedBy(name string) []string {
	var out []string
	for _, d := range r.list {
		if slices.Contains(d.Feeds, name) {
			out = append(out, d.Name)
		}
	}
	return out
}

// Declares reports whether kind k declares the batch named name.
func Declares(k extract.Kind, name string) bool {
	return slices.ContainsFunc(Of(k), func(b Batch) bool { return b.Name == name })
}
