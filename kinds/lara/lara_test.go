package lara

// The tests read the engine's types unqualified, as they did in package
// extract.
import (
	"encoding/json"
	"fmt"
	. "github.com/mnemo-ai/mnemo/extract"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/internal/golden"
	"github.com/mnemo-ai/mnemo/internal/num"
	"github.com/mnemo-ai/mnemo/prompts"
)

// updateLaraGolden rewrites testdata/rules/lara.golden.json: -update
// (package internal/golden). TestRulesGolden checks the same file through
// Rules; this test checks it through laraRules alone, so that it holds
// whatever Rules dispatches.
var updateLaraGolden = golden.Update

var laraT0 = time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)

// laraPolicy is the preset's policy as far as the rules read it.
var laraPolicy = prompts.Policy{Rules: "lara", MinConfidence: 0.6}

// laraLabelShape is the brief's label regex, written independently of laraLabelRe.
var laraLabelShape = regexp.MustCompile(`(?i)\b(child|user|kid|he|she)\s+(is|was|seems)\s+(anxious|sad|angry|frustrated|upset|scared|worried|nervous|depressed|lonely|afraid)\b`)

// runLara runs the lara rules the way Rules does.
func runLara(p prompts.Policy, s Session, now time.Time) Result {
	res := Result{
		App: "lara", Source: SourceRules, PromptVersion: RulesVersion,
		Memories: []Memory{}, ProfileUpdates: map[string]any{}, SessionSummary: map[string]any{}, Dropped: []Dropped{},
	}
	laraRules(&res, p, s, now)
	return res
}

func laraEv(kind string, data map[string]any) Event {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	return Event{Type: kind, At: laraT0.Add(-time.Minute), Data: b}
}

func laraTry(concept string, difficulty int, success bool) Event {
	return laraEv("attempt", map[string]any{"concept": concept, "difficulty": difficulty, "success": success})
}

func laraMood(state string, confidence any) Event {
	d := map[string]any{"state": state}
	if confidence != nil {
		d["confidence"] = confidence
	}
	return laraEv("mood", d)
}

func laraReinforce(style string, success bool) Event {
	return laraEv("reinforcement", map[string]any{"style": style, "success": success})
}

// laraTries returns n attempts of concept at difficulty with outcome ok.
func laraTries(concept string, difficulty, n int, ok bool) []Event {
	out := make([]Event, n)
	for i := range out {
		out[i] = laraTry(concept, difficulty, ok)
	}
	return out
}

func laraSession(id string, events ...Event) Session {
	return Session{ID: id, UserID: "u-1", App: "lara", Events: events}
}

func laraSaid(id string, msgs ...string) Session {
	s := laraSession(id)
	for i, m := range msgs {
		s.Messages = append(s.Messages, Message{ID: fmt.Sprintf("m%d", i+1), Role: "user", Content: m, At: laraT0.Add(-time.Hour)})
	}
	return s
}

// stored is what a store gives back: records written as JSON and read again.
func laraStored(t testing.TB, recs []Record) []Record {
	t.Helper()
	b, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	var out []Record
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// apply writes recs over prior as the store does: by kind and key, deletes removing.
func laraApply(t testing.TB, prior, recs []Record) []Record {
	t.Helper()
	out := slices.Clone(prior)
	for _, r := range laraStored(t, recs) {
		out = slices.DeleteFunc(out, func(p Record) bool { return p.Type == r.Type && p.Key == r.Key })
		if !r.Delete {
			out = append(out, r)
		}
	}
	return out
}

// laraBundle runs sessions one after another over one user's stored records.
type laraBundle struct {
	t       testing.TB
	p       prompts.Policy
	history []Record
	last    Result
}

func setupLara(t testing.TB) *laraBundle { return &laraBundle{t: t, p: laraPolicy} }

func (b *laraBundle) run(s Session, now time.Time) Result {
	b.t.Helper()
	s.History.Records = b.history
	b.last = runLara(b.p, s, now)
	b.history = laraApply(b.t, b.history, b.last.Records)
	return b.last
}

func laraFind(recs []Record, kind, key string) (Record, bool) {
	for _, r := range recs {
		if r.Type == kind && r.Key == key {
			return r, true
		}
	}
	return Record{}, false
}

func (b *laraBundle) get(kind, key string) map[string]any {
	b.t.Helper()
	r, ok := laraFind(b.history, kind, key)
	if !ok {
		b.t.Fatalf("no %s %s in %s", kind, key, laraJSON(b.t, b.history))
	}
	return r.Data
}

func laraJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// num reads a number of a record as the store gives it back.
func laraNum(d map[string]any, f string) float64 {
	v, _ := num.Float(d[f])
	return v
}

func laraReasons(ds []Dropped) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Reason)
	}
	return out
}

func TestLaraMastery(t *testing.T) {
	t.Parallel()
	S := func(d int) Event { return laraTry("counting", d, true) }
	F := func(d int) Event { return laraTry("counting", d, false) }
	tests := []struct {
		name                               string
		events                             []Event
		mastery, streak, fails, difficulty int
	}{
		{"exactly at threshold", []Event{S(1), S(1), S(1)}, 1, 0, 0, 2},
		{"one short", []Event{S(1), S(1)}, 0, 2, 0, 1},
		{"a failure breaks the streak", []Event{S(1), S(1), F(1), S(1), S(1)}, 0, 2, 0, 1},
		{"once per session", append(laraTries("counting", 1, 3, true), laraTries("counting", 2, 3, true)...), 1, 3, 0, 2},
		{"easier successes do not count", []Event{S(3), S(1), S(3)}, 0, 2, 0, 3},
		{"easier successes do not break it", []Event{S(3), S(1), S(3), S(3)}, 1, 0, 0, 4},
		{"harder successes count", []Event{S(2), S(5), S(9)}, 1, 0, 0, 3},
		{"one failure keeps difficulty", []Event{F(4)}, 0, 0, 1, 4},
		{"two failures lower it", []Event{F(4), F(4)}, 0, 0, 0, 3},
		{"a success between failures", []Event{F(4), S(4), F(4)}, 0, 0, 1, 4},
		{"difficulty clamped up to 1", []Event{S(-3), S(0), S(1)}, 1, 0, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupLara(t)
			b.run(laraSession("s1", tt.events...), laraT0)
			d := b.get(LaraLearning, "counting")
			got := []float64{laraNum(d, "mastery_level"), laraNum(d, "success_streak"), laraNum(d, "failure_streak"), laraNum(d, "difficulty"), laraNum(d, "total_attempts")}
			want := []float64{float64(tt.mastery), float64(tt.streak), float64(tt.fails), float64(tt.difficulty), float64(len(tt.events))}
			if !slices.Equal(got, want) {
				t.Errorf("mastery, streak, failures, difficulty, attempts = %v, want %v", got, want)
			}
		})
	}
}

