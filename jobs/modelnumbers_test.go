package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestModelNumbersAreBounded (issue 34 §9): a client's number beyond ±1e15
// is refused at the door, but the model's were stored as they came (Elder
// Tree's sobriety_days = 1e23). Now an answer with such a number gets the
// repair round, told where the number is; a repaired answer is stored, and
// one that keeps the number leaves the rules' result. On both databases.
func TestModelNumbersAreBounded(t *testing.T) {
	t.Parallel()
	answer := func(days string) llmtest.Reply {
		return llmtest.Valid(`{"profile_updates":{"sobriety_days":` + days + `,"has_sponsor":true},
		 "session_summary":{"urge_intensity":6,"primary_trigger":"loneliness","resistance_strategy_used":"called sponsor","outcome":"urge_passed",
		  "key_insights":["Calling helps"],"emotional_state_start":"anxious","emotional_state_end":"calmer","follow_up_needed":null}}`)
	}
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			x := setupExtract(t, b, true)
			profile := func(user string) map[string]any {
				p, err := x.st.GetProfile(ctx, user)
				if errors.Is(err, store.ErrNotFound) {
					return nil // the rules stated no field
				}
				if err != nil {
					t.Fatalf("profile of %s: %v", user, err)
				}
				var doc map[string]any
				if err := json.Unmarshal(p.Doc, &doc); err != nil {
					t.Fatal(err)
				}
				return doc
			}
			end := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)

			// Repaired: the second answer's number is kept.
			x.llm.Push(answer("1e23"), answer("30"))
			x.waitJob(t, x.closeSession(t, "s-fixed", elderSession("u-fixed", end, "urge_passed")))
			if doc := profile("u-fixed"); doc["sobriety_days"] != 30.0 {
				t.Errorf("after the repair round: sobriety_days %v; want 30", doc["sobriety_days"])
			}
			reqs := x.llm.Requests()
			if len(reqs) != 2 || !strings.Contains(reqs[1].Last(), "/profile_updates/sobriety_days is beyond ±1e15") {
				t.Errorf("%d calls; want the repair round to name the number's place", len(reqs))
			}

			// Kept: the rules' result, without the number.
			x.llm.Push(answer("1e23"), answer("-2e17"))
			x.waitJob(t, x.closeSession(t, "s-kept", elderSession("u-kept", end, "urge_passed")))
			if doc := profile("u-kept"); doc["sobriety_days"] != nil {
				t.Errorf("an answer that kept its number: sobriety_days %v stored; want none", doc["sobriety_days"])
			}
			runs, err := x.st.ListExtractionRuns(ctx, "s-kept")
			if err != nil || len(runs) != 1 || runs[0].Outcome != jobs.OutcomeInvalidAnswer || !strings.Contains(runs[0].Error, "beyond ±1e15") {
				t.Errorf("runs %+v, %v; want one invalid_answer naming the bound", runs, err)
			}
		})
	}
}
