package schedule

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDue(t *testing.T) {
	t.Parallel()
	const (
		weekly = "0 0 * * 0"
		hourly = "0 * * * *"
		day    = 24 * time.Hour
	)
	tests := []struct {
		name       string
		expr       string
		policy     Policy
		window     time.Duration
		last       string // "" for no ledger row
		now        string
		firstStart string
		want       []string // Period names, oldest first
		wantAt     []string // Period.At, when the names are week_ending dates
	}{
		// A weekly job down from Saturday 7 March to Monday 16 March missed
		// the runs of 8 and 15 March.
		{name: "weekly 9-day outage latest", expr: weekly, policy: Latest,
			last: "2026-03-01T00:00:00Z", now: "2026-03-16T12:00:00Z", firstStart: "2025-06-01T00:00:00Z",
			want: []string{"2026-03-08"}, wantAt: []string{"2026-03-15T00:00:00Z"}},
		{name: "weekly 9-day outage all within 30 days", expr: weekly, policy: All, window: 30 * day,
			last: "2026-03-01T00:00:00Z", now: "2026-03-16T12:00:00Z", firstStart: "2025-06-01T00:00:00Z",
			want: []string{"2026-03-01", "2026-03-08"}, wantAt: []string{"2026-03-08T00:00:00Z", "2026-03-15T00:00:00Z"}},
		{name: "weekly 9-day outage all within 7 days", expr: weekly, policy: All, window: 7 * day,
			last: "2026-03-01T00:00:00Z", now: "2026-03-16T12:00:00Z", firstStart: "2025-06-01T00:00:00Z",
			want: []string{"2026-03-08"}},
		{name: "weekly 9-day outage skip", expr: weekly, policy: Skip,
			last: "2026-03-01T00:00:00Z", now: "2026-03-16T12:00:00Z", firstStart: "2025-06-01T00:00:00Z"},
		{name: "weekly on time skip", expr: weekly, policy: Skip,
			last: "2026-03-08T00:00:00Z", now: "2026-03-15T00:00:40Z", firstStart: "2025-06-01T00:00:00Z",
			want: []string{"2026-03-08"}},
		{name: "weekly nothing new", expr: weekly, policy: All, window: 30 * day,
			last: "2026-03-15T00:00:00Z", now: "2026-03-21T23:59:59Z", firstStart: "2025-06-01T00:00:00Z"},

		// An hourly job down from 09:30 to 12:30 missed 10, 11 and 12 o'clock.
		{name: "hourly 3-hour outage latest", expr: hourly, policy: Latest,
			last: "2026-03-10T09:00:00Z", now: "2026-03-10T12:30:00Z", firstStart: "2026-01-01T00:00:00Z",
			want: []string{"2026-03-10T12:00:00Z"}},
		{name: "hourly 3-hour outage all", expr: hourly, policy: All, window: day,
			last: "2026-03-10T09:00:00Z", now: "2026-03-10T12:30:00Z", firstStart: "2026-01-01T00:00:00Z",
			want: []string{"2026-03-10T10:00:00Z", "2026-03-10T11:00:00Z", "2026-03-10T12:00:00Z"}},
		{name: "hourly 3-hour outage skip", expr: hourly, policy: Skip,
			last: "2026-03-10T09:00:00Z", now: "2026-03-10T12:30:00Z", firstStart: "2026-01-01T00:00:00Z"},
		{name: "hourly outage skip back within grace", expr: hourly, policy: Skip,
			last: "2026-03-10T09:00:00Z", now: "2026-03-10T12:02:00Z", firstStart: "2026-01-01T00:00:00Z",
			want: []string{"2026-03-10T12:00:00Z"}},
		{name: "hourly outage skip back just after grace", expr: hourly, policy: Skip,
			last: "2026-03-10T09:00:00Z", now: "2026-03-10T12:02:01Z", firstStart: "2026-01-01T00:00:00Z"},
		{name: "hourly due exactly now", expr: hourly, policy: Latest,
			last: "2026-03-10T11:00:00Z", now: "2026-03-10T12:00:00Z", firstStart: "2026-01-01T00:00:00Z",
			want: []string{"2026-03-10T12:00:00Z"}},
		{name: "ledger ahead of now", expr: hourly, policy: All, window: day,
			last: "2026-03-10T15:00:00Z", now: "2026-03-10T12:30:00Z", firstStart: "2026-01-01T00:00:00Z"},

		// No ledger row: a new deployment catches up only Window before its
		// first start.
		{name: "new weekly all back-fills the window", expr: weekly, policy: All, window: 30 * day,
			now: "2026-03-16T12:00:00Z", firstStart: "2026-03-16T12:00:00Z",
			want: []string{"2026-02-08", "2026-02-15", "2026-02-22", "2026-03-01", "2026-03-08"}},
		{name: "new weekly latest without window waits", expr: weekly, policy: Latest,
			now: "2026-03-16T12:00:00Z", firstStart: "2026-03-16T12:00:00Z"},
		{name: "new weekly latest with a window", expr: weekly, policy: Latest, window: 8 * day,
			now: "2026-03-16T12:00:00Z", firstStart: "2026-03-16T12:00:00Z",
			want: []string{"2026-03-08"}},
		{name: "weekly first started long ago, no row yet", expr: weekly, policy: Latest,
			now: "2026-03-16T12:00:00Z", firstStart: "2024-01-01T00:00:00Z",
			want: []string{"2026-03-08"}},
		{name: "new hourly all window bounds by now", expr: hourly, policy: All, window: time.Hour,
			now: "2026-03-10T12:30:00Z", firstStart: "2026-01-01T00:00:00Z",
			want: []string{"2026-03-10T12:00:00Z"}},
		{name: "new hourly latest started after the hour", expr: hourly, policy: Latest,
			now: "2026-03-10T12:30:00Z", firstStart: "2026-03-10T12:15:00Z"},
		{name: "new hourly latest window reaches the hour", expr: hourly, policy: Latest, window: 30 * time.Minute,
			now: "2026-03-10T12:30:00Z", firstStart: "2026-03-10T12:15:00Z",
			want: []string{"2026-03-10T12:00:00Z"}},
		{name: "new hourly skip waits for the next hour", expr: hourly, policy: Skip,
			now: "2026-03-10T12:01:00Z", firstStart: "2026-03-10T12:01:00Z"},

		// Daylight saving time in Europe/Berlin.
		{name: "hourly all across fall-back", expr: "CRON_TZ=Europe/Berlin " + hourly, policy: All, window: 6 * time.Hour,
			last: "2026-10-24T23:00:00Z", now: "2026-10-25T02:30:00Z", firstStart: "2026-01-01T00:00:00Z",
			want: []string{"2026-10-25T02:00:00+02:00", "2026-10-25T02:00:00+01:00", "2026-10-25T03:00:00+01:00"}},
		{name: "daily 02:30 latest across spring-forward", expr: "CRON_TZ=Europe/Berlin 30 2 * * *", policy: Latest,
			last: "2026-03-28T01:30:00Z", now: "2026-03-29T10:00:00Z", firstStart: "2026-01-01T00:00:00Z",
			want: []string{"2026-03-29T03:00:00+02:00"}},
		{name: "daily 02:30 all across fall-back", expr: "CRON_TZ=Europe/Berlin 30 2 * * *", policy: All, window: 3 * day,
			last: "2026-10-23T00:30:00Z", now: "2026-10-26T10:00:00Z", firstStart: "2026-01-01T00:00:00Z",
			want: []string{"2026-10-24T02:30:00+02:00", "2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tt.expr, tt.policy, tt.window)
			var last *time.Time
			if tt.last != "" {
				l := at(t, tt.last)
				last = &l
			}
			now, firstStart := at(t, tt.now), at(t, tt.firstStart)
			got := s.Due(last, now, firstStart)
			var gotNames, gotAt []string
			for _, p := range got {
				gotNames = append(gotNames, p.Name)
				gotAt = append(gotAt, p.At.Format(time.RFC3339))
				if p.Batch != "test-batch" {
					t.Errorf("Batch = %q", p.Batch)
				}
			}
			if !slices.Equal(gotNames, tt.want) {
				t.Errorf("Due names = %v\nwant        %v", gotNames, tt.want)
			}
			if tt.wantAt != nil && !slices.Equal(gotAt, tt.wantAt) {
				t.Errorf("Due instants = %v, want %v", gotAt, tt.wantAt)
			}
			// Operators can name every period Due returns.
			for _, p := range got {
				back, err := PeriodByName(s, p.Name)
				if err != nil || back != p {
					t.Errorf("PeriodByName(%q) = %+v, %v; want %+v", p.Name, back, err, p)
				}
			}
			// Once the newest period is in the ledger, nothing more is due.
			if len(got) > 0 {
				newest := got[len(got)-1].At
				if again := s.Due(&newest, now, firstStart); len(again) != 0 {
					t.Errorf("Due after recording %s = %v, want nothing", newest, again)
				}
			}
		})
	}
}