func TestLaraMasteryAcrossSessions(t *testing.T) {
	t.Parallel()
	t.Run("threshold reached in the next session", func(t *testing.T) {
		t.Parallel()
		b := setupLara(t)
		b.run(laraSession("s1", laraTries("counting", 1, 2, true)...), laraT0)
		b.run(laraSession("s2", laraTries("counting", 1, 1, true)...), laraT0.Add(time.Hour))
		if d := b.get(LaraLearning, "counting"); laraNum(d, "mastery_level") != 1 || laraNum(d, "successful_attempts") != 3 {
			t.Errorf("got %v", d)
		}
	})
	t.Run("capped at 5, difficulty keeps climbing", func(t *testing.T) {
		t.Parallel()
		b := setupLara(t)
		for i := range 8 {
			b.run(laraSession(fmt.Sprint("s", i), laraTries("counting", 100, 3, true)...), laraT0.Add(time.Duration(i)*time.Hour))
		}
		if d := b.get(LaraLearning, "counting"); laraNum(d, "mastery_level") != LaraMaxMastery || laraNum(d, "difficulty") != 100 {
			t.Errorf("got %v", d)
		}
	})
	t.Run("never decreases", func(t *testing.T) {
		t.Parallel()
		b := setupLara(t)
		b.run(laraSession("s1", laraTries("counting", 1, 3, true)...), laraT0)
		b.run(laraSession("s2", laraTries("counting", 1, 30, false)...), laraT0.Add(time.Hour))
		if d := b.get(LaraLearning, "counting"); laraNum(d, "mastery_level") != 1 {
			t.Errorf("got %v", d)
		}
	})
}

func TestLaraDifficultyNeverBelowOne(t *testing.T) {
	t.Parallel()
	for _, start := range []int{1, 2, 5, 30} {
		b := setupLara(t)
		for i := range 10 {
			b.run(laraSession(fmt.Sprint("s", i), laraTries("counting", start, 7, false)...), laraT0.Add(time.Duration(i)*time.Minute))
			d := b.get(LaraLearning, "counting")
			if got := laraNum(d, "difficulty"); got < 1 {
				t.Fatalf("start %d, session %d: difficulty %v", start, i, got)
			}
		}
		if d := b.get(LaraLearning, "counting"); laraNum(d, "difficulty") != 1 || laraNum(d, "total_attempts") != 70 {
			t.Errorf("start %d: got %v", start, d)
		}
	}
}

func TestLaraSummary(t *testing.T) {
	t.Parallel()
	s := laraSaid("s1", "hello", "I like trains")
	s.Messages = append(s.Messages, Message{ID: "a1", Role: "assistant", Content: "hi"})
	s.Events = []Event{
		laraTry("Counting", 2, true), laraTry("Counting", 3, false), laraTry("Letter Sounds", 4, true),
		laraTry("Shapes", 9, false), laraEv("attempt", map[string]any{"concept": "x"}),
		laraMood("frustrated", 0.9), laraMood("recovered", nil), laraMood("frustrated", 0.7), laraMood("stable", 0.6),
		laraMood("anxious", 0.2),
	}
	got := runLara(laraPolicy, s, laraT0).SessionSummary
	want := map[string]any{
		"current_concept": "shapes", "highest_difficulty": 4, "frustration_events": 2, "recovery_events": 1,
		"stability_trend": TrendImproving, "attempts": 4, "successes": 2, "turns": 2,
		"preferences": []any{map[string]any{"key": "likes:trains", "value": "trains", "at": "2026-11-20T08:30:00Z"}},
	}
	if laraJSON(t, got) != laraJSON(t, want) {
		t.Errorf("summary %s, want %s", laraJSON(t, got), laraJSON(t, want))
	}
	empty := runLara(laraPolicy, laraSession("s2"), laraT0).SessionSummary
	if laraJSON(t, empty) != `{"attempts":0,"current_concept":"","frustration_events":0,"highest_difficulty":0,"preferences":[],"recovery_events":0,"stability_trend":"stable","successes":0,"turns":0}` {
		t.Errorf("empty summary %s", laraJSON(t, empty))
	}
}

func TestLaraTrend(t *testing.T) {
	t.Parallel()
	tests := []struct {
		moods []string
		want  string
	}{
		{nil, TrendStable},
		{[]string{"stable", "stable"}, TrendStable},
		{[]string{"recovered"}, TrendStable},
		{[]string{"frustrated"}, TrendDeclining},
		{[]string{"stable", "anxious"}, TrendDeclining},
		{[]string{"frustrated", "recovered"}, TrendImproving},
		{[]string{"anxious", "stable"}, TrendImproving},
		{[]string{"frustrated", "recovered", "frustrated"}, TrendDeclining},
	}
	for _, tt := range tests {
		if got := laraTrend(tt.moods); got != tt.want {
			t.Errorf("laraTrend(%v) = %s, want %s", tt.moods, got, tt.want)
		}
	}
}

