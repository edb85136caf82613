package coach

// The tests read the engine's types unqualified, as they did in package
// extract.
import (
	"encoding/json"
	"fmt"
	. "github.com/mnemo-ai/mnemo/extract"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/internal/golden"
	"github.com/mnemo-ai/mnemo/kinds/internal/presettest"
	"github.com/mnemo-ai/mnemo/prompts"
)

var coachT0 = time.Date(2026, 11, 20, 18, 0, 0, 0, time.FixedZone("PST", -8*3600))

// coachSession alternates user and assistant turns: the user says each of
// said, the assistant answers "Tell me more."
func coachSession(said ...string) Session {
	s := Session{ID: "s-coach", UserID: "u-1", App: "coach", StartedAt: coachT0, EndedAt: coachT0.Add(45 * time.Minute)}
	for i, text := range said {
		at := coachT0.Add(time.Duration(i) * time.Minute)
		s.Messages = append(s.Messages,
			Message{ID: fmt.Sprintf("u%d", i), Role: "user", Content: text, At: at},
			Message{ID: fmt.Sprintf("a%d", i), Role: "assistant", Content: "Tell me more.", At: at.Add(30 * time.Second)})
	}
	return s
}

func coachRun(s Session) Result { return presettest.Run(coachRules, "coach", s) }

func coachStrs(v any) []string {
	l, _ := v.([]string)
	return l
}

// linesOK checks the 8–12 line shape of a coach summary the way the coach
// schema does.
var coachLinesRe = regexp.MustCompile(`^[^\n]+(\n[^\n]+){7,11}$`)

func TestCoachSummaryLines(t *testing.T) {
	t.Parallel()
	long := make([]string, 0, 400)
	for i := range 200 {
		long = append(long,
			fmt.Sprintf("I will send update number %d to the team on Friday, and then I'll book the room %d.", i, i),
			fmt.Sprintf("I'm not sure whether option %d is right. What should I do about plan %d?", i, i))
	}
	tests := []struct {
		name string
		s    Session
	}{
		{"no messages", Session{ID: "s-0", App: "coach"}},
		{"only the assistant", Session{ID: "s-1", App: "coach", Messages: []Message{{ID: "a", Role: "assistant", Content: "I will help you. My goal is to listen."}}}},
		{"small talk", coachSession("Hi.", "Thanks, bye.")},
		{"everything at the caps", coachSession(
			"I realized I avoid hard conversations.",
			"I will call Sam. I will draft the plan. I will book the gym. I will read the report. I will update my CV. I will email Jo.",
			"I'm not sure whether to stay. I'm not sure how to ask. I don't know what to say. I wonder if it matters. I still need to figure out my budget. I'm unsure when to start.",
			"My goal is to lead a team. I want to run a marathon. I'd like to get better at public speaking. My main goal is to sleep well.",
			"Please be more direct. I prefer short sessions. I like it when you challenge me. I'd prefer fewer questions.")},
		{"five steps and one thread", coachSession(
			"I will call Sam. I will draft the plan. I will book the gym. I will read the report. I will update my CV.",
			"I'm not sure whether to stay.")},
		{"four steps and three threads", coachSession(
			"I will call Sam. I will draft the plan. I will book the gym. I will read the report.",
			"I'm not sure whether to stay. I'm not sure how to ask. I don't know what to say.")},
		{"a very long session", coachSession(long...)},
		{"very long sentences", coachSession(strings.Repeat("I will practise the opening of my talk again and again ", 30) + ".")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sum := coachRun(tt.s).SessionSummary
			text, _ := sum["summary"].(string)
			lines := strings.Split(text, "\n")
			if len(lines) < CoachMinLines || len(lines) > CoachMaxLines || !coachLinesRe.MatchString(text) {
				t.Fatalf("%d lines:\n%s", len(lines), text)
			}
			for _, l := range lines {
				if strings.TrimSpace(l) == "" {
					t.Errorf("blank line in\n%s", text)
				}
			}
			if n := len(coachStrs(sum["action_steps"])); n > CoachMaxActionSteps {
				t.Errorf("%d action steps", n)
			}
			if n := len(coachStrs(sum["open_threads"])); n > CoachMaxOpenThreads {
				t.Errorf("%d open threads", n)
			}
			for _, v := range slices.Concat(coachStrs(sum["action_steps"]), coachStrs(sum["open_threads"])) {
				if utf8.RuneCountInString(v) > CoachMaxItemRunes {
					t.Errorf("%q is longer than %d", v, CoachMaxItemRunes)
				}
			}
		})
	}
}

