package extract

import "strings"

// The memory vocabulary (docs/apps.md, the memory vocabulary; the default preset's
// system.tmpl and schema.json under prompts/ ask the LLM for the same keys). A key is one of the plain
// keys, or a prefix followed by a slug: lower-case words of letters and
// digits joined by single underscores.
//
//	name, nickname                   fact        "Priya", "Pri"
//	lives_in, hometown               fact        "Seattle"
//	works_at, studies_at             fact        "Google", "UCLA"
//	occupation                       fact        "nurse"
//	diet                             fact        "vegetarian"
//	age                              fact        "40 years old", "in my thirties"
//	family:<relation>                fact        family:sister = "Maya" (or "a younger sister")
//	pet:<species>                    fact        pet:dog = "Biscuit" (or "two dogs")
//	allergy:<item>                   fact        allergy:peanut = "peanuts"
//	goal:<slug>                      fact        goal:run_marathon = "run a marathon"
//	favorite_<thing>                 preference  favorite_band = "Coldplay"
//	likes:<item>, dislikes:<item>    preference  likes:hiking = "hiking on weekends"
//	hobby:<activity>                 preference  hobby:guitar = "learning guitar"
//	feeling                          feeling     "anxious"
//	event:<slug>, plan:<slug>        event       event:sisters_wedding (with event_date)
//	owns:<thing>                     fact        owns:civic = "drives a 2012 Civic"
//	job:<workplace>                  fact        job:bookstore = "bookstore (weekends)": a second job
//	note:<slug>                      fact        note:swims_every_morning = "swims every morning"
//	                                             (a disclosure no other key fits; presets' notes)
//
// likes:, dislikes: and hobby: keys name the head of the item: a qualifier
// ("on weekends", "in the mountains") and a light verb ("playing",
// "going to") stay in the value, so that near-duplicates share one key.
var (
	plainKeys   = toSet("name nickname feeling lives_in hometown works_at studies_at occupation diet age")
	keyPrefixes = []struct {
		prefix, category string
	}{
		{"favorite_", CategoryPreference}, {"likes:", CategoryPreference}, {"dislikes:", CategoryPreference},
		{"hobby:", CategoryPreference}, {"event:", CategoryEvent}, {"plan:", CategoryEvent},
		{"family:", CategoryFact}, {"pet:", CategoryFact}, {"allergy:", CategoryFact}, {"goal:", CategoryFact},
		{"owns:", CategoryFact}, {"job:", CategoryFact}, {"note:", CategoryFact},
	}
)

// KeyCategory is the category of a memory of key in the vocabulary, or ""
// for a key outside it.
func KeyCategory(key string) string {
	switch {
	case key == "feeling":
		return CategoryFeeling
	case plainKeys[key]:
		return CategoryFact
	}
	for _, p := range keyPrefixes {
		if strings.HasPrefix(key, p.prefix) {
			return p.category
		}
	}
	return ""
}

// canonicalTail brings the slug of a prefixed key into its canonical form:
// the head of a preference or hobby, a relation's or species' usual word,
// an allergy's singular.
func canonicalTail(prefix, s string) string {
	switch prefix {
	case "likes:", "dislikes:", "hobby:":
		return strings.Join(headWords(strings.Split(s, "_")), "_")
	case "family:":
		if r, ok := relations[strings.ReplaceAll(s, "_", " ")]; ok {
			return strings.ReplaceAll(r, " ", "_")
		}
	case "pet:":
		if r, ok := species[strings.ReplaceAll(s, "_", " ")]; ok {
			return strings.ReplaceAll(r, " ", "_")
		}
	case "allergy:":
		ws := strings.Split(s, "_")
		ws[len(ws)-1] = singular(ws[len(ws)-1])
		return strings.Join(ws, "_")
	}
	return s
}

