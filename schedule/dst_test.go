package schedule

import (
	"slices"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
)

// names returns the period names of the scheduled instants in (from, to].
func names(t testing.TB, s *Schedule, from, to string) []string {
	t.Helper()
	var out []string
	end := at(t, to)
	for n := s.Next(at(t, from)); !n.IsZero() && !n.After(end); n = s.Next(n) {
		out = append(out, s.Period(n).Name)
	}
	return out
}

// TestDSTRobfigAlone pins what robfig/cron does on its own across Europe/Berlin's
// 2026 transitions, which is why Next adds rules on top: a daily 02:30 job
// does not run at all on 29 March and runs twice on 25 October.
func TestDSTRobfigAlone(t *testing.T) {
	t.Parallel()
	c, err := cron.ParseStandard("CRON_TZ=Europe/Berlin 30 2 * * *")
	if err != nil {
		t.Fatal(err)
	}
	berlin := c.(*cron.SpecSchedule).Location
	run := func(from string, n int) []string {
		var out []string
		x := at(t, from)
		for range n {
			x = c.Next(x)
			out = append(out, x.In(berlin).Format(time.RFC3339))
		}
		return out
	}
	spring := run("2026-03-28T00:00:00Z", 2)
	if want := []string{"2026-03-28T02:30:00+01:00", "2026-03-30T02:30:00+02:00"}; !slices.Equal(spring, want) {
		t.Errorf("robfig across spring-forward = %v, want %v", spring, want)
	}
	fall := run("2026-10-24T12:00:00Z", 3)
	if want := []string{"2026-10-25T02:30:00+02:00", "2026-10-25T02:30:00+01:00", "2026-10-26T02:30:00+01:00"}; !slices.Equal(fall, want) {
		t.Errorf("robfig across fall-back = %v, want %v", fall, want)
	}
}

func TestDSTBerlin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		expr     string
		from, to string
		want     []string
	}{
		{
			// 02:30 does not exist on 29 March; the day's one run happens when
			// the clocks jump from 02:00 to 03:00. No 02:30 period is made up.
			name: "daily 02:30 across spring-forward",
			expr: "CRON_TZ=Europe/Berlin 30 2 * * *",
			from: "2026-03-27T12:00:00Z", to: "2026-03-30T12:00:00Z",
			want: []string{"2026-03-28T02:30:00+01:00", "2026-03-29T03:00:00+02:00", "2026-03-30T02:30:00+02:00"},
		},
		{
			name: "daily 02:00 across spring-forward",
			expr: "CRON_TZ=Europe/Berlin 0 2 * * *",
			from: "2026-03-28T12:00:00Z", to: "2026-03-30T12:00:00Z",
			want: []string{"2026-03-29T03:00:00+02:00", "2026-03-30T02:00:00+02:00"},
		},
		{
			// The 02:00 and the 03:00 run both fall on the jump: one run.
			name: "02:00 and 03:00 across spring-forward",
			expr: "CRON_TZ=Europe/Berlin 0 2,3 * * *",
			from: "2026-03-28T12:00:00Z", to: "2026-03-29T12:00:00Z",
			want: []string{"2026-03-29T03:00:00+02:00"},
		},
		{
			// An hourly job follows elapsed time: there is no 02:00 local hour.
			name: "hourly across spring-forward",
			expr: "CRON_TZ=Europe/Berlin 0 * * * *",
			from: "2026-03-28T23:30:00Z", to: "2026-03-29T02:00:00Z",
			want: []string{"2026-03-29T01:00:00+01:00", "2026-03-29T03:00:00+02:00", "2026-03-29T04:00:00+02:00"},
		},
		{
			name: "half past every hour across spring-forward",
			expr: "CRON_TZ=Europe/Berlin 30 * * * *",
			from: "2026-03-28T23:30:00Z", to: "2026-03-29T02:00:00Z",
			want: []string{"2026-03-29T01:30:00+01:00", "2026-03-29T03:30:00+02:00"},
		},
		{
			// 02:30 happens twice on 25 October; the daily run is the first.
			name: "daily 02:30 across fall-back",
			expr: "CRON_TZ=Europe/Berlin 30 2 * * *",
			from: "2026-10-24T12:00:00Z", to: "2026-10-26T12:00:00Z",
			want: []string{"2026-10-25T02:30:00+02:00", "2026-10-26T02:30:00+01:00"},
		},
		{
			// The repeated 02:00 local hour is two hours of elapsed time and two
			// distinct periods.
			name: "hourly across fall-back",
			expr: "CRON_TZ=Europe/Berlin 0 * * * *",
			from: "2026-10-24T22:30:00Z", to: "2026-10-25T02:30:00Z",
			want: []string{"2026-10-25T01:00:00+02:00", "2026-10-25T02:00:00+02:00", "2026-10-25T02:00:00+01:00", "2026-10-25T03:00:00+01:00"},
		},
		{
			name: "half-hourly in the repeated hour",
			expr: "CRON_TZ=Europe/Berlin */30 2 * * *",
			from: "2026-10-24T23:30:00Z", to: "2026-10-25T02:00:00Z",
			want: []string{"2026-10-25T02:00:00+02:00", "2026-10-25T02:30:00+02:00", "2026-10-25T02:00:00+01:00", "2026-10-25T02:30:00+01:00"},
		},
		{
			// Every minute of the 2 o'clock hour, written without a wildcard,
			// is a fixed-time spec: the repeated hour runs once.
			name: "fixed minutes in the repeated hour",
			expr: "CRON_TZ=Europe/Berlin 0,59 2 * * *",
			from: "2026-10-24T23:30:00Z", to: "2026-10-25T03:00:00Z",
			want: []string{"2026-10-25T02:00:00+02:00", "2026-10-25T02:59:00+02:00"},
		},
		{
			name: "weekly on the spring-forward Sunday",
			expr: "CRON_TZ=Europe/Berlin 30 2 * * 0",
			from: "2026-03-20T00:00:00Z", to: "2026-04-06T00:00:00Z",
			want: []string{"2026-03-15", "2026-03-22", "2026-03-29"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustParse(t, tt.expr, Latest, 0)
			got := names(t, s, tt.from, tt.to)
			if !slices.Equal(got, tt.want) {
				t.Errorf("periods = %v\nwant      %v", got, tt.want)
			}
			// Prev walks the same instants backwards.
			var back []string
			for p, ok := s.Prev(at(t, tt.to)); ok && p.After(at(t, tt.from)); p, ok = s.Prev(p.Add(-time.Nanosecond)) {
				back = append(back, s.Period(p).Name)
			}
			slices.Reverse(back)
			if !slices.Equal(back, tt.want) {
				t.Errorf("periods by Prev = %v\nwant             %v", back, tt.want)
			}
		})
	}
}

