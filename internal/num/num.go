// Package num reads numbers out of loosely typed values: event data and
// records decoded from JSON, written by Go code, or stored as text. The
// extractors, the aggregates and the decays read the same values and must
// agree on what counts as a number.
package num

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Float reads a numeric value as JSON decoding gives it (float64), as Go code
// sets it (int, int32, int64, float32), as json.Number, or as a string
// holding one. NaN and infinities are not numbers here.
func Float(v any) (float64, bool) {
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

// Whole reads a whole number no larger than limit in magnitude: a fraction
// is not one.
func Whole(v any, limit float64) (int, bool) {
	f, ok := Float(v)
	if !ok || f != math.Trunc(f) || math.Abs(f) > limit {
		return 0, false
	}
	return int(f), true
}
