package decay

import (
	"math"
	"time"

	"github.com/mnemo-ai/mnemo/internal/num"
)

// instant parses an RFC 3339 string.
func instant(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, s)
	return t.UTC(), err == nil
}

func stamp(now time.Time) string { return now.UTC().Format(time.RFC3339) }

// round rounds f to n decimals.
func round(f float64, n int) float64 {
	p := math.Pow10(n)
	return math.Round(f*p) / p
}

// sameNumber reports whether v holds the number f.
func sameNumber(v any, f float64) bool {
	g, ok := num.Float(v)
	return ok && g == f
}