func TestLaraEmotional(t *testing.T) {
	t.Parallel()
	recent := func(session string, age time.Duration, f, a int) map[string]any {
		return map[string]any{"session_id": session, "at": laraT0.Add(-age).Format(time.RFC3339), "frustrated": f, "recovered": 0, "stable": 0, "anxious": a}
	}
	b := setupLara(t)
	b.history = laraStored(t, []Record{{Type: LaraEmotional, Key: LaraCounts, Data: map[string]any{
		"user_id": "u-1", "updated_at": laraT0.Add(-24 * time.Hour).Format(time.RFC3339), "last_session_id": "old-2",
		"frustration_count": 10, "recovery_count": 4, "stable_count": 1, "anxious_count": 3, "sessions": 7,
		"recent": []any{recent("old-1", 40*24*time.Hour, 6, 2), recent("old-2", 10*24*time.Hour, 3, 1)},
	}}})
	b.run(laraSession("s1", laraMood("frustrated", 0.9), laraMood("anxious", 0.95), laraMood("recovered", nil), laraMood("anxious", 0.59)), laraT0)
	d := b.get(LaraEmotional, LaraCounts)
	for f, want := range map[string]float64{
		"frustration_count": 11, "recovery_count": 5, "stable_count": 1, "anxious_count": 4, "sessions": 8,
		// old-1 is older than 30 days: (3+1 + 1+1) / 2 sessions.
		"last_30_day_average": 3, "last_30_day_sessions": 2,
	} {
		if got := laraNum(d, f); got != want {
			t.Errorf("%s = %v, want %v", f, got, want)
		}
	}
	avgs, _ := d["last_30_day_averages"].(map[string]any)
	if laraNum(avgs, "frustrated") != 2 || laraNum(avgs, "anxious") != 1 || laraNum(avgs, "recovered") != 0.5 || laraNum(avgs, "stable") != 0 {
		t.Errorf("averages %v", avgs)
	}
	if list, _ := d["recent"].([]any); len(list) != 2 || !strings.Contains(laraJSON(t, list), `"session_id":"s1"`) || strings.Contains(laraJSON(t, list), "old-1") {
		t.Errorf("recent %s", laraJSON(t, list))
	}

	// A session without moods still counts, as a zero.
	b.run(laraSession("s2"), laraT0.Add(time.Hour))
	if d := b.get(LaraEmotional, LaraCounts); laraNum(d, "sessions") != 9 || laraNum(d, "last_30_day_average") != 2 {
		t.Errorf("after an empty session: %v", d)
	}

	// The history stays bounded.
	for i := range LaraMaxRecent + 5 {
		b.run(laraSession(fmt.Sprint("n", i), laraMood("stable", nil)), laraT0.Add(2*time.Hour+time.Duration(i)*time.Minute))
	}
	if list, _ := b.get(LaraEmotional, LaraCounts)["recent"].([]any); len(list) != LaraMaxRecent {
		t.Errorf("recent holds %d sessions, want %d", len(list), LaraMaxRecent)
	}
}

func TestLaraPreferences(t *testing.T) {
	t.Parallel()
	t.Run("user messages only, preferences only", func(t *testing.T) {
		t.Parallel()
		b := setupLara(t)
		s := laraSaid("s1", "My name is Mia. I like dinosaurs and I hate broccoli. My favourite colour is green. I went to the zoo. I'm so tired.")
		s.Messages = append(s.Messages, Message{ID: "a1", Role: "assistant", Content: "I like cats"})
		b.run(s, laraT0)
		var keys []string
		for _, r := range b.history {
			if r.Type == LaraPreference {
				keys = append(keys, r.Key)
			}
		}
		slices.Sort(keys)
		if want := []string{"dislikes:broccoli", "favorite_colour", "likes:dinosaurs"}; !slices.Equal(keys, want) {
			t.Errorf("keys %v, want %v", keys, want)
		}
		d := b.get(LaraPreference, "likes:dinosaurs")
		if d["value"] != "dinosaurs" || d["polarity"] != "likes" || d["first_seen"] != laraT0.Add(-time.Hour).Format(time.RFC3339) {
			t.Errorf("likes:dinosaurs %v", d)
		}
	})
	t.Run("flip", func(t *testing.T) {
		t.Parallel()
		b := setupLara(t)
		b.run(laraSaid("s1", "I like spiders. My favorite food is broccoli."), laraT0)
		first := b.get(LaraPreference, "likes:spiders")["first_seen"]
		res := b.run(laraSaid("s2", "I hate spiders. I don't like broccoli."), laraT0.Add(time.Hour))
		if _, ok := laraFind(res.Records, LaraPreference, "favorite_food"); !ok {
			t.Errorf("favorite_food not deleted: %s", laraJSON(t, res.Records))
		}
		if _, ok := laraFind(b.history, LaraPreference, "likes:spiders"); ok {
			t.Error("likes:spiders survived dislikes:spiders")
		}
		if _, ok := laraFind(b.history, LaraPreference, "favorite_food"); ok {
			t.Error("favorite_food broccoli survived dislikes:broccoli")
		}
		if r, ok := laraFind(res.Records, LaraPreference, "likes:spiders"); !ok || !r.Delete || r.Data["reason"] != "contradicted" {
			t.Errorf("no delete record: %s", laraJSON(t, res.Records))
		}
		s3 := laraSaid("s3", "I love spiders")
		s3.Messages[0].At = laraT0.Add(2 * time.Hour)
		b.run(s3, laraT0.Add(2*time.Hour))
		if _, ok := laraFind(b.history, LaraPreference, "dislikes:spiders"); ok {
			t.Error("dislikes:spiders survived likes:spiders")
		}
		if d := b.get(LaraPreference, "likes:spiders"); d["first_seen"] == first {
			t.Errorf("a like that was removed came back with its old first_seen %v", d)
		}
		// Within one session the later statement wins.
		b.run(laraSaid("s4", "I like snakes. I don't like snakes."), laraT0.Add(3*time.Hour))
		if _, ok := laraFind(b.history, LaraPreference, "likes:snakes"); ok {
			t.Error("likes:snakes kept")
		}
		b.get(LaraPreference, "dislikes:snakes")
	})
	t.Run("cap of 20 evicts the least recently seen", func(t *testing.T) {
		t.Parallel()
		b := setupLara(t)
		for i := range 18 {
			s := laraSaid(fmt.Sprint("s", i), fmt.Sprintf("I like thing%d", i))
			s.Messages[0].At = laraT0.Add(time.Duration(i) * time.Hour)
			b.run(s, laraT0.Add(time.Duration(i)*time.Hour))
		}
		// thing0 is seen again, so thing1, thing2 and thing3 are the oldest.
		s := laraSaid("s-last", "I like thing0. I like apples. I like pears. I like plums. I like figs. I like kiwis.")
		now := laraT0.Add(100 * time.Hour)
		s.Messages[0].At = now
		res := b.run(s, now)
		var prefs, deleted []string
		for _, r := range b.history {
			if r.Type == LaraPreference {
				prefs = append(prefs, r.Key)
			}
		}
		for _, r := range res.Records {
			if r.Delete {
				deleted = append(deleted, r.Key)
				if r.Data["reason"] != "evicted" {
					t.Errorf("delete %s: %v", r.Key, r.Data)
				}
			}
		}
		slices.Sort(deleted)
		if len(prefs) != LaraMaxPreferences {
			t.Errorf("%d preferences kept: %v", len(prefs), prefs)
		}
		if want := []string{"likes:thing1", "likes:thing2", "likes:thing3"}; !slices.Equal(deleted, want) {
			t.Errorf("deleted %v, want %v", deleted, want)
		}
		for _, k := range []string{"likes:thing0", "likes:kiwis", "likes:thing17"} {
			if !slices.Contains(prefs, k) {
				t.Errorf("%s evicted", k)
			}
		}
	})
	t.Run("more than 20 in one session", func(t *testing.T) {
		t.Parallel()
		var msgs []string
		for i := range 25 {
			msgs = append(msgs, fmt.Sprintf("I like toy%d", i))
		}
		b := setupLara(t)
		s := laraSaid("s1", msgs...)
		for i := range s.Messages {
			s.Messages[i].At = laraT0.Add(time.Duration(i-30) * time.Minute)
		}
		res := b.run(s, laraT0)
		n := 0
		for _, r := range res.Records {
			if r.Type == LaraPreference {
				n++
				if r.Delete {
					t.Errorf("delete of %s, which was never stored", r.Key)
				}
			}
		}
		if n != LaraMaxPreferences {
			t.Errorf("%d preference records", n)
		}
		if _, ok := laraFind(res.Records, LaraPreference, "likes:toy0"); ok {
			t.Error("the earliest said was kept")
		}
	})
}

