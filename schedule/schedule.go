package schedule

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"time"
	"unicode"

	"github.com/robfig/cron/v3"
)

// ErrInvalidSpec is returned by Parse for a cron spec that cannot be used.
var ErrInvalidSpec = errors.New("invalid cron spec")

// Spec is a parsed batch schedule.
type Spec struct {
	// Name is the batch's name, such as weekly-analytics.
	Name string
	// Expr is the cron spec without its CRON_TZ= prefix, its fields separated
	// by single spaces, such as "0 0 * * 0" or "@daily".
	Expr string
	// Zone is the zone the spec runs in; UTC when the spec names none.
	Zone *time.Location
	// Policy says which missed periods run.
	Policy Policy
	// Window bounds catching up: All runs only missed periods at most Window
	// before now, and without a ledger row only periods at or after the
	// scheduler's first start minus Window count.
	Window time.Duration
	// Weekly is true when the spec fires exactly once a week; its periods are
	// then named by their week_ending date.
	Weekly bool
}

// Schedule is a batch's parsed spec. It is immutable and safe for
// concurrent use.
type Schedule struct {
	spec Spec
	cron *cron.SpecSchedule
	// fixed is true when neither the minute nor the hour field is a
	// wildcard; see the package documentation on daylight saving time.
	fixed bool
}

const (
	// WeekEnd is the weekday that ends the week a weekly batch's period is
	// named by.
	WeekEnd = time.Sunday

	// searchYears bounds how far Next looks ahead. Every spec Parse accepts
	// fires within eight years (29 February skips 2100).
	searchYears = 12
	// maxSteps bounds Next's loop over candidate instants it has to pass
	// over, such as the repeats of a fall-back hour.
	maxSteps = 100_000
	// starBit is robfig's marker for a field written as * or ?.
	starBit = 1 << 63
)

// prevSpans are the look-back spans Prev tries in turn, sized for specs that
// fire hourly, daily, weekly, monthly, yearly and on 29 February.
var prevSpans = []time.Duration{
	2 * time.Hour,
	50 * time.Hour,
	8*24*time.Hour + 2*time.Hour,
	33 * 24 * time.Hour,
	400 * 24 * time.Hour,
	1500 * 24 * time.Hour,
	3000 * 24 * time.Hour,
}

var fieldNames = []string{"minute", "hour", "day of month", "month", "day of week"}

// Parse parses a batch's cron spec and catch-up policy. The error names the
// batch and what is wrong, and wraps ErrInvalidSpec or ErrInvalidPolicy.
func Parse(name, expr string, policy Policy, window time.Duration) (*Schedule, error) {
	if strings.TrimSpace(name) == "" {
		return nil, fmt.Errorf("%w %q: the batch has no name", ErrInvalidSpec, expr)
	}
	if err := policy.validate(); err != nil {
		return nil, batchErrorf(name, "%w", err)
	}
	switch {
	case window < 0:
		return nil, batchErrorf(name, "%w: window %s is negative", ErrInvalidPolicy, window)
	case policy == All && window == 0:
		return nil, batchErrorf(name, "%w: policy all needs a positive window", ErrInvalidPolicy)
	}
	s, err := parseExpr(expr)
	if err != nil {
		return nil, batchErrorf(name, "%w %q: %s", ErrInvalidSpec, expr, err.Error())
	}
	s.spec.Name = name
	s.spec.Policy = policy
	s.spec.Window = window
	// A safety net behind neverFires: a spec must fire from some instant on.
	if s.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero() {
		return nil, batchErrorf(name, "%w %q: never fires", ErrInvalidSpec, expr)
	}
	return s, nil
}

