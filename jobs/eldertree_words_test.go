package jobs_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// An Elder Tree session told in words, on both databases: the stated time
// sober and step land in the profile, and a risky event ahead is recorded
// as a risky_event cue dated for its day; a reset in a later session moves
// the start date and raises a relapse cue.
func TestElderTreeWordsReachProfileAndCues(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtract(t, b, false)
			t0 := time.Now().UTC().Add(-48 * time.Hour).Truncate(time.Second)
			say := func(id string, at time.Time, text string) {
				x.waitJob(t, x.closeSession(t, id, handoff.Request{UserID: "eu-1", App: "eldertree", StartedAt: at, EndedAt: at.Add(30 * time.Minute),
					Timezone: "UTC", Messages: []extract.Message{{ID: "m1", Role: "user", Content: text, At: at.Add(time.Minute)}}}))
			}
			say("e-1", t0, "Hi, I'm Dan and I'm an alcoholic. Day 428 today, working step 4. Tomorrow I have a work happy hour.")
			prof, err := x.st.GetProfile(ctx, "eu-1")
			if err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(prof.Doc, &doc); err != nil {
				t.Fatal(err)
			}
			start := t0.AddDate(0, 0, -427).Format(time.DateOnly)
			if doc["preferred_name"] != "Dan" || doc["addiction_type"] != "alcohol" || doc["sobriety_days"] != 427.0 ||
				doc["recovery_start_date"] != start || doc["current_step"] != 4.0 {
				t.Fatalf("profile %v", doc)
			}
			cues, err := x.st.ListCues(ctx, "eu-1", true)
			if err != nil {
				t.Fatal(err)
			}
			tomorrow := t0.AddDate(0, 0, 1).Format(time.DateOnly)
			if len(cues) != 1 || cues[0].Type != extract.CueRiskyEvent || cues[0].Field != tomorrow {
				t.Fatalf("cues %+v; want one risky_event for %s", cues, tomorrow)
			}

			say("e-2", t0.Add(24*time.Hour), "Day 2 sober again.")
			if cues, err = x.st.ListCues(ctx, "eu-1", true); err != nil {
				t.Fatal(err)
			}
			relapse := false
			for _, c := range cues {
				relapse = relapse || c.Type == extract.CueRelapse
			}
			if !relapse {
				t.Fatalf("cues %+v; want a relapse cue after the reset", cues)
			}
		})
	}
}
