package eldertree

import _ "embed" // the sample sessions

// demoSessions are this kind's sample sessions (demo.json), in the format
// of `worker demo`: a list of session-close bodies with times relative to
// the demo's start.
//
//go:embed demo.json
var demoSessions []byte

// DemoSessions are the sample sessions `worker demo` hands over for this
// kind.
func (kindElderTree) DemoSessions() []byte { return demoSessions }