func TestCoachCaps(t *testing.T) {
	t.Parallel()
	var said []string
	for i := range 8 {
		said = append(said, fmt.Sprintf("I will finish chapter %d.", i+1), fmt.Sprintf("I'm not sure how to open chapter %d.", i+1))
	}
	said = append(said,
		"My goal is to publish a novel. I want to write every morning. I want to join a writing group. I'd like to get better at dialogue.",
		"I prefer short sessions. Please be more direct. I like it when you push me. I'd prefer written homework.",
		"I will "+strings.Repeat("really ", 3)+strings.Repeat("rewrite the whole middle part of the manuscript ", 8)+"before the end of the year.")
	res := coachRun(coachSession(said...))
	sum := res.SessionSummary
	steps := coachStrs(sum["action_steps"])
	if len(steps) != CoachMaxActionSteps || steps[0] != "Finish chapter 5" {
		t.Errorf("action steps %q, want the last five", steps)
	}
	last := steps[len(steps)-1]
	if !strings.HasPrefix(last, "Rewrite the whole middle part") || !strings.HasSuffix(last, "…") || utf8.RuneCountInString(last) > CoachMaxItemRunes {
		t.Errorf("long step %q is not clipped at a word to %d runes", last, CoachMaxItemRunes)
	}
	threads := coachStrs(sum["open_threads"])
	if want := []string{"How to open chapter 4", "How to open chapter 5", "How to open chapter 6", "How to open chapter 7", "How to open chapter 8"}; !reflect.DeepEqual(threads, want) {
		t.Errorf("open threads %q, want %q", threads, want)
	}
	if want := []string{"Get better at dialogue", "Join a writing group", "Write every morning"}; !reflect.DeepEqual(res.ProfileUpdates["goals"], want) {
		t.Errorf("goals %q, want the three newest %q", res.ProfileUpdates["goals"], want)
	}
	if want := []string{"Written homework", "Push me", "Be more direct"}; !reflect.DeepEqual(res.ProfileUpdates["coach_preferences"], want) {
		t.Errorf("coach preferences %q, want %q", res.ProfileUpdates["coach_preferences"], want)
	}
	if want := "5 action steps; 5 open threads; 4 goals stated; 4 coaching preferences"; sum["coach_notes"] != want {
		t.Errorf("coach notes %q, want %q", sum["coach_notes"], want)
	}
}

