package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/llm/llmtest"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestAnyOrderLeavesWhatChronologicalOrderLeaves is the property behind
// statement time: handing a user's sessions over in any order, one after
// another or all at once and processed in parallel, leaves the same active
// memories, profile and records as handing them over in the order they
// happened. Sessions are random (a fixed seed per app, printed on failure)
// and say things that contradict each other, so that order matters.
func TestAnyOrderLeavesWhatChronologicalOrderLeaves(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			for i, app := range []string{"mona", "eldertree", "coach", "lara"} {
				t.Run(app, func(t *testing.T) {
					seed := uint64(20261126 + i)
					rng := rand.New(rand.NewPCG(seed, 7))
					bundle := setupExtract(t, b, app == "eldertree")
					if app == "eldertree" {
						bundle.llm.SetDefault(elderTreeReply)
					}
					t0 := time.Now().UTC().Add(-20 * 24 * time.Hour).Truncate(time.Minute)
					sessions := randomSessions(app, rng, t0, 6)

					chrono := make([]int, len(sessions))
					for i := range chrono {
						chrono[i] = i
					}
					want := bundle.handOver(t, "ref", sessions, chrono, false)
					if app != "eldertree" && len(want.active) == 0 && len(want.records) == 0 && want.profile == "{}" {
						t.Fatalf("seed %d: the sessions left nothing to compare", seed)
					}
					// The quick suite (-short) tries one sequential order
					// besides the parallel one; the full suite three.
					runs := 3
					if testing.Short() {
						runs = 1
					}
					for run := range runs {
						order := rng.Perm(len(sessions))
						got := bundle.handOver(t, fmt.Sprintf("p%d", run), sessions, order, false)
						want.equal(t, got, fmt.Sprintf("seed %d, sequential order %v", seed, order))
					}
					order := rng.Perm(len(sessions))
					got := bundle.handOver(t, "par", sessions, order, true)
					want.equal(t, got, fmt.Sprintf("seed %d, all at once in order %v", seed, order))
				})
			}
		})
	}
}

// userState is what a user's sessions left, with the user's id and its
// session ids taken out so that two users' states compare.
type userState struct {
	active  []string
	history []string // memories no longer active: deprecated, expired
	profile string
	records []string
}

func (want userState) equal(t *testing.T, got userState, how string) {
	t.Helper()
	if !slices.Equal(want.active, got.active) {
		t.Errorf("%s: active memories\n got %q\nwant %q", how, got.active, want.active)
	}
	if !slices.Equal(want.history, got.history) {
		t.Errorf("%s: memory history\n got %q\nwant %q", how, got.history, want.history)
	}
	if want.profile != got.profile {
		t.Errorf("%s: profile\n got %s\nwant %s", how, got.profile, want.profile)
	}
	for _, r := range got.records {
		if !slices.Contains(want.records, r) {
			t.Errorf("%s: record not left by the sessions in order:\n%s", how, r)
		}
	}
	for _, r := range want.records {
		if !slices.Contains(got.records, r) {
			t.Errorf("%s: record missing:\n%s", how, r)
		}
	}
}

// handOver hands sessions over for user in order, each processed before the
// next unless together, and returns the user's state.
func (b *extractBundle) handOver(t *testing.T, user string, sessions []handoff.Request, order []int, together bool) userState {
	t.Helper()
	var pending []int64
	for _, i := range order {
		req := sessions[i]
		req.UserID = user
		id := fmt.Sprintf("%s-s%d", user, i)
		job := b.closeSession(t, id, req)
		if together {
			pending = append(pending, job)
		} else {
			b.waitJob(t, job)
		}
	}
	for _, job := range pending {
		b.waitJob(t, job)
	}
	return b.stateOf(t, user)
}

