package extract_test

import (
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
)

// Development sentences for the risk screen's rules with frames (issue
// 23): written for this table, one per line, varied in wording, spelling
// and age of the writer. Positives are the user's own statements by
// family; negatives are sentences that share the lexicon but a frame
// (topic, hyperbole, play, accident, negation, time, relationship,
// trivial object, someone else) makes them no alarm.
var frameCases = []struct {
	family string
	cases  []riskCase
}{
	{"passive ideation", []riskCase{
		user(extract.RiskSuicidal, med, "Some days I don't see the point anymore."),
		user(extract.RiskHopelessness, med, "honestly i dont see the point of anything lately"),
		user(extract.RiskSuicidal, med, "I keep hoping I just won't wake up one morning."),
		user(extract.RiskSuicidal, med, "Sometimes I wish I could fall asleep and never wake up."),
		user(extract.RiskSuicidal, med, "I wish I could just disappear for good."),
		user(extract.RiskSuicidal, med, "I want to vanish forever."),
		user(extract.RiskSuicidal, med, "I feel like such a burden on my kids."),
		user(extract.RiskSuicidal, med, "I'm nothing but a burden to my family."),
		user(extract.RiskSuicidal, med, "My family would be better off without me around."),
		user(extract.RiskSuicidal, med, "Everyone would be happier if I wasn't here."),
		user(extract.RiskSuicidal, med, "Nobody would even notice if I was gone."),
		user(extract.RiskSuicidal, med, "No one would care if I disappeared tomorrow."),
		user(extract.RiskSuicidal, med, "I don't want to be here anymore."),
		user(extract.RiskSuicidal, med, "I'm so tired of being alive."),
		user(extract.RiskSuicidal, med, "What's even the point of me being here"),
		user(extract.RiskSuicidal, med, "I want to die."),
		user(extract.RiskSuicidal, med, "I'd rather be dead than keep feeling like this."),
		user(extract.RiskSuicidal, med, "Life isn't worth living anymore."),
		user(extract.RiskSuicidal, med, "I just want to go to sleep and never wake up."),
		user(extract.RiskSuicidal, med, "It would be easier for everyone if I just wasn't alive."),
		user(extract.RiskSuicidal, med, "Honestly I don't care if I die."),
		user(extract.RiskHopelessness, med, "There's no point anymore, nothing changes."),
	}},
	{"preparation", []riskCase{
		user(extract.RiskSuicidal, hi, "I've started giving my things away so my friends have something to remember me by."),
		user(extract.RiskSuicidal, hi, "I gave my guitar to my sister because I won't need it anymore."),
		user(extract.RiskSuicidal, hi, "I wrote goodbye letters to my mom and my brother last night."),
		user(extract.RiskSuicidal, hi, "I've written a note for whoever finds me."),
		user(extract.RiskSuicidal, hi, "I looked up how many of my sleeping pills it would take."),
		user(extract.RiskSuicidal, hi, "I've been researching the easiest way to die."),
		user(extract.RiskSuicidal, hi, "I googled the lethal dose of my insulin."),
		user(extract.RiskSuicidal, hi, "I have a plan to end my life on Friday."),
		user(extract.RiskSuicidal, hi, "I bought rope and I know where I'll hang myself."),
		user(extract.RiskSuicidal, hi, "I've been saving up my pills for when I'm ready."),
		user(extract.RiskSuicidal, hi, "I already know how and when I'm going to kill myself."),
		user(extract.RiskSuicidal, hi, "i've been stockpiling my meds in a drawer"),
	}},
	{"conditional intent", []riskCase{
		user(extract.RiskSuicidal, hi, "If he leaves me again I'll end it."),
		user(extract.RiskSuicidal, hi, "If this happens one more time I'm going to kill myself."),
		user(extract.RiskSuicidal, hi, "if they send me back there i will end my life"),
		user(extract.RiskSuicidal, hi, "If I relapse again, I'll take all my pills at once."),
		user(extract.RiskSuicidal, hi, "if mum and dad split up i'll kill myself"),
		user(extract.RiskSuicidal, hi, "If I lose this job I'm going to end it all."),
	}},
	{"self-harm acts", []riskCase{
		user(extract.RiskSelfHarm, hi, "I cut my arms again last night."),
		user(extract.RiskSelfHarm, hi, "I've been cutting my legs where nobody can see."),
		user(extract.RiskSelfHarm, hi, "I burned my wrist with a lighter on purpose."),
		user(extract.RiskSelfHarm, hi, "I scratched my arm until it bled."),
		user(extract.RiskSelfHarm, hi, "I keep scratching my skin until it bleeds when I'm upset."),
		user(extract.RiskSelfHarm, hi, "I banged my head against the wall until it hurt."),
		user(extract.RiskSelfHarm, hi, "I used a razor on my thighs again."),
		user(extract.RiskSelfHarm, hi, "i carved his name into my arm with a compass"),
		user(extract.RiskSelfHarm, hi, "I pressed a hot spoon on my skin to feel something."),
		user(extract.RiskSelfHarm, hi, "i cut my self with scissors on purpose"),
		user(extract.RiskSelfHarm, hi, "When it gets bad I hit myself really hard."),
		user(extract.RiskSelfHarm, hi, "I've been burning my arm with cigarettes."),
	}},
	{"danger from others", []riskCase{
		user(extract.RiskAbuse, hi, "A man has followed me home from the bus stop three nights in a row."),
		user(extract.RiskAbuse, hi, "Someone's been waiting outside my flat every night."),
		user(extract.RiskAbuse, hi, "He held me down and wouldn't let me leave."),
		user(extract.RiskAbuse, hi, "My boyfriend pinned me against the wall last night."),
		user(extract.RiskAbuse, hi, "He pushed me down the stairs."),
		user(extract.RiskAbuse, hi, "She grabbed me by the throat."),
		user(extract.RiskAbuse, hi, "He said if I tell anyone he'll hurt my mum."),
		user(extract.RiskAbuse, hi, "My stepdad says I'll be in big trouble if I tell anyone what he does."),
		user(extract.RiskAbuse, med, "My boyfriend checks my phone every night and gets angry."),
		user(extract.RiskAbuse, med, "He won't let me see my friends anymore."),
		user(extract.RiskAbuse, hi, "uncle tom touches me in my private parts and says its our secret"),
		user(extract.RiskAbuse, hi, "my coach said it's our secret when he touches me"),
		user(extract.RiskAbuse, hi, "He locked me in my room for two days."),
		user(extract.RiskAbuse, hi, "My partner threatened me with a knife."),
		user(extract.RiskAbuse, hi, "I think someone is following me."),
		user(extract.RiskAbuse, med, "My husband won't let me have my own money or talk to my family."),
	}},
	{"acute distress", []riskCase{
		user(extract.RiskDistress, med, "I had a panic attack at work and couldn't breathe."),
		user(extract.RiskDistress, med, "I haven't eaten anything in three days."),
		user(extract.RiskDistress, med, "I haven't slept in four days and my heart is racing."),
		user(extract.RiskDistress, med, "I've been crying for hours and I can't stop."),
		user(extract.RiskDistress, med, "I keep having panic attacks every night."),
		user(extract.RiskDistress, med, "I can't breathe, my chest is tight and I'm shaking all over."),
		user(extract.RiskDistress, med, "i havent slept properly for days"),
	}},
	{"substance crisis", []riskCase{
		user(extract.RiskSubstance, hi, "I took way more than I usually do and I feel really wrong."),
		user(extract.RiskSubstance, hi, "I used a lot more than normal tonight and I can't feel my legs."),
		user(extract.RiskSubstance, hi, "I'm holding the bottle right now and I don't care what happens anymore."),
		user(extract.RiskSubstance, hi, "I have the pills in my hand and I don't care anymore."),
		user(extract.RiskSubstance, hi, "i've got a bag of it in front of me and honestly i don't care what happens"),
		user(extract.RiskSubstance, hi, "Drank far more than usual. Now my heart is pounding and I feel off."),
	}},
	{"children", []riskCase{
		user(extract.RiskSuicidal, med, "i want to dye"),
		user(extract.RiskSuicidal, med, "nobody likes me i wish i was ded"),
		user(extract.RiskSuicidal, med, "i wish i was never born"),
		user(extract.RiskSuicidal, hi, "i want to kil myself"),
		user(extract.RiskSuicidal, med, "evryone would be beter off without me"),
		user(extract.RiskSuicidal, med, "i dont want to be alive anymor"),
		user(extract.RiskAbuse, hi, "my dad hits me wen he is angry"),
		user(extract.RiskSuicidal, med, "i wanna be ded"),
	}},
	{"active intent and acts", []riskCase{
		user(extract.RiskSuicidal, hi, "I'm going to kill myself tonight."),
		user(extract.RiskSuicidal, hi, "I tried to overdose last week."),
		user(extract.RiskSuicidal, hi, "I took a bunch of pills on purpose yesterday."),
		user(extract.RiskSuicidal, hi, "I just want to end it."),
	}},
	{"someone else", []riskCase{
		other(extract.RiskSuicidal, "My friend said she wants to die."),
		other(extract.RiskHopelessness, "My brother keeps saying he doesn't see the point anymore."),
		other(extract.RiskSelfHarm, "My roommate has been cutting her arms again."),
	}},
	// Negatives: none, or low for a denial and the user's own resolved past.
	{"topic and media", []riskCase{
		none("We learned about suicide prevention in health class today."),
		none("My essay is about why teenagers self-harm."),
		none("I'm writing a report on domestic violence for sociology."),
		none("The main character in the book wants to die at the end."),
		none("In the movie she cuts herself and her mom finds out."),
		none("I'm reading a comic where the hero kills himself to save everyone."),
		none("Our school ran an awareness week about suicide."),
		none("I watched a documentary about people who survived overdoses."),
		none("My aunt wrote a book about her recovery from self-harm."),
		none("My friend shared her recovery story, she used to cut herself and now she's a nurse."),
		none("The podcast episode was about men who feel like a burden."),
		none("We did a project on the history of suicide in Japan."),
		none("The song is about a girl who wants to disappear forever."),
		none("I volunteered at a suicide prevention walk on Sunday."),
		none("In the game you have to escape a guy who follows you home."),
	}},
	{"hyperbole and idioms", []riskCase{
		none("I thought I was going to die on that roller coaster!"),
		none("When I had the flu last week I honestly thought I'd die."),
		none("I'm dying to see the new Marvel movie."),
		none("These shoes are killing me."),
		none("My boss will kill me if I'm late again."),
		none("My mom is going to kill me when she sees my grades."),
		none("I could kill him for eating my leftovers haha."),
		none("I'm dead tired after that shift."),
		none("That joke killed me, I was dying of laughter."),
		none("If I have to sit through another meeting I'm going to kill myself lol"),
		none("This homework is killing me."),
		none("I'd literally die without my morning coffee."),
		none("I nearly died of embarrassment when I tripped on stage."),
		none("I'm going to die if I have to eat one more salad."),
		none("I could sleep forever after that hike."),
	}},
	{"playful contact", []riskCase{
		none("My brother and I were play-fighting and he punched me in the arm."),
		none("My little sister hit me with a pillow during our pillow fight."),
		none("We were wrestling on the trampoline and my cousin pinned me down, it was so fun."),
		none("My friend pushed me into the pool at the party, it was hilarious."),
		none("Dad tickled me until I couldn't breathe from laughing."),
		none("My best friend kicked me under the table to make me stop talking lol"),
	}},
	{"accidents", []riskCase{
		none("I cut my finger chopping onions."),
		none("I burned my hand on the pan making pancakes."),
		none("I scratched my arm on a rosebush in the garden."),
		none("I cut my leg on a rock at the beach."),
		none("I burned myself on the oven door."),
		none("Got a nasty paper cut at work today."),
		none("I fell off my bike and scraped my knee until it bled."),
		none("My knife slipped and I cut my thumb pretty badly."),
		none("I hit my head on the cupboard door this morning."),
		none("I scratched my mosquito bites until they bled."),
	}},
	{"negation", []riskCase{
		user(extract.RiskSuicidal, low, "I'm not suicidal, I'm just exhausted."),
		user(extract.RiskSelfHarm, low, "I would never hurt myself, don't worry."),
		none("My husband has never hit me."),
		none("I no longer feel hopeless."),
		none("I'm not going to do anything stupid, I promise."),
		none("I don't feel like a burden anymore."),
	}},
	{"time", []riskCase{
		user(extract.RiskSuicidal, low, "Years ago I tried to kill myself, but I'm doing well now."),
		user(extract.RiskSelfHarm, low, "I used to self-harm as a teen, I've been clean for six years."),
		none("My grandfather took his own life when my dad was little."),
		none("My cousin attempted suicide back in 2015 and she's thriving now."),
		none("My uncle used to cut himself years ago, now he runs marathons."),
	}},
	{"relationship and trivial", []riskCase{
		none("I'm going to end it with Jake this weekend."),
		none("We decided to end it after five years together."),
		none("I think I need to end it with her, we fight all the time."),
		none("My boyfriend keeps lying, so I'm going to end it."),
		none("There's no point watching the rest of the season."),
		none("No point going to the store now, it's closed."),
		none("I don't see the point of homework on weekends."),
		none("There's no point arguing with my sister about politics."),
		none("What's the point of ironing shirts if you wear a sweater over them?"),
	}},
	{"ordinary", []riskCase{
		none("I'm dying my hair purple tomorrow."),
		none("I want to dye my hair blue."),
		none("I gave my old clothes away to charity."),
		none("I wrote letters to my pen pals in Japan."),
		none("I looked up how many calories are in an avocado."),
		none("I've been researching the best way to learn Spanish."),
		none("I have a plan for Friday: movie night with the kids."),
		none("Someone was waiting outside the school to pick up my cousin."),
		none("The dog followed me home from the park!"),
		none("My mom checks my homework every night."),
		none("I told my best friend a secret about my crush."),
		none("I haven't eaten sushi in years."),
		none("I haven't slept in my own bed for a week because we're on vacation."),
		none("The baby cried for hours but she's asleep now."),
		none("I took more photos than usual on this trip."),
		none("I drank way more water than usual today and I feel great."),
		none("I'm holding the baby right now, can't type much."),
		none("He held the door open for me."),
		none("My coach pushed me hard at practice today."),
		none("The trip was a burden on our budget."),
		none("Nobody noticed my new haircut lol."),
		none("I wrote a farewell letter to my team because I'm changing jobs."),
		none("Don't tell anyone but I have a crush on Sam."),
		none("I can't wake up early tomorrow, I'm so tired."),
		none("I'd rather die than wear that ugly sweater."),
	}},
}

