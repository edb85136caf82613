package extract_test

import (
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
)

func TestSpecialCategory(t *testing.T) {
	cases := map[string][]string{
		extract.SpecialHealth: {
			"I went to the hospital for my chemo.",
			"I was diagnosed with diabetes last year",
			"My doctor put me on antidepressants",
			"I've been in therapy since March",
			"I'm pregnant!",
			"I have ADHD",
			"I'm 90 days sober",
			"She was admitted to the hospital on Monday",
			"I take medication for my blood pressure",
			"I had surgery on my knee",
			"I'm considering seeing a doctor about it",
			"I went to the doctor yesterday",
			"I'm seeing a therapist about it",
			"My therapist says I should rest",
			"I go to physical therapy twice a week",
		},
		extract.SpecialSexLife: {
			"I'm gay.", "I came out as bisexual to my parents", "Our sex life has been rough", "I'm trans and proud",
		},
		extract.SpecialReligion: {
			"I go to church every Sunday", "I'm Muslim and I'm fasting for Ramadan", "I pray before bed", "I'm an atheist",
		},
		extract.SpecialPolitics: {
			"I voted for the Green Party", "I'm a Republican", "I'm pretty left-wing", "I campaigned for our mayor",
		},
		extract.SpecialEthnicity: {
			"I'm Black and grew up in Atlanta", "My ethnicity is Korean", "I'm mixed race",
		},
		extract.SpecialUnion: {
			"I joined the union at work", "I'm our union rep", "We're on strike next week", "I pay my trade union dues",
		},
		extract.SpecialBiometrics: {
			"I unlocked it with my fingerprint", "My DNA test results came back", "I got a genetic test for BRCA",
		},
	}
	for want, texts := range cases {
		for _, text := range texts {
			if got, ok := extract.SpecialCategory(text); !ok || got != want {
				t.Errorf("SpecialCategory(%q) = %q, %v; want %q", text, got, ok, want)
			}
		}
	}
	// Everyday words that only touch a category.
	for _, text := range []string{
		"I went to the dentist",
		"I feel anxious about my exam",
		"I work as a nurse at the city hospital",
		// An occupation or a field of study is not a health fact.
		"I'm a physical therapist",
		"physical therapist",
		"I work as a speech therapist",
		"I'm thinking about going into physical therapy",
		"I'm studying psychology",
		"My favorite food is ramen",
		"I lent him my bike",
		"That's a conservative estimate",
		"We visited the European Union offices",
		"I'm tired today",
		"I love pizza",
		"My sister is getting married next Friday",
		// MemoryBank (MIT, zhongwanjun/MemoryBank-SiliconFriend).
		"Recently I've been studying English, do you have any vivid ways to improve my listening and speaking skills?",
		"I want to go to a place with beautiful scenery and fresh air to fill my heart and relieve my stress.",
	} {
		if got, ok := extract.SpecialCategory(text); ok {
			t.Errorf("SpecialCategory(%q) = %q, want none", text, got)
		}
	}
	// MemoryBank again: a user thinking of seeing a doctor about a health
	// worry is health data only when a condition or treatment is named.
	if got, _ := extract.SpecialCategory("Yes, that's a very good suggestion. I'm currently considering seeing a doctor about my migraines."); got != extract.SpecialHealth {
		t.Errorf("migraines: %q", got)
	}
}
