package decay

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// number reads a number the way extract does: written by Go code, decoded
// from JSON (float64 or json.Number) or stored as a numeric string.
func number(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int:
		f = float64(x)
	case int32:
		f = float64(x)
	case int64:
		f = float64(x)
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// whole reads a whole number as extract's lara guard does: a fraction is not
// one.
func whole(v any) (int, bool) {
	f, ok := number(v)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1e12 {
		return 0, false
	}
	return int(f), true
}

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
	g, ok := number(v)
	return ok && g == f
}