func TestLaraReinforcementSwitch(t *testing.T) {
	t.Parallel()
	// metric builds n events with k successes of style.
	metric := func(style string, n, k int) []Event {
		var out []Event
		for i := range n {
			out = append(out, laraReinforce(style, i < k))
		}
		return out
	}
	tests := []struct {
		name    string
		current []Event // the first session: praise first, so praise is the style
		other   []Event
		want    string
	}{
		{"4 events are not enough", metric("praise", 10, 0), metric("stickers", 4, 4), "praise"},
		{"5 events at 14 points are not", metric("praise", 50, 33), metric("stickers", 5, 4), "praise"},
		{"5 events at 15 points switch", metric("praise", 20, 13), metric("stickers", 5, 4), "stickers"},
		{"worse is never better", metric("praise", 10, 9), metric("stickers", 10, 5), "praise"},
		{"current without successes", metric("praise", 1, 0), metric("stickers", 5, 1), "stickers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := setupLara(t)
			b.run(laraSession("s1", tt.current...), laraT0)
			if got := b.get(LaraReinforcementState, LaraCurrent)["style"]; got != "praise" {
				t.Fatalf("initial style %v, want the first seen", got)
			}
			b.run(laraSession("s2", tt.other...), laraT0.Add(time.Hour))
			state := b.get(LaraReinforcementState, LaraCurrent)
			if state["style"] != tt.want {
				t.Errorf("style %v, want %s (%v)", state["style"], tt.want, state)
			}
			if tt.want == "stickers" && (state["switch_session_id"] != "s2" || state["previous_style"] != "praise" || state["switched_at"] != laraT0.Add(time.Hour).Format(time.RFC3339)) {
				t.Errorf("switch not recorded: %v", state)
			}
			if tt.want == "praise" && state["switched_at"] != "" {
				t.Errorf("switched_at %v without a switch", state["switched_at"])
			}
		})
	}
	t.Run("one switch per session", func(t *testing.T) {
		t.Parallel()
		b := setupLara(t)
		// Praise is current and poor; both stickers (60 %) and tokens (100 %)
		// beat it, and tokens would also beat stickers by 15 points: still one switch.
		b.run(laraSession("s1", append(metric("praise", 10, 1), append(metric("stickers", 5, 3), metric("tokens", 5, 5)...)...)...), laraT0)
		state := b.get(LaraReinforcementState, LaraCurrent)
		if state["style"] != "tokens" || state["previous_style"] != "praise" {
			t.Errorf("state %v", state)
		}
		// The next session does not switch back or on without new evidence.
		b.run(laraSession("s2", metric("tokens", 1, 0)...), laraT0.Add(time.Hour))
		if s := b.get(LaraReinforcementState, LaraCurrent); s["style"] != "tokens" || s["switch_session_id"] != "s1" {
			t.Errorf("state after s2 %v", s)
		}
		if d := b.get(LaraReinforcement, "tokens"); laraNum(d, "events") != 6 || laraNum(d, "successes") != 5 || laraNum(d, "success_rate") != 0.8333 {
			t.Errorf("tokens %v", d)
		}
	})
}

// The guards. Each test attacks one.

func TestLaraGuardConfidence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		event Event
		count bool
	}{
		{"low-confidence anxious", laraMood("anxious", 0.59), false},
		{"at the threshold", laraMood("anxious", 0.6), true},
		{"no confidence given", laraMood("anxious", nil), true},
		{"confidence as a string", laraMood("anxious", "0.9"), true},
		{"low confidence as a string", laraMood("anxious", "0.1"), false},
		{"confidence over 1", laraMood("anxious", 7), false},
		{"confidence not a number", laraMood("anxious", true), false},
		{"negative confidence", laraMood("anxious", -1), false},
		{"low-confidence emotion", laraEv("emotion", map[string]any{"emotion": "anxious", "confidence": 0.3}), false},
		{"confident emotion", laraEv("emotion", map[string]any{"emotion": "Anxious", "confidence": 0.9}), true},
		{"another emotion", laraEv("emotion", map[string]any{"emotion": "sad", "confidence": 0.9}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runLara(laraPolicy, laraSession("s1", tt.event), laraT0)
			r, _ := laraFind(res.Records, LaraEmotional, LaraCounts)
			if got := laraNum(r.Data, "anxious_count") == 1; got != tt.count {
				t.Errorf("counted %v, want %v: %s", got, tt.count, laraJSON(t, r.Data))
			}
			if low := slices.Contains(laraReasons(res.Dropped), GuardConfidence); low == tt.count && tt.event.Type == "mood" {
				t.Errorf("dropped %v", res.Dropped)
			}
		})
	}
	// An emotion beside mood events is not counted twice.
	res := runLara(laraPolicy, laraSession("s1", laraMood("frustrated", 0.9), laraEv("emotion", map[string]any{"emotion": "frustrated", "confidence": 0.9})), laraT0)
	if r, _ := laraFind(res.Records, LaraEmotional, LaraCounts); laraNum(r.Data, "frustration_count") != 1 {
		t.Errorf("counted twice: %v", r.Data)
	}
}

