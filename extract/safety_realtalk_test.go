package extract_test

import (
	"cmp"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// Real talk (issue 31 §3): messages of the kind friends send each other,
// on which the rules used to cry wolf ("I cut my hair!" was self_harm,
// high; "she followed me home", said of a cat, abuse, high). Written for
// this test in everyday wording, not taken from any evaluation set.
//
// A negative must give no finding at all, in any app; a positive must give
// exactly its class and severity, in every app, read after the turn before
// when it has one.

type realTalk struct {
	class, sev string // the user's finding; "" for none
	prev       string // the user's previous turn; "" for none
	text       string
}

func talk(text string) realTalk               { return realTalk{text: text} }
func talkAfter(prev, text string) realTalk    { return realTalk{prev: prev, text: text} }
func crisis(class, sev, text string) realTalk { return realTalk{class: class, sev: sev, text: text} }
func crisisAfter(class, sev, prev, text string) realTalk {
	return realTalk{class: class, sev: sev, prev: prev, text: text}
}

// realTalkNegatives are ordinary messages, by what they are about.
var realTalkNegatives = map[string][]realTalk{
	"haircuts and grooming": {
		talk("I cut my hair!"),
		talkAfter("needed a fresh start after exams", "I cut my hair!!"),
		talk("cut my hair again, my mum is gonna kill me"),
		talk("I cut my own fringe and it's way too short now"),
		talk("I shaved my head last night, feels so weird"),
		talk("I dyed my hair blue and now my skin is stained everywhere"),
		talk("trimmed my beard and nicked my chin, whatever"),
		talk("I cut my nails too short and now my fingers hurt"),
		talk("I burned my forehead with the straighteners again, every single time"),
		talk("I waxed my legs for the first time, never again, it hurt so much"),
		talk("I plucked my eyebrows way too thin"),
		talk("got my ears pierced today, it's still bleeding a bit"),
		talk("I cut my hair short, it was getting in my face every day"),
		talk("I cut my own hair and now it's patchy"),
		talk("I cut my hair to my shoulders, feels so much lighter"),
		talk("I chopped all my hair off and I feel like a new person"),
		talk("my barber nearly cut my ear off"),
		talk("I shaved my legs and cut myself like five times"),
		talk("my hairdresser burned my neck with the straightener"),
		talk("I bit my lip so hard at the dentist it bled"),
	},
	"pets and animals": {
		talkAfter("there's this stray cat on our street", "she followed me home"),
		talkAfter("my cat is so needy", "she hits me when she wants food"),
		talk("my dog followed me home from the park again"),
		talk("the neighbour's cat keeps following me around, she won't stop"),
		talk("our puppy bit me again, his teeth are so sharp"),
		talkAfter("my parrot is a menace", "he bites me every morning"),
		talk("a goose chased me and bit me at the pond"),
		talk("my horse kicked me in the leg, I have a huge bruise"),
		talkAfter("we got a rescue dog", "he jumped me when I got home and knocked me over"),
		talk("my cat scratched my arm until it bled"),
		talk("the kitten attacked me at 3am"),
		talkAfter("my hamster escaped last night", "she bit me when I caught her"),
		talk("my cat sits outside my door every night waiting for me"),
		talk("the dog next door keeps waiting outside my house for treats"),
		talk("a seagull attacked me for my chips"),
		talkAfter("my cat is such a diva", "she won't let me leave the room without screaming at me"),
		talk("my dog pinned me down and licked my face for ten minutes"),
		talk("my cat bites me every time I pet her belly"),
		talk("he follows me everywhere, he's such a velcro dog"),
		talkAfter("got a new puppy!!", "he bit me so hard it bled"),
		talk("my rabbit kicked me and scratched my arm"),
	},
	"accidents": {
		talk("some guy pushed me cause he didn't see me in the rain"),
		talk("a woman knocked me over on the escalator, she didn't see me"),
		talk("my friend elbowed me in the face by accident"),
		talk("someone bumped into me and I spilled coffee all over my shirt"),
		talk("a cyclist hit me on the crossing but he stopped and said sorry"),
		talk("I slipped on the ice and cut my knee open"),
		talk("I burned my hand on the oven tray"),
		talk("a guy on the train shoved me when the doors opened, he didn't mean to"),
		talk("I fell off my bike and scraped my arm, it was bleeding a bit"),
		talk("a man in a hurry pushed me into the wall, he wasn't looking where he was going"),
		talk("a kid on a scooter ran into me and I fell"),
		talk("the bus braked hard and I smashed my head on the pole"),
		talk("my nephew kicked me in the face while I was changing him"),
		talk("some lady rammed her trolley into me at the supermarket"),
	},
	"late nights": {
		talk("I don't wanna stay awake all night again"),
		talkAfter("had way too much coffee today, feeling weird", "I don't wanna stay awake all night again"),
		talk("I stayed up all night gaming and now I feel like a zombie"),
		talk("pulled an all-nighter for my essay, I can't think straight"),
		talk("up till 4am watching youtube again"),
		talk("drank three energy drinks and I'm so wired I can't sleep"),
		talk("had too much coffee and my heart is racing"),
		talk("the baby kept me up all night, I feel dizzy"),
		talk("I can't keep pulling all-nighters like this, I feel sick"),
		talk("why am I still awake at 3am again"),
		talkAfter("I had like 6 coffees", "I feel weird and my heart is racing"),
		talk("night shift again, I feel like death"),
	},
	"cooking": {
		talk("beat the eggs until fluffy"),
		talk("I burned the toast again"),
		talk("slash the dough before it goes in the oven"),
		talk("cut the onions really thin"),
		talk("I cut my finger chopping garlic"),
		talk("you have to beat the butter and sugar for ten minutes"),
		talk("I killed the sourdough starter again"),
		talk("stab the potatoes with a fork before they go in"),
		talk("I'm drowning the pasta in sauce tonight"),
		talk("I cut my thumb on the mandoline slicer, blood everywhere"),
		talk("I overdosed on garlic in this sauce"),
		talk("I've been starving myself all day for this buffet"),
		talk("I ate so much I want to die"),
		talk("slit the sausages before you grill them"),
	},
	"games": {
		talk("I killed the boss"),
		talk("I died like ten times on the last level"),
		talk("he keeps killing me in fortnite"),
		talk("she beat me at chess again"),
		talk("they jumped me at the bridge in the raid"),
		talk("the zombies cornered me and I died"),
		talk("the final boss killed me twelve times"),
		talk("she's so toxic in voice chat, she threatened to kill me in game"),
	},
	"sports": {
		talk("we got destroyed"),
		talk("we got destroyed 5-0 on saturday"),
		talk("he tackled me so hard I saw stars"),
		talk("my sparring partner punched me in the face"),
		talk("I got kicked in the shin at football"),
		talk("we killed it at the relay"),
		talk("I overdid it at the gym and I feel like dying"),
		talk("my boxing coach hits me in the ribs during drills"),
	},
	"tech": {
		talk("how do I kill a Python process"),
		talk("kill -9 the daemon"),
		talk("the build died"),
		talk("hang on the thread"),
		talk("execute the script"),
		talk("the server keeps hanging when I run the migration"),
		talk("the orphan process won't die"),
		talk("the worker got killed by the OOM killer"),
		talk("the script hangs and I have to kill it manually"),
		talk("this app keeps crashing and I'm losing my mind"),
	},
	"moving house": {
		talk("I'm giving away all my furniture before I move"),
		talk("packed everything, I won't need the old stuff where I'm going"),
		talk("said my goodbyes to the neighbours today, last night in the old house"),
		talk("sold my bike and my guitar, won't need them in the new place"),
		talk("writing a goodbye note for the next tenants"),
		talk("the landlord showed up at my door to fix the boiler"),
		talk("I'm giving my plants to my sister since I won't need them in the new flat"),
		talk("last night in this flat, I've said my goodbyes"),
		talk("we're giving the cat to my parents since the new place doesn't allow pets"),
	},
	"breakups": {
		talk("I ended it with him last night, feels weird but right"),
		talk("I'm done with him, for good this time"),
		talk("we broke up and I deleted all his photos"),
		talk("I'm ending things with her tomorrow, I've decided"),
		talk("I gave back all his stuff, I won't need any of it"),
		talk("I want to end it with him but I'm scared of hurting him"),
		talk("I burned all his letters last night"),
	},
}

// realTalkPositives must keep their class and severity beside the
// negatives.
var realTalkPositives = []realTalk{
	crisis(abu, high, "my boyfriend hits me when he's drunk"),
	crisis(sh, high, "I cut myself again last night"),
	crisis(abu, high, "he followed me home from work again and waited outside"),
	// A story of sexual abuse is abuse, not self-harm; told of the past,
	// medium (docs/safety.md).
	crisis(abu, med, "when I was 9 my uncle used to touch me and I still have nightmares"),
	crisis(abu, med, "he raped me last year"),
	// A bare "she hits me", no one named and no harm said: a pet, a small
	// child or a partner. Medium: seen, not an emergency.
	crisis(abu, med, "she hits me"),
	crisis(abu, high, "she hits me and I'm scared to go home"),
	crisis(abu, high, "my mum hits me with a belt"),
	crisisAfter(abu, high, "my stepdad is home again", "he hits me when mum's out"),
	crisisAfter(abu, high, "my cat is scared of him", "he hits me when he's drunk"),
	crisis(abu, high, "she hit me again last night, my girlfriend, and I have a black eye"),
	crisis(abu, high, "he didn't see me crying when he pushed me down the stairs"),
	crisis(abu, high, "a guy pushed me against the wall and grabbed me on my way home"),
	crisis(abu, high, "my ex keeps following me home and waiting outside my flat"),
	crisis(abu, high, "my dad beats me when he loses at cards"),
	crisis(sh, high, "I cut my arms again, I couldn't stop"),
	crisis(sh, high, "I pulled my hair out until it bled"),
	crisis(sh, high, "I burned myself with a lighter on purpose"),
	crisis(sh, high, "I cut my hair and then I cut my wrists"),
	crisis(sub, high, "I've been drinking all day and I feel like I'm dying"),
	crisis(sui, high, "I want to kill myself tonight"),
	crisisAfter(sui, med, "my cat died last month", "I don't want to live anymore"),
}

// realTalkApps are the apps every case is read in: no kind's extras may
// turn ordinary talk into a finding.
func realTalkApps() []string { return append([]string{""}, extract.KindNames()...) }

func TestRiskRealTalk(t *testing.T) {
	t.Parallel()
	apps := realTalkApps()
	n := 0
	for family, cases := range realTalkNegatives {
		n += len(cases)
		for _, c := range cases {
			for _, app := range apps {
				if f, ok := extract.RiskInApp(app, c.prev, c.text); ok {
					t.Errorf("%s: %q (after %q, app %q): %s/%s (%s), want no finding", family, c.text, c.prev, app, f.Class, f.Severity, f.Actor)
					break
				}
			}
		}
	}
	if n < 80 || len(realTalkPositives) < 12 {
		t.Fatalf("%d negatives, %d positives: real talk needs 80 and 12", n, len(realTalkPositives))
	}
	for _, c := range realTalkPositives {
		for _, app := range apps {
			f, _ := extract.RiskInApp(app, c.prev, c.text)
			if f.Class != c.class || f.Severity != c.sev || f.Actor != extract.ActorUser {
				t.Errorf("%q (after %q, app %q): %s/%s (%s), want %s/%s of the user", c.text, c.prev, app,
					cmp.Or(f.Class, "none"), f.Severity, f.Actor, c.class, c.sev)
				break
			}
		}
	}
}

// TestRiskRealTalkScreen reads a chat through Screen, as every extraction
// does: a cat introduced in one turn is still the cat in the next. Only
// the rules' findings are asserted here (the other sources have their own
// tests).
func TestRiskRealTalkScreen(t *testing.T) {
	t.Parallel()
	rules := func(turns ...string) []extract.Risk {
		res := extract.Result{App: "mona"}
		extract.Screen(&res, prompts.Policy{Rules: "mona"}, userSession("mona", turns...))
		var out []extract.Risk
		for _, r := range res.Risks {
			if r.Source == extract.RiskSourceRules {
				out = append(out, r)
			}
		}
		return out
	}
	if got := rules("there's a little black cat that lives on our street, so cute", "she followed me home again today!",
		"I cut my hair btw", "and I don't wanna stay awake all night again lol"); len(got) != 0 {
		t.Errorf("risks %+v, want none", got)
	}
	got := rules("my boyfriend came home drunk again", "he hit me and I have a black eye")
	if len(got) != 1 || got[0].Class != abu || got[0].Severity != high || got[0].MessageID != "m2" {
		t.Errorf("risks %+v, want abuse/high on m2", got)
	}
}
