package decay_test

import (
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
)

func TestMemoryExpired(t *testing.T) {
	t.Parallel()
	at := func(d time.Duration) *time.Time { x := now.Add(d); return &x }
	tests := []struct {
		name      string
		expiresAt *time.Time
		want      bool
	}{
		{"no expiry", nil, false},
		{"expires in a second", at(time.Second), false},
		{"expires now (inclusive)", at(0), true},
		{"expired a second ago", at(-time.Second), true},
		{"expired a year ago", at(-365 * day), true},
		{"same instant in another zone", func() *time.Time { x := now.In(time.FixedZone("x", 5*3600)); return &x }(), true},
	}
	for _, tt := range tests {
		if got := decay.MemoryExpired(tt.expiresAt, now); got != tt.want {
			t.Errorf("%s: MemoryExpired = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBufferExpired(t *testing.T) {
	t.Parallel()
	const maxAge = 24 * time.Hour
	tests := []struct {
		name    string
		created time.Time
		maxAge  time.Duration
		want    bool
	}{
		{"just written", now, maxAge, false},
		{"one second short of 24 h", now.Add(-maxAge + time.Second), maxAge, false},
		{"exactly 24 h (kept)", now.Add(-maxAge), maxAge, false},
		{"24 h and a second", now.Add(-maxAge - time.Second), maxAge, true},
		{"a week old", now.Add(-7 * day), maxAge, true},
		{"created in the future", now.Add(time.Hour), maxAge, false},
		{"zero max age disables", now.Add(-7 * day), 0, false},
		{"negative max age disables", now.Add(-7 * day), -time.Hour, false},
	}
	for _, tt := range tests {
		if got := decay.BufferExpired(tt.created, now, tt.maxAge); got != tt.want {
			t.Errorf("%s: BufferExpired = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSessionIdle(t *testing.T) {
	t.Parallel()
	const idle = 30 * time.Minute
	tests := []struct {
		name string
		last time.Time
		idle time.Duration
		want bool
	}{
		{"active now", now, idle, false},
		{"exactly idle long (still open)", now.Add(-idle), idle, false},
		{"idle and a second", now.Add(-idle - time.Second), idle, true},
		{"idle for a day", now.Add(-day), idle, true},
		{"activity in the future", now.Add(time.Minute), idle, false},
		{"zero idle disables", now.Add(-day), 0, false},
	}
	for _, tt := range tests {
		if got := decay.SessionIdle(tt.last, now, tt.idle); got != tt.want {
			t.Errorf("%s: SessionIdle = %v, want %v", tt.name, got, tt.want)
		}
	}
}
