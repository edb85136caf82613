package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

func init() {
	cases = append(cases, testCase{"ResolveCuesResolvesTheUsersOpenCuesOfAKind", resolveCues})
}

// resolveCues: an operator's resolution marks the user's open cues of one
// kind recorded up to then, and no other: not another kind's, not another
// user's, not one recorded after it; one resolved before keeps its time;
// ListCues' unresolved list no longer holds them; a second resolution finds
// nothing to resolve.
func resolveCues(t *testing.T, s store.Store) {
	ctx := context.Background()
	seedSession(t, s, "u-1", "s-1")
	seedSession(t, s, "u-1", "s-2")
	seedSession(t, s, "u-2", "s-3")
	cue := func(id, user, session, kind, field string, at time.Time, resolved *time.Time) {
		must(t, s.InsertCue(ctx, store.Cue{ID: id, UserID: user, App: appE, Type: kind, Field: field,
			Detail: json.RawMessage(`{"class":"suicidal","severity":"high","actor":"user"}`), SessionID: session, CreatedAt: at, ResolvedAt: resolved}))
	}
	earlier := T0.Add(-time.Hour)
	cue("c-2", "u-1", "s-1", "risk", "m-2", T0.Add(time.Minute), nil)
	cue("c-1", "u-1", "s-1", "risk", "m-1", T0.Add(time.Minute), nil)
	cue("c-3", "u-1", "s-2", "risk", "m-1", T0.Add(2*time.Hour), nil) // after the resolution
	cue("c-4", "u-1", "s-1", "relapse", "sobriety", T0, nil)          // another kind
	cue("c-5", "u-2", "s-3", "risk", "m-1", T0, nil)                  // another user
	cue("c-6", "u-1", "s-2", "risk", "m-9", T0, &earlier)             // resolved before

	at := T0.Add(time.Hour)
	got, err := s.ResolveCues(ctx, "u-1", "risk", at)
	must(t, err)
	if ids := cueIDs(got); ids != "c-1 c-2" {
		t.Fatalf("ResolveCues = %s; want c-1 c-2, the open risk cues of u-1 recorded by then, oldest first then by id", ids)
	}
	for _, c := range got {
		if c.ResolvedAt == nil || !c.ResolvedAt.Equal(at) || c.UserID != "u-1" || c.Type != "risk" || !c.CreatedAt.Equal(T0.Add(time.Minute)) {
			t.Fatalf("resolved cue read back as %+v", c)
		}
	}
	open, err := s.ListCues(ctx, "u-1", true)
	must(t, err)
	if ids := cueIDs(open); ids != "c-4 c-3" {
		t.Fatalf("open cues of u-1 after = %s; want c-4 c-3", ids)
	}
	all, err := s.ListCues(ctx, "u-1", false)
	must(t, err)
	for _, c := range all {
		if c.ID == "c-6" && (c.ResolvedAt == nil || !c.ResolvedAt.Equal(earlier)) {
			t.Fatalf("a cue resolved before was resolved again: %+v", c)
		}
	}
	other, err := s.ListCues(ctx, "u-2", true)
	must(t, err)
	if ids := cueIDs(other); ids != "c-5" {
		t.Fatalf("open cues of u-2 = %s; want c-5 untouched", ids)
	}
	again, err := s.ResolveCues(ctx, "u-1", "risk", at)
	must(t, err)
	if again == nil || len(again) != 0 {
		t.Fatalf("a second resolution = %v; want empty", again)
	}
	none, err := s.ResolveCues(ctx, "u-none", "risk", at)
	must(t, err)
	if none == nil || len(none) != 0 {
		t.Fatalf("ResolveCues of an unknown user = %v; want empty", none)
	}
}
