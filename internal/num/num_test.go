package num

import (
	"encoding/json"
	"math"
	"testing"
)

func TestFloat(t *testing.T) {
	for _, c := range []struct {
		v    any
		want float64
		ok   bool
	}{
		{3.5, 3.5, true}, {float32(0.5), 0.5, true}, {7, 7, true}, {int32(-2), -2, true}, {int64(1 << 40), 1 << 40, true},
		{json.Number("12.25"), 12.25, true}, {" 4 ", 4, true},
		{math.NaN(), 0, false}, {math.Inf(1), 0, false}, {"NaN", 0, false}, {json.Number("Inf"), 0, false},
		{"four", 0, false}, {true, 0, false}, {nil, 0, false}, {[]any{1}, 0, false},
	} {
		got, ok := Float(c.v)
		if ok != c.ok || got != c.want {
			t.Errorf("Float(%#v) = %v, %v; want %v, %v", c.v, got, ok, c.want, c.ok)
		}
	}
}

func TestWhole(t *testing.T) {
	for _, c := range []struct {
		v    any
		want int
		ok   bool
	}{
		{4.0, 4, true}, {"12", 12, true}, {-3, -3, true}, {4.5, 0, false}, {1e10, 0, false}, {1e9, 1e9, true}, {"x", 0, false},
	} {
		got, ok := Whole(c.v, 1e9)
		if ok != c.ok || got != c.want {
			t.Errorf("Whole(%#v, 1e9) = %v, %v; want %v, %v", c.v, got, ok, c.want, c.ok)
		}
	}
}
