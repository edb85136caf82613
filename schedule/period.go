package schedule

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

const (
	// SkipGrace is how late a period of a Skip batch may be found and still
	// run: a little more than the scheduler's tick.
	SkipGrace = 2 * time.Minute
	// MaxDue caps the periods one call to Due returns under All; when more
	// are missed, the newest MaxDue run and older ones are left out.
	MaxDue = 1000
)

// ErrNoSuchPeriod is returned by PeriodByName for a name that is not a
// period of the batch.
var ErrNoSuchPeriod = errors.New("no such period")

// Period is one run of a batch: the batch's name and one scheduled instant.
type Period struct {
	// Batch is the batch's name.
	Batch string
	// At is the scheduled instant, in UTC.
	At time.Time
	// Name identifies the period to operators and in the ledger: At in RFC
	// 3339 in the batch's zone with that zone's offset, or for a weekly
	// batch the week_ending date.
	Name string
	// WeekEnding is, for a weekly batch, the Sunday (YYYY-MM-DD, in the
	// batch's zone) that ends the latest Monday-to-Sunday week complete at
	// At; empty for other batches.
	WeekEnding string
}

// Period returns the period of the scheduled instant at. It does not check
// that at is one; PeriodByName does.
func (s *Schedule) Period(at time.Time) Period {
	p := Period{
		Batch: s.spec.Name,
		At:    at.UTC(),
		Name:  at.In(s.spec.Zone).Format(time.RFC3339),
	}
	if s.spec.Weekly {
		p.WeekEnding = completedWeek(at, s.spec.Zone)
		p.Name = p.WeekEnding
	}
	return p
}

// Due returns the periods to enqueue now, oldest first.
//
// last is the scheduled instant of the newest period already in the ledger,
// nil when there is none; firstStart is when the scheduler first ran for the
// batch. Every scheduled instant t with last < t ≤ now is missed or due;
// without a ledger row, only instants at or after firstStart − Window count,
// so a new deployment does not back-fill years. Of those, Latest returns the
// newest; All returns those at or after now − Window, at most MaxDue, the
// newest kept; Skip returns the newest only if it is at most SkipGrace
// before now.
//
// Calling Due again with last set to the newest period it returned returns
// nothing until the next scheduled instant passes.
func (s *Schedule) Due(last *time.Time, now, firstStart time.Time) []Period {
	var after time.Time // exclusive lower bound
	if last != nil {
		after = *last
	} else {
		after = firstStart.Add(-s.spec.Window).Add(-time.Nanosecond)
	}
	var at []time.Time
	switch s.spec.Policy {
	case All:
		if lo := now.Add(-s.spec.Window).Add(-time.Nanosecond); lo.After(after) {
			after = lo
		}
		at = s.Between(after, now, MaxDue)
	case Latest, Skip:
		t, ok := s.Prev(now)
		if !ok || !t.After(after) || s.spec.Policy == Skip && now.Sub(t) > SkipGrace {
			break
		}
		at = []time.Time{t}
	}
	out := make([]Period, 0, len(at))
	for _, t := range at {
		out = append(out, s.Period(t))
	}
	return out
}

// Between returns the scheduled instants t with after < t ≤ until, in UTC,
// oldest first; when there are more than limit, only the newest limit.
func (s *Schedule) Between(after, until time.Time, limit int) []time.Time {
	var out []time.Time
	for cur := until; len(out) < limit; {
		t, ok := s.Prev(cur)
		if !ok || !t.After(after) {
			break
		}
		out = append(out, t)
		cur = t.Add(-time.Nanosecond)
	}
	slices.Reverse(out)
	return out
}

// PeriodByName parses an operator's period name: an RFC 3339 instant with
// any offset, or for a weekly batch also a week_ending date (YYYY-MM-DD).
// It refuses names that are not a scheduled instant of the batch, naming the
// nearest ones. The error wraps ErrNoSuchPeriod.
func PeriodByName(s *Schedule, name string) (Period, error) {
	if d, err := time.Parse(time.DateOnly, name); err == nil {
		return s.weekPeriod(name, d)
	}
	t, err := time.Parse(time.RFC3339, name)
	if err != nil {
		want := "an RFC 3339 instant such as 2026-03-29T03:00:00+02:00"
		if s.spec.Weekly {
			want += " or a week_ending date such as 2026-03-29"
		}
		return Period{}, fmt.Errorf("%w %q of %s: want %s", ErrNoSuchPeriod, name, s.spec.Name, want)
	}
	if p, ok := s.Prev(t); ok && p.Equal(t) {
		return s.Period(t), nil
	}
	return Period{}, fmt.Errorf("%w %q: not a scheduled instant of %s (%s); %s",
		ErrNoSuchPeriod, name, s.spec.Name, s, s.nearest(t))
}