func TestLaraGuardCooldown(t *testing.T) {
	t.Parallel()
	t.Run("a second session right away cannot promote", func(t *testing.T) {
		t.Parallel()
		b := setupLara(t)
		b.run(laraSession("s1", laraTries("counting", 1, 3, true)...), laraT0)
		b.run(laraSession("s2", laraTries("counting", 2, 3, true)...), laraT0.Add(LaraCooldown-time.Second))
		d := b.get(LaraLearning, "counting")
		if laraNum(d, "mastery_level") != 1 || laraNum(d, "difficulty") != 2 || laraNum(d, "success_streak") != 3 || laraNum(d, "total_attempts") != 6 {
			t.Errorf("inside the window: %v", d)
		}
		// The streak held back completes at the next success after the window.
		b.run(laraSession("s3", laraTries("counting", 2, 1, true)...), laraT0.Add(2*LaraCooldown))
		if d := b.get(LaraLearning, "counting"); laraNum(d, "mastery_level") != 2 || laraNum(d, "success_streak") != 0 {
			t.Errorf("after the window: %v", d)
		}
	})
	prior := func(updated time.Time, mastery, difficulty int) []Record {
		return []Record{{Type: LaraLearning, Key: "counting", Data: map[string]any{
			"user_id": "u-1", "updated_at": updated.Format(time.RFC3339), "last_session_id": "s0",
			"mastery_level": mastery, "total_attempts": 3, "successful_attempts": 3, "success_streak": 0, "failure_streak": 0, "difficulty": difficulty,
		}}}
	}
	next := func(mastery, difficulty int) []Record {
		return []Record{{Type: LaraLearning, Key: "counting", Data: map[string]any{
			"user_id": "u-1", "updated_at": laraT0.Format(time.RFC3339), "last_session_id": "s1",
			"mastery_level": mastery, "total_attempts": 4, "successful_attempts": 4, "success_streak": 0, "failure_streak": 0, "difficulty": difficulty,
		}}}
	}
	tests := []struct {
		name   string
		prior  []Record
		next   []Record
		reason string
	}{
		{"mastery rise inside the window", prior(laraT0.Add(-5*time.Minute), 1, 2), next(2, 2), GuardCooldown},
		{"mastery rise a second short", prior(laraT0.Add(-LaraCooldown+time.Second), 1, 2), next(2, 2), GuardCooldown},
		{"mastery rise at the window's end", prior(laraT0.Add(-LaraCooldown), 1, 2), next(2, 2), ""},
		{"difficulty rise inside the window", prior(laraT0.Add(-time.Minute), 5, 2), next(5, 3), GuardCooldown},
		{"difficulty fall inside the window", prior(laraT0.Add(-time.Minute), 1, 2), next(1, 1), ""},
		{"counts inside the window", prior(laraT0.Add(-time.Minute), 1, 2), next(1, 2), ""},
		{"prior written in the future", prior(laraT0.Add(time.Hour), 1, 2), next(2, 2), GuardCooldown},
		{"prior without a time", []Record{{Type: LaraLearning, Key: "counting", Data: map[string]any{"user_id": "u-1", "mastery_level": 1, "difficulty": 2}}}, next(2, 2), GuardCooldown},
		{"mastery jumps two levels", prior(laraT0.Add(-time.Hour), 1, 2), next(3, 2), GuardInvalid},
		{"mastery falls", prior(laraT0.Add(-time.Hour), 3, 2), next(2, 2), GuardInvalid},
		{"difficulty jumps two steps", prior(laraT0.Add(-time.Hour), 1, 2), next(1, 4), GuardInvalid},
		{"mastery over 5", nil, next(6, 2), GuardInvalid},
		{"difficulty zero", nil, next(0, 0), GuardInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ok, dropped := LaraGuard("u-1", "s1", laraStored(t, tt.prior), tt.next, laraT0)
			if tt.reason == "" && (len(ok) != 1 || len(dropped) != 0) {
				t.Errorf("refused: %v", dropped)
			}
			if tt.reason != "" && (len(ok) != 0 || !slices.Contains(laraReasons(dropped), tt.reason)) {
				t.Errorf("ok %v, dropped %v, want %s", ok, dropped, tt.reason)
			}
		})
	}
}

func TestLaraGuardDuplicate(t *testing.T) {
	t.Parallel()
	session := func(id string) Session {
		s := laraSaid(id, "I like dinosaurs")
		s.Events = []Event{laraTry("counting", 1, true), laraTry("counting", 1, false), laraMood("frustrated", 0.9), laraReinforce("praise", true)}
		return s
	}
	b := setupLara(t)
	b.run(session("s1"), laraT0)
	once := laraJSON(t, b.history)

	// The same session again, right away or a day later: nothing changes.
	for _, at := range []time.Time{laraT0, laraT0.Add(24 * time.Hour)} {
		res := b.run(session("s1"), at)
		if len(res.Records) != 0 || !slices.Contains(laraReasons(res.Dropped), GuardDuplicate) {
			t.Errorf("re-run at %v wrote %s, dropped %v", at, laraJSON(t, res.Records), res.Dropped)
		}
		if laraJSON(t, b.history) != once {
			t.Errorf("re-run changed the records:\n%s\nwant\n%s", laraJSON(t, b.history), once)
		}
	}

	// A retried s1 after s2 touched every record s1 wrote is still recognised.
	b.run(session("s2"), laraT0.Add(time.Hour))
	twice := laraJSON(t, b.history)
	if res := b.run(session("s1"), laraT0.Add(2*time.Hour)); len(res.Records) != 0 || laraJSON(t, b.history) != twice {
		t.Errorf("retried s1 after s2 wrote %s", laraJSON(t, res.Records))
	}
	if d := b.get(LaraLearning, "counting"); laraNum(d, "total_attempts") != 4 {
		t.Errorf("attempts counted %v times, want 4", d["total_attempts"])
	}
	if d := b.get(LaraEmotional, LaraCounts); laraNum(d, "frustration_count") != 2 || laraNum(d, "sessions") != 2 {
		t.Errorf("emotional %v", d)
	}

	// A write that does not name its session cannot be recognised when retried.
	s := session("")
	if res := runLara(laraPolicy, s, laraT0); len(res.Records) != 0 || !slices.Contains(laraReasons(res.Dropped), GuardDuplicate) {
		t.Errorf("session without ID wrote %s", laraJSON(t, res.Records))
	}
}

