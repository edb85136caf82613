package schedule

import (
	"strings"
	"time"
)

// ParseLine reads a batch's schedule as an operator writes it in
// configuration: "SPEC[; POLICY [WINDOW]]", e.g. "CRON_TZ=Europe/Berlin 0 3 * * *"
// or "0 12 * * 1; all 840h". The policy defaults to latest; all needs a window.
func ParseLine(name, line string) (*Schedule, error) {
	spec, rest, _ := strings.Cut(line, ";")
	policy, window := Latest, time.Duration(0)
	if f := strings.Fields(rest); len(f) > 0 {
		p, err := ParsePolicy(f[0])
		if err != nil {
			return nil, batchErrorf(name, "%w", err)
		}
		policy = p
		if len(f) > 2 {
			return nil, batchErrorf(name, "%w: %q has more than a policy and a window", ErrInvalidSpec, rest)
		}
		if len(f) == 2 {
			if window, err = time.ParseDuration(f[1]); err != nil || window <= 0 {
				return nil, batchErrorf(name, "%w: window %q is not a positive duration such as 720h", ErrInvalidSpec, f[1])
			}
		}
	}
	return Parse(name, strings.TrimSpace(spec), policy, window)
}