// TestDueAllCap checks that All returns at most MaxDue periods, the newest,
// oldest first, when a batch that runs every minute was down for a month.
func TestDueAllCap(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "* * * * *", All, 30*24*time.Hour)
	last := at(t, "2026-02-01T00:00:00Z")
	now := at(t, "2026-03-10T12:30:30Z")
	got := s.Due(&last, now, last)
	if len(got) != MaxDue {
		t.Fatalf("Due returned %d periods, want %d", len(got), MaxDue)
	}
	if want := at(t, "2026-03-10T12:30:00Z"); !got[len(got)-1].At.Equal(want) {
		t.Errorf("newest = %s, want %s", got[len(got)-1].At, want)
	}
	if want := at(t, "2026-03-10T12:30:00Z").Add(-(MaxDue - 1) * time.Minute); !got[0].At.Equal(want) {
		t.Errorf("oldest = %s, want %s", got[0].At, want)
	}
	for i := 1; i < len(got); i++ {
		if got[i].At.Sub(got[i-1].At) != time.Minute {
			t.Fatalf("periods %d and %d: %s then %s", i-1, i, got[i-1].At, got[i].At)
		}
	}
}

func TestPeriodByName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr    string
		name    string
		wantAt  string // "" when an error is wanted
		want    string // the period's Name, or a substring of the error
		weekEnd string
	}{
		{expr: "0 0 * * 0", name: "2026-03-08", wantAt: "2026-03-15T00:00:00Z", want: "2026-03-08", weekEnd: "2026-03-08"},
		{expr: "0 0 * * 0", name: "2026-03-15T00:00:00Z", wantAt: "2026-03-15T00:00:00Z", want: "2026-03-08", weekEnd: "2026-03-08"},
		{expr: "0 0 * * 0", name: "2026-03-15T01:00:00+01:00", wantAt: "2026-03-15T00:00:00Z", want: "2026-03-08", weekEnd: "2026-03-08"},
		{expr: "0 0 * * 0", name: "2027-01-03", wantAt: "2027-01-10T00:00:00Z", want: "2027-01-03", weekEnd: "2027-01-03"},
		{expr: "0 0 * * 0", name: "2026-03-09",
			want: `no such period "2026-03-09" of test-batch: a week_ending date is a Sunday, 2026-03-09 is a Monday`},
		{expr: "0 0 * * 0", name: "2026-03-16T00:00:00Z",
			want: `no such period "2026-03-16T00:00:00Z": not a scheduled instant of test-batch (0 0 * * 0 in UTC); nearest are 2026-03-15T00:00:00Z (week ending 2026-03-08) and 2026-03-22T00:00:00Z (week ending 2026-03-15)`},
		{expr: "0 0 * * 0", name: "last week", want: "want an RFC 3339 instant such as 2026-03-29T03:00:00+02:00 or a week_ending date such as 2026-03-29"},
		// A weekly batch in a zone: the week ends at local midnight.
		{expr: "CRON_TZ=Europe/Berlin 0 0 * * 1", name: "2026-03-29", wantAt: "2026-03-29T22:00:00Z", want: "2026-03-29", weekEnd: "2026-03-29"},
		{expr: "CRON_TZ=Pacific/Auckland 0 0 * * 1", name: "2026-03-15", wantAt: "2026-03-15T11:00:00Z", want: "2026-03-15", weekEnd: "2026-03-15"},
		{expr: "0 12 * * mon", name: "2026-03-15", wantAt: "2026-03-16T12:00:00Z", want: "2026-03-15", weekEnd: "2026-03-15"},

		{expr: "@hourly", name: "2026-03-10T12:00:00+01:00", wantAt: "2026-03-10T11:00:00Z", want: "2026-03-10T11:00:00Z"},
		{expr: "@hourly", name: "2026-03-10T12:30:00Z",
			want: "not a scheduled instant of test-batch (@hourly in UTC); nearest are 2026-03-10T12:00:00Z and 2026-03-10T13:00:00Z"},
		{expr: "@hourly", name: "2026-03-10T12:00:00.5Z", want: "not a scheduled instant"},
		{expr: "@hourly", name: "2026-03-10",
			want: "test-batch (@hourly in UTC) is not weekly, so its periods are named by an RFC 3339 instant such as 2026-03-10T01:00:00Z"},
		{expr: "@hourly", name: "yesterday", want: `no such period "yesterday" of test-batch: want an RFC 3339 instant such as`},
		{expr: "@hourly", name: "", want: "want an RFC 3339 instant"},

		// Spring-forward: 02:30 did not exist on 29 March, with either offset.
		{expr: "CRON_TZ=Europe/Berlin 30 2 * * *", name: "2026-03-29T03:00:00+02:00", wantAt: "2026-03-29T01:00:00Z", want: "2026-03-29T03:00:00+02:00"},
		{expr: "CRON_TZ=Europe/Berlin 30 2 * * *", name: "2026-03-29T02:30:00+02:00",
			want: "nearest are 2026-03-28T02:30:00+01:00 and 2026-03-29T03:00:00+02:00"},
		{expr: "CRON_TZ=Europe/Berlin 30 2 * * *", name: "2026-03-29T02:30:00+01:00",
			want: "nearest are 2026-03-29T03:00:00+02:00 and 2026-03-30T02:30:00+02:00"},
		// Fall-back: the daily run is the first 02:30, the hourly runs both 02:00s.
		{expr: "CRON_TZ=Europe/Berlin 30 2 * * *", name: "2026-10-25T02:30:00+02:00", wantAt: "2026-10-25T00:30:00Z", want: "2026-10-25T02:30:00+02:00"},
		{expr: "CRON_TZ=Europe/Berlin 30 2 * * *", name: "2026-10-25T02:30:00+01:00",
			want: "nearest are 2026-10-25T02:30:00+02:00 and 2026-10-26T02:30:00+01:00"},
		{expr: "CRON_TZ=Europe/Berlin @hourly", name: "2026-10-25T02:00:00+02:00", wantAt: "2026-10-25T00:00:00Z", want: "2026-10-25T02:00:00+02:00"},
		{expr: "CRON_TZ=Europe/Berlin @hourly", name: "2026-10-25T02:00:00+01:00", wantAt: "2026-10-25T01:00:00Z", want: "2026-10-25T02:00:00+01:00"},
		{expr: "CRON_TZ=Europe/Berlin @hourly", name: "2026-10-25T01:00:00Z", wantAt: "2026-10-25T01:00:00Z", want: "2026-10-25T02:00:00+01:00"},
	}
	for _, tt := range tests {
		t.Run(tt.expr+"/"+tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tt.expr, Latest, 0)
			p, err := PeriodByName(s, tt.name)
			if tt.wantAt == "" {
				if err == nil {
					t.Fatalf("PeriodByName(%q) = %+v, want an error", tt.name, p)
				}
				if !errors.Is(err, ErrNoSuchPeriod) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error %q, want ErrNoSuchPeriod containing %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("PeriodByName(%q): %v", tt.name, err)
			}
			if !p.At.Equal(at(t, tt.wantAt)) || p.At.Location() != time.UTC {
				t.Errorf("At = %s, want %s in UTC", p.At, tt.wantAt)
			}
			if p.Name != tt.want || p.WeekEnding != tt.weekEnd {
				t.Errorf("Name, WeekEnding = %q, %q; want %q, %q", p.Name, p.WeekEnding, tt.want, tt.weekEnd)
			}
			if again, err := PeriodByName(s, p.Name); err != nil || again != p {
				t.Errorf("PeriodByName(Name) = %+v, %v; want %+v", again, err, p)
			}
		})
	}
}

