package lara

import (
	_ "embed" // the sample sessions

	"github.com/mnemo-ai/mnemo/extract"
)

// demoSessions are this kind's sample sessions (demo.json), in the format
// of `worker demo`: a list of session-close bodies with times relative to
// the demo's start.
//
//go:embed demo.json
var demoSessions []byte

// DemoSessions are the sample sessions `worker demo` hands over for this
// kind.
func (kindLara) DemoSessions() []byte { return demoSessions }

// DropWhy says in words why LaRa's write guard refused a candidate
// (extract.Dropped's "guard:" reasons), for `worker demo`; "" for a reason
// the engine words itself.
func (kindLara) DropWhy(reason string) string {
	switch reason {
	case extract.GuardConfidence, extract.GuardRisk, extract.GuardCooldown:
		return ""
	case extract.GuardLabel:
		return "an emotional label about the child, which LaRa never stores"
	case extract.GuardCap:
		return "more preferences than LaRa keeps"
	}
	return "refused by LaRa's write guard"
}
