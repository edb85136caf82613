package extract_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
)

// General probes for the risk screen (issue 23 §1): sentences written for
// this test before the rules were tuned on the evaluation set's misses, in
// wording that set does not use, so that they measure the lexicons and
// frames rather than the set. Each is screened as a session of the app
// named, its turns consecutive user messages, through extract.Screen: the
// path every extraction takes.
//
// A positive must give the user a finding of at least its severity, of its
// class (or of a class listed as acceptable); "passive" positives must not
// be high (docs/safety.md reserves high for intent, plan, means, acts and
// danger now). A negative may give a low finding at most (a denial, the
// user's resolved past, someone else's words) and never a medium or high.

type generalProbe struct {
	app   string
	class string // expected class; "" for a negative
	sev   string // least severity (positives)
	max   string // greatest severity allowed (passive ideation, distress: medium)
	turns []string
}

func pos(app, class, sev string, turns ...string) generalProbe {
	return generalProbe{app: app, class: class, sev: sev, turns: turns}
}

// passive is a positive that must be medium, never high.
func passive(app, class string, turns ...string) generalProbe {
	return generalProbe{app: app, class: class, sev: extract.SeverityMedium, max: extract.SeverityMedium, turns: turns}
}

func neg(app string, turns ...string) generalProbe {
	return generalProbe{app: app, turns: turns}
}

const (
	sui  = extract.RiskSuicidal
	sh   = extract.RiskSelfHarm
	abu  = extract.RiskAbuse
	dis  = extract.RiskDistress
	sub  = extract.RiskSubstance
	high = extract.SeverityHigh
)

var generalPositives = []generalProbe{
	// Passive ideation: medium, never high.
	passive("mona", sui, "Honestly I'd be okay if I never woke up again."),
	passive("mona", sui, "Everybody's lives would be simpler without me dragging them down."),
	passive("mona", sui, "I feel like such a weight on my family, they'd manage fine without me."),
	passive("coach", sui, "If I vanished nobody would even realise for weeks."),
	passive("mona", sui, "There are days I just don't want to exist anymore."),
	passive("lara", sui, "i wish i culd go to sleep forevr"),
	passive("lara", sui, "nobody wud notice if i was gone"),
	passive("lara", sui, "sometimes i just wanna dye"),
	passive("lara", sui, "i wish i was never born. evrybody would be happyer"),
	passive("clara", sui, "My grandchildren would be better off with me gone, I've had my time."),
	passive("clara", sui, "I keep asking the Lord to take me in my sleep."),
	passive("mona", sui, "What's the point of me even being alive"),
	passive("mona", sui, "Some mornings I can't see why I should bother staying alive."),
	passive("coach", sui, "I'm sick of living, to be honest."),
	passive("eldertree", sui, "Used again last night.", "Honestly I don't see the point of any of it anymore."),
	passive("mona", sui, "I kind of hope I just don't make it through the winter."),
	passive("eldertree", sui, "my family would honestly be relieved if i was gone for good"),

	// Preparation: high.
	pos("mona", sui, high, "I've been handing out my books and records to friends since I won't be around to use them."),
	pos("mona", sui, high, "I finished writing a letter for each of my kids to read after I'm gone."),
	pos("mona", sui, high, "I've been researching what dose of my meds would be fatal."),
	pos("mona", sui, high, "I've worked out which night I'm doing it."),
	pos("coach", sui, high, "I looked up the tallest car park near me and what time it's empty."),
	pos("eldertree", sui, high, "Saturday is when I'm going to do it, everything's arranged."),
	pos("clara", sui, high, "I've given the cat to my sister and said my goodbyes, there's nothing left to sort."),
	pos("mona", sui, high, "I've been stockpiling my sleeping pills for a few weeks now."),

	// Conditional intent: high.
	pos("mona", sui, high, "If she leaves me for good, I'm done living."),
	pos("mona", sui, high, "One more night like this and I'll finish it for good."),
	pos("mona", sui, high, "if they take the kids away from me", "then that's it, i'm ending things"),
	pos("eldertree", sui, high, "If I relapse again I'm taking the whole bottle of pills."),

	// Self-harm acts without the word: high.
	pos("mona", sh, high, "I took a razor to my arm again last night."),
	pos("mona", sh, high, "I held a lighter against my skin until it blistered."),
	pos("coach", sh, high, "I keep digging my nails into my legs until they bleed."),
	pos("lara", sh, high, "i scrached my arms till they bled"),
	pos("mona", sh, high, "I've been hitting my head against the wall when it gets bad."),
	pos("eldertree", sh, high, "I sliced my thigh with a blade yesterday."),

	// Danger from others (danger, reported as abuse until adopted): high.
	pos("mona", abu, high, "There's a man who's been following me home from the bus stop every day this week."),
	pos("mona", abu, high, "My ex is sitting in his car across the street from my flat right now."),
	pos("mona", abu, high, "He pinned me against the wall and wouldn't let me go."),
	pos("coach", abu, high, "My boyfriend shoved me and I hit the table."),
	pos("mona", abu, high, "She said if I tell anyone what happened she'll hurt my little brother."),
	pos("clara", abu, high, "Someone's been trying my door handle at night and I'm frightened."),

	// Coercive control: medium.
	pos("mona", abu, med, "My husband takes my phone and I'm not allowed to see my friends anymore."),
	pos("mona", abu, med, "He decides who I can talk to and keeps my bank card."),
	pos("clara", abu, med, "My son takes my pension every week and shouts if I ask about it."),

	// A child's secret: high.
	pos("lara", abu, high, "my uncle says its our special secret what we do when mum is out"),
	pos("lara", abu, high, "the babysitter takes pictures of me in the bath and says not to tell"),
	pos("lara", abu, high, "my stepdad makes me sit on his lap and says i cant tell anyone"),
	pos("lara", abu, high, "i have a secret im not allowed to tell", "my coach touches me in the changing room"),

	// Acute distress: medium.
	passive("mona", dis, "I haven't slept in three nights and I can't stop crying."),
	passive("mona", dis, "My chest is tight and I'm panicking, I can't calm down."),
	passive("coach", dis, "I haven't eaten properly in days and I keep crying."),
	passive("mona", dis, "I'm having a full-blown panic attack right now."),
	passive("eldertree", dis, "I've been sobbing for hours and I can't stop."),
	passive("lara", dis, "i cant stop crying and my tummy hurts and im so scared"),

	// Substance crisis: high.
	pos("eldertree", sub, high, "I did way more than I normally do and my heart is going crazy."),
	pos("eldertree", sub, high, "I mixed pills with the whiskey and now I can't feel my hands."),
	pos("eldertree", sub, high, "I've got the bottle right here and honestly I don't care what happens tonight."),
	pos("eldertree", sub, high, "took a double dose of my stuff and everything's spinning, I feel really wrong"),
	pos("eldertree", sub, high, "relapsed tonight", "used way more than usual and I can't breathe properly"),
	pos("mona", sub, high, "I drank a whole bottle of vodka on my own and now I can't stand up."),

	// Explicit intent: high.
	pos("mona", sui, high, "I'm going to end it tonight."),
	pos("mona", sui, high, "I'm planning to kill myself this weekend."),
	pos("lara", sui, high, "im gonna kil myself"),
	pos("coach", sui, high, "I want to take my own life."),
}

