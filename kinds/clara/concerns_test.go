package clara

// The tests read the engine's types unqualified, as they did in package
// extract.
import (
	"encoding/json"
	. "github.com/mnemo-ai/mnemo/extract"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/kinds/internal/presettest"
)

// claraSaid is a Clara session of the given user messages, said on Friday
// 2026-11-20 (UTC), each answered by Clara.
func claraSaid(said ...string) Session {
	s := Session{ID: "s-clara", UserID: "u-1", App: "clara", StartedAt: claraT0, EndedAt: claraAt(30)}
	for i, text := range said {
		s.Messages = append(s.Messages,
			Message{ID: "u" + string(rune('1'+i)), Role: "user", Content: text, At: claraAt(float64(2 * i))},
			Message{ID: "a" + string(rune('1'+i)), Role: "assistant", Content: "I fell asleep; my pills are here. A stranger at the door.", At: claraAt(float64(2*i) + 1)})
	}
	return s
}

// The caregiver's summary names the concerns the user's own words raise,
// each with its date and message, and only those.
func TestClaraConcernsFromWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said string
		want []ClaraConcern
	}{
		{"I fell in the kitchen.", []ClaraConcern{{ConcernFall, "2026-11-20", "u1"}}},
		{"I had a fall yesterday, nothing broken.", []ClaraConcern{{ConcernFall, "2026-11-19", "u1"}}},
		{"My hip hurts so much today.", []ClaraConcern{{ConcernPain, "2026-11-20", "u1"}}},
		{"I'm in a lot of pain.", []ClaraConcern{{ConcernPain, "2026-11-20", "u1"}}},
		{"I haven't eaten since Tuesday.", []ClaraConcern{{ConcernNotEating, "2026-11-20", "u1"}}},
		{"I can't remember if I took my pills.", []ClaraConcern{{ConcernMedication, "2026-11-20", "u1"}}},
		{"Did I take my medicine this morning?", []ClaraConcern{{ConcernMedication, "2026-11-20", "u1"}}},
		{"I got lost on the way back from the shop.", []ClaraConcern{{ConcernLost, "2026-11-20", "u1"}}},
		{"I couldn't find my way home.", []ClaraConcern{{ConcernLost, "2026-11-20", "u1"}}},
		{"A man I don't know keeps knocking at my door.", []ClaraConcern{{ConcernStrangerAtDoor, "2026-11-20", "u1"}}},
		{"There was a stranger at the door last night.", []ClaraConcern{{ConcernStrangerAtDoor, "2026-11-19", "u1"}}},
		{"I fell in the garden and now my knee hurts.", []ClaraConcern{{ConcernFall, "2026-11-20", "u1"}, {ConcernPain, "2026-11-20", "u1"}}},
		// Broader wording, said the way older people say it.
		{"My shoulder has been giving me gyp all week.", []ClaraConcern{{ConcernPain, "2026-11-20", "u1"}}},
		{"My feet are really sore today.", []ClaraConcern{{ConcernPain, "2026-11-20", "u1"}}},
		{"I've got such a bad headache.", []ClaraConcern{{ConcernPain, "2026-11-20", "u1"}}},
		{"I've lost my appetite lately.", []ClaraConcern{{ConcernNotEating, "2026-11-20", "u1"}}},
		{"I've not had any lunch.", []ClaraConcern{{ConcernNotEating, "2026-11-20", "u1"}}},
		{"I'm just eating biscuits, I can't be bothered to make a meal.", []ClaraConcern{{ConcernNotEating, "2026-11-20", "u1"}}},
		{"I'm muddled about the blue capsules.", []ClaraConcern{{ConcernMedication, "2026-11-20", "u1"}}},
		{"I can't make sense of the dosette box.", []ClaraConcern{{ConcernMedication, "2026-11-20", "u1"}}},
		{"What are these little round tablets for?", []ClaraConcern{{ConcernMedication, "2026-11-20", "u1"}}},
		{"What tablets are these for?", []ClaraConcern{{ConcernMedication, "2026-11-20", "u1"}}},
		{"I went to post a letter and couldn't remember where I lived.", []ClaraConcern{{ConcernLost, "2026-11-20", "u1"}}},
		{"The police found me wandering by the canal.", []ClaraConcern{{ConcernLost, "2026-11-20", "u1"}}},
		{"I got on the wrong bus and ended up at the wrong station.", []ClaraConcern{{ConcernLost, "2026-11-20", "u1"}}},
		{"I dozed off on the sofa and came to on the bathroom floor.", []ClaraConcern{{ConcernFall, "2026-11-20", "u1"}}},
		{"My legs gave way on the landing.", []ClaraConcern{{ConcernFall, "2026-11-20", "u1"}}},
		{"A tall bloke was trying the handle of my gate.", []ClaraConcern{{ConcernStrangerAtDoor, "2026-11-20", "u1"}}},
		{"A man rang saying he was from the council and wanted my card number.", []ClaraConcern{{ConcernScam, "2026-11-20", "u1"}}},
		{"I feel ever so light-headed this morning.", []ClaraConcern{{ConcernUnwell, "2026-11-20", "u1"}}},
		{"My ankles keep swelling up.", []ClaraConcern{{ConcernUnwell, "2026-11-20", "u1"}}},
		{"I couldn't sleep a wink, I was awake till four.", []ClaraConcern{{ConcernSleep, "2026-11-20", "u1"}}},
		{"I lie awake most nights.", []ClaraConcern{{ConcernSleep, "2026-11-20", "u1"}}},
		// Issue 32: a tumble, a dose the user is not sure of, and many
		// tablets at once.
		{"I had a bit of a tumble.", []ClaraConcern{{ConcernFall, "2026-11-20", "u1"}}},
		{"Had a bit of a tumble in the garden yesterday.", []ClaraConcern{{ConcernFall, "2026-11-19", "u1"}}},
		{"I've had a little tumble on the stairs.", []ClaraConcern{{ConcernFall, "2026-11-20", "u1"}}},
		{"I don't think I took my tablets.", []ClaraConcern{{ConcernMedication, "2026-11-20", "u1"}}},
		{"I'm not sure I took my pills today.", []ClaraConcern{{ConcernMedication, "2026-11-20", "u1"}}},
		{"I took all my tablets at once.", []ClaraConcern{{ConcernOverdose, "2026-11-20", "u1"}}},
		{"I swallowed a whole week's tablets.", []ClaraConcern{{ConcernOverdose, "2026-11-20", "u1"}}},
		{"I think I took too many of my heart pills.", []ClaraConcern{{ConcernOverdose, "2026-11-20", "u1"}}},
		// Issue 33: pain said in everyday words, stopping a medicine as its
		// own concern, and more ways of telling a fall or a muddle.
		{"My knee's been killing me all afternoon", []ClaraConcern{{ConcernPain, "2026-11-20", "u1"}}},
		{"My back's playing up again.", []ClaraConcern{{ConcernPain, "2026-11-20", "u1"}}},
		{"My hip has been giving me gyp all week.", []ClaraConcern{{ConcernPain, "2026-11-20", "u1"}}},
		{"I've been in such pain with my shoulder.", []ClaraConcern{{ConcernPain, "2026-11-20", "u1"}}},
		{"I stopped the water tablets", []ClaraConcern{{ConcernStoppedMedication, "2026-11-20", "u1"}}},
		{"I've stopped taking my statins, they make me ache.", []ClaraConcern{{ConcernStoppedMedication, "2026-11-20", "u1"}}},
		{"I'm not taking the blood pressure pills any more.", []ClaraConcern{{ConcernStoppedMedication, "2026-11-20", "u1"}}},
		{"I threw the new tablets in the bin.", []ClaraConcern{{ConcernStoppedMedication, "2026-11-20", "u1"}}},
		{"I went over on my ankle by the back step.", []ClaraConcern{{ConcernFall, "2026-11-20", "u1"}}},
		{"I went flying on the wet leaves yesterday.", []ClaraConcern{{ConcernFall, "2026-11-19", "u1"}}},
		{"I lost my footing and ended up on the floor.", []ClaraConcern{{ConcernFall, "2026-11-20", "u1"}}},
		{"I've run out of my heart pills.", []ClaraConcern{{ConcernMedication, "2026-11-20", "u1"}}},
		{"I can't find my tablets anywhere.", []ClaraConcern{{ConcernMedication, "2026-11-20", "u1"}}},
		{"I might have taken them twice.", []ClaraConcern{{ConcernMedication, "2026-11-20", "u1"}}},
		{"My legs are swollen again.", []ClaraConcern{{ConcernUnwell, "2026-11-20", "u1"}}}, // swelling is a symptom, not pain
		{"I've got a bad back", []ClaraConcern{{ConcernPain, "2026-11-20", "u1"}}},
		{"My arthritis is playing up.", []ClaraConcern{{ConcernPain, "2026-11-20", "u1"}}},
		{"my head is pounding", []ClaraConcern{{ConcernPain, "2026-11-20", "u1"}}},
		{"I haven't been taking my pills", []ClaraConcern{{ConcernStoppedMedication, "2026-11-20", "u1"}}},
		{"I've not been taking my tablets for a week", []ClaraConcern{{ConcernStoppedMedication, "2026-11-20", "u1"}}},
		{"I don't bother with the tablets anymore", []ClaraConcern{{ConcernStoppedMedication, "2026-11-20", "u1"}}},
		{"I flushed the pills down the toilet", []ClaraConcern{{ConcernStoppedMedication, "2026-11-20", "u1"}}},
		{"I'm not going to take those new pills", []ClaraConcern{{ConcernStoppedMedication, "2026-11-20", "u1"}}},
		{"I lost my balance in the kitchen", []ClaraConcern{{ConcernFall, "2026-11-20", "u1"}}},
		{"I went over in the street", []ClaraConcern{{ConcernFall, "2026-11-20", "u1"}}},
		{"Down I went in the hallway.", []ClaraConcern{{ConcernFall, "2026-11-20", "u1"}}},
		{"I went over to Mary's for tea.", nil},
		{"I don't take sugar any more.", nil},
		{"I haven't been taking the bus lately.", nil},
		{"My daughter has a bad back.", nil},
		{"I've got a bad feeling about this.", nil},
		{"I refuse to take the stairs.", nil},
		{"I never stopped taking my tablets.", nil},
		{"The doctor stopped my water tablets.", nil},
		{"My husband stopped his pills.", nil},
		// Not a concern of the user's now.
		{"I took all my tablets this morning as usual.", nil},
		{"I had a tumble dryer delivered.", nil},
		{"My husband took all his tablets at once.", nil},
		{"Years ago I took all my tablets at once.", nil},
		{"I'm up at seven every morning for the birds.", nil},
		{"I'm sick of the rain.", nil},
		{"My grandson's band is killing it.", nil},
		{"The postman knocked at the door with a parcel.", nil},
		{"My daughter told me never to open the door to strangers.", nil},
		{"I slept like a log.", nil},
		{"I had a lovely big dinner.", nil},
		{"My nurse sorted my tablets into the box.", nil},
		{"I fell asleep in my chair.", nil},
		{"I fell in love with him in 1962.", nil},
		{"I didn't fall, I just sat down.", nil},
		{"My husband fell years ago.", nil},
		{"My son came to the door with flowers.", nil},
		{"I ate a lovely lunch.", nil},
		{"I took my pills with breakfast.", nil},
		{"That hurts my feelings.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.said, func(t *testing.T) {
			t.Parallel()
			res := presettest.Run(claraRules, "clara", claraSaid(tt.said))
			got := ClaraConcernsOf(res.SessionSummary["concerns"])
			if !slices.Equal(got, tt.want) {
				t.Fatalf("concerns %+v, want %+v", got, tt.want)
			}
			text, _ := res.SessionSummary["summary"].(string)
			for _, c := range tt.want {
				if !strings.Contains(text, claraConcernWords[c.Concern]) {
					t.Errorf("summary %q does not name %s", text, c.Concern)
				}
			}
			if tt.want == nil && strings.Contains(text, "spoke of") {
				t.Errorf("summary %q names a concern", text)
			}
			// The caregiver's summary never holds the user's words.
			for _, w := range strings.Fields(strings.ToLower(tt.said)) {
				w = strings.Trim(w, ".,?!")
				if len(w) > 5 && strings.Contains(strings.ToLower(text), w) && !strings.Contains(strings.ToLower(strings.Join(mapValues(claraConcernWords), " ")), w) {
					t.Errorf("summary %q holds the user's word %q", text, w)
				}
			}
		})
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// With an LLM, the concerns stay the rules': the model's text gets the
// fixed sentence naming them, and the list is kept.
func TestClaraConcernsOnTheLLMPath(t *testing.T) {
	t.Parallel()
	rules := presettest.Run(claraRules, "clara", claraSaid("I can't remember if I took my pills."))
	llm := Result{SessionSummary: map[string]any{"summary": "She asked about her day and was calmer by the end.", "key_topics": []any{}}}
	got := Clara.CompleteLLM(llm, rules).SessionSummary
	if text, _ := got["summary"].(string); !strings.HasPrefix(text, "She asked about her day") || !strings.Contains(text, "confusion about their medication") {
		t.Errorf("summary %q", text)
	}
	if cs := ClaraConcernsOf(got["concerns"]); len(cs) != 1 || cs[0].Concern != ConcernMedication {
		t.Errorf("concerns %+v", cs)
	}
}

