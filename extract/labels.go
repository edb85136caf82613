package extract

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Labels: the short structured values the chat service's events carry.

func eventData(raw json.RawMessage) map[string]any {
	var d map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &d) != nil {
		return map[string]any{}
	}
	return d
}

// label is a short structured value from an event (a trigger, a strategy, an
// emotion): trimmed, lower-cased, spaces collapsed, cut to MaxValueRunes. A
// value that looks sensitive is dropped: event data is written by the chat
// service, but it may have copied it from what the user typed.
func label(v any) string {
	s, _ := v.(string)
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	if s == "" {
		return ""
	}
	if _, bad := Sensitive(s); bad {
		return ""
	}
	if utf8.RuneCountInString(s) > MaxValueRunes {
		r := []rune(s)
		s = strings.TrimSpace(string(r[:MaxValueRunes]))
	}
	return s
}

// labelKey is what makes two labels the same: "work_stress", "Work stress"
// and "work-stress" count as one trigger.
func labelKey(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}
