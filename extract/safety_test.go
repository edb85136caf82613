package extract_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/kinds/lara"
	"github.com/mnemo-ai/mnemo/prompts"
)

// riskCase is a phrasing and what RiskOf should find: class "" for none.
type riskCase struct {
	text, class, severity, actor string
}

func none(text string) riskCase { return riskCase{text: text} }
func user(class, severity, text string) riskCase {
	return riskCase{text, class, severity, extract.ActorUser}
}
func other(class, text string) riskCase {
	return riskCase{text, class, extract.SeverityLow, extract.ActorOther}
}

const (
	hi  = extract.SeverityHigh
	med = extract.SeverityMedium
	low = extract.SeverityLow
)

var riskCases = map[string][]riskCase{
	extract.RiskSuicidal: {
		// Passive ideation, a wish to be dead, is medium (issue 23).
		user(extract.RiskSuicidal, med, "I want to die."),
		user(extract.RiskSuicidal, med, "i just wanna die"),
		user(extract.RiskSuicidal, med, "Sometimes I wish I was dead."),
		user(extract.RiskSuicidal, hi, "I want to kill myself"),
		user(extract.RiskSuicidal, hi, "I've been thinking about ending my life."),
		user(extract.RiskSuicidal, hi, "I'm going to end it all tonight"),
		user(extract.RiskSuicidal, med, "I don't want to live anymore."),
		user(extract.RiskSuicidal, med, "I dont want to be alive"),
		user(extract.RiskSuicidal, hi, "I've been having suicidal thoughts"),
		user(extract.RiskSuicidal, med, "I wish I'd never been born"),
		user(extract.RiskSuicidal, med, "Everyone would be better off without me."),
		user(extract.RiskSuicidal, med, "I hope I don't wake up tomorrow"),
		user(extract.RiskSuicidal, med, "Is it normal to want to die?"),
		user(extract.RiskSuicidal, med, "I told him \"I want to die\" and he laughed"),
		user(extract.RiskSuicidal, hi, "I’m thinking about suicide"),
		user(extract.RiskSuicidal, med, "Pizza is nice, but honestly I want to die"),
		// Negations and the past: low, never nothing.
		user(extract.RiskSuicidal, low, "I don't want to die."),
		user(extract.RiskSuicidal, low, "I'm not suicidal, just tired."),
		user(extract.RiskSuicidal, low, "I would never kill myself"),
		user(extract.RiskSuicidal, low, "I used to want to die"),
		// Someone else's words.
		other(extract.RiskSuicidal, "My brother wants to kill himself."),
		other(extract.RiskSuicidal, "My friend said she wants to die."),
		other(extract.RiskSuicidal, `She said "I want to die" last night`),
		other(extract.RiskSuicidal, "my best friend is suicidal and I don't know what to do"),
		// Idioms, titles, typos, questions to the companion, people in general.
		none("I want to die of embarrassment"),
		none("I could kill for a coffee"),
		none("I'm dying to see the movie!"),
		none("I almost died laughing"),
		none("I'd die for a good pizza"),
		none("I nearly killed myself laughing"),
		none("I want to die my hair blue"),
		none("Do you ever want to die?"),
		none("Why do people kill themselves?"),
		none("My favorite movie is Suicide Squad"),
		none(`My favorite song is "I Want To Die" by some band`),
		none("I'm killing myself to finish this project over the weekend"),
	},
	extract.RiskSelfHarm: {
		user(extract.RiskSelfHarm, hi, "I cut myself last night."),
		user(extract.RiskSelfHarm, hi, "I've been cutting again"),
		user(extract.RiskSelfHarm, hi, "I want to hurt myself"),
		user(extract.RiskSelfHarm, hi, "I burned myself on purpose"),
		user(extract.RiskSelfHarm, hi, "I've been self-harming for weeks"),
		user(extract.RiskSelfHarm, hi, "Sometimes I hurt myself when I'm angry at me"),
		user(extract.RiskSelfHarm, low, "I haven't hurt myself in months"),
		user(extract.RiskSelfHarm, low, "I used to cut myself in high school"),
		other(extract.RiskSelfHarm, "My sister cuts herself and I'm scared"),
		none("I cut myself shaving this morning"),
		none("I hurt myself playing football"),
		none("I accidentally burned myself cooking dinner"),
		none("I've been cutting carbs"),
		none("I cut my hair short"),
		none("I could hit myself for forgetting her birthday"),
	},
	extract.RiskAbuse: {
		user(extract.RiskAbuse, hi, "My husband hits me when he drinks."),
		user(extract.RiskAbuse, hi, "He hit me again."),
		user(extract.RiskAbuse, hi, "My dad beats me"),
		user(extract.RiskAbuse, hi, "I'm being abused at home"),
		user(extract.RiskAbuse, hi, "My boyfriend threatened to kill me"),
		user(extract.RiskAbuse, hi, "I'm scared of my stepdad"),
		user(extract.RiskAbuse, hi, "I was raped last week"),
		user(extract.RiskAbuse, med, "I was abused as a child"),
		none("The ball hit me in the face"),
		none("It hit me that I forgot my keys"),
		none("My husband would never hit me"),
		none("I got beaten at chess again"),
		none("I was hit by a car last year"),
		none("I'm scared of spiders"),
	},
	extract.RiskHopelessness: {
		user(extract.RiskHopelessness, med, "I feel hopeless."),
		user(extract.RiskHopelessness, med, "There's no point in anything"),
		user(extract.RiskSuicidal, med, "What's the point of living?"),
		user(extract.RiskHopelessness, med, "I have nothing to live for"),
		user(extract.RiskHopelessness, med, "I can't go on like this"),
		user(extract.RiskHopelessness, med, "I can't do this anymore."),
		user(extract.RiskHopelessness, med, "Nothing will ever get better"),
		user(extract.RiskSuicidal, med, "I'm just a burden to everyone"),
		user(extract.RiskHopelessness, med, "I've given up on life"),
		other(extract.RiskHopelessness, "My mom feels hopeless since dad left"),
		none("I'm hopeless at math"),
		none("I'm a hopeless romantic"),
		none("I don't feel hopeless anymore"),
		none("I can't go on the trip Friday"),
		none("I can't go on Tuesday, sorry"),
		// MemoryBank (MIT, zhongwanjun/MemoryBank-SiliconFriend): ordinary
		// stress is not a crisis.
		none("However, sometimes I still feel confused and helpless and don't know what to do."),
		none("I've been feeling a bit lonely these days, but no one around me is willing to listen to me."),
		none("Recently I've been feeling a bit stressed out and overwhelmed by the pressures of life."),
		none("Hello, friend! Today I feel a bit tired and stressed, and I don't know what to do."),
	},
	extract.RiskDistress: {
		user(extract.RiskDistress, med, "I hate my life."),
		user(extract.RiskDistress, med, "i hate my life lol"),
		user(extract.RiskDistress, med, "I hate myself"),
		user(extract.RiskDistress, med, "I feel so worthless"),
		user(extract.RiskDistress, med, "I can't stop crying"),
		user(extract.RiskDistress, med, "My life is falling apart"),
		user(extract.RiskDistress, med, "I’m completely falling apart"),
		other(extract.RiskDistress, "My friend said she hates her life"),
		other(extract.RiskDistress, "He hates himself since the accident"),
		none("I don't hate my life"),
		none("I used to hate my life, but things are good now"),
		none("This phone is worthless"),
		none("I hate my life insurance company"),
		none(`"I Hate My Life" is my favorite song`),
		none("My favorite song is I Hate My Life by Theory"),
		none("This traffic is killing me"),
		none("My feet are killing me"),
		none("I'm dead tired"),
		none("I'm bored to death"),
		none("I hate my new manager's jokes"),
	},
}