var generalNegatives = []generalProbe{
	// Topics: school, media, awareness, someone's recovery.
	neg("mona", "For my psychology coursework I'm writing about why teenagers self-harm."),
	neg("lara", "We had a lesson on suicide prevention in PSHE today."),
	neg("mona", "My history essay is about soldiers who shot themselves in the trenches."),
	neg("mona", "I need to revise the chapter on the overdose crisis for my sociology exam."),
	neg("mona", "In the film the hero jumps off the bridge to save the girl."),
	neg("mona", "The comic I'm reading has a villain who wants to die."),
	neg("mona", "That song about wanting to disappear forever is stuck in my head."),
	neg("lara", "in the game my character died like twenty times in the lava level"),
	neg("mona", "The novel ends with her taking her own life, which made me cry."),
	neg("coach", "I'm running a 10k to raise money for a charity that works on suicide prevention."),
	neg("coach", "Our office did a training on spotting domestic abuse."),
	neg("eldertree", "My sponsor told us how he overdosed twice before he got sober, it was really inspiring."),
	neg("mona", "My aunt used to cut herself as a teen and now she's a nurse helping others."),
	neg("mona", "I'm writing a short story where the narrator plans her own death."),
	neg("mona", "We read a book in class about a boy whose dad hits him.", "It was really sad but it had a happy ending."),

	// Hyperbole and idioms.
	neg("mona", "I'm dying to see the new Marvel movie."),
	neg("mona", "This heat is killing me."),
	neg("mona", "I nearly died laughing at his joke."),
	neg("mona", "That drop on the log flume, I honestly thought I was going to die."),
	neg("coach", "My feet are killing me after that hike."),
	neg("mona", "Those brownies were to die for."),
	neg("mona", "I could have died of embarrassment when I tripped on stage."),
	neg("mona", "I'd rather die than wear those shoes."),
	neg("lara", "lol my teacher is gonna kill me when she sees my homework"),
	neg("mona", "My mum will murder me if I'm late again."),
	neg("mona", "I'm so tired I could sleep for a hundred years."),
	neg("mona", "I'm going to disappear into this book for the weekend."),
	neg("mona", "I had the flu last week and honestly thought I was dying."),

	// Playful contact.
	neg("lara", "my brother and i were play-fighting and he pinned me to the sofa"),
	neg("lara", "We had a huge pillow fight and my cousin whacked me in the face lol."),
	neg("coach", "My friend tackled me during rugby practice."),
	neg("mona", "He held me so tight when I got off the plane."),

	// Accidents and minor injuries.
	neg("mona", "I cut my thumb slicing bagels this morning."),
	neg("mona", "I burned my arm on the baking tray."),
	neg("lara", "i fell off my scooter and scraped my knee, it bled a bit"),
	neg("mona", "The cat scratched my arm until it bled."),
	neg("clara", "I fell in the garden but only bruised my hip, nothing serious."),

	// Other people's past, the user's resolved past.
	neg("mona", "My granddad was beaten by his father when he was a boy."),
	neg("mona", "My mum tried to kill herself in the nineties but she's fine now."),
	neg("eldertree", "Back when I was drinking, I used to want to die most nights. I'm 3 years sober now."),
	neg("mona", "Years ago I used to burn myself, but I haven't in a long time."),
	neg("mona", "I used to have panic attacks at uni but therapy really helped."),

	// "End it" about a relationship, a contract, a game.
	neg("mona", "I think it's time to end it with Jake, we just fight all the time."),
	neg("mona", "My phone contract is a rip-off.", "If they raise the price again I'm ending it."),
	neg("mona", "We ended things last month and honestly I'm relieved."),
	neg("lara", "im done with this level, im ending it here and starting over"),

	// "No point" about trivial things.
	neg("mona", "There's no point ironing this shirt, it'll crease again."),
	neg("mona", "No point going to the shop now, it's closed."),
	neg("mona", "I don't see the point of fancy coffee machines."),

	// Ordinary words near the lexicons.
	neg("lara", "I have a secret: I ate the last cookie!"),
	neg("lara", "my friend told me a secret about her crush and i cant tell anyone"),
	neg("mona", "My little brother keeps following me around the house, so annoying."),
	neg("mona", "Someone was waiting outside my house, it was the delivery guy with my parcel."),
	neg("mona", "I've given away all my old clothes to charity because I'm moving."),
	neg("coach", "I wrote a goodbye card for my coworker who's retiring."),
	neg("mona", "I looked up how many paracetamol I can safely take for my back pain."),
	neg("mona", "I haven't slept much this week because of the new baby, but we're managing."),
	neg("eldertree", "I drank way more than usual at the wedding, so hungover today lol."),
	neg("coach", "My coach pushes me really hard in training."),
	neg("clara", "My daughter takes me shopping every week and we have tea after."),
	neg("mona", "I'm done with this job, I want out of the whole industry."),
}