// parseExpr parses expr into a Schedule whose Name, Policy and Window are
// left empty. Its errors are plain reasons for Parse to wrap.
func parseExpr(expr string) (s *Schedule, err error) {
	rest := strings.TrimSpace(expr)
	if rest == "" {
		return nil, errors.New("the spec is empty")
	}
	zone := time.UTC
	if after, ok := cutZonePrefix(rest); ok {
		zoneName := after
		rest = ""
		if i := strings.IndexFunc(after, unicode.IsSpace); i >= 0 {
			zoneName, rest = after[:i], strings.TrimSpace(after[i:])
		}
		if zone, err = loadZone(zoneName); err != nil {
			return nil, err
		}
		if rest == "" {
			return nil, fmt.Errorf("time zone %s is not followed by a schedule", zoneName)
		}
		if _, ok := cutZonePrefix(rest); ok {
			return nil, errors.New("more than one time zone")
		}
	}
	fields := strings.Fields(rest)
	if strings.HasPrefix(rest, "@every") {
		return nil, errors.New("@every is not supported: its instants depend on when the process started, so they cannot name a period; use a calendar spec such as @hourly or */30 * * * *")
	}
	sched, err := parseCron(rest)
	if err != nil {
		if len(fields) == 5 {
			// robfig does not say which field it did not like; find it.
			for i, f := range fields {
				probe := []string{"*", "*", "*", "*", "*"}
				probe[i] = f
				if _, ferr := parseCron(strings.Join(probe, " ")); ferr != nil {
					hint := ""
					if i == 4 {
						hint = " (days of week are 0-6 or sun-sat; Sunday is 0)"
					}
					return nil, fmt.Errorf("%s field %q: %s%s", fieldNames[i], f, ferr.Error(), hint)
				}
			}
		}
		return nil, err
	}
	spec, ok := sched.(*cron.SpecSchedule)
	if !ok {
		return nil, fmt.Errorf("unsupported schedule type %T", sched)
	}
	spec.Location = zone
	s = &Schedule{
		spec: Spec{
			Expr: strings.Join(fields, " "),
			Zone: zone,
		},
		cron: spec,
	}
	if strings.HasPrefix(rest, "@") {
		s.fixed = rest != "@hourly"
	} else {
		s.fixed = !strings.ContainsAny(fields[0]+fields[1], "*?")
	}
	if len(fields) == 5 && neverFires(spec) {
		return nil, fmt.Errorf("never fires: day of month %q does not occur in month %q", fields[2], fields[3])
	}
	s.spec.Weekly = isWeekly(spec)
	return s, nil
}

// parseCron calls robfig's standard parser, turning any panic into an
// error: robfig v3.0.1 panics on some malformed zone prefixes, and this
// package must never take a worker down over a bad spec.
func parseCron(expr string) (sched cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			sched, err = nil, fmt.Errorf("malformed spec (%v)", r)
		}
	}()
	return cron.ParseStandard(expr)
}

func cutZonePrefix(s string) (string, bool) {
	if after, ok := strings.CutPrefix(s, "CRON_TZ="); ok {
		return after, true
	}
	return strings.CutPrefix(s, "TZ=")
}

func loadZone(name string) (*time.Location, error) {
	switch name {
	case "":
		return nil, errors.New("empty time zone")
	case "Local":
		return nil, errors.New("time zone Local depends on the machine; name a zone such as UTC or Europe/Berlin")
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q", name)
	}
	return loc, nil
}