func TestRiskOf(t *testing.T) {
	for class, cases := range riskCases {
		for _, c := range cases {
			f, ok := extract.RiskOf(c.text)
			if c.class == "" {
				if ok {
					t.Errorf("%s: RiskOf(%q) = %+v, want no risk", class, c.text, f)
				}
				continue
			}
			want := extract.RiskFinding{Class: c.class, Severity: c.severity, Actor: c.actor}
			if !ok || f != want {
				t.Errorf("%s: RiskOf(%q) = %+v, %v, want %+v", class, c.text, f, ok, want)
			}
		}
	}
}

// builtin is a built-in preset.
func builtin(t *testing.T, name string) *prompts.App {
	t.Helper()
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return apps[name]
}

func userSession(app string, texts ...string) extract.Session {
	s := extract.Session{ID: "s1", UserID: "u1", App: app,
		StartedAt: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), EndedAt: time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)}
	for i, text := range texts {
		s.Messages = append(s.Messages, extract.Message{ID: fmt.Sprintf("m%d", i+1), Role: "user", Content: text,
			At: s.StartedAt.Add(time.Duration(i) * time.Minute)})
	}
	return s
}

func droppedSet(res extract.Result) map[string]bool {
	out := map[string]bool{}
	for _, d := range res.Dropped {
		out[d.MessageID+" "+d.Reason] = true
	}
	return out
}

