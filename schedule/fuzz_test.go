package schedule

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/testwait"
)

// FuzzParse feeds Parse arbitrary specs: it must never panic or hang, must
// reject with an error naming the batch, and what it accepts must fire, with
// Prev, Next and PeriodByName agreeing on its instants.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"", " ", "@", "@daily", "@hourly", "@weekly", "@monthly", "@yearly", "@every 1s", "@every -1h", "@reboot",
		"* * * * *", "0 0 * * 0", "*/15 * * * *", "0 0 31 2 *", "0 0 29 2 *", "0 0 31 2 1", "0 0 30,31 2 *",
		"0 0 * * 7", "61 * * * *", "*/0 * * * *", "1-2-3 * * * *", "1/2/3 * * * *", "5-1 * * * *", "- * * * *",
		"99999999999999999999 * * * *", "0 0 0 0 0", "0 0 * * * *", "? ? ? ? ?", "0 0 l * *", "0 0 1W * *",
		"TZ=UTC", "TZ=", "CRON_TZ=", "TZ=\t0 * * * *", "CRON_TZ=Europe/Berlin 30 2 * * *",
		"CRON_TZ=Europe/Berlin", "TZ=Local 0 0 * * *", "TZ=../etc 0 0 * * *", "CRON_TZ=UTC TZ=UTC 0 0 * * *",
		"CRON_TZ=Pacific/Apia 30 2 * * *", "CRON_TZ=Australia/Lord_Howe */30 * * * *", "CRON_TZ=America/Santiago @daily",
		"TZ=Asia/Tokyo @every 1h", "0 0 * jan-dec sun-sat", "0 0 * JAN SUN", "\x00", "0\n0\n*\n*\n*",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		// A hang is reported when the test binary's -timeout is near; only
		// a fuzzing run without -timeout has a bound of its own.
		limit := 10 * time.Second
		if at := testwait.GiveUpAt(t); !at.IsZero() {
			limit = time.Until(at)
		}
		done := make(chan string, 1)
		go func() {
			defer func() {
				if r := recover(); r != nil {
					done <- fmt.Sprintf("panic: %v", r)
				}
			}()
			done <- checkSpec(expr)
		}()
		select {
		case msg := <-done:
			if msg != "" {
				t.Fatalf("spec %q: %s", expr, msg)
			}
		case <-time.After(limit):
			t.Fatalf("spec %q: not done after %s", expr, limit)
		}
	})
}

// checkSpec returns what is wrong with how Parse and the schedule it
// returns treat expr, or "".
func checkSpec(expr string) string {
	s, err := Parse("fuzz", expr, Latest, 0)
	if err != nil {
		if !errors.Is(err, ErrInvalidSpec) || !strings.HasPrefix(err.Error(), "batch fuzz: ") {
			return fmt.Sprintf("error %q does not name the batch or wrap ErrInvalidSpec", err)
		}
		return ""
	}
	from := time.Date(2026, 3, 28, 23, 59, 59, 0, time.UTC)
	n := s.Next(from)
	if n.IsZero() || !n.After(from) {
		return fmt.Sprintf("accepted, but Next(%s) = %s", from, n)
	}
	if p, ok := s.Prev(n); !ok || !p.Equal(n) {
		return fmt.Sprintf("Prev(%s) = %s, %v", n, p, ok)
	}
	if p, ok := s.Prev(n.Add(-time.Nanosecond)); ok && !p.Before(n) {
		return fmt.Sprintf("Prev(%s - 1ns) = %s", n, p)
	}
	period := s.Period(n)
	if back, err := PeriodByName(s, period.Name); err != nil || back != period {
		return fmt.Sprintf("PeriodByName(%q) = %+v, %v; want %+v", period.Name, back, err, period)
	}
	// What String shows parses back to the same schedule.
	again, err := Parse("fuzz", "CRON_TZ="+s.Spec().Zone.String()+" "+s.Spec().Expr, Latest, 0)
	if err != nil {
		return fmt.Sprintf("%s does not parse again: %v", s, err)
	}
	if m := again.Next(from); !m.Equal(n) {
		return fmt.Sprintf("%s parsed again gives Next %s, want %s", s, m, n)
	}
	return ""
}