func TestCoachMining(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said                         string
		moment                       string
		steps, threads, goals, prefs []string
	}{
		{said: "I realized I avoid conflict because I want to be liked.", moment: "I realized I avoid conflict because I want to be liked"},
		{said: "Then it hit me that I never ask for help!", moment: "Then it hit me that I never ask for help"},
		{said: "Now I understand why the mornings are hard.", moment: "Now I understand why the mornings are hard"},
		{said: "Did I notice anything?"},
		{said: "I didn't realize it was late."},
		{said: "OK, I will call my manager on Monday, and then I'll write down three wins.",
			steps: []string{"Call my manager on Monday", "Write down three wins"}},
		{said: "I'm going to the gym tomorrow.", steps: []string{"Go to the gym tomorrow"}},
		{said: "My next step is to draft the email.", steps: []string{"Draft the email"}},
		{said: "I commit to running twice a week.", steps: []string{"Running twice a week"}},
		{said: "I'm going to be honest with you."},
		{said: "I will probably call her."},
		{said: "Maybe I'll quit."},
		{said: "My boss said I will get the promotion."},
		{said: "I'm not sure whether to take the job.", threads: []string{"Whether to take the job"}},
		{said: "I still need to figure out my budget.", threads: []string{"Figure out my budget"}},
		{said: "I don't know how to tell my team.", threads: []string{"How to tell my team"}},
		{said: "My goal is to run a marathon next year.", goals: []string{"Run a marathon next year"}},
		{said: "I want to talk about my week."},
		{said: "I'd like to get better at saying no.", goals: []string{"Get better at saying no"}},
		{said: "I want to maybe change careers."},
		{said: "Please be more direct with me.", prefs: []string{"Be more direct with me"}},
		{said: "Could you be a bit more gentle?", prefs: []string{"Be a bit more gentle"}},
		{said: "I prefer you to challenge me.", prefs: []string{"Challenge me"}},
		{said: "I like it when you ask hard questions.", prefs: []string{"Ask hard questions"}},
	}
	for _, tt := range tests {
		t.Run(tt.said, func(t *testing.T) {
			t.Parallel()
			// An assistant turn follows, so no question is left unanswered.
			res := coachRun(coachSession(tt.said))
			sum := res.SessionSummary
			if sum["recognition_moment"] != tt.moment {
				t.Errorf("recognition moment %q, want %q", sum["recognition_moment"], tt.moment)
			}
			for _, c := range []struct {
				name      string
				got, want []string
			}{
				{"action steps", coachStrs(sum["action_steps"]), tt.steps},
				{"open threads", coachStrs(sum["open_threads"]), tt.threads},
				{"goals", coachStrs(res.ProfileUpdates["goals"]), tt.goals},
				{"coach preferences", coachStrs(res.ProfileUpdates["coach_preferences"]), tt.prefs},
			} {
				if len(c.got) != 0 || len(c.want) != 0 {
					if !reflect.DeepEqual(c.got, c.want) {
						t.Errorf("%s %q, want %q", c.name, c.got, c.want)
					}
				}
			}
		})
	}
}

func TestCoachUnansweredQuestions(t *testing.T) {
	t.Parallel()
	s := coachSession("Should I ask for a raise?", "What do you think?")
	s.Messages = append(s.Messages,
		Message{ID: "u-last", Role: "user", Content: "How do I stop overthinking my emails? What about you?"},
		Message{ID: "u-after", Role: "user", Content: "Ok? Bye"})
	got := coachStrs(coachRun(s).SessionSummary["open_threads"])
	// The first two were answered; of the last ones, only the user's own
	// question of three words or more is an open thread.
	if want := []string{"How do I stop overthinking my emails?"}; !reflect.DeepEqual(got, want) {
		t.Errorf("open threads %q, want %q", got, want)
	}
}

