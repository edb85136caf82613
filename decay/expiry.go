package decay

import "time"

// MemoryExpired reports whether a memory with expiry expiresAt has left the
// active set at now. Expiry is inclusive: a memory is expired from the
// instant expiresAt on, as the store's expires_at <= now. A memory without
// an expiry (nil) never expires.
func MemoryExpired(expiresAt *time.Time, now time.Time) bool {
	return expiresAt != nil && !now.Before(*expiresAt)
}

// BufferExpired reports whether a rolling buffer entry created at createdAt
// is older than maxAge at now and is to be deleted. Age is exclusive: an
// entry exactly maxAge old is kept, as the store's created_at < now − maxAge.
// A maxAge that is not positive disables the cleanup (false), so a missing
// setting cannot delete every buffer.
func BufferExpired(createdAt, now time.Time, maxAge time.Duration) bool {
	return maxAge > 0 && now.Sub(createdAt) > maxAge
}

// SessionIdle reports whether a session last active at lastActivity has been
// inactive longer than idle at now and is to be expired and closed. Like
// BufferExpired it is exclusive (a session exactly idle long is still open,
// as the store's updated_at < now − idle) and an idle that is not positive
// disables it.
func SessionIdle(lastActivity, now time.Time, idle time.Duration) bool {
	return idle > 0 && now.Sub(lastActivity) > idle
}
