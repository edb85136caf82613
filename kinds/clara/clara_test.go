package clara

// The tests read the engine's types unqualified, as they did in package
// extract.
import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	. "github.com/mnemo-ai/mnemo/extract"

	"github.com/mnemo-ai/mnemo/internal/golden"
	"github.com/mnemo-ai/mnemo/kinds/internal/presettest"
	"github.com/mnemo-ai/mnemo/prompts"
)

var claraT0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// at is claraT0 plus minutes.
func claraAt(minutes float64) time.Time {
	return claraT0.Add(time.Duration(minutes * float64(time.Minute)))
}

func claraEv(kind string, t time.Time, data string) Event {
	return Event{Type: kind, At: t, Data: json.RawMessage(data)}
}

func claraSession(events ...Event) Session {
	return Session{ID: "s-clara", UserID: "u-1", App: "clara", StartedAt: claraT0, EndedAt: claraAt(20),
		Messages: []Message{
			{ID: "m1", Role: "user", Content: "Where am I?", At: claraAt(1)},
			{ID: "m2", Role: "assistant", Content: "You're safe at home.", At: claraAt(1.1)},
		},
		Events: events}
}

func claraRun(events ...Event) Result {
	return presettest.Run(claraRules, "clara", claraSession(events...))
}

// claraRecord is res's record of kind as the typed T, and whether res has
// one.
func claraRecord[T any](t *testing.T, res Result, kind string) (T, bool) {
	t.Helper()
	for _, r := range res.Records {
		if r.Type == kind {
			if r.Key != "s-clara" {
				t.Errorf("%s record key %q, want the session id", kind, r.Key)
			}
			v, _ := DecodeRecord[T](r)
			return v, true
		}
	}
	var none T
	return none, false
}

func TestClaraDominantEmotion(t *testing.T) {
	t.Parallel()
	emo := func(minute float64, name string, conf float64) Event {
		b, _ := json.Marshal(map[string]any{"emotion": name, "confidence": conf})
		return claraEv("emotion", claraAt(minute), string(b))
	}
	tests := []struct {
		name   string
		events []Event
		want   any
	}{
		{"no emotions", nil, nil},
		{"one", []Event{emo(1, "calm", 0.9)}, "calm"},
		{"most frequent", []Event{emo(1, "anxious", 0.6), emo(2, "calm", 0.9), emo(3, "anxious", 0.5)}, "anxious"},
		{"labels are compared without case", []Event{emo(1, "Anxious", 0.5), emo(2, "calm", 0.9), emo(3, " anxious ", 0.5)}, "anxious"},
		{"tie: higher total confidence", []Event{emo(1, "anxious", 0.4), emo(2, "calm", 0.9), emo(3, "anxious", 0.4), emo(4, "calm", 0.2)}, "calm"},
		{"tie: same confidence, alphabetical", []Event{emo(1, "sad", 0.5), emo(2, "lonely", 0.5), emo(3, "sad", 0.5), emo(4, "lonely", 0.5)}, "lonely"},
		{"tie: order of events does not matter", []Event{emo(1, "lonely", 0.5), emo(2, "sad", 0.5), emo(3, "lonely", 0.5), emo(4, "sad", 0.5)}, "lonely"},
		// Issue 23: each emotion seen once is no pattern; none is claimed.
		{"every emotion once: none dominated", []Event{emo(1, "sad", 0.5), emo(2, "lonely", 0.9), emo(3, "calm", 0.7)}, nil},
		{"an emotion that is prose is no emotion", []Event{emo(1, "she kept talking about the war again", 0.9), emo(2, "calm", 0.1)}, "calm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := claraRun(tt.events...).SessionSummary["dominant_emotion"]
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("dominant_emotion %v, want %v", got, tt.want)
			}
		})
	}
}

