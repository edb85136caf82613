package llm

import (
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	InputPerMTok  float64 `json:"input_per_mtok"`
	OutputPerMTok float64 `json:"output_per_mtok"`
}

// PriceTable prices models by name.
type PriceTable map[string]Price

// DefaultPrices returns list prices (USD per million tokens, standard tier,
// late 2025) of common OpenAI chat models. Operators override or extend them
// with ParsePrices and With; a model in no table costs 0.
func DefaultPrices() PriceTable {
	return PriceTable{
		"gpt-4o-mini":   {0.15, 0.60},
		"gpt-4o":        {2.50, 10.00},
		"gpt-4.1-nano":  {0.10, 0.40},
		"gpt-4.1-mini":  {0.40, 1.60},
		"gpt-4.1":       {2.00, 8.00},
		"gpt-5-nano":    {0.05, 0.40},
		"gpt-5-mini":    {0.25, 2.00},
		"gpt-5":         {1.25, 10.00},
		"o4-mini":       {1.10, 4.40},
		"o3-mini":       {1.10, 4.40},
		"gpt-3.5-turbo": {0.50, 1.50},
	}
}

// Lookup finds the price of model: its own entry, or else the entry it is a
// dated or versioned snapshot of ("gpt-4o-2024-08-06" → "gpt-4o"; but
// "gpt-4o-mini" is not priced as "gpt-4o").
func (t PriceTable) Lookup(model string) (Price, bool) {
	if p, ok := t[model]; ok {
		return p, true
	}
	best, found := "", false
	for name := range t {
		rest, ok := strings.CutPrefix(model, name)
		if !ok || len(rest) < 2 || rest[0] != '-' || rest[1] < '0' || rest[1] > '9' {
			continue
		}
		if len(name) > len(best) {
			best, found = name, true
		}
	}
	return t[best], found
}

// Cost is what u cost in US dollars; 0 when its model has no price.
func (t PriceTable) Cost(u Usage) float64 {
	p, ok := t.Lookup(u.Model)
	if !ok {
		return 0
	}
	return (float64(u.InputTokens)*p.InputPerMTok + float64(u.OutputTokens)*p.OutputPerMTok) / 1e6
}

// With returns a copy of t with the entries of o added or replaced.
func (t PriceTable) With(o PriceTable) PriceTable {
	out := maps.Clone(t)
	if out == nil {
		out = PriceTable{}
	}
	maps.Copy(out, o)
	return out
}

// ParsePrices reads a price list such as "gpt-4o-mini=0.15/0.60,gpt-4o=2.5/10":
// comma-separated model=input/output pairs in US dollars per million tokens.
// Blank entries are skipped; an empty string gives an empty table.
func ParsePrices(s string) (PriceTable, error) {
	t := PriceTable{}
	for i, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		fail := func(format string, args ...any) error {
			return fmt.Errorf("prices entry %d %q: %s", i+1, entry, fmt.Sprintf(format, args...))
		}
		model, prices, ok := strings.Cut(entry, "=")
		model = strings.TrimSpace(model)
		if !ok {
			return nil, fail("want model=input/output, e.g. gpt-4o-mini=0.15/0.60")
		}
		if model == "" {
			return nil, fail("the model name is empty")
		}
		in, out, ok := strings.Cut(prices, "/")
		if !ok {
			return nil, fail("want input/output prices per million tokens, e.g. 0.15/0.60")
		}
		inP, err := parsePrice(in)
		if err != nil {
			return nil, fail("input price: %v", err)
		}
		outP, err := parsePrice(out)
		if err != nil {
			return nil, fail("output price: %v", err)
		}
		if _, dup := t[model]; dup {
			return nil, fail("model %s is listed twice", model)
		}
		t[model] = Price{InputPerMTok: inP, OutputPerMTok: outP}
	}
	return t, nil
}

func parsePrice(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("missing")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	return v, nil
}