// neverFires reports whether no month of the spec has any of its days of
// month, as in "0 0 31 2 *". With a restricted day of week as well, cron
// fires on either, so such a spec always fires.
func neverFires(c *cron.SpecSchedule) bool {
	if c.Dom&starBit == 0 && c.Dow&starBit == 0 {
		return false
	}
	maxDay := [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	for m := 1; m <= 12; m++ {
		if c.Month&(1<<m) == 0 {
			continue
		}
		for d := 1; d <= maxDay[m]; d++ {
			if c.Dom&(1<<d) != 0 {
				return false
			}
		}
	}
	return true
}

// isWeekly reports whether the spec fires exactly once a week: one minute,
// one hour, one weekday, any day of month and any month.
func isWeekly(c *cron.SpecSchedule) bool {
	const months = 0b1_1111_1111_1110 // bits 1 to 12
	return ones(c.Minute) == 1 && ones(c.Hour) == 1 && ones(c.Dow) == 1 &&
		c.Dom&starBit != 0 && c.Month&months == months
}

func ones(b uint64) int { return bits.OnesCount64(b &^ starBit) }

// Spec returns the parsed spec.
func (s *Schedule) Spec() Spec { return s.spec }

// String returns the spec and its zone, such as "0 0 * * 0 in UTC".
func (s *Schedule) String() string {
	return s.spec.Expr + " in " + s.spec.Zone.String()
}

// Next returns the first scheduled instant strictly after after, in UTC,
// or the zero time if there is none within twelve years.
//
// robfig/cron matches wall-clock time while stepping through a zone, and
// loses or doubles runs where the zone's offset changes (see
// TestDSTRobfigAlone); with zones whose clocks move by half an hour it even
// skips whole days. So Next asks robfig only within one stretch of constant
// offset at a time, as if the zone were fixed there, and handles the seams
// between stretches itself: the rules are in the package documentation.
func (s *Schedule) Next(after time.Time) time.Time {
	zone := s.spec.Zone
	limit := after.AddDate(searchYears, 0, 0)
	// probe lies in the stretch being searched; from is the exclusive lower
	// bound of the search, which may lie just before the stretch.
	probe, from := after, after
	for range maxSteps {
		if from.After(limit) {
			break
		}
		local := probe.In(zone)
		start, end := local.ZoneBounds()
		_, off := local.Zone()
		if s.fixed && !start.IsZero() {
			// After a fall-back, the first wall-clock times of this stretch
			// already happened at the end of the previous one; the first
			// occurrence ran.
			_, prevOff := start.Add(-time.Nanosecond).In(zone).Zone()
			if back := time.Duration(prevOff-off) * time.Second; back > 0 {
				if rerun := start.Add(back).Add(-time.Nanosecond); rerun.After(from) {
					from = rerun
				}
			}
		}
		fixed := *s.cron
		fixed.Location = time.FixedZone("", off)
		c := fixed.Next(skipSeconds(from, off)) // robfig gives up after five years: zero
		switch {
		case !c.IsZero() && (end.IsZero() || c.Before(end)):
			return c.UTC()
		case c.IsZero() && (end.IsZero() || from.AddDate(5, 0, 0).Before(end)):
			from = from.AddDate(5, 0, 0)
			probe = from
			continue
		case end.IsZero():
			return time.Time{}
		}
		// Nothing left in this stretch. A fixed-time spec whose local time
		// the jump to the next stretch skipped runs at the jump.
		if _, nextOff := end.In(zone).Zone(); s.fixed && nextOff > off && s.skippedMatch(end, off, nextOff) {
			return end.UTC()
		}
		probe, from = end, end.Add(-time.Nanosecond)
	}
	return time.Time{}
}

// skipSeconds moves t, at offset off, to second 59 of its wall-clock
// minute when that is later. Instants are whole wall-clock minutes, so none
// is passed over, and robfig, which looks for the next instant one second at
// a time before it moves by minutes, has fewer seconds to step through.
func skipSeconds(t time.Time, off int) time.Time {
	w := t.In(time.FixedZone("", off))
	if d := time.Duration(59-w.Second())*time.Second - time.Duration(w.Nanosecond()); d > 0 {
		return t.Add(d)
	}
	return t
}

// Prev returns the latest scheduled instant at or before atOrBefore, in UTC.
// It looks back at most about eight years and reports false if it finds none.
func (s *Schedule) Prev(atOrBefore time.Time) (time.Time, bool) {
	t := atOrBefore
	for _, span := range prevSpans {
		x := s.Next(t.Add(-span))
		if x.IsZero() || x.After(t) {
			continue
		}
		// x is an instant at or before t, and none lies in (hi, t]. Until x
		// is the last one, halve the stretch after x that may hold the last.
		hi := t
		for {
			y := s.Next(x)
			if y.IsZero() || y.After(hi) {
				return x, true
			}
			mid := y.Add(hi.Sub(y) / 2)
			if m := s.Next(mid); !m.IsZero() && !m.After(hi) {
				x = m
			} else {
				x, hi = y, mid
			}
		}
	}
	return time.Time{}, false
}

// matchesWall reports whether a local wall-clock time matches the spec.
func (s *Schedule) matchesWall(month time.Month, day int, wd time.Weekday, hour, minute int) bool {
	c := s.cron
	if c.Month&(1<<uint(month)) == 0 || c.Hour&(1<<uint(hour)) == 0 || c.Minute&(1<<uint(minute)) == 0 {
		return false
	}
	dom := c.Dom&(1<<uint(day)) != 0
	dow := c.Dow&(1<<uint(wd)) != 0
	if c.Dom&starBit != 0 || c.Dow&starBit != 0 {
		return dom && dow
	}
	return dom || dow
}

// skippedMatch reports whether a local time the spec matches lies in the
// wall-clock gap a transition at t from offset off to nextOff skipped.
func (s *Schedule) skippedMatch(t time.Time, off, nextOff int) bool {
	// Local wall-clock times as if they were UTC, so that adding minutes
	// walks the civil clock.
	start := t.UTC().Add(time.Duration(off) * time.Second)
	end := start.Add(min(time.Duration(nextOff-off)*time.Second, 48*time.Hour))
	m := start.Truncate(time.Minute)
	if m.Before(start) {
		m = m.Add(time.Minute)
	}
	for ; m.Before(end); m = m.Add(time.Minute) {
		if s.matchesWall(m.Month(), m.Day(), m.Weekday(), m.Hour(), m.Minute()) {
			return true
		}
	}
	return false
}

// BatchError is a schedule refused for one batch: Batch names the batch,
// Err says what is wrong (it wraps ErrInvalidSpec or ErrInvalidPolicy).
// Find it with errors.As, not by reading the error's text.
type BatchError struct {
	Batch string
	Err   error
}

func (e *BatchError) Error() string { return "batch " + e.Batch + ": " + e.Err.Error() }

func (e *BatchError) Unwrap() error { return e.Err }

func batchErrorf(name, format string, args ...any) error {
	return &BatchError{Batch: name, Err: fmt.Errorf(format, args...)}
}
