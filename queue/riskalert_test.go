package queue_test

import (
	"context"
	"testing"

	"github.com/riverqueue/river/rivertype"

	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestRiskAlertStates: the states of the alerts of the sessions asked
// for, by session and class, in one query on each database; no other
// session's alert and no other kind of job with the session's id.
func TestRiskAlertStates(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st := b.Open(t)
			if _, err := queue.MigrateRiver(ctx, st); err != nil {
				t.Fatal(err)
			}
			q, err := queue.New(st, queue.Config{})
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range []queue.RiskAlertArgs{{SessionID: "s1", Class: "suicidal"}, {SessionID: "s1", Class: "self_harm"},
				{SessionID: "s2", Class: "suicidal"}, {SessionID: "s3", Class: "suicidal"}} {
				if _, err := q.Insert(ctx, a, nil); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := q.Insert(ctx, queue.ExtractArgs{SessionID: "s1"}, nil); err != nil {
				t.Fatal(err)
			}
			got, err := queue.RiskAlertStates(ctx, q, []string{"s1", "s2", "s9"}, 0)
			if err != nil {
				t.Fatal(err)
			}
			want := map[queue.RiskAlertKey]rivertype.JobState{{SessionID: "s1", Class: "suicidal"}: rivertype.JobStateAvailable,
				{SessionID: "s1", Class: "self_harm"}: rivertype.JobStateAvailable, {SessionID: "s2", Class: "suicidal"}: rivertype.JobStateAvailable}
			if len(got) != len(want) {
				t.Errorf("states %v; want %v", got, want)
			}
			for k, s := range want {
				if got[k] != s {
					t.Errorf("%v: state %q; want %q (all: %v)", k, got[k], s, got)
				}
			}
			if got, err := queue.RiskAlertStates(ctx, q, nil, 0); err != nil || len(got) != 0 {
				t.Errorf("no session: %v, %v; want none", got, err)
			}
		})
	}
}
