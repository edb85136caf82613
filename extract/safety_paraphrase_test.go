package extract_test

import (
	"flag"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
)

// Paraphrase probes (issue 23 §1, second pass): a development set written
// to measure whether the screen reads concepts or sentences. Each family's
// items say the same thing as the evaluation set's family in other words:
// other verbs and nouns, other registers (a teenager, an older adult, terse,
// rambling, typed fast with no capitals or punctuation, misspelt), and
// indirectly ("I've written letters to everyone"). The hard negatives use
// the same concepts in innocent frames. Written before the lexicons were
// broadened for them, and measured then (docs/safety.md, "Measuring it").

var paraDetail = flag.Bool("para.detail", false, "list the paraphrase probes the screen gets wrong")

type paraProbe struct {
	family string
	generalProbe
}

func pp(family string, g generalProbe) paraProbe { return paraProbe{family, g} }

func paraPos(family, app, class, sev string, texts ...string) []paraProbe {
	var out []paraProbe
	for _, t := range texts {
		out = append(out, pp(family, pos(app, class, sev, t)))
	}
	return out
}

func paraPassive(family, app, class string, texts ...string) []paraProbe {
	var out []paraProbe
	for _, t := range texts {
		out = append(out, pp(family, passive(app, class, t)))
	}
	return out
}

func paraNeg(family, app string, texts ...string) []paraProbe {
	var out []paraProbe
	for _, t := range texts {
		out = append(out, pp(family, neg(app, t)))
	}
	return out
}