func TestClaraEscalationAndArc(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		events    []Event
		escalated bool
		arc       string
	}{
		{"nothing", nil, false, ""},
		{"escalation", []Event{claraEv(" Escalation ", claraAt(3), `{"reason": "distress"}`)}, true, ""},
		{"arc first to last in time order", []Event{
			claraEv("emotion", claraAt(9), `{"emotion": "calm"}`),
			claraEv("emotion", claraAt(1), `{"emotion": "anxious"}`),
			claraEv("emotion", claraAt(5), `{"emotion": "confused"}`),
		}, false, "anxious → calm"},
		{"one emotion", []Event{claraEv("emotion", claraAt(2), `{"emotion": "calm"}`)}, false, "calm → calm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sum := claraRun(tt.events...).SessionSummary
			if sum["escalation_triggered"] != tt.escalated {
				t.Errorf("escalation_triggered %v, want %v", sum["escalation_triggered"], tt.escalated)
			}
			if sum["emotional_arc"] != tt.arc {
				t.Errorf("emotional_arc %q, want %q", sum["emotional_arc"], tt.arc)
			}
			if strings.Contains(sum["summary"].(string), "escalation was triggered") != tt.escalated {
				t.Errorf("summary %q does not say whether an escalation was triggered", sum["summary"])
			}
		})
	}
}

func TestClaraRepetition(t *testing.T) {
	t.Parallel()
	q := func(typ string, repeat int) Event {
		d := map[string]any{"fingerprint": "place", "repeat_count": repeat}
		if typ != "-" {
			d["question_type"] = typ
		}
		b, _ := json.Marshal(d)
		return claraEv("question", claraAt(2), string(b))
	}
	times := func(n int, typ string) []Event {
		var out []Event
		for i := range n {
			out = append(out, q(typ, i))
		}
		return out
	}
	tests := []struct {
		name    string
		events  []Event
		types   map[string]int
		max     int
		chronic bool
	}{
		{"four of one type", times(4, "location"), map[string]int{"location": 4}, 4, false},
		{"five of one type", times(5, "location"), map[string]int{"location": 5}, 5, true},
		{"repeat_count 4", []Event{q("time", 4)}, map[string]int{"time": 1}, 4, false},
		{"repeat_count 5", []Event{q("time", 5)}, map[string]int{"time": 1}, 5, true},
		{"four and four of two types", append(times(4, "location"), times(4, "identity")...),
			map[string]int{"location": 4, "identity": 4}, 4, false},
		{"types are normalised; unknown and missing are general",
			[]Event{q("Location", 0), q(" TIME ", 0), q("weather", 0), q("-", 0), q("person", 0), q("activity", 0), q("identity", 0), q("general", 0)},
			map[string]int{"location": 1, "time": 1, "general": 3, "person": 1, "activity": 1, "identity": 1}, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := claraRun(tt.events...)
			d, ok := claraRecord[Repetition](t, res, ClaraRepetition)
			if !ok {
				t.Fatalf("no repetition record in %+v", res.Records)
			}
			if !reflect.DeepEqual(d.QuestionTypes, tt.types) {
				t.Errorf("question_types %v, want %v", d.QuestionTypes, tt.types)
			}
			if d.MaxRepeatCount != tt.max {
				t.Errorf("max_repeat_count %v, want %d", d.MaxRepeatCount, tt.max)
			}
			if d.ChronicRepetitionPattern != tt.chronic {
				t.Errorf("chronic_repetition_pattern %v, want %v", d.ChronicRepetitionPattern, tt.chronic)
			}
			if d.Questions != len(tt.events) {
				t.Errorf("questions %v, want %d", d.Questions, len(tt.events))
			}
			if b, _ := json.Marshal(res); strings.Contains(string(b), "fingerprint") || strings.Contains(string(b), `"place"`) {
				t.Errorf("the result carries a fingerprint: %s", b)
			}
		})
	}

	if res := claraRun(claraEv("emotion", claraAt(1), `{"emotion": "calm"}`)); len(res.Records) != 0 {
		t.Errorf("a session without questions or narratives has records %+v", res.Records)
	}
}