// TestDSTOneRunPerLocalDay checks, over three years and zones whose
// transitions fall at 02:00, at midnight, by half an hour or at odd times,
// that a fixed-time daily batch runs exactly once on every local date, that
// instants only ever increase, and that Prev agrees with Next.
func TestDSTOneRunPerLocalDay(t *testing.T) {
	t.Parallel()
	zones := []string{
		"Europe/Berlin", "America/New_York", "America/Santiago", "America/Asuncion",
		"America/Havana", "Asia/Beirut", "Africa/Cairo", "Australia/Lord_Howe",
		"Pacific/Chatham", "Australia/Sydney", "America/St_Johns", "Asia/Kolkata", "UTC",
	}
	specs := []string{"0 0 * * *", "30 2 * * *", "0 1 * * *", "45 23 * * *"}
	for _, zone := range zones {
		for _, spec := range specs {
			t.Run(zone+"/"+spec, func(t *testing.T) {
				t.Parallel()
				s := mustParse(t, "CRON_TZ="+zone+" "+spec, Latest, 0)
				loc := s.Spec().Zone
				perDay := map[string]int{}
				from := time.Date(2025, 1, 1, 12, 0, 0, 0, loc)
				to := time.Date(2027, 12, 31, 12, 0, 0, 0, loc)
				prev := from
				for n := s.Next(from); n.Before(to); n = s.Next(n) {
					if !n.After(prev) {
						t.Fatalf("Next went from %s to %s", prev, n)
					}
					if p, ok := s.Prev(n.Add(-time.Nanosecond)); prev != from && (!ok || !p.Equal(prev)) {
						t.Fatalf("Prev(%s - 1ns) = %s, want %s", n, p, prev)
					}
					perDay[n.In(loc).Format(time.DateOnly)]++
					prev = n
				}
				for d := from.AddDate(0, 0, 1); d.Before(to.AddDate(0, 0, -1)); d = d.AddDate(0, 0, 1) {
					if k := d.Format(time.DateOnly); perDay[k] != 1 {
						t.Errorf("%s: %d runs, want 1", k, perDay[k])
					}
				}
			})
		}
	}
}

// TestDSTSamoaSkippedDay covers a zone that skipped a whole date:
// Pacific/Apia went from 29 to 31 December 2011. The date has no run, the run
// its 02:30 would have had happens at the jump, and nothing hangs.
func TestDSTSamoaSkippedDay(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "CRON_TZ=Pacific/Apia 30 2 * * *", Latest, 0)
	got := names(t, s, "2011-12-29T00:00:00Z", "2011-12-31T12:00:00Z")
	want := []string{"2011-12-29T02:30:00-10:00", "2011-12-31T00:00:00+14:00", "2011-12-31T02:30:00+14:00"}
	if !slices.Equal(got, want) {
		t.Errorf("periods = %v, want %v", got, want)
	}
}
