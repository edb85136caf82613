package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// careClock is a test's clock, moved by the test.
type careClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *careClock) get() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *careClock) set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

// careOpening is how a pack with a care note begins.
const careOpening = extract.PackPreamble + "\n\nCARE NOTE:\n- "

// careSaid is when the crisis was said: the evening of the 24th in
// Chicago, the 25th in UTC.
var careSaid = time.Date(2026, 11, 25, 3, 30, 0, 0, time.UTC)

// careSetup is a server whose clock the test moves, with the admin token,
// Clara's service token and careDays as MNEMO_CARE_NOTE_DAYS (0: the
// default).
func careSetup(t *testing.T, b storetest.Backend, careDays int) (*api.Server, store.Store, *careClock) {
	t.Helper()
	clock := &careClock{now: careSaid.Add(time.Hour)}
	srv, st, _ := setupAPIWith(t, b, func(cfg *api.Config, data *api.Data) {
		cfg.Tokens = append(cfg.Tokens, api.Token{Scope: api.ScopeAdmin, Value: adminToken},
			api.Token{Scope: api.ScopeService, Value: claraServiceToken, App: "clara"})
		data.Now, data.CareNoteDays = clock.get, careDays
	})
	return srv, st, clock
}

// careFinding is a risk finding as an extraction records it (jobs'
// recordRisks): class, severity, message id, actor and source, and
// "lowered" when a model lowered it; never the text.
type careFinding struct {
	msg, class, severity, actor, lowered string
}

// seedCrisis stores a user of app in Chicago and a processed session of
// theirs that ended at said, with its risk findings recorded a minute later.
func seedCrisis(t *testing.T, st store.Store, user, app, session string, said time.Time, findings ...careFinding) {
	t.Helper()
	ctx := context.Background()
	if err := st.UpsertUser(ctx, store.User{ID: user, App: app, Timezone: "America/Chicago", CreatedAt: said, UpdatedAt: said}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateSession(ctx, store.Session{ID: session, UserID: user, App: app, Status: store.StatusProcessed,
		StartedAt: said.Add(-20 * time.Minute), EndedAt: said, Timezone: "America/Chicago", MessageCount: 4, BodySHA256: "abc", UpdatedAt: said}); err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		d := map[string]string{"class": f.class, "severity": f.severity, "message_id": f.msg, "actor": f.actor, "source": "rules"}
		if f.lowered != "" {
			d["lowered"] = f.lowered
		}
		detail, _ := json.Marshal(d)
		if err := st.InsertCue(ctx, store.Cue{UserID: user, App: app, Type: "risk", Field: f.msg, Detail: detail, SessionID: session,
			CreatedAt: said.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
}

// packText is the user's context pack as the chat service reads it.
func packText(t *testing.T, srv *api.Server, bearer, user string) (string, map[string]any) {
	t.Helper()
	code, res := getJSON(t, srv, bearer, "GET", "/v1/users/"+user+"/context", "")
	if code != 200 {
		t.Fatalf("context of %s = %d %v", user, code, res)
	}
	return res["text"].(string), res
}

// TestCareNoteAfterACrisis: the next session's pack of each app opens with
// the care note after the user's own high finding, in the app's words,
// with the day in the user's zone and the class in plain words; the pack
// still carries it on the period's last day, not after; not after an
// operator resolved it, and again after a new finding, with its own day.
// On both databases.
func TestCareNoteAfterACrisis(t *testing.T) {
	t.Parallel()
	apps := []struct{ app, label string }{{"mona", "Mona"}, {"eldertree", "Elder Tree"}, {"coach", "the coach"}, {"lara", "LaRa"}, {"clara", "Clara"}}
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			for _, a := range apps {
				t.Run(a.app, func(t *testing.T) {
					t.Parallel()
					srv, st, clock := careSetup(t, b, 0)
					bearer := token
					if a.app == "clara" {
						bearer = claraServiceToken
					}
					user := "u-" + a.app
					seedCrisis(t, st, user, a.app, "s-"+a.app+"-1", careSaid,
						careFinding{"m2", "suicidal", "high", "user", ""},
						careFinding{"m4", "distress", "low", "user", ""})

					text, res := packText(t, srv, bearer, user)
					if !strings.HasPrefix(text, careOpening) {
						t.Fatalf("the pack after the crisis does not open with a care note:\n%s", text)
					}
					note, _, _ := strings.Cut(strings.TrimPrefix(text, careOpening), "\n")
					for _, want := range []string{"2026-11-24", "thoughts of suicide or of not wanting to live", "gently", "follow " + a.label + "'s crisis guidance"} {
						if !strings.Contains(note, want) {
							t.Errorf("the care note %q does not say %q", note, want)
						}
					}
					if parts := res["parts"].([]any); parts[0].(map[string]any)["name"] != "care_note" {
						t.Errorf("parts %v; want the care note first", parts)
					}

					// Still on the period's last day, not after it.
					clock.set(careSaid.Add(14*24*time.Hour - time.Minute))
					if text, _ := packText(t, srv, bearer, user); !strings.HasPrefix(text, careOpening) {
						t.Errorf("13 days and 23:59 later the pack holds no care note:\n%s", text)
					}
					clock.set(careSaid.Add(14*24*time.Hour + time.Minute))
					if text, _ := packText(t, srv, bearer, user); strings.Contains(text, "CARE NOTE") {
						t.Errorf("after the 14 days the pack still holds a care note:\n%s", text)
					}

					// An operator resolves it: the next pack holds none.
					clock.set(careSaid.Add(24 * time.Hour))
					code, got := getJSON(t, srv, adminToken, "POST", "/v1/admin/users/"+user+"/risk/resolve", "")
					if code != 200 || got["resolved"] != float64(2) || got["user_id"] != user || got["resolved_at"] != clock.get().Format(time.RFC3339) {
						t.Fatalf("resolve = %d %v; want both open findings resolved now", code, got)
					}
					if text, _ := packText(t, srv, bearer, user); strings.Contains(text, "CARE NOTE") {
						t.Errorf("after the resolution the pack still holds a care note:\n%s", text)
					}
					code, got = getJSON(t, srv, adminToken, "POST", "/v1/admin/users/"+user+"/risk/resolve", "")
					if code != 200 || got["resolved"] != float64(0) {
						t.Errorf("a second resolve = %d %v; want 0 resolved", code, got)
					}

					// A new crisis two days later brings a note of its own.
					said := careSaid.Add(2 * 24 * time.Hour)
					seedCrisis(t, st, user, a.app, "s-"+a.app+"-2", said, careFinding{"m1", "self_harm", "medium", "user", ""})
					clock.set(said.Add(time.Hour))
					text, _ = packText(t, srv, bearer, user)
					if !strings.HasPrefix(text, careOpening) || !strings.Contains(text, "2026-11-26") || !strings.Contains(text, "hurting themselves on purpose") ||
						strings.Contains(text, "suicide") {
						t.Errorf("after a new finding the pack's care note is not the new one's:\n%s", text)
					}
				})
			}
		})
	}
}