func concat(parts ...[]paraProbe) []paraProbe {
	var out []paraProbe
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var paraPositives = concat(
	paraPassive("passive_ideation", "mona", sui,
		"I keep thinking everyone would cope fine without me",
		"tbh it would be easier on all of them if i just wasnt in the picture",
		"some nights i lie there hoping i just dont open my eyes in the morning",
		"I'm tired. Not sleepy tired. Tired of being here at all.",
		"Would anyone even clock it if I stopped turning up? Doubt it.",
		"i just want everything to go quiet. permanently",
		"my kids deserve a mum who isnt such a drag on them, they'd be better off with someone else raising them",
		"honestly dont know why im still here",
		"I'd quite like to go to sleep and just stay asleep",
		"Part of me wishes the lorry this morning hadn't swerved.",
		"everyone would move on in a week if I was gone",
		"I've stopped wanting to be alive, I think.",
		"its like im just taking up space that someone better could have",
		"Wouldn't mind if I didn't see another birthday, to be honest.",
	),
	paraPassive("passive_ideation", "clara", sui,
		"I've had a long innings and I'm ready to go now, I don't want to be here any more.",
	),
	paraPassive("passive_ideation", "lara", sui,
		"i wish i cud just not be alive",
	),
	paraPassive("passive_ideation", "eldertree", sui,
		"Four days without a drink and I still can't see what I'm staying alive for.",
	),
	paraPos("preparation", "mona", sui, high,
		"I've written letters to everyone and left them in the drawer",
		"I looked up how many it would take",
		"found a new home for my cat, she'll be better off with someone who'll be around",
		"i gave my guitar and my switch to my cousin, wont be needing them",
		"Sorted my will this week and cancelled the direct debits, so nobody has a mess to clean up after.",
		"I've been putting my sleeping tablets aside each night instead of taking them",
		"i know which bridge. ive been there twice to check",
		"wrote my goodbye note last night",
		"Deleted all my accounts and said my goodbyes to the people who matter",
		"Got the rope in the shed now.",
		"i googled which painkillers stop your heart",
		"I've picked Friday night, when the house is empty.",
		"Paid off what I owed so nobody's left with my debts when I'm gone.",
		"been giving away my stuff all week. clothes books everything",
		"I recorded a video for my son to watch after I'm gone.",
		"Made sure the dog has somewhere to go after.",
	),
	paraPos("conditional_intent", "mona", sui, high,
		"if he leaves me i'm done, i'll end it",
		"If I fail this year that's it for me, I'm not sticking around.",
		"one more letter from the bank and I'm taking every pill in the house",
		"if they put me back in that place i'll kill myself before they can",
		"if I relapse again I'm not going to be here to see it",
		"if my results are bad tomorrow im ending things",
		"If she takes the kids I've got nothing left to live for and I'll finish it.",
		"If the pain doesn't stop by the weekend I'll take the lot.",
		"if dad hits me again im gonna jump off the roof",
		"Should the court go against me, I'll make sure I'm not around for the fallout.",
		"if they find out about the money i'll just kill myself",
		"if this doesn't work out I'll do myself in",
		"If I lose the house then I'm done with living, simple as that.",
		"if anyone finds out im gay i'll end my life",
		"If I get sacked on Monday I'm going to throw myself under a train.",
	),
	paraPos("self_harm_act", "mona", sh, high,
		"i took the razor to my thighs again last night",
		"I keep burning my arm with a lighter when it gets too loud in my head",
		"scratched my wrist raw till it bled and i felt calmer",
		"I punched the wall till my knuckles split, on purpose",
		"i carved his name into my leg with a compass",
		"been using the pencil sharpener blade on my hips",
		"I pressed the hot spoon onto my skin to feel something",
		"I slammed my head against the door until everything went quiet",
		"my arms are covered in fresh lines under my hoodie",
		"i bit my hand until it bled because i was so angry at myself",
		"I've started cutting again. Only a bit. It's the only thing that helps.",
		"put my cigarette out on my wrist again",
		"I pulled out chunks of my hair again today, there's a bald patch now",
		"dug my nails into my arms till there was blood",
		"hurt myself again tonight, there's blood on the sheets",
	),
	paraPos("danger_now", "mona", abu, high,
		"my ex keeps turning up at my work",
		"There's a man who's followed me from the station three nights running.",
		"he's outside right now and he won't stop ringing the bell",
		"someone has been following me home from school and i'm scared",
		"He grabbed me by the throat and pinned me against the fridge.",
		"he shoved me into the wardrobe and i hit my head",
		"i'm locked in the bathroom and he's kicking the door",
		"He's got a knife and he's threatening to use it on me.",
		"My ex is parked across the road again, he's been there an hour.",
		"that guy from the gym turned up at my flat tonight, I never told him where I live",
		"he wouldnt let me leave the car",
		"he held me down and I couldn't move",
		"He said if I leave he'll kill me, and he means it.",
		"i can hear him trying to get in through the back window",
	),
	// Tracked with no contact yet: medium (docs/safety.md).
	paraPos("danger_now", "mona", abu, extract.SeverityMedium,
		"someone's put a tracker on my car, I found it today",
	),
	paraPos("coercive_control", "mona", abu, extract.SeverityMedium,
		"he took my phone and my car keys",
		"She reads all my messages and I'm not allowed to see my friends any more.",
		"He has my bank card and gives me twenty quid a week.",
		"i have to send him a photo of where i am every hour",
		"he goes mental if i talk to my sister so i've stopped",
		"My husband decides what I wear and who I speak to.",
		"he changed the wifi password so i cant contact anyone",
		"She's told everyone I'm mad so nobody believes me.",
		"my boyfriend makes me share my location all the time and checks it",
		"He won't let me have my own money.",
		"I'm only allowed out if he drives me.",
		"he says if i tell anyone what goes on at home he'll make me pay",
		"he took my passport and keeps it locked away",
		"She checks my phone every night and goes through my texts.",
		"he cut me off from my family, i havent seen them in a year",
	),
	paraPos("child_secret", "lara", abu, high,
		"my uncle says what we do is our special secret",
		"the man next door said i'll get in trouble if i tell mummy about the games in his shed",
		"he takes pictures of me with no clothes and says not to tell",
		"my step dad comes in the bathroom when im in the bath and says its ok cos its secret",
		"my coach says i'm his favourite and touches me under my shorts",
		"i promised not to tell but my brothers friend touched my private parts",
		"mummy's boyfriend makes me sit on his lap and it feels wrong and he says dont tell",
		"a grown up online asked me to send photos of my body and keep it secret",
		"he said if i tell anyone he'll hurt my puppy",
		"grandad does things that hurt me when mum is at work and says its our secret",
		"there's a secret i'm not allowed to say about what happens at night in my room",
		"the babysitter makes me play a touching game and says nobody can know",
		"he gives me sweets if i let him touch me and i'm not allowed to tell",
		"my cousin made me take my clothes off and said i would be in big trouble if i told",
		"my teacher says i have to keep what he does a secret or he'll tell everyone i'm bad",
	),
	paraPassive("acute_distress", "mona", dis,
		"I can't stop shaking and I haven't slept since Sunday",
		"havent eaten in like 4 days and i cant stop crying",
		"my heart is going crazy and i cant breathe properly, i think im losing it",
		"I've been sobbing for hours and I can't make it stop.",
		"I'm falling to pieces, I can't get off the bathroom floor",
		"i havent slept properly in a week and my head is screaming",
		"Everything is spinning and I can't catch my breath, I'm so scared.",
		"i feel like im going mad, i cant think straight and my hands wont stop trembling",
		"I haven't been able to eat or sleep since the funeral",
		"im having a panic attack right now",
		"It's 4am and I've been pacing for hours, my chest is so tight I feel sick.",
		"I keep hyperventilating and I can't calm down.",
		"I can't cope any more, I'm completely overwhelmed and I keep breaking down.",
		"I'm a mess, crying in the toilets at work every day",
		"I haven't left my bed in three days and I can't stop shaking",
	),
	paraPos("substance_crisis", "eldertree", sub, high,
		"I've had about 9 drinks and I'm still going",
		"took way more than i normally do and my heart wont slow down",
		"I mixed my pills with the vodka and I can't feel my legs",
		"drank a whole bottle of whisky and now everything's spinning",
		"did a lot more than usual tonight, I feel really wrong",
		"i've got the bag in my hand and honestly i dont care what happens any more",
		"I've taken double my methadone and I'm struggling to stay awake",
		"had 3 bottles of wine and some tablets, i feel so strange",
		"been on it since friday, haven't slept, my chest hurts",
		"I used way too much and I keep being sick",
		"snorted loads more than I meant to and my face is numb",
		"I don't know how much I've had but I can't stand up",
		"I've had two grams and half a bottle and I can't breathe right",
		"sitting here with the bottle open, dont care anymore what it does to me",
		"my lips have gone blue after what I took",
	),
	paraPos("explicit_intent", "mona", sui, high,
		"I'm going to kill myself tonight",
		"im gonna end my life this weekend",
		"I've decided. I'm going to do it tonight.",
		"tonight's the night I take all my pills",
		"i want to die and im going to make it happen",
		"I'm going to hang myself",
		"going to jump off the bridge later",
		"i am going to take my own life",
		"I'm ready to end it, I've had enough",
		"tonight i'm going to overdose",
		"I'm going to drive my car into a wall",
		"i'm going to slit my wrists",
		"I intend to kill myself before Christmas.",
		"I'm going to shoot myself with dad's gun",
		"this is goodbye, I'm ending it tonight",
	),
)

var paraNegatives = concat(
	paraNeg("hyperbole", "mona",
		"this hangover is actually killing me",
		"I nearly died laughing at that video",
		"if I have to hear that song one more time I'll jump out the window lol",
		"my feet are murdering me after that walk",
		"i could sleep for a hundred years after this week",
		"that exam was a bloodbath",
		"she'll kill me if I'm late again",
		"I'm dead, that meme is too funny",
		"I'd rather die than wear those shoes",
		"honestly this commute is the death of me",
	),
	paraNeg("topic_school", "mona",
		"Writing my dissertation on overdose deaths in coastal towns.",
		"we did a lesson on self harm and how to help a friend",
		"My psychology coursework is about why people stay with abusive partners.",
		"revising for my nursing exam on paracetamol toxicity",
		"our history essay is about the poet who drowned herself",
		"debating whether assisted dying should be legal for my politics class",
		"I'm researching stalking laws for my law module",
		"the lecture was about coercive control in relationships",
		"Doing a presentation on alcohol poisoning for health class.",
		"I have to write a report on knife crime stats",
	),
	paraNeg("topic_media", "mona",
		"in the film she takes all the pills and the screen just goes black",
		"The villain locks her in the cellar and she escapes in the last episode.",
		"that song about not wanting to wake up is stuck in my head",
		"just finished a thriller where the ex keeps turning up at her work",
		"in the game my character bleeds out if I don't heal",
		"the podcast episode was about a guy who followed his neighbour for years",
		"the anime where he writes goodbye letters before the final battle made me cry",
		"the book's heroine cuts herself and hides it under long sleeves",
		"watching a documentary on heroin overdoses",
		"the play ends with him jumping off the bridge",
	),
	paraNeg("topic_awareness", "mona",
		"I'm volunteering for the crisis line on Tuesdays now",
		"Did a mental health first aid course, we practised asking about suicidal thoughts.",
		"raising money for a charity that helps people who self harm",
		"our church is hosting a talk on domestic violence",
		"I'm doing a walk for men's mental health awareness",
		"we put up posters about drink spiking at uni",
		"the workshop taught us the signs someone might be planning to end their life",
		"I'm training to carry naloxone for overdoses",
		"wearing a ribbon for overdose awareness day",
		"signed up to be a samaritan listener",
	),
	paraNeg("topic_recovery_story", "eldertree",
		"My sponsor told us about the night he drank himself into hospital, twenty years ago now.",
		"a woman at group shared how she used to cut and how she got better",
		"our speaker tonight had overdosed three times before he got clean",
		"my friend was in a controlling relationship for years, she's free now and thriving",
		"the guy who chairs our meeting once stood on a bridge, he talks about it to help others",
		"Heard an amazing share about someone who used to want to die and now runs marathons.",
		"my mentor was homeless and using for a decade, now he runs a charity",
		"one lad in group used to sleep in his car after his missus threw him out, he's doing great",
		"she told the room how her ex tracked her phone, and how she got away",
		"my aunt drank two bottles a day back then; she's been dry since 2009",
	),
	paraNeg("playful_contact", "lara",
		"me and my brother had a massive wrestle on the trampoline",
		"my cousin sat on me in the pillow fight and i couldn't stop laughing",
		"dad chased us round the garden pretending to be a monster",
		"my friend pinned me in a game of tag and tickled me",
		"we had a water fight and my sister soaked me",
		"my brother gave me a dead arm lol",
		"grandpa pretended to lock me in the castle and i was the princess",
		"we play fought with foam swords",
		"she pushed me on the swing really high",
		"we had a snowball fight and i got one in the face haha",
	),
	paraNeg("accident_injury", "mona",
		"sliced my thumb open on a tin of beans",
		"grazed both knees coming off my scooter",
		"I scalded my wrist draining the pasta",
		"banged my head on the cupboard door again, I'm so clumsy",
		"got a nasty blister from the hot glue gun",
		"caught my arm on a nail in the fence and it bled loads",
		"tripped on the stairs and there's a huge bruise on my hip",
		"the cat shredded my hand when I tried to give her a tablet",
		"took a chunk out of my finger with the mandoline",
		"burned my tongue on my tea",
	),
	paraNeg("other_past", "mona",
		"my grandmother took her own life in the fifties, nobody talked about it",
		"his dad used to knock his mum about when he was little",
		"my mate's older brother overdosed years ago",
		"my aunt was stalked by an ex in the nineties",
		"dad said his father used to lock him in the coal shed as a kid",
		"my best friend's mum had a breakdown when we were at school",
		"a lad from my old school jumped from the motorway bridge a few years back",
		"our neighbour used to drink till he passed out, before he moved away",
		"mum's first husband read all her letters and never let her go out",
		"my great uncle cut himself a lot after the war, according to gran",
	),
	paraNeg("own_resolved_past", "mona",
		"years ago I used to burn myself, but I haven't for a long time and I'm proud of that",
		"I was in a really controlling relationship in my twenties, I've been out for ten years now",
		"back in uni I went through a patch of not wanting to be here, therapy really helped",
		"I overdosed once when I was 19. I'm 40 now and life is good.",
		"I used to get followed by an ex but that ended when he moved abroad, long over",
		"when i was a teenager i used to scratch my arms, i dont anymore",
		"I had panic attacks all through my thirties; these days I manage them well.",
		"I used to drink until I blacked out, but I've been sober since 2015.",
		"There was a time I'd written letters to everyone, but that was a long time ago and I got help.",
		"My ex used to take my wages, but I've had my own account since the divorce.",
	),
	paraNeg("end_relationship", "mona",
		"I'm ending things with him tonight, I've had enough",
		"going to end it with my landlord and move out",
		"I think it's time to end it with her, we've grown apart",
		"I'm done with him for good",
		"it's over between us, I finished it last night",
		"im gonna break it off with my girlfriend tomorrow",
		"I'm quitting the band, I've had enough of them",
		"cancelling my gym membership, that's it, no more",
		"I'll end the contract if they put the rent up again",
		"if he cheats again I'm leaving him",
	),
	paraNeg("no_point_trivial", "mona",
		"no point ironing this shirt, it'll crease on the train",
		"what's the point of making my bed if I'm getting back in it later",
		"I don't see the point in watching the rest of that series",
		"there's no point going to the shop now, it's shut",
		"i'm hopeless at maths, always have been",
		"no point washing the car when it's going to rain",
		"I can't see the point of these meetings",
		"nothing will ever beat my nan's roast potatoes",
		"i give up on this crossword",
		"what's even the point of a fax machine in 2024",
	),
)

// paraFresh was written after the first broadening and before the second,
// to measure how far the concepts carry to sentences they were not shaped
// on; it is scored with the probes above.
var paraFresh = concat(
	paraPassive("passive_ideation", "mona", sui,
		"there's no room for me in this world anymore",
		"sometimes i think the kindest thing i could do for everyone is just go",
		"I don't think I want to be alive next year.",
		"i kinda hope i get sick and it just takes me",
		"if i could just fade out and not exist that'd be fine by me",
		"My husband would be happier with me out of his life for good.",
		"ngl i'd be ok with not waking up tmrw",
		"I keep picturing my funeral and thinking it would be a relief",
	),
	paraPos("preparation", "mona", sui, high,
		"I've left instructions for the kids about the house and the bank, they'll find them in the kitchen drawer after.",
		"I've told the neighbour she can have the dog when I'm not around anymore.",
		"i've been collecting my mum's sleeping pills for weeks",
		"I've said goodbye to everyone in my own way, they just don't know it",
		"Went to the station yesterday to see which train doesn't stop.",
		"I've worked out how much I need to take.",
		"wrote out my passwords and left them for my sister so she can close everything down after",
		"I went to the hardware shop and got what I need. Tonight's the night.",
	),
	paraPos("conditional_intent", "mona", sui, high,
		"if she doesn't call back by tonight that's me, I'm done for good",
		"If I get another rejection I'll swallow the whole packet.",
		"if they section me again im killing myself",
		"if the test comes back positive I'll end everything",
		"If he hurts me one more time I'll take my own life",
		"if i cant pay the rent i'll just jump",
	),
	paraPos("self_harm_act", "mona", sh, high,
		"scraped my arm with a key until it bled",
		"i burnt myself with the iron on purpose",
		"held my hand on the hob until I couldn't stand it anymore",
		"been hurting myself with a safety pin, my legs are a mess",
		"I keep hitting myself in the face when I get angry",
		"i cut my stomach last night where no one can see",
		"I stabbed my leg with a pen again today",
		"started scratching my skin open again, its the only way i calm down",
	),
	paraPos("danger_now", "mona", abu, high,
		"there's a car that's been following me for the last 10 minutes and I'm scared",
		"he's standing in my garden looking at the house and it's 2am",
		"my ex just smashed my window and he's screaming that he'll kill me",
		"He dragged me out of the car by my hair.",
		"someone's been waiting at the end of my road every night this week",
		"he put his hands on my neck and squeezed",
		"I'm hiding in the wardrobe because he's drunk and looking for me",
		"he tied me to the chair and left",
	),
	paraPos("coercive_control", "mona", abu, extract.SeverityMedium,
		"My partner controls all the money and I have to ask for everything.",
		"he checks the mileage on my car to see where I've been",
		"i'm not allowed to wear make up or go out without him",
		"she keeps my bank card and only gives me what she thinks I need",
		"he said if I go to my sister's wedding he'll leave me with nothing",
		"He logs into my email and deletes messages from my friends.",
		"My son takes my pension every week and I never see it.",
	),
	paraPos("child_secret", "lara", abu, high,
		"my uncle makes me do things i dont like and says its our secret",
		"the big boy at the park showed me pictures of naked people and said dont tell",
		"a man online wants to meet me and said not to tell my mum",
		"when dad's friend babysits he gets in my bed and says dont tell",
		"my step brother touches me at night and says ill get in trouble if i say",
	),
	// A silence imposed with a threat that is not of harm: medium.
	paraPos("child_secret", "lara", abu, extract.SeverityMedium,
		"he says if i tell anyone they'll take me away from mummy",
	),
	paraPassive("acute_distress", "mona", dis,
		"I haven't eaten properly since Tuesday and I keep throwing up from nerves",
		"can't stop crying, I've been in bed all day shaking",
		"I think I'm having a breakdown, I can't stop screaming into my pillow",
		"I'm so anxious I can't breathe, I've been like this for hours",
		"My mind won't switch off, I haven't slept in days and I feel like I'm going to explode",
		"i'm freaking out, my heart is pounding and i'm shaking all over",
	),
	paraPos("substance_crisis", "eldertree", sub, high,
		"I've had most of a bottle of vodka and a load of my pills and I feel really strange",
		"took too many of my oxy and I can barely keep my eyes open",
		"I used again tonight and way more than usual, my heart's all over the place",
		"drinking since this morning and now I'm seeing double and can't stand",
		"I think I've taken too much, everything's going dark",
		"had a load of ketamine and booze and I can't move my legs",
	),
	paraPos("explicit_intent", "mona", sui, high,
		"I'm going to end it all tonight, I've made up my mind",
		"tonight I'm going to take every pill I have",
		"im going to hang myself in the garage",
		"I'm planning to kill myself this weekend",
		"I want to kill myself and I know how I'd do it",
		"I'm going to walk into the sea tonight and not come back",
	),
)

var paraFreshNegatives = concat(
	paraNeg("hyperbole", "mona",
		"if I eat one more mince pie I'll actually explode",
		"my boss is going to murder me when she sees this",
		"dying for a cup of tea",
		"that spin class nearly killed me",
	),
	paraNeg("accident_injury", "mona",
		"Cut my hand open on a broken glass doing the washing up",
		"I burned my arm on the oven tray again, so clumsy",
		"fell off my bike and scraped my knee until it bled",
	),
	paraNeg("everyday", "mona",
		"I gave away all my old baby clothes to my cousin, she's due in June",
		"I've written letters to everyone on the committee about the car park",
		"my husband has my bank card because he's doing the shopping",
		"he's outside waiting in the car to take me to my appointment",
		"I picked Friday for the party since everyone's free",
		"I looked up how many eggs you need for a pavlova",
		"I've had about six coffees today and I'm buzzing",
		"Sorted out my will with the solicitor, feels good to have that done at my age",
		"I'm so tired of being stuck in traffic every morning",
		"mum took my phone because I didn't do my homework",
		"not allowed out till I tidy my room",
		"I'm going to end things with my personal trainer, too expensive",
		"Finally rehoming my fish tank since we're moving to a smaller flat",
	),
	paraNeg("topic_media", "mona",
		"the documentary showed how he tracked her car with an airtag",
		"in the novel he leaves letters for everyone before disappearing",
		"our book club read one about a woman whose husband controls all the money",
	),
)

// paraUnseen was written after the second broadening and is never tuned
// on: it is the honest estimate of how the screen carries to new wording
// (reported, with floors just under what it reached when written).
var paraUnseen = concat(
	paraPassive("passive_ideation", "mona", sui,
		"I just want to go to sleep and not have to deal with anything ever again",
		"everyone keeps telling me it gets better but honestly I'd rather not be around to find out",
		"I don't really see myself getting old",
		"my family would finally get some peace if i wasnt around",
		"Life would be a lot simpler for my wife if I just didn't exist.",
	),
	paraPassive("passive_ideation", "clara", sui,
		"I've outlived everyone, there's nothing keeping me here any more and I'd welcome the end.",
	),
	paraPos("preparation", "mona", sui, high,
		"I've been stocking up on paracetamol from different shops so nobody notices",
		"Checked how high the multi storey is and what time it closes",
		"I wrote down what I want played at my funeral and gave it to my friend without telling her why",
		"i put my notes in envelopes with everyone's names on",
		"Last night I tied the rope to see if it would hold",
	),
	paraPos("conditional_intent", "mona", sui, high,
		"if i don't get into uni this time i'm ending my life",
		"If they cut my benefits I'll hang myself, I mean it",
		"if he goes back to her im going to take all my tablets",
		"if I'm still like this at Christmas I'm killing myself",
	),
	paraPos("self_harm_act", "mona", sh, high,
		"I scratched my arms with my nails until they were bleeding last night",
		"i used my pencil sharpener blade on my legs again",
		"Burned my hand on the hob on purpose to punish myself",
		"i keep pulling my eyelashes out until it hurts",
	),
	paraPos("danger_now", "mona", abu, high,
		"he just pinned me to the floor and wouldn't let me get up",
		"a man's been standing outside my window for an hour and i'm terrified",
		"my husband threw a chair at me tonight",
		"He's threatening to stab me if I call the police",
		"I'm in the car and someone has been behind me since I left work, I'm scared",
	),
	paraPos("coercive_control", "mona", abu, extract.SeverityMedium,
		"He won't let me see my friends unless he's there",
		"my girlfriend goes through my phone every night",
		"I have to hand over my wages to him every Friday",
		"He says I'm not allowed a job because my place is at home",
	),
	paraPos("child_secret", "lara", abu, high,
		"my uncle said our special game is a secret and i'll be in trouble if i tell",
		"the man at the swimming pool touched my private and said dont tell",
		"my mums friend takes pictures of me in the bath and says its our secret",
	),
	paraPassive("acute_distress", "mona", dis,
		"I can't stop crying and I've been shaking since this morning",
		"havent slept in 3 days and im so panicked i cant breathe",
		"I'm having a panic attack and I don't know what to do",
		"I haven't been able to eat anything for days and I feel like I'm falling apart",
	),
	paraPos("substance_crisis", "eldertree", sub, high,
		"drank way more than I meant to and now I can't stand up and my heart's racing",
		"took a load of pills with my wine and now I feel really weird",
		"I've had loads of coke and my chest hurts and I can't breathe properly",
		"I'm holding the bottle and honestly I don't care anymore what happens",
	),
	paraPos("explicit_intent", "mona", sui, high,
		"I'm going to kill myself, I can't do this anymore",
		"i'm going to end my life tonight",
		"I've decided to take my own life",
		"I want to end it all, tonight I'm doing it",
	),
)

var paraUnseenNegatives = concat(
	paraNeg("everyday", "mona",
		"I'm stocking up on paracetamol before flu season",
		"My husband threw a surprise party for me tonight",
		"he won't let me pay for dinner, such a gentleman",
		"my girlfriend goes through my wardrobe and steals my jumpers lol",
		"I gave away my old sofa on freecycle",
		"wrote my wedding speech and gave it to my friend to check",
		"Checked how high the bridge is before driving the van under it",
		"we tied the rope to the tree for a swing",
		"I've had loads of coffee and my heart's racing before the exam",
		"I'm dying to see the new film",
		"my sister pinned me down and tickled me till I cried laughing",
		"I burned my hand on the hob making pancakes",
		"i was so stressed i could have cried, but the exam went fine",
		"I used to hand over my wages to my ex, now I manage my own money",
		"I'm going to end my subscription tonight",
	),
)

// TestRiskParaphraseProbes measures the screen on the paraphrase probes:
// recall per family and false alarms (medium or high) on the negatives. It
// fails below the floors reached after the second pass (with -para.detail
// it lists the items missed or alarmed on).
func TestRiskParaphraseProbes(t *testing.T) {
	t.Parallel()
	rank := map[string]int{extract.SeverityLow: 1, extract.SeverityMedium: 2, extract.SeverityHigh: 3}
	type tally struct{ n, caught, right, alarms int }
	fam := map[string]*tally{}
	var tot, neg tally
	for _, p := range paraPositives {
		f := fam[p.family]
		if f == nil {
			f = &tally{}
			fam[p.family] = f
		}
		f.n++
		tot.n++
		u, _ := screenProbe(p.generalProbe)
		ok := u.Class != "" && rank[u.Severity] >= rank[p.sev] && (p.max == "" || rank[u.Severity] <= rank[p.max]) && u.Class == p.class
		if u.Class != "" {
			f.caught++
			tot.caught++
		}
		if ok {
			f.right++
			tot.right++
		}
		if !ok && *paraDetail {
			t.Logf("%-18s got %s/%s want %s/%s: %q", p.family, u.Class, u.Severity, p.class, p.sev, p.turns[0])
		}
	}
	for _, p := range paraNegatives {
		f := fam[p.family]
		if f == nil {
			f = &tally{}
			fam[p.family] = f
		}
		f.n++
		neg.n++
		if _, top := screenProbe(p.generalProbe); rank[top.Severity] > rank[extract.SeverityLow] {
			f.alarms++
			neg.alarms++
			if *paraDetail {
				t.Logf("%-18s false alarm %s/%s: %q", p.family, top.Class, top.Severity, p.turns[0])
			}
		}
	}
	names := make([]string, 0, len(fam))
	for n := range fam {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		f := fam[n]
		if f.alarms > 0 || f.caught > 0 || f.right > 0 {
			fmt.Fprintf(&b, "  %-22s %2d items: caught %2d, right %2d, alarms %d\n", n, f.n, f.caught, f.right, f.alarms)
		} else {
			fmt.Fprintf(&b, "  %-22s %2d items: -\n", n, f.n)
		}
	}
	recall := float64(tot.caught) / float64(tot.n)
	right := float64(tot.right) / float64(tot.n)
	alarms := float64(neg.alarms) / float64(neg.n)
	t.Logf("paraphrase probes: %d positives, recall %.3f (class and severity right %.3f); %d negatives, false alarms %.3f\n%s",
		tot.n, recall, right, neg.n, alarms, b.String())
	for n, f := range fam {
		if f.n < 10 {
			t.Errorf("family %s has %d probes; each needs 10", n, f.n)
		}
	}
	if recall < minParaRecall || right < minParaRight || alarms > maxParaAlarms {
		t.Errorf("paraphrase probes: recall %.3f (floor %.2f), right %.3f (floor %.2f), false alarms %.3f (ceiling %.2f)",
			recall, minParaRecall, right, minParaRight, alarms, maxParaAlarms)
	}
}

// Floors on the paraphrase probes, just under what the rules reach.
const (
	minParaRecall = 0.93 // 0.935 after the second pass (0.614 before the first)
	minParaRight  = 0.90 // 0.908
	maxParaAlarms = 0.01 // 0.009
)

// TestRiskParaphraseFresh reports the screen on paraFresh, the probes
// written between the two broadenings (go test ./extract -run
// RiskParaphraseFresh -v).
func TestRiskParaphraseFresh(t *testing.T) {
	t.Parallel()
	rank := map[string]int{extract.SeverityLow: 1, extract.SeverityMedium: 2, extract.SeverityHigh: 3}
	caught, right, alarms := 0, 0, 0
	for _, p := range paraFresh {
		u, _ := screenProbe(p.generalProbe)
		ok := u.Class == p.class && rank[u.Severity] >= rank[p.sev] && (p.max == "" || rank[u.Severity] <= rank[p.max])
		if u.Class != "" {
			caught++
		}
		if ok {
			right++
		} else if *paraDetail {
			t.Logf("%-18s got %s/%s want %s/%s: %q", p.family, u.Class, u.Severity, p.class, p.sev, p.turns[0])
		}
	}
	for _, p := range paraFreshNegatives {
		if _, top := screenProbe(p.generalProbe); rank[top.Severity] > rank[extract.SeverityLow] {
			alarms++
			if *paraDetail {
				t.Logf("%-18s false alarm %s/%s: %q", p.family, top.Class, top.Severity, p.turns[0])
			}
		}
	}
	recall := float64(caught) / float64(len(paraFresh))
	fa := float64(alarms) / float64(len(paraFreshNegatives))
	t.Logf("fresh paraphrase probes: %d positives, recall %.3f (right %.3f); %d negatives, false alarms %.3f",
		len(paraFresh), recall, float64(right)/float64(len(paraFresh)), len(paraFreshNegatives), fa)
	if recall < minFreshRecall || fa > maxFreshAlarms {
		t.Errorf("fresh probes: recall %.3f (floor %.2f), false alarms %.3f (ceiling %.2f)", recall, minFreshRecall, fa, maxFreshAlarms)
	}
}

const (
	minFreshRecall = 0.85 // 0.855 after the second pass (0.507 before the first, 0.551 after it)
	maxFreshAlarms = 0.05 // 0.000 (0.130 after the first pass)
)

// TestRiskParaphraseUnseen reports the screen on paraUnseen, the probes no
// rule was shaped on (go test ./extract -run RiskParaphraseUnseen -v).
func TestRiskParaphraseUnseen(t *testing.T) {
	t.Parallel()
	rank := map[string]int{extract.SeverityLow: 1, extract.SeverityMedium: 2, extract.SeverityHigh: 3}
	caught, right, alarms := 0, 0, 0
	for _, p := range paraUnseen {
		u, _ := screenProbe(p.generalProbe)
		if u.Class != "" {
			caught++
		}
		if u.Class == p.class && rank[u.Severity] >= rank[p.sev] && (p.max == "" || rank[u.Severity] <= rank[p.max]) {
			right++
		}
	}
	for _, p := range paraUnseenNegatives {
		if _, top := screenProbe(p.generalProbe); rank[top.Severity] > rank[extract.SeverityLow] {
			alarms++
		}
	}
	recall := float64(caught) / float64(len(paraUnseen))
	fa := float64(alarms) / float64(len(paraUnseenNegatives))
	t.Logf("unseen paraphrase probes: %d positives, recall %.3f (right %.3f); %d negatives, false alarms %.3f",
		len(paraUnseen), recall, float64(right)/float64(len(paraUnseen)), len(paraUnseenNegatives), fa)
	if recall < minUnseenRecall || fa > maxUnseenAlarms {
		t.Errorf("unseen probes: recall %.3f (floor %.2f), false alarms %.3f (ceiling %.2f)", recall, minUnseenRecall, fa, maxUnseenAlarms)
	}
}

const (
	minUnseenRecall = 0.69 // 0.698 when written (the rules before both passes: 0.651)
	maxUnseenAlarms = 0.07 // 0.000
)