func TestLaraGuardTimestamp(t *testing.T) {
	t.Parallel()
	res := runLara(laraPolicy, func() Session {
		s := laraSaid("s1", "I like dinosaurs")
		s.Events = []Event{laraTry("counting", 1, true), laraMood("stable", nil), laraReinforce("praise", true)}
		return s
	}(), laraT0.In(time.FixedZone("x", 3600)))
	if len(res.Records) != 5 {
		t.Fatalf("records %s", laraJSON(t, res.Records))
	}
	for _, r := range res.Records {
		if r.Data["updated_at"] != "2026-11-20T09:30:00Z" || r.Data["last_session_id"] != "s1" {
			t.Errorf("%s %s not stamped: %v", r.Type, r.Key, r.Data)
		}
	}

	good := func() Record {
		return Record{Type: LaraReinforcement, Key: "praise", Data: map[string]any{
			"user_id": "u-1", "updated_at": laraT0.Format(time.RFC3339), "last_session_id": "s1", "events": 1, "successes": 1, "success_rate": 1.0,
		}}
	}
	tests := []struct {
		name   string
		change func(map[string]any)
	}{
		{"no updated_at", func(d map[string]any) { delete(d, "updated_at") }},
		{"stale updated_at", func(d map[string]any) { d["updated_at"] = laraT0.Add(-time.Hour).Format(time.RFC3339) }},
		{"updated_at not a string", func(d map[string]any) { d["updated_at"] = laraT0 }},
		{"updated_at in another zone", func(d map[string]any) { d["updated_at"] = laraT0.In(time.FixedZone("x", 3600)).Format(time.RFC3339) }},
		{"another session", func(d map[string]any) { d["last_session_id"] = "s9" }},
		{"no session", func(d map[string]any) { delete(d, "last_session_id") }},
	}
	for _, tt := range tests {
		r := good()
		tt.change(r.Data)
		if ok, dropped := LaraGuard("u-1", "s1", nil, []Record{good(), r}, laraT0); len(ok) != 1 || !slices.Contains(laraReasons(dropped), GuardTimestamp) {
			t.Errorf("%s: ok %v, dropped %v", tt.name, ok, dropped)
		}
	}
}

func TestLaraGuardCrossUser(t *testing.T) {
	t.Parallel()
	theirs := Record{Type: LaraLearning, Key: "counting", Data: map[string]any{
		"user_id": "u-2", "updated_at": laraT0.Add(-time.Hour).Format(time.RFC3339), "last_session_id": "x",
		"mastery_level": 4, "total_attempts": 90, "successful_attempts": 80, "success_streak": 2, "failure_streak": 0, "difficulty": 9,
	}}
	noOwner := Record{Type: LaraPreference, Key: "likes:worms", Data: map[string]any{"value": "worms", "polarity": "likes"}}
	b := setupLara(t)
	b.history = laraStored(t, []Record{theirs, noOwner})
	res := b.run(laraSaid("s1", "I hate worms"), laraT0)
	if r, ok := laraFind(res.Records, LaraPreference, "likes:worms"); ok {
		t.Errorf("touched a record that is not the user's: %s", laraJSON(t, r))
	}
	b.get(LaraPreference, "dislikes:worms")
	if !slices.Contains(laraReasons(res.Dropped), GuardCrossUser) {
		t.Errorf("dropped %v", res.Dropped)
	}

	s := laraSession("s2", laraTry("counting", 1, true))
	s.History.Records = laraStored(t, []Record{theirs})
	res = runLara(laraPolicy, s, laraT0)
	r, ok := laraFind(res.Records, LaraLearning, "counting")
	if !ok || laraNum(r.Data, "total_attempts") != 1 || laraNum(r.Data, "mastery_level") != 0 || r.Data["user_id"] != "u-1" {
		t.Errorf("folded into another user's record: %s", laraJSON(t, res.Records))
	}
	if !slices.Contains(laraReasons(res.Dropped), GuardCrossUser) {
		t.Errorf("dropped %v", res.Dropped)
	}

	mine := func(user string) Record {
		return Record{Type: LaraReinforcement, Key: "praise", Data: map[string]any{
			"user_id": user, "updated_at": laraT0.Format(time.RFC3339), "last_session_id": "s1", "events": 1, "successes": 1,
		}}
	}
	del := Record{Type: LaraPreference, Key: "likes:worms", Delete: true, Data: map[string]any{"user_id": "u-1", "updated_at": laraT0.Format(time.RFC3339), "last_session_id": "s1"}}
	tests := []struct {
		name  string
		prior []Record
		next  []Record
		user  string
	}{
		{"a write for another user", nil, []Record{mine("u-1"), mine("u-2")}, "u-1"},
		{"a write without a user", nil, []Record{mine("u-1"), mine("")}, "u-1"},
		{"deleting another user's record", []Record{{Type: LaraPreference, Key: "likes:worms", Data: map[string]any{"user_id": "u-2"}}}, []Record{mine("u-1"), del}, "u-1"},
		{"no user at all", nil, []Record{mine("")}, ""},
	}
	for _, tt := range tests {
		ok, dropped := LaraGuard(tt.user, "s1", tt.prior, tt.next, laraT0)
		for _, r := range ok {
			if r.Data["user_id"] != tt.user || tt.user == "" || r.Delete {
				t.Errorf("%s: wrote %s", tt.name, laraJSON(t, r))
			}
		}
		if !slices.Contains(laraReasons(dropped), GuardCrossUser) && !slices.Contains(laraReasons(dropped), GuardInvalid) {
			t.Errorf("%s: dropped %v", tt.name, dropped)
		}
	}
	// The rules write nothing for a session without a user.
	anon := laraSession("s1", laraTry("counting", 1, true))
	anon.UserID = ""
	if res := runLara(laraPolicy, anon, laraT0); len(res.Records) != 0 {
		t.Errorf("wrote %s for no user", laraJSON(t, res.Records))
	}
}

