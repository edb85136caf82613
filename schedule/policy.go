package schedule

import (
	"errors"
	"fmt"
	"strings"
)

// Policy says which missed periods of a batch run when the scheduler finds
// them, after a restart, an outage or a lost leader.
type Policy string

const (
	// Latest runs only the newest missed period, once. It suits batches whose
	// run covers everything up to now, such as TTL expiry or nightly trends.
	Latest Policy = "latest"
	// All runs every missed period inside the batch's window, oldest first.
	// It suits batches whose periods each produce their own rows, such as
	// weekly analytics.
	All Policy = "all"
	// Skip runs no missed period: only a period whose instant is at most
	// SkipGrace before now runs.
	Skip Policy = "skip"
)

// ErrInvalidPolicy is returned for an unknown policy or a window that does
// not fit the policy.
var ErrInvalidPolicy = errors.New("invalid catch-up policy")

// ParsePolicy parses "latest", "all" or "skip", ignoring case and
// surrounding spaces.
func ParsePolicy(s string) (Policy, error) {
	p := Policy(strings.ToLower(strings.TrimSpace(s)))
	if err := p.validate(); err != nil {
		return "", err
	}
	return p, nil
}

func (p Policy) validate() error {
	switch p {
	case Latest, All, Skip:
		return nil
	}
	return fmt.Errorf("%w %q: want latest, all or skip", ErrInvalidPolicy, string(p))
}
