// Package zones loads IANA time zones once: time.LoadLocation reads and
// parses the zone database file on every call, and the handoff path and the
// batches ask for the same few zones again and again.
package zones

import (
	"errors"
	"sync"
	"time"
)

// cache holds the zones that loaded; names that fail are not kept, so its
// size is bounded by the zone database.
var cache sync.Map

// Load is time.LoadLocation with a cache. "Local" is refused: it would
// depend on the machine the worker runs on.
func Load(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if l, ok := cache.Load(name); ok {
		return l.(*time.Location), nil
	}
	if name == "Local" {
		return nil, errLocal
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	cache.Store(name, loc)
	return loc, nil
}

var errLocal = errors.New(`time zone "Local" depends on the machine; name a zone such as Europe/Berlin`)