func TestClaraNarrativeUsage(t *testing.T) {
	t.Parallel()
	res := claraRun(
		claraEv("narrative", claraAt(0.5), `{"narrative_id": "NL-porch-1", "mode": "fallback", "category": "grounding"}`),
		claraEv("emotion", claraAt(1), `{"emotion": "anxious"}`),
		claraEv("narrative", claraAt(2), `{"narrative_id": "garden_01", "mode": "SEED", "category": "Calming Story"}`),
		claraEv("emotion", claraAt(4), `{"emotion": "calm"}`),
		// At the same instant as an emotion sent after it: that emotion counts.
		claraEv("narrative", claraAt(6), `{"narrative_id": "cat-7", "mode": "retold", "category": "calming_story"}`),
		claraEv("emotion", claraAt(6), `{"emotion": "content"}`),
		// Sent late, but it happened at minute 3.
		claraEv("narrative", claraAt(3), `{"narrative_id": "x y z", "category": "memory loop"}`),
	)
	d, ok := claraRecord[NarrativeUsage](t, res, ClaraNarrativeUsage)
	if !ok {
		t.Fatalf("no narrative_usage record in %+v", res.Records)
	}
	want := []NarrativeUse{
		{NarrativeID: "NL-porch-1", Mode: "fallback", Category: "grounding", At: "2026-11-20T09:00:30Z", EmotionAtUsage: ""},
		{NarrativeID: "garden_01", Mode: "seed", Category: "calming_story", At: "2026-11-20T09:02:00Z", EmotionAtUsage: "anxious"},
		{NarrativeID: "", Mode: "", Category: "memory_loop", At: "2026-11-20T09:03:00Z", EmotionAtUsage: "anxious"},
		{NarrativeID: "cat-7", Mode: "", Category: "calming_story", At: "2026-11-20T09:06:00Z", EmotionAtUsage: "content"},
	}
	if !reflect.DeepEqual(d.Uses, want) {
		t.Errorf("uses\n got %v\nwant %v", d.Uses, want)
	}
	if want := map[string]int{"grounding": 1, "calming_story": 2, "memory_loop": 1}; !reflect.DeepEqual(d.ByCategory, want) {
		t.Errorf("by_category %v, want %v", d.ByCategory, want)
	}
	sum := res.SessionSummary
	if sum["narratives_used"] != 4 {
		t.Errorf("narratives_used %v, want 4", sum["narratives_used"])
	}
	// Most used first; a tie keeps the order of first use.
	if want := []string{"calming_story", "grounding", "memory_loop"}; !reflect.DeepEqual(sum["key_topics"], want) {
		t.Errorf("key_topics %v, want %v", sum["key_topics"], want)
	}
}

