// Package listsession builds sessions of many list items, for the tests
// and benchmarks of issue 34 §2-3: each user message names things the user
// likes, every one a made-up word the rules take for a memory of its own.
package listsession

import (
	"fmt"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
)

// Item is the n-th of the distinct made-up words.
func Item(n int) string {
	const cons, vows = "bcdfghjklmnprstvz", "aeiou"
	var b strings.Builder
	for {
		b.WriteByte(cons[n%len(cons)])
		b.WriteByte(vows[(n/len(cons))%len(vows)])
		if n /= len(cons) * len(vows); n == 0 {
			return b.String() + "ka"
		}
	}
}

// Session is a session of app's user that started at t0: messages user
// messages a second apart, each "I like a, b, … and z." of perMessage
// distinct items (at least 2).
func Session(app, user string, t0 time.Time, messages, perMessage int) handoff.Request {
	req := handoff.Request{UserID: user, App: app, StartedAt: t0, EndedAt: t0.Add(2 * time.Hour), Timezone: "UTC"}
	for i := range messages {
		items := make([]string, perMessage)
		for j := range items {
			items[j] = Item(i*perMessage + j)
		}
		req.Messages = append(req.Messages, extract.Message{ID: fmt.Sprintf("m%d", i), Role: "user", At: t0.Add(time.Duration(i) * time.Second),
			Content: "I like " + strings.Join(items[:perMessage-1], ", ") + " and " + items[perMessage-1] + "."})
	}
	return req
}