func TestCoachProfileFromSummaries(t *testing.T) {
	t.Parallel()
	s := coachSession(
		"I want to get promoted this year.",
		"Public speaking still scares me. I will practise my public speaking at the team meeting.",
		"I prefer short sessions.")
	s.History = History{
		Summaries: []PastSummary{
			{SessionID: "s-3", Data: map[string]any{
				"topics":       []any{"budget"},
				"action_steps": []any{"Make a monthly budget"},
				"open_threads": []any{},
			}},
			{SessionID: "s-2", Data: map[string]any{ // written by the LLM: no topics
				"recognition_moment": "I realized public speaking is about preparation.",
				"action_steps":       []any{"Join a speaking club"},
				"open_threads":       []any{"Whether to ask for a budget review"},
			}},
			{SessionID: "s-coach", Data: map[string]any{ // this session's own earlier summary
				"topics": []any{"gardening"}, "action_steps": []any{"Plant tomatoes"},
			}},
			{SessionID: "m-1", Data: map[string]any{ // another app's summary of this user
				"topics": []any{"likes:sleep", "favorite_sleep_aid"}, "memories": 2.0, "message_count": 4.0,
			}},
			{SessionID: "s-1", Data: map[string]any{"topics": []any{"gardening", "sleep"}, "action_steps": []any{}}},
		},
		Profile: map[string]any{
			"goals":             []any{"Sleep eight hours", "get promoted this year", "Pay off the card 4111 1111 1111 1111"},
			"coach_preferences": []any{"Gentle tone"},
		},
	}
	res := coachRun(s)
	// "budget" recurs in two earlier sessions, "public speaking" here and in
	// s-2; "gardening" only seems to, because s-coach is this session, and
	// "sleep" only seems to, because m-1 is not a coach summary.
	if want := []string{"public speaking", "budget"}; !reflect.DeepEqual(res.ProfileUpdates["recurring_themes"], want) {
		t.Errorf("recurring themes %q, want %q", res.ProfileUpdates["recurring_themes"], want)
	}
	if want := []string{"Get promoted this year", "Sleep eight hours"}; !reflect.DeepEqual(res.ProfileUpdates["goals"], want) {
		t.Errorf("goals %q, want %q (new first, deduplicated, no card number)", res.ProfileUpdates["goals"], want)
	}
	if want := []string{"Short sessions", "Gentle tone"}; !reflect.DeepEqual(res.ProfileUpdates["coach_preferences"], want) {
		t.Errorf("coach preferences %q, want %q", res.ProfileUpdates["coach_preferences"], want)
	}

	// Nothing recurs, nothing stated, nothing before: the keys are left out.
	bare := coachRun(coachSession("Hello there.", "I walked my dog."))
	if len(bare.ProfileUpdates) != 0 {
		t.Errorf("profile updates %v, want none", bare.ProfileUpdates)
	}
}

func TestCoachDropsSensitiveSentences(t *testing.T) {
	t.Parallel()
	res := coachRun(coachSession(
		"I will change my password to hunter2 tonight. I will call the bank.",
		"My goal is to pay off card 4111 1111 1111 1111 by June.",
		// The PIN's sentence goes; the card number split over two lines
		// is only found in the rest, so the whole message goes.
		"My PIN is 4321. I will cancel card 4111 1111\n1111 1111 today.",
		"I will plan the week on Sunday."))
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"hunter2", "4111", "4321", "pay off", "cancel"} {
		if strings.Contains(string(b), bad) {
			t.Errorf("the result holds %q from a sensitive sentence:\n%s", bad, b)
		}
	}
	if want := []string{"Call the bank", "Plan the week on Sunday"}; !reflect.DeepEqual(res.SessionSummary["action_steps"], want) {
		t.Errorf("action steps %q, want %q", res.SessionSummary["action_steps"], want)
	}
	want := []Dropped{{MessageID: "u0", Reason: "sensitive:" + SensitivePassword}, {MessageID: "u1", Reason: "sensitive:" + SensitiveCardNumber}, {MessageID: "u2", Reason: "sensitive:" + SensitivePassword}}
	if !reflect.DeepEqual(res.Dropped, want) {
		t.Errorf("dropped %v, want %v", res.Dropped, want)
	}
	if notes := res.SessionSummary["coach_notes"].(string); !strings.HasSuffix(notes, "5 sentences left out for sensitive data") {
		t.Errorf("coach notes %q do not count the 5 sentences left out", notes)
	}
}

func TestCoachNeverMinesTheAssistant(t *testing.T) {
	t.Parallel()
	s := Session{ID: "s-a", App: "coach", Messages: []Message{
		{ID: "u1", Role: "user", Content: "Hi."},
		{ID: "a1", Role: "assistant", Content: "I realized zebra crossings matter. I will zebra-proof your week. My goal is to zebra. I prefer zebras. I'm not sure whether zebras fly. Zebra topics: zebra zebra zebra."},
		{ID: "s1", Role: "system", Content: "I will zebra. My goal is to zebra-stripe everything."},
	}}
	s.History.Summaries = []PastSummary{{SessionID: "old", Data: map[string]any{"topics": []any{"zebra"}}}}
	b, err := json.Marshal(coachRun(s))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.ToLower(string(b)), "zebra") {
		t.Errorf("the assistant's or system's words were mined:\n%s", b)
	}
}