// The concerns read back from a stored summary (JSON) as they were written.
func TestClaraConcernsRoundTrip(t *testing.T) {
	t.Parallel()
	res := presettest.Run(claraRules, "clara", claraSaid("I fell in the kitchen.", "I can't remember if I took my pills."))
	b, err := json.Marshal(res.SessionSummary)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	want := []ClaraConcern{{ConcernFall, "2026-11-20", "u1"}, {ConcernMedication, "2026-11-20", "u2"}}
	if got := ClaraConcernsOf(back["concerns"]); !slices.Equal(got, want) {
		t.Errorf("concerns %+v, want %+v", got, want)
	}
	_ = time.UTC
}

// Many tablets at once is an overdose now: a concern for the caregiver and
// a risk of high severity (substance; suicidal with a wish to die beside
// it), found by the rules in a Clara session. The day's dose, a tumble
// dryer and someone else's tablets are neither a concern nor a finding of
// the rules.
func TestClaraOverdoseIsARisk(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said, class string // class "" for no risk
	}{
		{"I took all my tablets at once.", RiskSubstance},
		{"I've taken all my pills in one go and I feel funny.", RiskSubstance},
		{"I took the whole box of tablets.", RiskSubstance},
		{"I swallowed a whole week's tablets.", RiskSubstance},
		{"I took all my tablets at once so I wouldn't wake up.", RiskSuicidal},
		{"I took all my tablets this morning as usual.", ""},
		{"I had a tumble dryer delivered.", ""},
		{"My husband took all his tablets at once.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.said, func(t *testing.T) {
			t.Parallel()
			res := Rules(nil, claraSaid(tt.said), claraAt(60))
			if tt.class == "" {
				// The rules find nothing here; the trained layer reads
				// every message on its own (docs/safety.md, "The trained
				// layer") and is measured by its own tests.
				if f, ok := RiskInApp("clara", "", tt.said); ok {
					t.Fatalf("the rules found %+v, want none", f)
				}
				if cs := ClaraConcernsOf(res.SessionSummary["concerns"]); len(cs) != 0 {
					t.Fatalf("concerns %+v, want none", cs)
				}
				return
			}
			want := Risk{Class: tt.class, Severity: SeverityHigh, MessageID: "u1", Actor: ActorUser, Source: RiskSourceRules}
			if len(res.Risks) != 1 || res.Risks[0] != want {
				t.Fatalf("risks %+v, want [%+v]", res.Risks, want)
			}
			if cs := ClaraConcernsOf(res.SessionSummary["concerns"]); len(cs) != 1 || cs[0].Concern != ConcernOverdose {
				t.Fatalf("concerns %+v, want the overdose", cs)
			}
		})
	}
	// A tumble and a dose the user is not sure of are concerns, not risks
	// of the rules.
	for _, said := range []string{"I had a bit of a tumble.", "I don't think I took my tablets."} {
		if f, ok := RiskInApp("clara", "", said); ok {
			t.Errorf("%q: the rules found %+v", said, f)
		}
	}
}

// The caregiver's page says each new concern in words.
func TestClaraConcernsReachTheCaregiver(t *testing.T) {
	t.Parallel()
	res := Rules(nil, claraSaid("I took all my tablets at once.", "I had a bit of a tumble.", "I don't think I took my tablets."), claraAt(60))
	var got []string
	for _, n := range Clara.View().Notes(res.SessionSummary) {
		got = append(got, n.What+" "+n.Date)
	}
	want := []string{"Too much medication at once 2026-11-20", "Fall 2026-11-20", "Medication confusion 2026-11-20"}
	if !slices.Equal(got, want) {
		t.Errorf("caregiver notes %q, want %q", got, want)
	}
	text, _ := res.SessionSummary["summary"].(string)
	if !strings.Contains(text, "taking too much medication at once, a fall and confusion about their medication") {
		t.Errorf("summary %q", text)
	}
}
