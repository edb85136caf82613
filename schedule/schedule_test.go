package schedule

import (
	"errors"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // zones resolve the same on every machine that runs the tests

	"github.com/robfig/cron/v3"
)

func mustParse(t testing.TB, expr string, policy Policy, window time.Duration) *Schedule {
	t.Helper()
	s, err := Parse("test-batch", expr, policy, window)
	if err != nil {
		t.Fatalf("Parse(%q): %v", expr, err)
	}
	return s
}

func at(t testing.TB, rfc3339 string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, rfc3339)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr   string
		str    string // Schedule.String
		weekly bool
		after  string
		next   string // Period name of Next(after)
	}{
		{expr: "0 0 * * 0", str: "0 0 * * 0 in UTC", weekly: true,
			after: "2026-03-10T00:00:00Z", next: "2026-03-08"},
		{expr: "  CRON_TZ=Europe/Berlin   30  2 * * *  ", str: "30 2 * * * in Europe/Berlin",
			after: "2026-06-01T00:00:00Z", next: "2026-06-01T02:30:00+02:00"},
		{expr: "TZ=America/New_York 0 9 * * 1-5", str: "0 9 * * 1-5 in America/New_York",
			after: "2026-03-13T14:00:00Z", next: "2026-03-16T09:00:00-04:00"},
		{expr: "CRON_TZ=UTC @hourly", str: "@hourly in UTC",
			after: "2026-03-10T10:15:00Z", next: "2026-03-10T11:00:00Z"},
		{expr: "@daily", str: "@daily in UTC",
			after: "2026-03-10T10:15:00Z", next: "2026-03-11T00:00:00Z"},
		{expr: "@midnight", str: "@midnight in UTC",
			after: "2026-03-10T10:15:00Z", next: "2026-03-11T00:00:00Z"},
		{expr: "CRON_TZ=Asia/Tokyo @weekly", str: "@weekly in Asia/Tokyo", weekly: true,
			after: "2026-03-10T10:15:00Z", next: "2026-03-08"},
		{expr: "@monthly", str: "@monthly in UTC",
			after: "2026-03-10T10:15:00Z", next: "2026-04-01T00:00:00Z"},
		{expr: "@yearly", str: "@yearly in UTC",
			after: "2026-03-10T10:15:00Z", next: "2027-01-01T00:00:00Z"},
		{expr: "0 12 * * mon", str: "0 12 * * mon in UTC", weekly: true,
			after: "2026-03-10T10:15:00Z", next: "2026-03-15"},
		// Twice a week, or every day of a week-numbered range, is not weekly.
		{expr: "0 0 * * 0,3", str: "0 0 * * 0,3 in UTC",
			after: "2026-03-10T10:15:00Z", next: "2026-03-11T00:00:00Z"},
		{expr: "0 0 1-7 * 0", str: "0 0 1-7 * 0 in UTC",
			after: "2026-03-10T10:15:00Z", next: "2026-03-15T00:00:00Z"},
		// Day of month and day of week both restricted: either fires.
		{expr: "0 0 31 2 1", str: "0 0 31 2 1 in UTC",
			after: "2026-02-01T00:00:00Z", next: "2026-02-02T00:00:00Z"},
		{expr: "0 0 29 2 *", str: "0 0 29 2 * in UTC",
			after: "2026-03-01T00:00:00Z", next: "2028-02-29T00:00:00Z"},
		{expr: "*/15 * * * *", str: "*/15 * * * * in UTC",
			after: "2026-03-10T10:15:00Z", next: "2026-03-10T10:30:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tt.expr, Latest, 0)
			if got := s.String(); got != tt.str {
				t.Errorf("String() = %q, want %q", got, tt.str)
			}
			if got := s.Spec().Weekly; got != tt.weekly {
				t.Errorf("Weekly = %v, want %v", got, tt.weekly)
			}
			n := s.Next(at(t, tt.after))
			if got := s.Period(n).Name; got != tt.next {
				t.Errorf("Next(%s) = %s, want %s", tt.after, got, tt.next)
			}
			if n.Location() != time.UTC {
				t.Errorf("Next returned %v, want UTC", n.Location())
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		expr    string
		policy  Policy
		window  time.Duration
		wantErr error
		want    string // substring of the message
	}{
		{expr: "", wantErr: ErrInvalidSpec, want: `batch test-batch: invalid cron spec "": the spec is empty`},
		{expr: "   ", wantErr: ErrInvalidSpec, want: "the spec is empty"},
		{expr: "garbage", wantErr: ErrInvalidSpec, want: "expected exactly 5 fields, found 1"},
		{expr: "0 0 * *", wantErr: ErrInvalidSpec, want: "expected exactly 5 fields, found 4"},
		{expr: "0 0 0 * * *", wantErr: ErrInvalidSpec, want: "expected exactly 5 fields, found 6"},
		{expr: "61 * * * *", wantErr: ErrInvalidSpec, want: `minute field "61": end of range (61) above maximum (59)`},
		{expr: "0 24 * * *", wantErr: ErrInvalidSpec, want: `hour field "24"`},
		{expr: "0 0 0 * *", wantErr: ErrInvalidSpec, want: `day of month field "0"`},
		{expr: "0 0 * 13 *", wantErr: ErrInvalidSpec, want: `month field "13"`},
		{expr: "0 0 * * 7", wantErr: ErrInvalidSpec, want: `day of week field "7": end of range (7) above maximum (6): 7 (days of week are 0-6 or sun-sat; Sunday is 0)`},
		{expr: "*/0 * * * *", wantErr: ErrInvalidSpec, want: `minute field "*/0": step of range should be a positive number`},
		{expr: "x * * * *", wantErr: ErrInvalidSpec, want: `minute field "x"`},
		{expr: "0 0 31 2 *", wantErr: ErrInvalidSpec, want: `never fires: day of month "31" does not occur in month "2"`},
		{expr: "0 0 30,31 feb *", wantErr: ErrInvalidSpec, want: "never fires"},
		{expr: "0 0 31 4,6,9,11 *", wantErr: ErrInvalidSpec, want: "never fires"},
		{expr: "CRON_TZ=Mars/Olympus 0 0 * * *", wantErr: ErrInvalidSpec, want: `unknown time zone "Mars/Olympus"`},
		{expr: "CRON_TZ=../../etc/passwd 0 0 * * *", wantErr: ErrInvalidSpec, want: "unknown time zone"},
		{expr: "CRON_TZ= 0 0 * * *", wantErr: ErrInvalidSpec, want: "empty time zone"},
		{expr: "CRON_TZ=", wantErr: ErrInvalidSpec, want: "empty time zone"},
		{expr: "TZ=UTC", wantErr: ErrInvalidSpec, want: "time zone UTC is not followed by a schedule"},
		{expr: "TZ=Local 0 0 * * *", wantErr: ErrInvalidSpec, want: "time zone Local depends on the machine"},
		{expr: "CRON_TZ=UTC TZ=Europe/Berlin 0 0 * * *", wantErr: ErrInvalidSpec, want: "more than one time zone"},
		{expr: "@every 1h", wantErr: ErrInvalidSpec, want: "@every is not supported"},
		{expr: "@reboot", wantErr: ErrInvalidSpec, want: "unrecognized descriptor: @reboot"},
		{name: " ", expr: "@daily", wantErr: ErrInvalidSpec, want: "the batch has no name"},
		{expr: "@daily", policy: "sometimes", wantErr: ErrInvalidPolicy, want: `batch test-batch: invalid catch-up policy "sometimes": want latest, all or skip`},
		{expr: "@daily", policy: All, wantErr: ErrInvalidPolicy, want: "policy all needs a positive window"},
		{expr: "@daily", policy: Latest, window: -time.Hour, wantErr: ErrInvalidPolicy, want: "window -1h0m0s is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.expr+"/"+string(tt.policy), func(t *testing.T) {
			t.Parallel()
			name := tt.name
			if name == "" {
				name = "test-batch"
			}
			policy := tt.policy
			if policy == "" {
				policy = Latest
			}
			s, err := Parse(name, tt.expr, policy, tt.window)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want an error", tt.expr, s)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("error %q does not wrap %v", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

// TestParseGuardsRobfigPanic pins why Parse reads the zone prefix itself:
// robfig/cron v3.0.1 panics on a zone prefix with nothing after it.
func TestParseGuardsRobfigPanic(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{"TZ=UTC", "CRON_TZ=Europe/Berlin", "TZ=UTC\t0 0 * * *"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Logf("robfig no longer panics on %q; the guard is still harmless", expr)
				}
			}()
			_, _ = cron.ParseStandard(expr)
		}()
	}
	if _, err := Parse("b", "TZ=UTC", Latest, 0); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("Parse(TZ=UTC) error = %v, want ErrInvalidSpec", err)
	}
	s, err := Parse("b", "TZ=Europe/Berlin\t0 0 * * *", Latest, 0)
	if err != nil {
		t.Fatalf("a tab after the zone: %v", err)
	}
	if got := s.Spec().Zone.String(); got != "Europe/Berlin" {
		t.Errorf("zone = %s, want Europe/Berlin", got)
	}
}

func TestParsePolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Policy
		err  bool
	}{
		{in: "latest", want: Latest},
		{in: " ALL ", want: All},
		{in: "Skip", want: Skip},
		{in: "", err: true},
		{in: "newest", err: true},
	}
	for _, tt := range tests {
		got, err := ParsePolicy(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParsePolicy(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.err)
		}
		if err != nil && !errors.Is(err, ErrInvalidPolicy) {
			t.Errorf("ParsePolicy(%q) error %v does not wrap ErrInvalidPolicy", tt.in, err)
		}
	}
}

func TestNextPrev(t *testing.T) {
	t.Parallel()
	tests := []struct {
		expr string
		t    string
		prev string // latest instant ≤ t; "" when none within the look-back
		next string // first instant > t
	}{
		// Across a year boundary.
		{expr: "0 0 1 1 *", t: "2026-12-31T23:59:59Z", prev: "2026-01-01T00:00:00Z", next: "2027-01-01T00:00:00Z"},
		{expr: "0 0 1 1 *", t: "2027-01-01T00:00:00Z", prev: "2027-01-01T00:00:00Z", next: "2028-01-01T00:00:00Z"},
		{expr: "CRON_TZ=Europe/Berlin 0 0 1 1 *", t: "2026-12-31T23:30:00Z", prev: "2026-12-31T23:00:00Z", next: "2027-12-31T23:00:00Z"},
		{expr: "59 23 31 12 *", t: "2027-01-01T00:00:00Z", prev: "2026-12-31T23:59:00Z", next: "2027-12-31T23:59:00Z"},
		{expr: "0 0 * * 0", t: "2027-01-01T12:00:00Z", prev: "2026-12-27T00:00:00Z", next: "2027-01-03T00:00:00Z"},
		{expr: "@hourly", t: "2026-12-31T23:30:00Z", prev: "2026-12-31T23:00:00Z", next: "2027-01-01T00:00:00Z"},
		{expr: "* * * * *", t: "2026-12-31T23:59:30.5Z", prev: "2026-12-31T23:59:00Z", next: "2027-01-01T00:00:00Z"},
		// Every minute of January, looked for from March: a long look-back.
		{expr: "* * * 1 *", t: "2026-03-10T00:00:00Z", prev: "2026-01-31T23:59:00Z", next: "2027-01-01T00:00:00Z"},
		// 29 February, across the non-leap year 2100: eight years apart.
		{expr: "0 0 29 2 *", t: "2026-03-01T00:00:00Z", prev: "2024-02-29T00:00:00Z", next: "2028-02-29T00:00:00Z"},
		{expr: "0 0 29 2 *", t: "2100-06-01T00:00:00Z", prev: "2096-02-29T00:00:00Z", next: "2104-02-29T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.expr+"@"+tt.t, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tt.expr, Latest, 0)
			now := at(t, tt.t)
			got, ok := s.Prev(now)
			if want := tt.prev; (want == "") == ok || ok && !got.Equal(at(t, want)) {
				t.Errorf("Prev(%s) = %s, %v; want %s", tt.t, got.Format(time.RFC3339), ok, want)
			}
			if n := s.Next(now); !n.Equal(at(t, tt.next)) {
				t.Errorf("Next(%s) = %s, want %s", tt.t, n.Format(time.RFC3339), tt.next)
			}
			// Prev and Next agree with each other around both answers.
			if ok {
				if n := s.Next(got.Add(-time.Nanosecond)); !n.Equal(got) {
					t.Errorf("Next(Prev - 1ns) = %s, want %s", n, got)
				}
			}
			if p, ok := s.Prev(s.Next(now).Add(-time.Nanosecond)); ok && p.After(now) {
				t.Errorf("an instant %s between %s and Next", p, now)
			}
		})
	}
}

func TestParseLine(t *testing.T) {
	t.Parallel()
	s, err := ParseLine("weekly-analytics", "CRON_TZ=Europe/Berlin 0 12 * * 1; all 840h")
	if err != nil || s.Spec().Policy != All || s.Spec().Window != 840*time.Hour || s.Spec().Zone.String() != "Europe/Berlin" {
		t.Fatalf("ParseLine = %+v, %v", s, err)
	}
	if s, err := ParseLine("memory-ttl", "5 * * * *"); err != nil || s.Spec().Policy != Latest {
		t.Fatalf("default policy: %+v, %v", s, err)
	}
	for _, bad := range []string{"5 * * * *; sometimes", "0 12 * * 1; all", "0 12 * * 1; all soon", "0 12 * * 1; all 1h 2h", "61 * * * *"} {
		if _, err := ParseLine("b", bad); err == nil {
			t.Errorf("ParseLine(%q) accepted", bad)
		} else if !strings.Contains(err.Error(), "batch b") {
			t.Errorf("ParseLine(%q) error %q does not name the batch", bad, err)
		}
	}
}