// The rules' summary and profile fit the coach preset's answer schema, so
// that a summary reads the same whichever extractor wrote it.
func TestCoachResultFitsSchema(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	app := apps["coach"]
	if app == nil {
		t.Fatalf("no built-in coach preset; have %v", prompts.Names(apps))
	}
	for _, s := range []Session{
		{ID: "s-0", App: "coach"},
		coachSession("I realized I rush. I will slow down. I'm not sure how to start. My goal is to be calmer. Please be more gentle."),
	} {
		res := coachRun(s)
		sum := map[string]any{}
		for _, k := range []string{"summary", "recognition_moment", "action_steps", "open_threads", "coach_notes"} {
			sum[k] = res.SessionSummary[k]
		}
		v := map[string]any{"session_summary": sum, "profile_updates": res.ProfileUpdates}
		b, _ := json.Marshal(v)
		var decoded any
		if err := json.Unmarshal(b, &decoded); err != nil {
			t.Fatal(err)
		}
		if err := app.Validate(decoded); err != nil {
			t.Errorf("%s: %v\n%s", s.ID, err, b)
		}
	}
}

// The schema holds an LLM's summary to the same 8–12 lines.
func TestCoachSchemaLineCount(t *testing.T) {
	t.Parallel()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	lines := func(n int) string { return strings.TrimSuffix(strings.Repeat("A line.\n", n), "\n") }
	for _, tt := range []struct {
		summary string
		ok      bool
	}{
		{lines(7), false},
		{lines(8), true},
		{lines(12), true},
		{lines(13), false},
		{lines(4) + "\n\n" + lines(5), false},
		{lines(9) + "\n", false},
	} {
		v := map[string]any{"profile_updates": map[string]any{}, "session_summary": map[string]any{
			"summary": tt.summary, "recognition_moment": "", "action_steps": []any{}, "open_threads": []any{}, "coach_notes": "",
		}}
		if err := apps["coach"].Validate(v); (err == nil) != tt.ok {
			t.Errorf("%q: valid %v, want %v (%v)", tt.summary, err == nil, tt.ok, err)
		}
	}
}

func TestCoachRulesGolden(t *testing.T) {
	t.Parallel()
	presettest.Golden(t, "coach", coachRules, *golden.Update)
}

// FuzzCoachRules checks the shape of the coach summary on any text: 8–12
// lines, capped lists, capped items, and nothing from the assistant.
func FuzzCoachRules(f *testing.F) {
	f.Add("I realized I rush. I will slow down, and then I'll breathe. I'm not sure whether to stay?", "I will zebra.")
	f.Add("My goal is to\nrun. Please be more direct!!! I prefer it when you you you", "")
	f.Add(strings.Repeat("I will, ", 200), "My goal is zebra")
	f.Add("My password is hunter2. I will call.", "I realized zebra")
	f.Fuzz(func(t *testing.T, user, assistant string) {
		s := Session{ID: "s-f", App: "coach", Messages: []Message{
			{ID: "u1", Role: "user", Content: user},
			{ID: "a1", Role: "assistant", Content: assistant + " zebra"},
			{ID: "u2", Role: "user", Content: user + "?"},
		}}
		res := coachRun(s)
		sum := res.SessionSummary
		text, _ := sum["summary"].(string)
		if n := strings.Count(text, "\n") + 1; n < CoachMinLines || n > CoachMaxLines || !coachLinesRe.MatchString(text) {
			t.Fatalf("%d lines:\n%s", n, text)
		}
		steps, threads := coachStrs(sum["action_steps"]), coachStrs(sum["open_threads"])
		if len(steps) > CoachMaxActionSteps || len(threads) > CoachMaxOpenThreads {
			t.Fatalf("%d steps, %d threads", len(steps), len(threads))
		}
		for _, v := range slices.Concat(steps, threads, coachStrs(res.ProfileUpdates["goals"]), coachStrs(res.ProfileUpdates["coach_preferences"])) {
			if utf8.RuneCountInString(v) > CoachMaxItemRunes || strings.TrimSpace(v) == "" {
				t.Fatalf("item %q", v)
			}
		}
		if !strings.Contains(strings.ToLower(user), "zebra") {
			if b, _ := json.Marshal(res); strings.Contains(strings.ToLower(string(b)), "zebra") {
				t.Fatalf("the assistant's words were mined: %s", b)
			}
		}
	})
}