// stateOf reads what user's sessions left.
func (b *extractBundle) stateOf(t *testing.T, user string) userState {
	t.Helper()
	ctx := context.Background()
	anon := strings.NewReplacer(user+"-", "", `"`+user+`"`, `"U"`)
	var s userState
	mems, err := b.st.ListMemories(ctx, user, store.MemoryFilter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mems {
		until := "now"
		if m.InvalidatedAt != nil {
			until = m.InvalidatedAt.Format(time.RFC3339)
		}
		line := fmt.Sprintf("%s=%s (%s, stated %s, until %s, from %s, importance %d, confirmed %d, event %q)", m.Key, m.Value,
			m.Category, m.StatedAt.Format(time.RFC3339), until, anon.Replace(m.SourceSessionID+"/"+m.SourceMessageID),
			m.Importance, m.Confirmations, m.EventDate)
		if m.Status == store.MemoryActive {
			s.active = append(s.active, line)
		} else {
			s.history = append(s.history, m.Status+" "+line)
		}
	}
	slices.Sort(s.active)
	slices.Sort(s.history)
	s.profile = "{}"
	if p, err := b.st.GetProfile(ctx, user); err == nil {
		s.profile = string(p.Doc) + " stated " + anon.Replace(string(p.Stated))
	}
	recs, err := b.st.ListRecords(ctx, user, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		s.records = append(s.records, r.Type+"/"+r.Key+" "+anon.Replace(string(r.Data))+" stated "+r.StatedAt.Format(time.RFC3339))
	}
	return s
}

// randomSessions are n sessions of app, a day or so apart, whose statements
// are drawn from small pools so that they repeat and contradict each other.
func randomSessions(app string, rng *rand.Rand, t0 time.Time, n int) []handoff.Request {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	out := make([]handoff.Request, n)
	for i := range out {
		start := t0.Add(time.Duration(i)*26*time.Hour + time.Duration(rng.IntN(120))*time.Minute)
		req := handoff.Request{App: app, StartedAt: start, EndedAt: start.Add(30 * time.Minute), Timezone: "Europe/Berlin"}
		var said []string
		switch app {
		case "mona":
			for range 2 + rng.IntN(3) {
				said = append(said, pick(
					"My favorite color is "+pick("red", "blue", "green")+".",
					"I like "+pick("hiking", "jazz", "tea")+".",
					"I don't like "+pick("hiking", "jazz", "tea")+".",
					"My name is "+pick("Ann", "Bea")+".",
					"My favorite food is "+pick("ramen", "sushi")+"."))
			}
		case "eldertree":
			said = append(said, fmt.Sprintf("I have been %d days sober.", 10+rng.IntN(50)),
				"My sponsor is "+pick("Dave", "Linda")+".", "I am "+pick("in", "out of")+" the fellowship.")
		case "coach":
			for range 2 + rng.IntN(2) {
				said = append(said, pick(
					"My goal is to "+pick("run a marathon", "learn Spanish", "save money", "sleep earlier")+".",
					"I will "+pick("call my mom on Sunday", "go for a walk every morning", "write a budget")+".",
					"I'd prefer you "+pick("to be more direct", "to keep it short")+".",
					"I realized that "+pick("I need rest", "money worries me")+".",
					"I'm not sure whether "+pick("I should change jobs", "to move")+"."))
			}
		case "lara":
			said = append(said, "I like "+pick("dinosaurs", "space", "trains")+".")
			if rng.IntN(2) == 0 {
				said = append(said, "I don't like "+pick("dinosaurs", "space", "trains")+".")
			}
			for k := range 3 + rng.IntN(4) {
				at := start.Add(time.Duration(k+1) * time.Minute)
				req.Events = append(req.Events, event("attempt", at, map[string]any{
					"concept": pick("fractions", "decimals"), "difficulty": 1 + rng.IntN(3), "success": rng.IntN(3) > 0}))
				if rng.IntN(2) == 0 {
					req.Events = append(req.Events, event("mood", at, map[string]any{"state": pick("frustrated", "recovered", "stable")}))
				}
				if rng.IntN(2) == 0 {
					req.Events = append(req.Events, event("reinforcement", at, map[string]any{"style": pick("visual", "verbal"), "success": rng.IntN(2) == 0}))
				}
			}
		}
		for k, text := range said {
			req.Messages = append(req.Messages, extract.Message{ID: fmt.Sprintf("m%d", k+1), Role: "user", Content: text,
				At: start.Add(time.Duration(k+1) * time.Minute)})
		}
		out[i] = req
	}
	return out
}

func event(kind string, at time.Time, data map[string]any) extract.Event {
	raw, _ := json.Marshal(data)
	return extract.Event{Type: kind, At: at, Data: raw}
}

var (
	soberRe      = regexp.MustCompile(`(\d+) days sober`)
	sponsorRe    = regexp.MustCompile(`sponsor is (\w+)`)
	fellowshipRe = regexp.MustCompile(`I am (in|out of) the fellowship`)
)

// elderTreeReply answers an Elder Tree extraction as a model would: the
// profile fields the transcript states.
func elderTreeReply(r llmtest.Request) llmtest.Reply {
	text := ""
	for _, m := range r.Messages {
		text += m.Content + "\n"
	}
	updates := map[string]any{}
	if m := soberRe.FindStringSubmatch(text); m != nil {
		var days int
		fmt.Sscan(m[1], &days)
		updates["sobriety_days"] = days
	}
	if m := sponsorRe.FindStringSubmatch(text); m != nil {
		updates["sponsor_name"], updates["has_sponsor"] = m[1], true
	}
	if m := fellowshipRe.FindStringSubmatch(text); m != nil {
		updates["in_fellowship"] = m[1] == "in"
	}
	answer, _ := json.Marshal(map[string]any{"profile_updates": updates, "session_summary": map[string]any{
		"urge_intensity": nil, "primary_trigger": nil, "resistance_strategy_used": nil, "outcome": "urge_passed",
		"key_insights": []string{}, "emotional_state_start": "calm", "emotional_state_end": "calm", "follow_up_needed": nil}})
	return llmtest.Valid(string(answer))
}

// TestLateValueInsideARunOfAnother: the sponsor was Dave, then Linda, then
// Dave again. Handed over newest first, then oldest, then the middle one,
// the profile still says Dave since the third session, as in order: the
// late Linda splits the run of Daves it fell into.
func TestLateValueInsideARunOfAnother(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			bundle := setupExtract(t, b, true)
			bundle.llm.SetDefault(elderTreeReply)
			t0 := time.Now().UTC().Add(-10 * 24 * time.Hour).Truncate(time.Minute)
			var sessions []handoff.Request
			for i, sponsor := range []string{"Dave", "Linda", "Dave"} {
				start := t0.Add(time.Duration(i) * 24 * time.Hour)
				sessions = append(sessions, handoff.Request{App: "eldertree", StartedAt: start, EndedAt: start.Add(30 * time.Minute),
					Messages: []extract.Message{{ID: "m1", Role: "user", Content: "My sponsor is " + sponsor + ".", At: start.Add(time.Minute)}}})
			}
			want := bundle.handOver(t, "in-order", sessions, []int{0, 1, 2}, false)
			if !regexp.MustCompile(`"sponsor_name":\s*"Dave"`).MatchString(want.profile) ||
				!regexp.MustCompile(`"sponsor_name":\s*\{"at":\s*"[^"]+",\s*"by":\s*"s2"[,}]`).MatchString(want.profile) {
				t.Fatalf("in order: profile %s; want Dave, stated by the third session", want.profile)
			}
			want.equal(t, bundle.handOver(t, "late-middle", sessions, []int{2, 0, 1}, false), "newest, oldest, then the middle")
		})
	}
}