func TestClaraSummaryFields(t *testing.T) {
	t.Parallel()
	s := claraSession(
		claraEv("emotion", claraAt(1), `{"emotion": "anxious", "confidence": 0.8, "distress_score": 0.7, "anchors": ["garden", "Garden", "the cat"]}`),
		claraEv("question", claraAt(1), `{"fingerprint": "", "question_type": "location", "repeat_count": 0}`),
		claraEv("question", claraAt(3), `{"fingerprint": "", "question_type": "location", "repeat_count": 1}`),
		claraEv("question", claraAt(4), `{"fingerprint": "daughter", "question_type": "person", "repeat_count": 0}`),
		claraEv("narrative", claraAt(5), `{"narrative_id": "n1", "mode": "seed", "category": "calming_story", "tags": ["sunlight", "garden"]}`),
		claraEv("emotion", claraAt(8), `{"emotion": "calm", "confidence": 0.9, "distress_score": 0.2}`),
		claraEv("emotion", claraAt(9), `{"emotion": "calm", "confidence": 0.9, "distress_score": "0.15"}`),
	)
	s.EndedAt = claraAt(20.5) // 20.5 minutes round to 21
	s.Messages = append(s.Messages, Message{ID: "m3", Role: "user", Content: "Is it Tuesday?", At: claraAt(3)})
	sum := presettest.Run(claraRules, "clara", s).SessionSummary
	want := map[string]any{
		"summary": "A 21-minute session of 3 messages, 2 from the user. The user seemed anxious at first and calm by the end. " +
			"The user's questions were mostly about where they were. Clara shared 1 narrative (calming story). No escalation.",
		"key_topics":           []string{"location_confusion", "asking_about_someone", "calming_story"},
		"emotional_arc":        "anxious → calm",
		"notable_anchors":      []string{"garden", "the cat", "sunlight"},
		"dominant_emotion":     "calm",
		"escalation_triggered": false,
		"duration_minutes":     21,
		"message_count":        3,
		"user_message_count":   2,
		"average_distress":     0.35,
		"narratives_used":      1,
	}
	if !reflect.DeepEqual(sum, want) {
		t.Errorf("summary\n got %#v\nwant %#v", sum, want)
	}

	empty := presettest.Run(claraRules, "clara", Session{ID: "s-empty", App: "clara"}).SessionSummary
	wantEmpty := map[string]any{
		"summary":              "A session with no messages. No emotions were recorded. No escalation.",
		"key_topics":           []string{},
		"emotional_arc":        "",
		"notable_anchors":      []string{},
		"dominant_emotion":     nil,
		"escalation_triggered": false,
		"duration_minutes":     0,
		"message_count":        0,
		"user_message_count":   0,
		"average_distress":     nil,
		"narratives_used":      0,
	}
	if !reflect.DeepEqual(empty, wantEmpty) {
		t.Errorf("empty session summary\n got %#v\nwant %#v", empty, wantEmpty)
	}
}

func TestClaraAnchorsAreBounded(t *testing.T) {
	t.Parallel()
	var tags []string
	for i := range 15 {
		tags = append(tags, "anchor"+string(rune('a'+i)))
	}
	b, _ := json.Marshal(map[string]any{"category": "grounding", "tags": tags})
	got := claraRun(claraEv("narrative", claraAt(1), string(b))).SessionSummary["notable_anchors"].([]string)
	if len(got) != claraMaxAnchors || got[0] != "anchora" {
		t.Errorf("anchors %v, want the first %d", got, claraMaxAnchors)
	}
}

// Clara's caregivers must never read the user's own words: whatever the user
// typed, and whatever prose a chat service copied into event data, the
// result holds none of it.
func TestClaraNeverCopiesUserText(t *testing.T) {
	t.Parallel()
	s := claraSession(
		claraEv("emotion", claraAt(1), `{"emotion": "I am scared of the marmalade lighthouse", "distress_score": 0.8, "anchors": ["the marmalade lighthouse where I grew up as a girl"]}`),
		claraEv("emotion", claraAt(2), `{"emotion": "anxious", "anchors": "marmalade lighthouse, by the sea!"}`),
		claraEv("question", claraAt(2), `{"fingerprint": "lighthouse marmalade", "question_type": "where is the marmalade lighthouse", "repeat_count": 2}`),
		claraEv("narrative", claraAt(3), `{"narrative_id": "marmalade lighthouse story", "mode": "seed", "category": "the marmalade lighthouse she talks about", "tags": ["my password is hunter2"]}`),
		claraEv("escalation", claraAt(4), `{"reason": "user said the marmalade lighthouse is on fire"}`),
	)
	s.Messages = append(s.Messages,
		Message{ID: "m3", Role: "user", Content: "Take me to the Marmalade Lighthouse, my name is Rosa and I love my garden.", At: claraAt(2)},
		Message{ID: "m4", Role: "user", Content: "I'm so scared. Where is Harold?", At: claraAt(3)},
	)
	res := presettest.Run(claraRules, "clara", s)
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.ToLower(string(b))
	for _, bad := range []string{"marmalade", "lighthouse", "rosa", "harold", "hunter2", "scared", "where is"} {
		if strings.Contains(out, bad) {
			t.Errorf("the result holds %q from the user's words:\n%s", bad, b)
		}
	}
	if len(res.Memories) != 0 || len(res.ProfileUpdates) != 0 {
		t.Errorf("clara stores memories %v or profile updates %v", res.Memories, res.ProfileUpdates)
	}
}

