package main

import "testing"

// The examples of values that are not values: the prose-based
// trimmer must cut them back to the noun phrase, and leave a complete one.
func TestTrimValue(t *testing.T) {
	tg := newTagger()
	tests := []struct{ source, value, want string }{
		{"I live in Chicago and I work as a physical therapist", "Chicago and I", "Chicago"},
		{"My sister Elena lives in Lisbon", "Elena Lives", "Elena"},
		{"He is my favourite actor", "He", ""},
		{"I love the way folk music can tell stories", "folk music", "folk music"},
		{"My favourite things to cook are shakshuka, pad thai and lentil soup", "shakshuka, pad thai and lentil soup", "shakshuka, pad thai and lentil soup"},
	}
	for _, tc := range tests {
		sp := tg.find(tc.source, tc.value)
		if !sp.located {
			t.Errorf("%q: value %q not located", tc.source, tc.value)
		}
		if got := trimValue(sp); got != tc.want {
			t.Errorf("%q: trimValue(%q) = %q, want %q", tc.source, tc.value, got, tc.want)
		}
	}
}

func TestTenseUsedTo(t *testing.T) {
	tg := newTagger()
	if got := proseTense(tg.tag("I used to live in Ohio")); got != "past" {
		t.Errorf("used to: %s, want past", got)
	}
	if got := proseTense(tg.tag("I live in Ohio")); got != "present" {
		t.Errorf("live: %s, want present", got)
	}
}
