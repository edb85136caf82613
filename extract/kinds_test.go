package extract_test

// The engine's tests run the app kinds, which register themselves: the
// test binary imports them all, as cmd/worker does.
import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	_ "github.com/mnemo-ai/mnemo/kinds/all"
	"github.com/mnemo-ai/mnemo/prompts"
)

// marker is planted in a crisis message: no word of that message may be
// stored, by any kind, on any path.
const marker = "quokka-lantern"

// crisisSession is a session of app with a crisis message (u2, the user's
// own suicidal risk, high) carrying marker in a sentence the app's kind
// would mine, between two ordinary messages of the kind, and the
// assistant's replies.
func crisisSession(app string) extract.Session {
	at := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	ordinary := map[string][2]string{
		"mona":      {"My favorite food is ramen.", "I have a dog named Biscuit."},
		"coach":     {"My goal is to lead my team with more confidence.", "I will schedule one-on-ones with each person this week."},
		"clara":     {"What day is it today?", "I had soup for lunch."},
		"eldertree": {"I was craving really bad after the argument with my wife.", "I called my sponsor and it passed."},
		"lara":      {"I like dinosaurs!", "My favorite color is green."},
	}[app]
	// What the kind would mine from the crisis message, were it read.
	mined := map[string]string{
		"mona":      "I like " + marker + ".",
		"coach":     "I will buy a " + marker + ".",
		"clara":     marker,
		"eldertree": "The " + marker + ", that's my trigger.",
		"lara":      "I like " + marker + ".",
	}[app]
	s := extract.Session{ID: "s-" + app, UserID: "u-" + app, App: app, StartedAt: at, EndedAt: at.Add(20 * time.Minute), Timezone: "UTC"}
	for i, text := range []string{ordinary[0], "I want to kill myself tonight, I have the pills ready. " + mined, ordinary[1]} {
		n := string(rune('1' + i))
		s.Messages = append(s.Messages,
			extract.Message{ID: "u" + n, Role: "user", Content: text, At: at.Add(time.Duration(2*i) * time.Minute)},
			extract.Message{ID: "a" + n, Role: "assistant", Content: "I hear you.", At: at.Add(time.Duration(2*i+1) * time.Minute)})
	}
	if app == "clara" {
		// Clara's summary is made of events: a question on an ordinary
		// message, so that its topics have something to say.
		s.Events = []extract.Event{{Type: "question", At: at, MessageID: "u1",
			Data: json.RawMessage(`{"fingerprint": "", "question_type": "time", "repeat_count": 0}`)}}
	}
	return s
}

// storedOf is everything of res that is kept: memories, records, the
// summary and the profile updates.
func storedOf(t *testing.T, res extract.Result) string {
	t.Helper()
	b, err := json.Marshal([]any{res.Memories, res.Records, res.SessionSummary, res.ProfileUpdates})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantNoMarker fails when any of res's stored parts holds a word of marker.
func wantNoMarker(t *testing.T, res extract.Result) {
	t.Helper()
	got := strings.ToLower(storedOf(t, res))
	for _, w := range []string{marker, "quokka", "lantern"} {
		if strings.Contains(got, w) {
			t.Errorf("%q is stored: %s", w, got)
		}
	}
}

// ordinaryKept are what each kind keeps of the ordinary messages of
// crisisSession, as found in the stored JSON.
var ordinaryKept = map[string][]string{
	"mona":      {`"favorite_food"`, `"ramen"`, `"pet:dog"`},
	"coach":     {`Worked on: team, confidence`, `one-on-ones`, `Lead my team`, `"topics":["team","confidence"`},
	"clara":     {`"key_topics":["time_confusion"]`, `"user_message_count":3`},
	"eldertree": {`argument with my wife`, `called sponsor`},
	"lara":      {`dinosaurs`, `green`},
}

// TestCrisisMessageLeavesNoWords: for every app, the rules keep nothing
// of a message holding the user's own high risk (no memory, record,
// summary field — topics, "Worked on:", the text — or profile update
// holds its planted word), report it as dropped, and still keep what the
// ordinary messages said.
func TestCrisisMessageLeavesNoWords(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mona", "coach", "clara", "eldertree", "lara"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := extract.Rules(apps[name], crisisSession(name), time.Date(2026, 12, 1, 19, 0, 0, 0, time.UTC))
			if !slices.ContainsFunc(res.Risks, func(r extract.Risk) bool {
				return r.MessageID == "u2" && r.Actor == extract.ActorUser && r.Severity == extract.SeverityHigh
			}) {
				t.Fatalf("risks %+v: want u2 as the user's high risk", res.Risks)
			}
			if !slices.Contains(res.Dropped, extract.Dropped{MessageID: "u2", Reason: "risk:" + extract.RiskSuicidal}) {
				t.Errorf("dropped %+v: want u2 as risk:suicidal", res.Dropped)
			}
			wantNoMarker(t, res)
			got := storedOf(t, res)
			for _, want := range ordinaryKept[name] {
				if !strings.Contains(got, want) {
					t.Errorf("%s is not kept: %s", want, got)
				}
			}
		})
	}
}

// TestCrisisMessageLeavesNoWordsLLM: a model read the whole transcript,
// and its answer names the crisis message's planted word in a memory
// attributed to an ordinary message, a summary line, a topic and a
// profile field. Screen drops each (a word only the crisis message said),
// keeps the rest, and the kind's completion with the rules adds nothing of
// it, for every app a model may extract.
func TestCrisisMessageLeavesNoWordsLLM(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 19, 0, 0, 0, time.UTC)
	for _, name := range []string{"mona", "coach", "clara", "eldertree"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			app, s := apps[name], crisisSession(name)
			answer := map[string]any{
				"memories": []any{
					map[string]any{"key": "likes:lanterns", "value": "a " + marker + " on the shelf", "category": "preference",
						"importance": 60.0, "confidence": 0.9, "source_message_id": "u3"},
					map[string]any{"key": "hobby:cooking", "value": "cooking", "category": "preference",
						"importance": 60.0, "confidence": 0.9, "source_message_id": "u1"},
				},
				"session_summary": map[string]any{
					"summary": "The user talked about their week and cooking.\nThey mentioned a " + marker + " twice.",
					"topics":  []any{"cooking", marker},
				},
				"profile_updates": map[string]any{"interests": []any{"cooking", "quokkas and lanterns"}},
			}
			res := extract.ModelResult(app, s, answer, 0)
			wantNoMarker(t, res)
			if !strings.Contains(storedOf(t, res), "cooking") {
				t.Errorf("the model's other lines are gone: %s", storedOf(t, res))
			}
			done := extract.KindOfApp(app).CompleteLLM(res, extract.Rules(app, s, now))
			wantNoMarker(t, done)
		})
	}
}
