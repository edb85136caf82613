package views

import (
	"context"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/store"
)

// PageFunc builds the sections of a user's page for one page layout
// (extract.View.Page). It reads what it shows through p; the shell around
// the sections (title, heading, the facts at the top, who may see the
// page) is this package's.
type PageFunc func(p *UserPage, ctx context.Context) ([]Section, error)

// userPages holds the page builders by layout (RegisterPage).
var userPages = map[string]PageFunc{}

// RegisterPage makes build the builder of the page layout named layout,
// the extract.View.Page a kind chooses. A kind's package calls it from its
// init function, beside its extract.Register; registering a layout twice
// panics, as registering a kind twice does.
func RegisterPage(layout string, build PageFunc) {
	if layout == "" || build == nil {
		panic("views: RegisterPage needs a layout and a builder")
	}
	if _, dup := userPages[layout]; dup {
		panic("views: page layout " + strconv.Quote(layout) + " registered twice")
	}
	userPages[layout] = build
}

// UserPage is what a page builder reads: the user, their sessions, the
// store, the user's time zone and the instant the page is for.
type UserPage struct {
	h        *Handler
	Store    store.Store
	User     store.User
	Loc      *time.Location
	Now      time.Time
	Sessions []store.Session // oldest first
}

// Kind is the user's app kind (nil for an app that is not configured).
func (x *UserPage) Kind() extract.Kind { return x.h.kindOf(x.User.App) }

// AfterBatch is an empty state's sentence: what appears after which batch
// runs, with its schedule and next run in the user's zone.
func (x *UserPage) AfterBatch(what, batch string, loc *time.Location) string {
	return x.h.afterBatch(what, batch, loc)
}

// NextRun is the batch's next run in loc, "" when it is not scheduled.
func (x *UserPage) NextRun(batch string, loc *time.Location) string { return x.h.nextRun(batch, loc) }

// DecayPolicy is the decay policy the worker runs with, as configured
// (zero fields mean decay's defaults).
func (x *UserPage) DecayPolicy() decay.Policy { return x.h.cfg.Decay }

// Num prints a chart value: a whole number without decimals, else with
// as few as it needs.
func Num(v float64) string { return num(v) }

// Signed prints a change with its sign.
func Signed(v float64) string { return signed(v) }

// WeekLabel prints a week_ending date as "Sun 22 Nov".
func WeekLabel(week string) string {
	t, err := time.Parse(time.DateOnly, week)
	if err != nil {
		return week
	}
	return t.Format("Mon 2 Jan")
}

// CmpOr is the first non-empty string.
func CmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// PctOf prints a rate as a percentage.
func PctOf(v float64) string { return strconv.FormatFloat(v*100, 'f', 0, 64) + "%" }

// OrDash is s, or "–" when it is empty.
func OrDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// kindLabel is how a message names an app kind: its registered name with
// a capital.
func kindLabel(name string) string {
	r, n := utf8.DecodeRuneInString(name)
	return string(unicode.ToUpper(r)) + name[n:]
}
