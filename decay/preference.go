package decay

import "time"

// Preference reports whether a preference last used at lastUsed has gone
// unused for longer than PreferenceUnused and is to be removed. Its last
// use is the record's last_seen, or its first_seen when it has no
// last_seen; the kind reads them (Instant). A preference exactly
// PreferenceUnused old is kept. Bad data is never removed: a last use that
// cannot be read (known false: a date that is not RFC 3339, including a
// last_seen that is present but unreadable) or an invalid policy gives
// false.
func Preference(lastUsed time.Time, known bool, now time.Time, p Policy) (remove bool) {
	if !known || p.Validate() != nil {
		return false
	}
	p = p.withDefaults()
	return now.Sub(lastUsed) > p.PreferenceUnused
}
