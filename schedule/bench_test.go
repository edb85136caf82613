package schedule

import (
	"testing"
	"time"
)

func BenchmarkNext(b *testing.B) {
	for _, expr := range []string{"@hourly", "CRON_TZ=Europe/Berlin 30 2 * * *", "0 0 * * 0"} {
		b.Run(expr, func(b *testing.B) {
			s := mustParse(b, expr, Latest, 0)
			t := time.Date(2026, 3, 10, 10, 17, 23, 5, time.UTC)
			for b.Loop() {
				s.Next(t)
			}
		})
	}
}

func BenchmarkPrev(b *testing.B) {
	for _, expr := range []string{"* * * * *", "@hourly", "CRON_TZ=Europe/Berlin 30 2 * * *", "0 0 * * 0", "0 0 1 1 *"} {
		b.Run(expr, func(b *testing.B) {
			s := mustParse(b, expr, Latest, 0)
			t := time.Date(2026, 3, 10, 10, 17, 23, 5, time.UTC)
			for b.Loop() {
				s.Prev(t)
			}
		})
	}
}

func BenchmarkDueAllMinutely(b *testing.B) {
	s := mustParse(b, "* * * * *", All, 30*24*time.Hour)
	now := time.Date(2026, 3, 10, 10, 17, 23, 5, time.UTC)
	for b.Loop() {
		if got := len(s.Due(nil, now, now)); got != MaxDue {
			b.Fatalf("%d periods", got)
		}
	}
}