// The three sightings: nothing of "I hate my life" is remembered or
// packed, a dislike of a manager is no preference, chemo is not trivia.
func TestScreenMonaRules(t *testing.T) {
	app := builtin(t, "mona")
	s := userSession("mona", "I hate my life.", "I don't like my new manager at work.", "I went to the hospital for my chemo.",
		"My name is John. I like pizza.")
	res := extract.Rules(app, s, s.EndedAt)
	keys := map[string]string{}
	for _, m := range res.Memories {
		keys[m.Key] = m.Value
	}
	if len(keys) != 2 || keys["name"] != "John" || keys["likes:pizza"] != "pizza" {
		t.Errorf("memories %v, want only name and likes:pizza", keys)
	}
	got := droppedSet(res)
	for _, want := range []string{"m1 risk:distress", "m2 about_person", "m3 special:health"} {
		if !got[want] {
			t.Errorf("dropped %v lacks %q", res.Dropped, want)
		}
	}
	if len(res.Risks) != 1 || res.Risks[0] != (extract.Risk{Class: extract.RiskDistress, Severity: extract.SeverityMedium, MessageID: "m1", Actor: extract.ActorUser, Source: extract.RiskSourceRules}) {
		t.Errorf("risks %+v", res.Risks)
	}

	// The pack built from what would be stored has no line of it.
	var mems []extract.PackMemory
	for i, m := range res.Memories {
		mems = append(mems, extract.PackMemory{ID: fmt.Sprint(i), Key: m.Key, Value: m.Value, Category: m.Category,
			Importance: m.Importance, UpdatedAt: s.EndedAt})
	}
	pack := extract.Pack("mona", extract.PackInput{Memories: mems, Now: s.EndedAt.Add(time.Hour)}, 400).Text
	for _, banned := range []string{"life", "manager", "chemo", "hospital"} {
		if strings.Contains(strings.ToLower(pack), banned) {
			t.Errorf("pack mentions %q:\n%s", banned, pack)
		}
	}
	if !strings.Contains(pack, "pizza") {
		t.Errorf("pack lost pizza:\n%s", pack)
	}
}