func TestLaraGuardLabels(t *testing.T) {
	t.Parallel()
	stamp := func(r Record) Record {
		r.Data["user_id"], r.Data["updated_at"], r.Data["last_session_id"] = "u-1", laraT0.Format(time.RFC3339), "s1"
		return r
	}
	rec := func(kind, key string, data map[string]any) Record {
		return stamp(Record{Type: kind, Key: key, Data: data})
	}
	pref := func(key, value string) Record {
		return rec(LaraPreference, key, map[string]any{"value": value, "polarity": laraPolarity(key), "first_seen": "x", "last_seen": "x"})
	}
	refused := []Record{
		rec(LaraReinforcementState, LaraCurrent, map[string]any{"style": "praise", "note": "child is anxious"}),
		rec(LaraReinforcementState, LaraCurrent, map[string]any{"style": "The child seems very sad today"}),
		rec(LaraReinforcementState, LaraCurrent, map[string]any{"style": "praise", "notes": []any{"ok", map[string]any{"x": "she was frustrated"}}}),
		rec(LaraReinforcementState, LaraCurrent, map[string]any{"style": "praise", "he's angry": true}),
		rec(LaraReinforcementState, LaraCurrent, map[string]any{"style": "Mia is always anxious"}),
		rec(LaraReinforcementState, LaraCurrent, map[string]any{"style": "anxious child"}),
		rec(LaraReinforcementState, LaraCurrent, map[string]any{"style": "the kid has ADHD"}),
		rec(LaraReinforcementState, LaraCurrent, map[string]any{"style": "kid is \u2019really\u2019 upset"}),
		rec(LaraLearning, "the_child_is_frustrated", map[string]any{"mastery_level": 0, "difficulty": 1, "total_attempts": 1, "successful_attempts": 0, "success_streak": 0, "failure_streak": 0}),
		pref("likes:being_sad", "being sad"),
		pref("likes:crying", "crying"),
		pref("favorite_feeling", "happy"),
		pref("dislikes:feeling_anxious", "feeling anxious"),
		pref("likes:sadness", "sadness"),
	}
	for _, r := range refused {
		if ok, dropped := LaraGuard("u-1", "s1", nil, []Record{r}, laraT0); len(ok) != 0 || !slices.Equal(laraReasons(dropped), []string{GuardLabel}) {
			t.Errorf("written: %s (dropped %v)", laraJSON(t, r), dropped)
		}
	}
	kept := []Record{
		pref("likes:happy_meals", "happy meals"),
		pref("likes:mcdonalds_happy_meals", "mcdonald's happy meals"),
		pref("likes:inside_out", "inside out"),
		pref("favorite_song", "happy birthday"),
		rec(LaraReinforcement, "calm_voice", map[string]any{"events": 1, "successes": 0, "success_rate": 0.0}),
		rec(LaraEmotional, LaraCounts, map[string]any{"frustration_count": 1, "recovery_count": 0, "stable_count": 0, "anxious_count": 2, "sessions": 1,
			"recent": []any{map[string]any{"session_id": "s1", "frustrated": 1, "anxious": 2}}}),
	}
	for _, r := range kept {
		if ok, dropped := LaraGuard("u-1", "s1", nil, []Record{r}, laraT0); len(ok) != 1 {
			t.Errorf("refused %s: %v", laraJSON(t, r), dropped)
		}
	}

	// Through the rules: the emotional state is refused at its message.
	res := runLara(laraPolicy, laraSaid("s1", "I like being sad", "I love feeling calm.", "I like happy songs"), laraT0)
	if _, ok := laraFind(res.Records, LaraPreference, "likes:being_sad"); ok {
		t.Error("likes:being_sad stored")
	}
	if _, ok := laraFind(res.Records, LaraPreference, "likes:feeling_calm"); ok {
		t.Error("likes:feeling_calm stored")
	}
	if _, ok := laraFind(res.Records, LaraPreference, "likes:happy_songs"); !ok {
		t.Errorf("likes:happy_songs not stored: %s", laraJSON(t, res.Records))
	}
	if !slices.Contains(res.Dropped, Dropped{MessageID: "m1", Reason: GuardLabel}) || !slices.Contains(res.Dropped, Dropped{MessageID: "m2", Reason: GuardLabel}) {
		t.Errorf("dropped %v", res.Dropped)
	}
}

func TestLaraGuardPreferenceCap(t *testing.T) {
	t.Parallel()
	var prior, next []Record
	for i := range LaraMaxPreferences {
		prior = append(prior, Record{Type: LaraPreference, Key: fmt.Sprintf("likes:x%d", i), Data: map[string]any{"user_id": "u-1", "value": "x"}})
	}
	write := func(key string, del bool) Record {
		return Record{Type: LaraPreference, Key: key, Delete: del, Data: map[string]any{
			"user_id": "u-1", "updated_at": laraT0.Format(time.RFC3339), "last_session_id": "s1", "value": "y", "polarity": "likes",
		}}
	}
	next = []Record{write("likes:new1", false), write("likes:x3", false)}
	ok, dropped := LaraGuard("u-1", "s1", prior, next, laraT0)
	if len(ok) != 1 || ok[0].Key != "likes:x3" || !slices.Contains(laraReasons(dropped), GuardCap) {
		t.Errorf("21st preference: ok %v, dropped %v", ok, dropped)
	}
	// Deleting one makes room, whatever the order.
	next = []Record{write("likes:new1", false), write("likes:x0", true)}
	if ok, dropped := LaraGuard("u-1", "s1", prior, next, laraT0); len(ok) != 2 {
		t.Errorf("with a delete: ok %v, dropped %v", ok, dropped)
	}
}

// TestLaraNoLabelsNoText runs a session full of emotional words and private
// text and checks what any reader of the result would see.
func TestLaraNoLabelsNoText(t *testing.T) {
	t.Parallel()
	s := laraSaid("s1",
		"The child is anxious. I'm so sad and my brother is angry.",
		"My name is Zorblax and I went to Quuxville. I feel frustrated because Plimf said so.",
		"I like being anxious",
		"I like the kid is sad",
		"my password is hunter2 and I like Swordfish",
		"I love trampolines",
	)
	s.DisplayName = "Zorblax"
	s.Messages = append(s.Messages, Message{ID: "a1", Role: "assistant", Content: "She seems upset. I like Wibblewobble."})
	s.Events = []Event{
		laraTry("the child is sad", 1, true), laraMood("anxious", 0.9), laraMood("frustrated", nil),
		laraEv("emotion", map[string]any{"emotion": "he is anxious", "confidence": 1}),
		laraReinforce("she was frustrated", true),
	}
	res := runLara(laraPolicy, s, laraT0)
	b := laraJSON(t, res)
	if m := laraLabelShape.FindString(b); m != "" {
		t.Errorf("label %q in %s", m, b)
	}
	for _, secret := range []string{"Zorblax", "Quuxville", "Plimf", "hunter2", "Swordfish", "Wibblewobble", "brother"} {
		if strings.Contains(strings.ToLower(b), strings.ToLower(secret)) {
			t.Errorf("%q stored: %s", secret, b)
		}
	}
	if !strings.Contains(b, `"value":"trampolines"`) {
		t.Errorf("preference lost: %s", b)
	}
	if len(res.Memories) != 0 {
		t.Errorf("memories %v", res.Memories)
	}
}

