package lara

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// laraPreset is the lara preset's policy as shipped (prompts/lara).
func laraPreset(t *testing.T) prompts.Policy {
	t.Helper()
	var p prompts.Policy
	readJSON(t, filepath.Join("..", "..", "prompts", "lara", "policy.json"), &p)
	return p
}

// prefsOf are the preference records of res as key=value, and the skills
// as skill:key=concept.
func prefsOf(res Result) []string {
	var out []string
	for _, r := range res.Records {
		switch {
		case r.Delete:
			out = append(out, "delete "+r.Key)
		case r.Type == LaraPreference:
			out = append(out, r.Key+"="+r.Data["value"].(string))
		case r.Type == LaraSkill:
			out = append(out, "skill:"+r.Key+"="+r.Data["concept"].(string))
		}
	}
	return out
}

// TestLaraChildrensWords (issue 33 §5, §6): what a child writes, in a
// child's spelling and run-on sentences, under the shipped preset
// (correct_spelling): each message alone.
func TestLaraChildrensWords(t *testing.T) {
	p := laraPreset(t)
	if !p.CorrectSpelling {
		t.Fatal("the lara preset does not correct spelling")
	}
	for _, tc := range []struct {
		msg  string
		want []string
	}{
		{"i dont like speling its borring", []string{"dislikes:spelling=spelling"}},
		{"my favrit is the trisaratops", []string{"likes:triceratops=triceratops"}},
		{"ok wait i like spelling now", []string{"likes:spelling=spelling"}},
		{"i can do my 7 times tables now", []string{"skill:7_times_tables=7 times tables"}},
		{"i know all my 5 times tables", []string{"skill:5_times_tables=5 times tables"}},
		{"i can spell necessary now!!", []string{"skill:spelling_necessary=spelling necessary"}},
		{"i did fractions at school and i got them!!", []string{"skill:fractions=fractions"}},
		{"minecraft is the best game ever", []string{"favorite_game=minecraft", "likes:minecraft=minecraft"}},
		{"my favourite song is let it go", []string{"favorite_song=let it go"}},
		{"football is my favrite sport i play defender", []string{"favorite_sport=football"}},
		{"science is my favrit subjekt", []string{"favorite_subject=science"}},
		{"so spelling tests are ok now, i kind of like them", []string{"likes:spelling_tests=spelling tests"}},
		{"we did the romans and it was actualy cool", []string{"likes:romans=romans"}},
		{"i know how to tie my shoes now", []string{"skill:tie_shoes=tie my shoes"}},
		{"i learnt to ride my bike without stabilisers", []string{"skill:ride_bike_without_stabilisers=ride my bike without stabilisers"}},
		{"i passed my swimming test!!", []string{"skill:swimming=swimming"}},
		{"i got 10 out of 10 on my spellings", []string{"skill:spellings=spellings"}},
		{"i used to hate maths but now i like it", []string{"likes:maths=maths"}},
		{"spelling is so boring", []string{"dislikes:spelling=spelling"}},
		{"maths is my worst subject", []string{"dislikes:maths=maths"}},
		{"i love love love horses", []string{"likes:horses=horses"}},
		{"dinosaurs are awesome", []string{"likes:dinosaurs=dinosaurs"}},
		{"i quite like art", []string{"likes:art=art"}},
		{"i'm really good at maths now", []string{"skill:maths=maths"}},
		{"i can swim 25 metres", []string{"skill:swimming_25_metres=swimming 25 metres"}},
		// Not a skill, not a preference.
		{"today is the best", nil},
		{"my brother is so annoying", nil},
		{"it is boring", nil},
		{"i cant do my 8 times tables", nil},
		{"i know my mum loves me", nil},
		{"i know how to do it", nil},
		{"my brother likes football but i dont", nil},
	} {
		got := prefsOf(runLara(p, laraSaid("s1", tc.msg), laraT0))
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q: %v, want %v", tc.msg, got, tc.want)
		}
	}
}

// TestLaraSpellingIsThePresets: without correct_spelling the words are read
// as written; with it, as meant.
func TestLaraSpellingIsThePresets(t *testing.T) {
	msg := "i dont like speling its borring"
	if got := prefsOf(runLara(laraPolicy, laraSaid("s1", msg), laraT0)); strings.Join(got, "|") != "dislikes:speling=speling" {
		t.Errorf("without correct_spelling: %v, want the word as written", got)
	}
	p := laraPolicy
	p.CorrectSpelling = true
	if got := prefsOf(runLara(p, laraSaid("s1", msg), laraT0)); strings.Join(got, "|") != "dislikes:spelling=spelling" {
		t.Errorf("with correct_spelling: %v, want spelling", got)
	}
}

// TestLaraChangeOfHeartAndSkillInThePack: "i dont like speling its
// borring", then "ok wait i like spelling now" in a later session: the like
// replaces the dislike. A skill said in words shows in the pack as said, not
// as a mastery level, and stays when said again.
func TestLaraChangeOfHeartAndSkillInThePack(t *testing.T) {
	b := setupLara(t)
	b.p = laraPreset(t)
	said := func(id string, at time.Time, msgs ...string) Session {
		s := laraSaid(id, msgs...)
		for i := range s.Messages {
			s.Messages[i].At = at
		}
		return s
	}
	b.run(said("s1", laraT0, "i dont like speling its borring", "my favrit is the trisaratops"), laraT0)
	res := b.run(said("s2", laraT0.Add(time.Hour), "ok wait i like spelling now", "i can do my 7 times tables now"), laraT0.Add(time.Hour))
	if got := strings.Join(prefsOf(res), "|"); !strings.Contains(got, "delete dislikes:spelling") || !strings.Contains(got, "likes:spelling=spelling") {
		t.Errorf("the second session wrote %s; want the dislike deleted and the like written", got)
	}
	b.run(said("s3", laraT0.Add(2*time.Hour), "i know my 7 times tables"), laraT0.Add(2*time.Hour))
	sk := b.get(LaraSkill, "7_times_tables")
	if sk["first_said"] != laraT0.Add(time.Hour).Format(time.RFC3339) || sk["last_said"] != laraT0.Add(2*time.Hour).Format(time.RFC3339) {
		t.Errorf("said again: %v; want first_said kept from s2 and last_said s3's", sk)
	}
	var recs []Record
	recs = append(recs, b.history...)
	text := Pack("lara", PackInput{Records: recs}, 300).Text
	for _, want := range []string{`Likes: "spelling", "triceratops"`, `Says they can: "7 times tables"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the pack has no %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Dislikes") || strings.Contains(text, "mastery") {
		t.Errorf("the pack still has the dislike, or a mastery level from words:\n%s", text)
	}
}

// BenchmarkLaraRules is the cost of the lara rules on a session of eight
// children's messages, five misspelt, with the preset's spelling correction
// (the corrector built before the timer) and without it
// (docs/benchmarks.md, "Children's spelling").
func BenchmarkLaraRules(b *testing.B) {
	s := laraSaid("s1", "hi lara", "i dont like speling its borring", "my favrit is the trisaratops",
		"ok wait i like spelling now", "i can do my 7 times tables now", "my frend sam has a dog",
		"science is my favrit subjekt", "can we do a quiz")
	for _, correct := range []bool{false, true} {
		name := "as_written"
		if correct {
			name = "spelling_corrected"
		}
		b.Run(name, func(b *testing.B) {
			p := laraPolicy
			p.CorrectSpelling = correct
			runLara(p, s, laraT0) // builds the corrector once
			b.ReportAllocs()
			for b.Loop() {
				runLara(p, s, laraT0)
			}
		})
	}
}