// TestCoachTopicsAreNounPhrases: topics are what the user talked about, not
// fragments of verbs, comparatives and numbers.
func TestCoachTopicsAreNounPhrases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said []string
		want []string
		bad  []string
	}{
		{[]string{
			"I react worse when my manager criticizes my portfolio case studies.",
			"I will finish two portfolio case studies this week.",
			"My portfolio case studies feel weak.",
		}, []string{"portfolio case study"}, []string{"react worse", "finish two", "portfolio case", "react", "worse", "finish"}},
		{[]string{"Still worried about money though.", "Money is tight this month."}, []string{"money"}, nil},
		{[]string{"I want to work on public speaking.", "Public speaking scares me, especially at the team meeting."}, []string{"public speaking"}, []string{"scare", "public speaking scare"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.said, " "), func(t *testing.T) {
			t.Parallel()
			got := coachStrs(coachRun(coachSession(tt.said...)).SessionSummary["topics"])
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("topics %q lack %q", got, w)
				}
			}
			for _, b := range tt.bad {
				if slices.Contains(got, b) {
					t.Errorf("topics %q hold the fragment %q", got, b)
				}
			}
		})
	}
}

// TestCoachWorriesAreOpenThreads: a stated worry, and what the user has not
// figured out, are left open for the next session; a denied worry is not.
func TestCoachWorriesAreOpenThreads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		said string
		want []string
	}{
		{"Still worried about money though, and I haven't figured out how to network.", []string{"Worried about money", "How to network"}},
		{"I'm a bit anxious about the interview.", []string{"Anxious about the interview"}},
		{"My biggest worry is the move to Denver.", []string{"The move to Denver"}},
		{"I worry about my health.", []string{"Worry about my health"}},
		{"I can't figure out what to say to Sam.", []string{"What to say to Sam"}},
		{"I'm not worried about money anymore.", nil},
		{"My sister is worried about money.", nil},
		{"I figured out how to network.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.said, func(t *testing.T) {
			t.Parallel()
			got := coachStrs(coachRun(coachSession(tt.said)).SessionSummary["open_threads"])
			if len(got) != 0 || len(tt.want) != 0 {
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("open threads %q, want %q", got, tt.want)
				}
			}
		})
	}
}

// TestCoachRecurringThemeAcrossSessions: money worried about in one session
// and planned for in the next is a recurring theme; a word said in only one
// session is not.
func TestCoachRecurringThemeAcrossSessions(t *testing.T) {
	t.Parallel()
	first := coachRun(coachSession("Still worried about money though, and I haven't figured out how to network."))
	s := coachSession("I will set up a budget for my money this weekend.", "My sister visited.")
	s.History.Summaries = []PastSummary{{SessionID: "s-earlier", At: coachT0.Add(-7 * 24 * time.Hour), Data: first.SessionSummary}}
	themes := coachStrs(coachRun(s).ProfileUpdates["recurring_themes"])
	if !slices.Contains(themes, "money") {
		t.Errorf("recurring themes %q; want money", themes)
	}
	for _, th := range themes {
		if th == "sister" || th == "budget" || th == "network" {
			t.Errorf("recurring themes %q hold %q, said in one session only", themes, th)
		}
	}
}
