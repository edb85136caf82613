package jobs_test

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// A coach user who turns memory off after a session was handed over, and
// before its extraction ran, still has the crisis found: the extraction
// reads the stored transcript, records the finding as a risk cue (class,
// severity, source; never the words) and deletes the transcript, which
// coach otherwise keeps for years, keeping no memory and no summary line;
// a retried run records nothing twice.
func TestMemoryTurnedOffBeforeExtractionKeepsTheFinding(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtractWith(t, b, false, false)
			t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
			id := x.closeSession(t, "s-1", handoff.Request{UserID: "u-1", App: "coach", StartedAt: t0, EndedAt: t0.Add(20 * time.Minute),
				Timezone: "UTC", Messages: []extract.Message{
					{ID: "m1", Role: "user", Content: "I'm going to kill myself tonight.", At: t0.Add(time.Minute)},
					{ID: "m2", Role: "user", Content: "My favorite food is ramen.", At: t0.Add(2 * time.Minute)},
				}})
			if err := x.st.SetMemoryDisabled(ctx, "u-1", true, time.Now()); err != nil {
				t.Fatal(err)
			}
			workTwice(t, x, id)

			want := map[string]string{"class": "suicidal", "severity": "high", "message_id": "m1", "actor": "user", "source": "rules"}
			if cues := riskCues(t, x); len(cues) != 1 || !maps.Equal(cues["m1"], want) {
				t.Fatalf("risk cues %v; want m1's %v", cues, want)
			}
			if keys := storedKeys(t, x); len(keys) != 0 {
				t.Fatalf("memories %v; want none while memory is off", keys)
			}
			s := x.state(t, "s-1", "u-1")
			if s.chunks != 0 {
				t.Errorf("%d transcript chunks kept while memory is off", s.chunks)
			}
			var sum map[string]any
			if err := json.Unmarshal(s.summary.Data, &sum); err != nil || len(sum) != 1 || sum["memory_disabled"] != true ||
				strings.Contains(string(s.summary.Data), "ramen") {
				t.Errorf("summary %s", s.summary.Data)
			}
		})
	}
}