func TestWeekEnding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t       string
		zone    string
		weekday time.Weekday
		want    string
	}{
		{t: "2026-03-25T12:00:00Z", zone: "UTC", weekday: time.Sunday, want: "2026-03-29"},
		{t: "2026-03-29T12:00:00Z", zone: "UTC", weekday: time.Sunday, want: "2026-03-29"},
		{t: "2026-03-30T00:00:00Z", zone: "UTC", weekday: time.Sunday, want: "2026-04-05"},
		// Sunday evening in UTC is already Monday in Berlin…
		{t: "2026-03-29T23:30:00Z", zone: "Europe/Berlin", weekday: time.Sunday, want: "2026-04-05"},
		// …and Monday morning in UTC is still Sunday in Los Angeles.
		{t: "2026-03-30T03:00:00Z", zone: "America/Los_Angeles", weekday: time.Sunday, want: "2026-03-29"},
		{t: "2026-03-29T12:00:00Z", zone: "UTC", weekday: time.Saturday, want: "2026-04-04"},
		{t: "2026-12-31T12:00:00Z", zone: "UTC", weekday: time.Sunday, want: "2027-01-03"},
		{t: "2026-12-31T12:00:00Z", zone: "", weekday: time.Sunday, want: "2027-01-03"},
	}
	for _, tt := range tests {
		var loc *time.Location
		if tt.zone != "" {
			var err error
			if loc, err = time.LoadLocation(tt.zone); err != nil {
				t.Fatal(err)
			}
		}
		if got := WeekEnding(at(t, tt.t), loc, tt.weekday); got != tt.want {
			t.Errorf("WeekEnding(%s, %q, %s) = %s, want %s", tt.t, tt.zone, tt.weekday, got, tt.want)
		}
	}
}

func TestPeriodWeekEndingOnlyForWeekly(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "@daily", Latest, 0)
	p := s.Period(at(t, "2026-03-15T00:00:00Z"))
	if p.WeekEnding != "" || p.Name != "2026-03-15T00:00:00Z" {
		t.Errorf("daily period = %+v", p)
	}
}

// TestInWindow: a late change re-runs a period of an All batch within the
// window only, and the newest period of other policies at any age.
func TestInWindow(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	all, err := ParseLine("weekly-analytics", "0 12 * * 1; all 840h")
	if err != nil {
		t.Fatal(err)
	}
	latest, err := ParseLine("trends", "0 3 * * *")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    *Schedule
		ago  time.Duration
		want bool
	}{
		{all, 0, true},
		{all, 840 * time.Hour, true},
		{all, 841 * time.Hour, false},
		{latest, 0, true},
		{latest, 5000 * time.Hour, true},
	} {
		if got := c.s.InWindow(now.Add(-c.ago), now); got != c.want {
			t.Errorf("%s InWindow(now - %s) = %v; want %v", c.s.Spec().Name, c.ago, got, c.want)
		}
	}
}