// TestLaraGolden pins the summary and records of a whole session. Run with
// -update after an intended change. The session is
// read as TestRulesGolden reads it and run with that test's policy (min
// confidence 0.5), so that both agree on the file.
func TestLaraGolden(t *testing.T) {
	t.Parallel()
	in := filepath.Join("testdata", "rules", "lara.input.json")
	raw, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	var s Session
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	p := prompts.Policy{MinConfidence: 0.5, MemoryTTL: map[string]prompts.Duration{
		CategoryFeeling: prompts.Duration(6 * time.Hour), CategoryEvent: prompts.Duration(7 * 24 * time.Hour), CategoryOther: prompts.Duration(24 * time.Hour),
	}}
	got, err := json.MarshalIndent(runLara(p, s, laraT0), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := strings.TrimSuffix(in, ".input.json") + ".golden.json"
	if *updateLaraGolden {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from %s:\n%s", in, golden, got)
	}
}

func FuzzLaraRules(f *testing.F) {
	f.Add("I like dinosaurs. I hate noise.", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 0.7, uint16(5))
	f.Add("I like being sad", []byte{0x40, 0x41, 0x42, 0xff, 0x80}, 0.1, uint16(0))
	f.Add("the child is anxious", []byte{7, 15, 23, 31, 39, 47, 55, 63}, 1.0, uint16(600))
	f.Add("", []byte{}, 0.0, uint16(1))
	styles := []string{"praise", "stickers", "Tokens", "he is sad"}
	concepts := []string{"counting", "Letter Sounds", "the child is anxious", ""}
	f.Fuzz(func(t *testing.T, msg string, ops []byte, conf float64, gap uint16) {
		var events []Event
		for i, b := range ops {
			var e Event
			switch b % 8 {
			case 0, 1, 2:
				e = laraEv("attempt", map[string]any{"concept": concepts[int(b>>3)%4], "difficulty": int(b>>4) - 3, "success": b&0x40 != 0})
			case 3:
				e = laraEv("mood", map[string]any{"state": moodStates[int(b>>3)%4], "confidence": conf})
			case 4:
				e = laraEv("mood", map[string]any{"state": moodStates[int(b>>3)%4]})
			case 5:
				e = laraEv("reinforcement", map[string]any{"style": styles[int(b>>3)%4], "success": b&0x40 != 0})
			case 6:
				e = laraEv("emotion", map[string]any{"emotion": moodStates[int(b>>3)%4], "confidence": conf})
			case 7:
				e = Event{Type: "attempt", Data: json.RawMessage([]string{`{"concept":5}`, `{"concept":"x","difficulty":1e308,"success":true}`, `[1]`, `{"difficulty":"hard","success":false,"concept":"y"}`}[int(b>>3)%4])}
			}
			e.At = laraT0.Add(time.Duration(i-len(ops)) * time.Second)
			events = append(events, e)
		}
		b := setupLara(t)
		s := laraSaid("s1", msg)
		s.Events = events
		check := func(res Result, session string, now time.Time, prior []Record) {
			t.Helper()
			if out := laraJSON(t, res); laraLabelShape.MatchString(out) {
				t.Errorf("label in %s", out)
			}
			for _, r := range res.Records {
				if r.Type == LaraLearning {
					m, d := laraNum(r.Data, "mastery_level"), laraNum(r.Data, "difficulty")
					if m < 0 || m > LaraMaxMastery || d < 1 {
						t.Errorf("learning %v", r.Data)
					}
				}
				if !r.Delete && r.Data["updated_at"] != now.Format(time.RFC3339) {
					t.Errorf("not stamped: %v", r.Data)
				}
			}
			// What the guard let through, it lets through again.
			if ok, dropped := LaraGuard("u-1", session, prior, res.Records, now); len(ok) != len(res.Records) {
				t.Errorf("guard refuses its own output: %v", dropped)
			}
		}
		now := laraT0
		check(b.run(s, now), "s1", now, nil)
		prior := b.history
		s.ID = "s2"
		now = laraT0.Add(time.Duration(gap) * time.Minute)
		res := b.run(s, now)
		check(res, "s2", now, prior)
		if again := runLara(laraPolicy, func() Session { s.History.Records = b.history; return s }(), now.Add(time.Hour)); len(again.Records) != 0 {
			t.Errorf("re-run wrote %s", laraJSON(t, again.Records))
		}
		n := 0
		for _, r := range b.history {
			if r.Type == LaraPreference {
				n++
			}
		}
		if n > LaraMaxPreferences {
			t.Errorf("%d preferences", n)
		}
	})
}

func TestLaraLabelWords(t *testing.T) {
	t.Parallel()
	labels := []string{
		"child is anxious", "The child seems very sad today", "Child_is-'really'...ANXIOUS", "she's worn out",
		"he isn't happy", "Mia was always a bit frustrated", "anxious child", "an upset kid", "the kid has ADHD",
		"with an anxiety disorder", "they're scared", "i'm lonely", "user felt angry",
	}
	for _, s := range labels {
		if !laraLabel(s) {
			t.Errorf("laraLabel(%q) = false", s)
		}
	}
	fine := []string{
		"anxious", "frustrated", "happy meals", "mcdonald's happy meals", "happy birthday", "is", "counting",
		"letter sounds", "2026-11-20T09:30:00Z", "the sad song", "disorder", "praise", "",
	}
	for _, s := range fine {
		if laraLabel(s) {
			t.Errorf("laraLabel(%q) = true", s)
		}
	}
	states := map[string]bool{
		"sad": true, "being sad": true, "feeling a bit anxious": true, "worn out": true, "Crying": true, "be happy": true,
		"happy meals": false, "sad songs": false, "being outside": false, "feeling": false, "": false, "being": false,
	}
	for s, want := range states {
		if got := laraState(s); got != want {
			t.Errorf("laraState(%q) = %v, want %v", s, got, want)
		}
	}
}