// TestRiskFrames holds the screen to the development table; it logs the
// counts the report asks for.
func TestRiskFrames(t *testing.T) {
	var pos, caught, neg, quiet, highAlarms int
	for _, fam := range frameCases {
		for _, c := range fam.cases {
			f, ok := extract.RiskOf(c.text)
			want := extract.RiskFinding{Class: c.class, Severity: c.severity, Actor: c.actor}
			if c.class != "" && c.actor == extract.ActorUser && c.severity != low {
				pos++
				if ok && f.Actor == extract.ActorUser && f.Severity != low {
					caught++
				}
			}
			if c.class == "" || c.severity == low {
				neg++
				if !ok || f.Severity == low {
					quiet++
				}
				if ok && f.Severity == hi {
					highAlarms++
				}
			}
			if (c.class == "" && ok) || (c.class != "" && f != want) {
				t.Errorf("%s: RiskOf(%q) = %+v, %v, want %+v", fam.family, c.text, f, ok, want)
			}
		}
	}
	t.Logf("positives caught (user, medium or high): %d of %d; negatives with no alarm: %d of %d; high alarms on negatives: %d", caught, pos, quiet, neg, highAlarms)
}

// Frames read across the sentences of a message.
func TestRiskFramesAcrossSentences(t *testing.T) {
	for _, c := range []riskCase{
		none("We're reading a novel in English. The boy in it says he wants to die."),
		none("We went to the fair yesterday. I honestly thought I'd die on the big drop, it was amazing."),
		none("My brother and I were messing around. He pinned me down and sat on me."),
		none("Jake keeps lying to me. I'm going to end it tonight."),
		user(extract.RiskSubstance, hi, "Saturday was bad. I used way more than usual. Now I feel really wrong."),
		user(extract.RiskAbuse, hi, "It's a secret. My uncle touches me when mum is at work."),
		user(extract.RiskSuicidal, hi, "Everything is too much. I've picked the day."),
		other(extract.RiskSuicidal, "My friend is struggling. She said she wants to die."),
	} {
		f, ok := extract.RiskOf(c.text)
		want := extract.RiskFinding{Class: c.class, Severity: c.severity, Actor: c.actor}
		if (c.class == "" && ok) || (c.class != "" && f != want) {
			t.Errorf("RiskOf(%q) = %+v, %v, want %+v", c.text, f, ok, want)
		}
	}
}