var (
	// qualifiers start the part of an item that qualifies its head: "hiking
	// on weekends" is hiking.
	qualifiers = toSet("on in at with during every when after before from around near while whenever for by")
	// lightVerbs open an item without being its head: "playing tennis" is
	// tennis, "going to concerts" is concerts.
	lightVerbs = [][]string{
		{"learning", "how", "to"}, {"learning", "to"}, {"go", "for"}, {"go", "on"}, {"go", "to"}, {"learn", "how", "to"}, {"how", "to"},
		{"going", "to"}, {"going", "for"}, {"going", "on"}, {"listening", "to"}, {"learning"}, {"playing"}, {"play"}, {"watching"},
		{"practicing"}, {"practising"}, {"taking"}, {"doing"}, {"having"}, {"going"}, {"to"},
	}
	// particles after "going" keep it the head: "going out".
	particles = toSet("out home away back there up down off")
)

// headWords cuts the slug words of an item to its head.
func headWords(ws []string) []string {
	for stripped := true; stripped; {
		stripped = false
		for _, lv := range lightVerbs {
			if len(ws) > len(lv) && equalWords(ws[:len(lv)], lv) && !particles[ws[len(lv)]] && !qualifiers[ws[len(lv)]] {
				ws, stripped = ws[len(lv):], true
				break
			}
		}
	}
	for i := 1; i < len(ws); i++ {
		if qualifiers[ws[i]] {
			return ws[:i]
		}
	}
	return ws
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// singular is a crude singular of an English noun, for keys only.
func singular(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && (strings.HasSuffix(w, "oes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes")):
		return w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	}
	return w
}

// relations are the family words the rules know, by their usual word.
var relations = func() map[string]string {
	m := map[string]string{}
	for canon, words := range map[string]string{
		"sister": "sister sisters sis", "brother": "brother brothers bro", "sibling": "sibling siblings",
		"mother": "mom mum mother mommy mama", "father": "dad father daddy papa", "parents": "parents",
		"son": "son sons", "daughter": "daughter daughters", "children": "kid kids child children baby",
		"husband": "husband", "wife": "wife", "partner": "partner", "boyfriend": "boyfriend", "girlfriend": "girlfriend",
		"fiance": "fiance fiancé fiancee fiancée", "grandmother": "grandma grandmother granny nana",
		"grandfather": "grandpa grandfather granddad", "grandparents": "grandparents", "aunt": "aunt auntie",
		"uncle": "uncle", "cousin": "cousin cousins", "niece": "niece nieces", "nephew": "nephew nephews",
		"twin": "twin", "stepmother": "stepmom stepmother", "stepfather": "stepdad stepfather",
	} {
		for _, w := range strings.Fields(words) {
			m[w] = canon
		}
	}
	return m
}()

// species are the pets the rules know, by their usual word; a few breeds
// are their species.
var species = func() map[string]string {
	m := map[string]string{}
	for canon, words := range map[string]string{
		"dog":        "dog dogs puppy puppies pup doggo retriever retrievers labrador labradors lab poodle poodles beagle beagles corgi corgis husky huskies terrier terriers bulldog bulldogs chihuahua chihuahuas dachshund dachshunds pug pugs collie collies labradoodle goldendoodle shepherd shepherds rottweiler rottweilers pitbull pitbulls pit_bull dalmatian greyhound greyhounds schnauzer spaniel spaniels doberman pomeranian yorkie mutt mutts sheepdog",
		"cat":        "cat cats kitten kittens kitty tabby",
		"rabbit":     "rabbit rabbits bunny bunnies",
		"hamster":    "hamster hamsters",
		"guinea_pig": "guinea_pig guinea_pigs",
		"bird":       "bird birds parrot parrots budgie budgies parakeet cockatiel",
		"fish":       "fish goldfish",
		"turtle":     "turtle turtles tortoise",
		"horse":      "horse horses pony ponies",
		"cow":        "cow cows cattle calf",
		"pig":        "pig pigs piglet",
		"goat":       "goat goats",
		"sheep":      "sheep lamb",
		"chicken":    "chicken chickens hen hens",
		"duck":       "duck ducks",
		"lizard":     "lizard lizards gecko geckos",
		"snake":      "snake snakes",
		"ferret":     "ferret ferrets",
	} {
		for _, w := range strings.Fields(words) {
			m[strings.ReplaceAll(w, "_", " ")] = canon
		}
	}
	return m
}()
