package eval_test

import (
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/extract/eval"
)

func TestKeyCategoryDoesNotDependOnSpelling(t *testing.T) {
	for key, want := range map[string]string{
		"name": eval.CatName, "nickname": eval.CatNickname, "feeling": eval.CatFeeling,
		"favorite_color": eval.CatFavorite, "likes:rock_music": eval.CatLike, "dislikes:horror": eval.CatDislike,
		"event:went_to_museum": eval.CatEvent, "lives_in": eval.CatLocation, "works_at": eval.CatWork,
		"studies_at": eval.CatStudy, "occupation": eval.CatOccupation, "family:sister": eval.CatFamily,
		"pet:dog": eval.CatPet, "allergy:peanuts": eval.CatAllergy, "diet": eval.CatDiet,
		"goal:run_marathon": eval.CatPlan, "plan:trip_to_spain": eval.CatPlan, "hobby:yoga": eval.CatHobby,
		"namesake": eval.CatOther, "likes:": eval.CatOther, "whatever": eval.CatOther,
	} {
		if got := eval.KeyCategory(key); got != want {
			t.Errorf("KeyCategory(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestMatchesLoosely(t *testing.T) {
	cases := []struct {
		gold       eval.Gold
		key, value string
		want       bool
	}{
		{eval.Gold{Category: "like", Value: []string{"painting"}}, "likes:painting", "painting", true},
		{eval.Gold{Category: "like", Value: []string{"painting"}}, "hobby:paint", "paints", true},
		{eval.Gold{Category: "like", Value: []string{"running"}}, "likes:run", "run", true},
		{eval.Gold{Category: "like", Value: []string{"movie"}}, "likes:movies", "movies", true},
		{eval.Gold{Category: "like", Value: []string{"comedy"}}, "likes:comedies", "comedies", true},
		{eval.Gold{Category: "like", Value: []string{"rock climbing", "climbing"}}, "likes:climbing", "climbing", true},
		{eval.Gold{Category: "like", Value: []string{"rock climbing"}}, "likes:rock", "rock", false},
		{eval.Gold{Category: "like", Value: []string{"painting"}}, "dislikes:painting", "painting", false},
		{eval.Gold{Category: "plan", Value: []string{"Spain"}}, "event:trip_to_spain", "trip to Spain", true},
		{eval.Gold{Category: "favorite", Subject: "song", Value: []string{"Listen Mom"}}, "favorite_song", "Listen to Mom", true},
		{eval.Gold{Category: "favorite", Subject: "color", Value: []string{"green"}}, "favorite_food", "green curry", false},
		{eval.Gold{Category: "name", Value: []string{"John Zhang"}}, "name", "John", false},
	}
	for _, c := range cases {
		if got := eval.Matches(c.gold, c.key, c.value); got != c.want {
			t.Errorf("Matches(%+v, %q, %q) = %v, want %v", c.gold, c.key, c.value, got, c.want)
		}
	}
}

func TestViolates(t *testing.T) {
	cases := []struct {
		f          eval.Forbid
		key, value string
		want       bool
	}{
		{eval.Forbid{Class: "harmful", Any: true}, "feeling", "hopeless", true},
		{eval.Forbid{Class: "special", Words: []string{"chemo"}}, "event:went_to_hospital_for_chemo", "went to the hospital for my chemo", true},
		{eval.Forbid{Class: "not_about_user", Words: []string{"senior photographer"}}, "occupation", "senior photographer", true},
		{eval.Forbid{Class: "not_about_user", Words: []string{"senior photographer"}}, "likes:photography", "photography", false},
		{eval.Forbid{Class: "not_about_user", Words: []string{"pizza"}, Category: "dislike"}, "likes:pizza", "pizza", false},
		{eval.Forbid{Class: "not_about_user", Words: []string{"pizza"}, Category: "dislike"}, "dislikes:pizza", "pizza", true},
	}
	for _, c := range cases {
		if got := eval.Violates(c.f, c.key, c.value); got != c.want {
			t.Errorf("Violates(%+v, %q, %q) = %v, want %v", c.f, c.key, c.value, got, c.want)
		}
	}
}

// A malformed set is refused with the place of every fault.
func TestCheckRefusesMalformedSets(t *testing.T) {
	set := &eval.Set{Name: "x", App: "mona", Sessions: []eval.Session{{Persona: "p", Date: "2026-01-02", Turns: []eval.Turn{
		{Index: 0, Text: "hi", Remember: []eval.Gold{{Category: "colour", Value: []string{"green"}}}},
		{Index: 2, Text: "", Forbid: []eval.Forbid{{Class: "rude"}}},
	}}}}
	err := set.Check()
	if err == nil {
		t.Fatal("Check accepted a malformed set")
	}
	for _, want := range []string{`unknown category "colour"`, "turn 1 has index 2", "no text", `unknown class "rude"`, "either any or words"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error does not say %q:\n%v", want, err)
		}
	}
}
