package decay

import (
	"math"
	"time"
)

// Instant reads a record's RFC 3339 time, as the decays want it: ok is
// false for text that is not one (bad data, which decay leaves alone).
func Instant(s string) (t time.Time, ok bool) {
	t, err := time.Parse(time.RFC3339, s)
	return t.UTC(), err == nil
}

// Stamp is now as a decayed record's updated_at and decayed_at hold it.
func Stamp(now time.Time) string { return now.UTC().Format(time.RFC3339) }

// round rounds f to n decimals.
func round(f float64, n int) float64 {
	p := math.Pow10(n)
	return math.Round(f*p) / p
}