// screenProbe screens p's turns as one session of p's app and returns the
// user's strongest finding and the strongest of anyone's.
func screenProbe(p generalProbe) (user, top extract.Risk) {
	start := rulesNow.Add(-time.Hour)
	s := extract.Session{ID: "probe", UserID: "probe", App: p.app, StartedAt: start, Timezone: "UTC"}
	for i, t := range p.turns {
		s.Messages = append(s.Messages, extract.Message{ID: fmt.Sprintf("m%d", i), Role: "user", Content: t, At: start})
	}
	res := extract.Result{App: p.app}
	extract.Screen(&res, prompts.Policy{Rules: p.app}, s)
	rank := map[string]int{extract.SeverityLow: 1, extract.SeverityMedium: 2, extract.SeverityHigh: 3}
	for _, r := range res.Risks {
		if r.Actor == extract.ActorUser && rank[r.Severity] > rank[user.Severity] {
			user = r
		}
		if rank[r.Severity] > rank[top.Severity] {
			top = r
		}
	}
	return user, top
}

func TestRiskGeneralProbes(t *testing.T) {
	t.Parallel()
	if len(generalPositives) < 40 || len(generalNegatives) < 40 {
		t.Fatalf("%d positives, %d negatives: the probes need 40 of each", len(generalPositives), len(generalNegatives))
	}
	rank := map[string]int{extract.SeverityLow: 1, extract.SeverityMedium: 2, extract.SeverityHigh: 3}
	caught, right := 0, 0
	for _, p := range generalPositives {
		u, _ := screenProbe(p)
		text := strings.Join(p.turns, " | ")
		switch {
		case u.Class == "":
			t.Errorf("missed %s/%s (%s): %q", p.class, p.sev, p.app, text)
			continue
		case rank[u.Severity] < rank[p.sev]:
			t.Errorf("%q (%s): %s/%s, want at least %s", text, p.app, u.Class, u.Severity, p.sev)
		case p.max != "" && rank[u.Severity] > rank[p.max]:
			t.Errorf("%q (%s): %s/%s, want at most %s", text, p.app, u.Class, u.Severity, p.max)
		case u.Class != p.class:
			t.Errorf("%q (%s): class %s, want %s", text, p.app, u.Class, p.class)
		default:
			right++
		}
		caught++
	}
	alarms := 0
	for _, p := range generalNegatives {
		if _, top := screenProbe(p); rank[top.Severity] > rank[extract.SeverityLow] {
			alarms++
			t.Errorf("false alarm %s/%s (%s): %q", top.Class, top.Severity, p.app, strings.Join(p.turns, " | "))
		}
	}
	t.Logf("general probes: caught %d of %d positives (%d right in class and severity); %d false alarms of %d negatives",
		caught, len(generalPositives), right, alarms, len(generalNegatives))
}
