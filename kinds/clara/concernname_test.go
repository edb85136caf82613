package clara

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestConcernNamesReadAlike: every concern a caregiver's page lists is
// said in sentence case, named or not ("Pain", "Poor sleep", "Possible
// scam"), never a mix of "Pain" and "scam".
func TestConcernNamesReadAlike(t *testing.T) {
	for _, c := range []string{ConcernOverdose, ConcernFall, ConcernPain, ConcernNotEating, ConcernMedication,
		ConcernStoppedMedication, ConcernLost, ConcernStrangerAtDoor, ConcernScam, ConcernUnwell, ConcernSleep, "a_new_one"} {
		name := concernName(c)
		r, _ := utf8.DecodeRuneInString(name)
		if !unicode.IsUpper(r) {
			t.Errorf("concern %s reads %q: not in sentence case", c, name)
		}
		for _, b := range name {
			if b == '_' {
				t.Errorf("concern %s reads %q: a key, not words", c, name)
				break
			}
		}
	}
	if got := concernName(ConcernSleep); got != "Poor sleep" {
		t.Errorf("poor_sleep reads %q, want %q", got, "Poor sleep")
	}
}