// TestRecurringTriggerCountsSessionsByWhenTheyHappened: five sessions with
// one trigger make a recurring_trigger cue when they fall within 30 days.
// Sessions from two months ago, handed over late today, are not recent:
// they raise no cue, however recently they arrived.
func TestRecurringTriggerCountsSessionsByWhenTheyHappened(t *testing.T) {
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			bundle := setupExtract(t, b, false)
			ctx := context.Background()
			hasCue := func(user string) bool {
				t.Helper()
				cues, err := bundle.st.ListCues(ctx, user, false)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range cues {
					if c.Type == extract.CueRecurringTrigger {
						return true
					}
				}
				return false
			}
			now := time.Now().UTC().Truncate(time.Minute)
			for user, age := range map[string]time.Duration{"recent": 0, "old": 60 * 24 * time.Hour} {
				for i := range 5 {
					end := now.Add(-age - time.Duration(5-i)*24*time.Hour)
					bundle.waitJob(t, bundle.closeSession(t, fmt.Sprintf("%s-%d", user, i), elderSession(user, end, "urge_passed")))
				}
			}
			if !hasCue("recent") {
				t.Error("five sessions of this week with one trigger raised no recurring_trigger cue")
			}
			if hasCue("old") {
				t.Error("five sessions of two months ago, handed over today, raised a recurring_trigger cue")
			}
		})
	}
}