// The rules' summary fits the preset's answer schema, so that a summary
// reads the same whichever extractor wrote it.
func TestClaraResultFitsSchema(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	app := apps["clara"]
	if app == nil {
		t.Fatalf("no built-in clara preset; have %v", prompts.Names(apps))
	}
	var events []Event
	for i := range 12 {
		b, _ := json.Marshal(map[string]any{"category": fmt.Sprintf("category %d", i), "tags": []string{fmt.Sprintf("tag %d", i)}})
		events = append(events, claraEv("narrative", claraAt(float64(i)), string(b)))
	}
	for _, s := range []Session{{ID: "s-0", App: "clara"}, claraSession(events...)} {
		sum := presettest.Run(claraRules, "clara", s).SessionSummary
		if n := utf8.RuneCountInString(sum["summary"].(string)); n > 600 {
			t.Errorf("%s: summary of %d characters", s.ID, n)
		}
		part := map[string]any{}
		for _, k := range []string{"summary", "key_topics", "emotional_arc", "notable_anchors"} {
			part[k] = sum[k]
		}
		b, _ := json.Marshal(map[string]any{"session_summary": part})
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if err := app.Validate(v); err != nil {
			t.Errorf("%s: %v\n%s", s.ID, err, b)
		}
	}
}

// TestClaraRulesGolden pins Clara's deterministic result on a sample session.
// It writes the same file TestRulesGolden reads once Rules dispatches to
// claraRules; -update rewrites it.
func TestClaraRulesGolden(t *testing.T) {
	t.Parallel()
	presettest.Golden(t, "clara", claraRules, *golden.Update)
}

// FuzzClaraRules feeds arbitrary messages and event data: no user text may
// come out, and the summary keeps its shape.
func FuzzClaraRules(f *testing.F) {
	f.Add("Where am I? marmalade", `{"emotion": "anxious", "distress_score": 0.5, "anchors": ["garden"]}`, `{"question_type": "location", "repeat_count": 7}`)
	f.Add("", `{"emotion": 3}`, `{"narrative_id": [1], "category": {"a": 1}, "tags": "x"}`)
	f.Add("hello", `not json`, `{"repeat_count": "1e300"}`)
	f.Fuzz(func(t *testing.T, message, data1, data2 string) {
		const secret = "qxzvmarmalade"
		s := Session{ID: "s-f", App: "clara", StartedAt: claraT0, EndedAt: claraAt(5),
			Messages: []Message{{ID: "m1", Role: "user", Content: message + " " + secret}},
			Events: []Event{
				{Type: "emotion", At: claraAt(1), Data: json.RawMessage(data1)},
				{Type: "question", At: claraAt(2), Data: json.RawMessage(data2)},
				{Type: "narrative", At: claraAt(2), Data: json.RawMessage(data2)},
				{Type: "emotion", Data: json.RawMessage(data2)},
			}}
		res := presettest.Run(claraRules, "clara", s)
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.ToLower(string(b)), secret) {
			t.Fatalf("user text in the result: %s", b)
		}
		sum := res.SessionSummary
		if len(sum["key_topics"].([]string)) > claraMaxTopics || len(sum["notable_anchors"].([]string)) > claraMaxAnchors {
			t.Fatalf("lists over their caps: %v", sum)
		}
		if text := sum["summary"].(string); text == "" || utf8.RuneCountInString(text) > 600 {
			t.Fatalf("summary %q", text)
		}
	})
}
