package extract_test

import (
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
)

// saySession mines a session of alternating turns: "A: …" is the
// assistant's, anything else the user's.
func saySession(turns ...string) extract.Result {
	var msgs []extract.Message
	for i, t := range turns {
		role := "user"
		if len(t) > 3 && t[:3] == "A: " {
			role, t = "assistant", t[3:]
		}
		msgs = append(msgs, extract.Message{ID: "m" + string(rune('a'+i)), Role: role, Content: t, At: rulesNow})
	}
	return extract.Rules(rulesApp(), extract.Session{ID: "s-1", App: "mona", Messages: msgs}, rulesNow)
}

type kvc struct{ Key, Value, Change string }

func kvcs(ms []extract.Memory) []kvc {
	out := []kvc{}
	for _, m := range ms {
		c := ""
		if m.Change != nil {
			c = m.Change.Word
			if !m.Change.Ends {
				c = "moved:" + m.EventDate
			}
		}
		out = append(out, kvc{m.Key, m.Value, c})
	}
	return out
}

// TestRulesFollowTheConversation: issue 33's sentences, one by one, as the
// rules mine them before the merge policy: answers read against the
// question, lists, possessions, a nickname, a dated occasion, a second
// job, and changes (endings, moves, a new date) as change candidates.
func TestRulesFollowTheConversation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		turns []string
		want  []kvc
	}{
		{[]string{"A: Where are you living now?", "austin. been here like 3 yrs."}, []kvc{{"lives_in", "Austin", ""}}},
		{[]string{"A: So where are you from originally?", "ohio"}, []kvc{{"hometown", "Ohio", ""}}},
		{[]string{"A: what are you into these days?", "bouldering and thrifting"}, []kvc{{"likes:bouldering", "bouldering", ""}, {"likes:thrifting", "thrifting", ""}}},
		{[]string{"A: How was your day?", "austin."}, []kvc{}}, // no question of a place
		{[]string{"A: Where are you at with the move?", "almost done"}, []kvc{}},
		{[]string{"A: Where are you living these days?", "at my parents' place"}, []kvc{}},
		{[]string{"A: Where do you live?", "San Diego!"}, []kvc{{"lives_in", "San Diego", ""}}},
		{[]string{"A: Do you have any pets?", "yeah, a dog named Pickles"}, []kvc{{"pet:dog", "Pickles", ""}}},
		{[]string{"A: Do you have any pets?", "no, my landlord hates them"}, []kvc{}},
		{[]string{"stuff I'm into: bouldering, true crime podcasts, thrifting, and bad reality tv"},
			[]kvc{{"likes:bouldering", "bouldering", ""}, {"likes:true_crime_podcasts", "true crime podcasts", ""}, {"likes:thrifting", "thrifting", ""}, {"likes:bad_reality_tv", "bad reality tv", ""}}},
		{[]string{"I do have a dog, Pickles, but he lives at my mom's place"}, []kvc{{"pet:dog", "Pickles", ""}}},
		{[]string{"im Jordan btw, most ppl call me Jo"}, []kvc{{"name", "Jordan", ""}, {"nickname", "Jo", ""}}},
		{[]string{"my sister Kayla is getting married on December 19th"}, []kvc{{"family:sister", "Kayla", ""}, {"event:sister_kaylas_wedding", "sister Kayla's wedding", ""}}},
		{[]string{"I drive a 2012 Civic"}, []kvc{{"owns:civic", "drives a 2012 Civic", ""}}},
		{[]string{"I own a house in the suburbs"}, []kvc{{"owns:house", "owns a house", ""}}},
		{[]string{"I also work weekends at a bookstore"}, []kvc{{"job:bookstore", "bookstore (weekends)", ""}}},
		{[]string{"Horror movies are my favorite!"}, []kvc{{"likes:horror_movies", "Horror movies", ""}}},
		{[]string{"That is my favorite."}, []kvc{}},
		{[]string{"I am a graduate student studying psychology."}, []kvc{{"occupation", "graduate student", ""}}},
		// Changes.
		{[]string{"actually I moved last month, I'm in Denver now"}, []kvc{{"lives_in", "Denver", ""}}},
		{[]string{"I quit the roaster too, I'm a dental assistant now"}, []kvc{{"occupation", "dental assistant", ""}, {"works_at", "the roaster", "quit"}}},
		{[]string{"I quit smoking last year"}, []kvc{{"event:quit_smoking", "quit smoking", ""}}},
		{[]string{"Marcus and I broke up"}, []kvc{{"family:boyfriend", "Marcus", "broke up"}}},
		{[]string{"my boyfriend and I broke up"}, []kvc{{"family:boyfriend", "broke up", "broke up"}}},
		{[]string{"my dog Pickles died last week"}, []kvc{{"pet:dog", "Pickles", "died"}}},
		{[]string{"we had to rehome Pickles"}, []kvc{{"pet:", "Pickles", "rehomed"}}},
		{[]string{"the wedding got moved to January 9th"}, []kvc{{"event:wedding", "wedding", "moved:2027-01-09"}}},
		{[]string{"the party got cancelled"}, []kvc{{"event:", "party", "cancelled"}}},
		{[]string{"I don't live in Seattle anymore"}, []kvc{{"lives_in", "Seattle", "no longer"}}},
		{[]string{"I'm not a nurse anymore"}, []kvc{{"occupation", "nurse", "no longer"}}},
		{[]string{"I used to live in Boston"}, []kvc{{"lives_in", "Boston", "used to"}}},
		{[]string{"I was a nurse until last year"}, []kvc{{"occupation", "nurse", "until"}}},
		{[]string{"I'm a nurse. well, I was, until last year"}, []kvc{{"occupation", "nurse", "until"}}},
		// A plain statement of the present wins over an ending of the same
		// key that does not name it; one that names it, said later, ends it.
		{[]string{"I used to be a painter, but now I'm a housekeeper"}, []kvc{{"event:used_to_be_painter", "used to be a painter", ""}, {"occupation", "housekeeper", ""}}},
		{[]string{"my boyfriend Marcus is a chef", "A: Oh nice!", "ugh, Marcus and I broke up"}, []kvc{{"family:boyfriend", "Marcus", "broke up"}}},
		{[]string{"I just broke up with my boyfriend"}, []kvc{{"event:broke_up_with_boyfriend", "broke up with my boyfriend", ""}, {"family:boyfriend", "broke up", "broke up"}}},
	}
	for _, tt := range tests {
		t.Run(tt.turns[len(tt.turns)-1], func(t *testing.T) {
			t.Parallel()
			if got := kvcs(saySession(tt.turns...).Memories); !slices.Equal(got, tt.want) {
				t.Errorf("memories %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRulesHedgesAndSarcasm: what is said loosely or sarcastically is no
// fact; the drop says why.
func TestRulesHedgesAndSarcasm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg, reason string
	}{
		{"I just LOVE mondays", "sarcasm"},
		{"I love getting stuck in traffic, best part of my day", "sarcasm"},
		{"I just love doing my taxes", "sarcasm"},
		{"I'm vegan-ish", "hedged"},
		{"idk I like jazz", "hedged"},
		{"I like hiking I guess", "uncertain"},
		{"I'm a nurse. well, I was, until last year", "past"},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			t.Parallel()
			got := rulesSay(tt.msg)
			for _, m := range got.Memories {
				if m.Change == nil {
					t.Errorf("memory %s = %q, want none", m.Key, m.Value)
				}
			}
			if rs := reasons(got.Dropped); !slices.Contains(rs, tt.reason) {
				t.Errorf("dropped %q, want %q among them", rs, tt.reason)
			}
		})
	}
	// Plain praise stays a like, and capitals alone are no sarcasm.
	for msg, key := range map[string]string{"I love mondays at the farmers market": "", "I LOVE hiking": "likes:hiking", "I love rainy days": "likes:rainy_days"} {
		got := rulesSay(msg)
		if key != "" && (len(got.Memories) != 1 || got.Memories[0].Key != key) {
			t.Errorf("%q: memories %v, want %s", msg, kvcs(got.Memories), key)
		}
	}
}

// TestPlanResolvesChanges: an ending supersedes the memory it names with
// a statement that expires when said; one that names none is skipped; a
// moved date restates the event with the new date; a re-run is applied
// once.
func TestPlanResolvesChanges(t *testing.T) {
	said := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	later := said.Add(14 * 24 * time.Hour)
	stored := []extract.Stored{
		{ID: "bf", Key: "family:boyfriend", Value: "Marcus", Category: "fact", Importance: 80, Confidence: 0.8, StatedAt: said, SourceSessionID: "s1"},
		{ID: "job", Key: "works_at", Value: "coffee roaster downtown", Category: "fact", Importance: 80, Confidence: 0.8, StatedAt: said, SourceSessionID: "s1"},
		{ID: "wed", Key: "event:sister_kaylas_wedding", Value: "sister Kayla's wedding", Category: "event", Importance: 60, Confidence: 0.6, StatedAt: said, SourceSessionID: "s1"},
	}
	end := func(word, ref string, keys ...string) extract.Memory {
		return extract.Memory{Key: keys[0], Value: ref, Category: "fact", Importance: 70, Confidence: 0.8, StatedAt: later, SourceMessageID: "m" + word,
			Change: &extract.Change{Ends: true, Word: word, Keys: keys, Ref: ref}}
	}
	cands := []extract.Memory{
		end("broke up", "Marcus", "family:boyfriend", "family:girlfriend", "family:partner"),
		end("quit", "roaster", "works_at", "job:"),
		end("died", "Pickles", "pet:"),
		{Key: "event:wedding", Value: "wedding", Category: "event", Importance: 60, Confidence: 0.7, StatedAt: later, EventDate: "2027-01-09", Wording: "January 9th",
			Change: &extract.Change{Word: "moved", Keys: []string{"event:"}, Ref: "wedding"}},
	}
	ops := extract.Plan(stored, cands, "s2", rulesApp().Policy, later.Add(time.Hour))
	got := map[string]extract.Op{}
	for _, op := range ops {
		got[op.Memory.Key+"/"+string(op.Action)] = op
	}
	if op, ok := got["family:boyfriend/supersede"]; !ok || op.Target != "bf" || op.Reason != extract.ReasonEnded || op.Memory.Value != "Marcus (broke up)" ||
		op.Said.ExpiresAt == nil || !op.Said.ExpiresAt.Equal(later) {
		t.Errorf("break-up: %+v, want bf superseded (ended) by \"Marcus (broke up)\" expiring at %v", op, later)
	}
	if op, ok := got["works_at/supersede"]; !ok || op.Target != "job" || op.Memory.Value != "coffee roaster downtown (quit)" {
		t.Errorf("quit: %+v", op)
	}
	if op, ok := got["pet:/skip"]; !ok || op.Reason != extract.SkipNoTarget {
		t.Errorf("a pet never told of: %+v, want skip no_target", ops)
	}
	if op, ok := got["event:sister_kaylas_wedding/bump"]; !ok || op.Target != "wed" || op.Said.EventDate != "2027-01-09" {
		t.Errorf("moved wedding: %+v, want a bump of wed dated 2027-01-09", ops)
	}
	// The re-run after the ops were applied: the boyfriend is ended, the
	// ending stored (expired) from s2.
	stored[0].Status = extract.StatusDeprecated
	stored = append(stored, extract.Stored{ID: "end", Key: "family:boyfriend", Value: "Marcus (broke up)", Category: "fact", Status: "expired",
		StatedAt: later, SourceSessionID: "s2"})
	for _, op := range extract.Plan(stored, cands[:1], "s2", rulesApp().Policy, later.Add(2*time.Hour)) {
		if op.Action != extract.OpSkip || op.Reason != "already_applied" {
			t.Errorf("re-run: %s %s (%s), want skip already_applied", op.Action, op.Memory.Key, op.Reason)
		}
	}
}

// TestRulesNotes: with the policy's notes on, a first-person present
// statement no pattern keys is kept in the user's terms, in the third
// person; talk, questions, hedges, stories, other people's facts and
// special categories are not; with notes off nothing is.
func TestRulesNotes(t *testing.T) {
	t.Parallel()
	app := rulesApp()
	app.Policy.Notes = true
	say := func(p *extract.Session, msg string) []kvc {
		p.Messages = []extract.Message{{ID: "m1", Role: "user", Content: msg, At: rulesNow}}
		return kvcs(extract.Rules(app, *p, rulesNow).Memories)
	}
	s := &extract.Session{ID: "s-1", App: "mona"}
	for msg, want := range map[string][]kvc{
		"I take care of my grandma on weekends.": {{"note:takes_care_grandma_weekends", "takes care of their grandma on weekends", ""}},
		"I make a mean lasagna.":                 {{"note:makes_mean_lasagna", "makes a mean lasagna", ""}},
		"I usually study in the library.":        {{"note:usually_studies_library", "usually studies in the library", ""}},
		"I'm a former olympic gold medalist.":    {{"note:former_olympic_gold_medalist", "is a former olympic gold medalist", ""}},
		"I love hiking.":                         {{"likes:hiking", "hiking", ""}}, // keyed: no note beside it
		"I can see why.":                         {},
		"I do too.":                              {},
		"I have a question about programming.":   {},
		"I'm free this weekend.":                 {},
		"I took the bus home.":                   {},
		"Do I make a mean lasagna?":              {},
		"I guess I make a mean lasagna.":         {},
		"My daughter is seven.":                  {},
		"I'm of Kurdish descent.":                {},
		"I go to church every Sunday.":           {},
		"I find them relaxing.":                  {},
	} {
		if got := say(s, msg); !slices.Equal(got, want) {
			t.Errorf("%q: memories %q, want %q", msg, got, want)
		}
	}
	app.Policy.Notes = false
	if got := say(s, "I take care of my grandma on weekends."); len(got) != 0 {
		t.Errorf("notes off: memories %q, want none", got)
	}
}
