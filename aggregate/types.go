// Package aggregate computes Mnemo's scheduled aggregates — a recovery
// companion's weekly analytics, caregivers' trends, anonymised per-app insights — as pure
// functions over rows the store streams one user at a time. It knows no SQL,
// HTTP or clock.
package aggregate

import "time"

// Event is one stored session event.
type Event struct {
	Type string
	At   time.Time
	Data map[string]any
}

// Session is one processed session of a user with its summary and events.
type Session struct {
	SessionID string
	StartedAt time.Time
	EndedAt   time.Time
	// Summary is the stored session summary (nil when none).
	Summary map[string]any
	Events  []Event // oldest first
}

// User is everything the store streams for one user: their sessions inside
// the window the batch asked for, oldest first.
type User struct {
	UserID   string
	App      string
	Timezone string // IANA; empty means UTC
	Profile  map[string]any
	Sessions []Session
}
