package llm_test

import (
	"math"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/llm"
)

func TestParsePrices(t *testing.T) {
	t.Parallel()
	got, err := llm.ParsePrices(" gpt-4o-mini=0.15/0.60, gpt-4o=2.5/10 ,")
	if err != nil {
		t.Fatal(err)
	}
	want := llm.PriceTable{"gpt-4o-mini": {0.15, 0.60}, "gpt-4o": {2.5, 10}}
	if len(got) != len(want) || got["gpt-4o-mini"] != want["gpt-4o-mini"] || got["gpt-4o"] != want["gpt-4o"] {
		t.Errorf("got %v, want %v", got, want)
	}
	if empty, err := llm.ParsePrices(""); err != nil || len(empty) != 0 {
		t.Errorf("empty: %v, %v", empty, err)
	}
}

func TestParsePricesErrors(t *testing.T) {
	t.Parallel()
	for input, want := range map[string]string{
		"gpt-4o-mini":                   `entry 1 "gpt-4o-mini": want model=input/output`,
		"=0.1/0.2":                      "model name is empty",
		"gpt-4o=2.5":                    "want input/output prices",
		"gpt-4o=abc/10":                 `input price: "abc" is not a number`,
		"gpt-4o=2.5/":                   "output price: missing",
		"gpt-4o=2.5/-1":                 `output price: "-1" is negative`,
		"gpt-4o=NaN/1":                  "not a number",
		"a=1/2,a=3/4":                   "entry 2",
		"gpt-4o-mini=0.15/0.60,x=1/2/3": `output price: "2/3" is not a number`,
	} {
		_, err := llm.ParsePrices(input)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParsePrices(%q) = %v, want an error with %q", input, err, want)
		}
	}
}

func TestPriceTableCost(t *testing.T) {
	t.Parallel()
	prices := llm.DefaultPrices().With(llm.PriceTable{"local-llama": {0, 0}, "gpt-4o": {3, 12}})
	tests := []struct {
		model string
		want  float64
	}{
		{"gpt-4o-mini", 0.15*2 + 0.60*0.5},            // its own entry
		{"gpt-4o-mini-2024-07-18", 0.15*2 + 0.60*0.5}, // a dated snapshot of it
		{"gpt-4o", 3*2 + 12*0.5},                      // overridden
		{"gpt-4o-2024-08-06", 3*2 + 12*0.5},
		{"gpt-4o-audio", 0}, // a different model, not a snapshot
		{"local-llama", 0},
		{"unknown", 0},
	}
	for _, tt := range tests {
		got := prices.Cost(llm.Usage{Model: tt.model, InputTokens: 2_000_000, OutputTokens: 500_000, Calls: 3})
		if math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: cost %v, want %v", tt.model, got, tt.want)
		}
	}
	if llm.DefaultPrices()["gpt-4o"].InputPerMTok != 2.5 {
		t.Error("With changed the defaults")
	}
}