// Frames read across consecutive user turns: the screen reads each user
// message after the user's previous one.
func TestScreenReadsThePreviousTurn(t *testing.T) {
	for _, tt := range []struct {
		turns []string
		want  []extract.Risk // of the last turn
	}{
		// Elder Tree's sighting: the second turn alone is enough.
		{[]string{"I drank on Saturday.", "Some days I don't see the point anymore."},
			[]extract.Risk{{Class: extract.RiskSuicidal, Severity: med, Actor: extract.ActorUser}}},
		// A bare "I don't see the point" after a relapse, and not after a chore.
		{[]string{"I relapsed last night.", "I don't see the point."},
			[]extract.Risk{{Class: extract.RiskHopelessness, Severity: med, Actor: extract.ActorUser}}},
		{[]string{"My teacher gave us extra worksheets.", "I don't see the point."}, nil},
		// A plan whose meaning is in the turn before.
		{[]string{"I keep thinking about ending it all.", "I've already picked the date."},
			[]extract.Risk{{Class: extract.RiskSuicidal, Severity: hi, Actor: extract.ActorUser}}},
		{[]string{"We're getting married next spring!", "We've already picked the date."}, nil},
		// A relationship or a book in the turn before.
		{[]string{"My boyfriend cheated on me again.", "I'm going to end it."}, nil},
		{[]string{"I'm reading a really sad book for class.", "The girl in it wants to die."}, nil},
		{[]string{"I'm so tired.", "I'm going to end it."},
			[]extract.Risk{{Class: extract.RiskSuicidal, Severity: hi, Actor: extract.ActorUser}}},
	} {
		s := userSession("eldertree", tt.turns...)
		res := extract.Rules(builtin(t, "eldertree"), s, s.EndedAt)
		last := s.Messages[len(s.Messages)-1].ID
		var got []extract.Risk
		for _, r := range res.Risks {
			if r.MessageID == last {
				r.MessageID, r.Source = "", "" // whose finding is TestTrainedFindingsNameTheirSource's
				got = append(got, r)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: risks of the last turn %+v, want %+v", tt.turns, got, tt.want)
		}
	}
}