// weekPeriod finds the period of a weekly batch named by its week_ending
// date d.
func (s *Schedule) weekPeriod(name string, d time.Time) (Period, error) {
	if !s.spec.Weekly {
		return Period{}, fmt.Errorf("%w %q: %s (%s) is not weekly, so its periods are named by an RFC 3339 instant such as %s",
			ErrNoSuchPeriod, name, s.spec.Name, s, s.Period(s.Next(d)).Name)
	}
	if d.Weekday() != WeekEnd {
		return Period{}, fmt.Errorf("%w %q of %s: a week_ending date is a %s, %s is a %s",
			ErrNoSuchPeriod, name, s.spec.Name, WeekEnd, name, d.Weekday())
	}
	// The week is complete from the start of the next day, local time; the
	// day before that is safely before every instant whose week it is.
	from := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, s.spec.Zone)
	for t := s.Next(from); !t.IsZero(); t = s.Next(t) {
		switch w := completedWeek(t, s.spec.Zone); {
		case w == name:
			return s.Period(t), nil
		case w > name:
			return Period{}, fmt.Errorf("%w %q: %s (%s) has no run for that week", ErrNoSuchPeriod, name, s.spec.Name, s)
		}
	}
	return Period{}, fmt.Errorf("%w %q: %s (%s) has no run for that week", ErrNoSuchPeriod, name, s.spec.Name, s)
}

func (s *Schedule) nearest(t time.Time) string {
	var names []string
	if p, ok := s.Prev(t); ok {
		names = append(names, s.describe(p))
	}
	if n := s.Next(t); !n.IsZero() {
		names = append(names, s.describe(n))
	}
	switch len(names) {
	case 0:
		return "it has no instants near it"
	case 1:
		return "the nearest is " + names[0]
	}
	return "nearest are " + names[0] + " and " + names[1]
}

func (s *Schedule) describe(t time.Time) string {
	p := s.Period(t)
	if s.spec.Weekly {
		return fmt.Sprintf("%s (week ending %s)", t.In(s.spec.Zone).Format(time.RFC3339), p.WeekEnding)
	}
	return p.Name
}

// WeekEnding returns the date (YYYY-MM-DD) of the day that ends the week
// containing t in loc, weeks ending on weekday: for a Sunday-ending week,
// t on Wednesday 2026-03-25 gives 2026-03-29 and t on that Sunday gives the
// same date. A nil loc means UTC.
func WeekEnding(t time.Time, loc *time.Location, weekday time.Weekday) string {
	d := civilDate(t, loc)
	ahead := (int(weekday) - int(d.Weekday()) + 7) % 7
	return d.AddDate(0, 0, ahead).Format(time.DateOnly)
}

// completedWeek returns the WeekEnd date ending the latest week that is
// complete at t in loc: the week containing the day before t's local date.
func completedWeek(t time.Time, loc *time.Location) string {
	d := civilDate(t, loc).AddDate(0, 0, -1)
	back := (int(d.Weekday()) - int(WeekEnd) + 7) % 7
	return d.AddDate(0, 0, -back).Format(time.DateOnly)
}

// civilDate returns t's local date in loc as midnight UTC, so that date
// arithmetic never meets a daylight saving transition.
func civilDate(t time.Time, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// InWindow reports whether the period scheduled at at may still be re-run at
// now when its input changed after it ran (late data): under All, when it is
// at most Window before now, as a missed period would be caught up; Latest
// and Skip re-run their newest period only, whatever its age, and a newer
// period supersedes an older one.
func (s *Schedule) InWindow(at, now time.Time) bool {
	return s.spec.Policy != All || !at.Before(now.Add(-s.spec.Window))
}