// TestCareNoteOnlyForTheUsersOwnMediumOrHighFinding: a low finding, someone
// else's words (the user telling what a friend said) and a finding a model
// lowered (a story, a song) bring no care note; of several findings the
// note tells the gravest. MNEMO_CARE_NOTE_DAYS sets the period.
func TestCareNoteOnlyForTheUsersOwnMediumOrHighFinding(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			srv, st, clock := careSetup(t, b, 3)
			seedCrisis(t, st, "u-low", "mona", "s-low", careSaid, careFinding{"m1", "suicidal", "low", "user", ""})
			seedCrisis(t, st, "u-other", "mona", "s-other", careSaid, careFinding{"m1", "suicidal", "high", "other", ""})
			seedCrisis(t, st, "u-lowered", "eldertree", "s-lowered", careSaid, careFinding{"m1", "suicidal", "high", "user", "fiction"})
			seedCrisis(t, st, "u-none", "coach", "s-none", careSaid)
			for _, user := range []string{"u-low", "u-other", "u-lowered", "u-none"} {
				if text, _ := packText(t, srv, token, user); strings.Contains(text, "CARE NOTE") {
					t.Errorf("%s: a care note:\n%s", user, text)
				}
			}

			seedCrisis(t, st, "u-two", "mona", "s-two-1", careSaid, careFinding{"m1", "suicidal", "high", "user", ""})
			seedCrisis(t, st, "u-two", "mona", "s-two-2", careSaid.Add(24*time.Hour), careFinding{"m1", "distress", "medium", "user", ""})
			clock.set(careSaid.Add(25 * time.Hour))
			if text, _ := packText(t, srv, token, "u-two"); !strings.HasPrefix(text, careOpening) || !strings.Contains(text, "2026-11-24") || !strings.Contains(text, "suicide") {
				t.Errorf("of a high suicidal and a later medium distress finding, the note does not tell the first:\n%s", text)
			}
			// MNEMO_CARE_NOTE_DAYS=3: the high one's note ends after 3 days, and
			// the medium one's, a day later, lasts a day longer.
			clock.set(careSaid.Add(3*24*time.Hour + time.Minute))
			if text, _ := packText(t, srv, token, "u-two"); !strings.HasPrefix(text, careOpening) || !strings.Contains(text, "severe distress") || strings.Contains(text, "suicide") {
				t.Errorf("3 days after the first finding, the note does not tell the second:\n%s", text)
			}
			clock.set(careSaid.Add(4*24*time.Hour + time.Minute))
			if text, _ := packText(t, srv, token, "u-two"); strings.Contains(text, "CARE NOTE") {
				t.Errorf("4 days after, with MNEMO_CARE_NOTE_DAYS=3, a care note:\n%s", text)
			}
		})
	}
}

// TestResolveRiskRefusals: the resolution is an operator's: a service
// token is refused, an unknown user is 404, and nothing is resolved.
func TestResolveRiskRefusals(t *testing.T) {
	t.Parallel()
	b := storetest.Backends(t)[0]
	srv, st, _ := careSetup(t, b, 0)
	seedCrisis(t, st, "u-1", "mona", "s-1", careSaid, careFinding{"m1", "suicidal", "high", "user", ""})
	if code, res := getJSON(t, srv, token, "POST", "/v1/admin/users/u-1/risk/resolve", ""); code != 403 {
		t.Errorf("resolve with a service token = %d %v; want 403", code, res)
	}
	if code, res := getJSON(t, srv, adminToken, "POST", "/v1/admin/users/u-nobody/risk/resolve", ""); code != 404 {
		t.Errorf("resolve of an unknown user = %d %v; want 404", code, res)
	}
	if text, _ := packText(t, srv, token, "u-1"); !strings.HasPrefix(text, careOpening) {
		t.Errorf("after refused resolutions the care note is gone:\n%s", text)
	}
}