// Screen is idempotent, and the policy decides special categories.
func TestScreenSpecialPolicies(t *testing.T) {
	mem := func() extract.Result {
		return extract.Result{App: "mona", Memories: []extract.Memory{
			{Key: "event:went_to_church", Value: "went to church", Category: extract.CategoryEvent, SourceMessageID: "m1"},
			{Key: "likes:pizza", Value: "pizza", Category: extract.CategoryPreference, SourceMessageID: "m2"},
		}, ProfileUpdates: map[string]any{}, SessionSummary: map[string]any{
			"key_insights": []any{"Went to church with her sister", "Loves pizza"},
			"summary":      "Talked about the weekend.\nShe says she hates her life lately.",
		}}
	}
	s := userSession("mona", "I went to church on Sunday", "I like pizza")
	for _, tt := range []struct {
		policy   string
		memories int
		reason   string
	}{
		{prompts.SpecialDrop, 1, "m1 special:religion"},
		{prompts.SpecialKeepSealed, 1, "m1 sealed:religion"},
		{prompts.SpecialKeep, 2, ""},
	} {
		res := mem()
		p := prompts.Policy{Rules: "mona", SpecialCategories: tt.policy}
		extract.Screen(&res, p, s)
		extract.Screen(&res, p, s)
		if len(res.Memories) != tt.memories {
			t.Errorf("%s: memories %+v", tt.policy, res.Memories)
		}
		if tt.reason != "" && !droppedSet(res)[tt.reason] {
			t.Errorf("%s: dropped %+v lacks %q", tt.policy, res.Dropped, tt.reason)
		}
		// A model's summary line about someone's wish to die never stays.
		if sum := res.SessionSummary["summary"].(string); strings.Contains(sum, "hates") || !strings.Contains(sum, "weekend") {
			t.Errorf("%s: summary %q", tt.policy, sum)
		}
		insights := res.SessionSummary["key_insights"].([]any)
		if church := slices.Contains(insights, any("Went to church with her sister")); church != (tt.policy == prompts.SpecialKeep) {
			t.Errorf("%s: key_insights %v", tt.policy, insights)
		}
		if len(res.Dropped) != len(slices.Compact(slices.Clone(res.Dropped))) {
			t.Errorf("%s: repeated drops %+v", tt.policy, res.Dropped)
		}
	}
}

// Every kind passes the gate: LaRa keeps no preference for being hurt, a
// coach session's risk is seen, Elder Tree and Clara keep health data.
func TestScreenEveryKind(t *testing.T) {
	lara := extract.Rules(builtin(t, "lara"), userSession("lara", "I like being hurt.", "I like dinosaurs."), time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC))
	for _, r := range lara.Records {
		if strings.Contains(r.Key, "hurt") {
			t.Errorf("lara kept %s", r.Key)
		}
	}
	coach := extract.Rules(builtin(t, "coach"), userSession("coach", "I feel hopeless about work. I want to find a new job."), time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC))
	if len(coach.Risks) != 1 || coach.Risks[0].Class != extract.RiskHopelessness {
		t.Errorf("coach risks %+v", coach.Risks)
	}
	if b, _ := json.Marshal(coach.SessionSummary); strings.Contains(string(b), "hopeless") {
		t.Errorf("coach summary keeps it: %s", b)
	}
	for _, kind := range []string{"eldertree", "clara"} {
		if got := extract.SpecialPolicy(builtin(t, kind).Policy, kind); got != prompts.SpecialKeep {
			t.Errorf("%s: %s", kind, got)
		}
	}
	if got := extract.SpecialPolicy(prompts.Policy{}, "mona"); got != prompts.SpecialDrop {
		t.Errorf("mona default %s", got)
	}
}

func TestLaraGuardRefusesHarm(t *testing.T) {
	rec := extract.Record{Type: lara.LaraPreference, Key: "likes:being_hurt", Data: map[string]any{"value": "being hurt", "user_id": "u1"}}
	ok, dropped := lara.LaraGuard("u1", "s1", nil, []extract.Record{rec}, time.Now())
	if len(ok) != 0 || !slices.Contains(dropped, extract.Dropped{Reason: extract.GuardRisk}) {
		t.Errorf("ok %v dropped %v", ok, dropped)
	}
}

func TestAboutPerson(t *testing.T) {
	for v, want := range map[string]bool{
		"my new manager at work": true, "my sister": true, "him": true, "the neighbours": false, "my neighbour": true,
		"my sister's cooking": false, "talking to my sister": false, "pizza": false, "my new job": false,
	} {
		if got := extract.AboutPerson(v); got != want {
			t.Errorf("AboutPerson(%q) = %v", v, got)
		}
	}
}
