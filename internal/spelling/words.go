package spelling

// chatWords are words of children's chat that no dictionary holds and
// that must stay as they are (they are no misspelling of a nearby word:
// "lol" is not "loll"). The project's own list.
var chatWords = []string{
	"lol", "lolz", "omg", "gtg", "btw", "idk", "ikr", "tbh", "ngl", "brb", "bff", "bffs", "ttyl",
	"lmao", "rofl", "pls", "plz", "thx", "ty", "np", "ok", "okie", "okey", "hiya", "heya", "yo",
	"yay", "yey", "aww", "awww", "woah", "whoa", "haha", "hahaha", "hehe", "hihi", "hmm", "umm",
	"uhh", "ugh", "meh", "nah", "yeah", "yep", "yup", "nope", "gonna", "wanna", "gotta", "kinda",
	"sorta", "dunno", "lemme", "gimme", "cuz", "coz", "cos", "bday", "xmas", "mummy", "mommy",
	"mam", "mama", "dada", "nana", "nanna", "grandad", "grandpa", "grandma", "gran", "nan",
	"minecraft", "roblox", "fortnite", "youtube", "youtuber", "pokemon", "lego", "legos", "tiktok",
	"ipad", "iphone", "playstation", "xbox", "nintendo", "emoji", "emojis", "selfie", "vlog",
	"maths", "comp", "sci", "pe", "ks", "sats", "gcse", "gcses", "telly", "footie", "trampolining",
}

// pronouns before "cant" and "wont" make them "can't" and "won't" (both
// are words of their own: a cant, to wont).
var pronouns = map[string]bool{
	"i": true, "you": true, "u": true, "we": true, "they": true, "he": true, "she": true,
	"it": true, "that": true, "this": true, "mum": true, "dad": true, "mom": true,
}

// bareIs are contractions of "is" and "has" written without the apostrophe
// (the word lists keep no "'s" forms, so they are not derived from them).
var bareIs = map[string]string{
	"thats": "that's", "whats": "what's", "theres": "there's", "hes": "he's", "shes": "she's",
	"wheres": "where's", "whos": "who's", "heres": "here's", "hows": "how's",
	// and children's spellings of "doesn't" and "wasn't", too far from the
	// bare form for the index.
	"dosent": "doesn't", "dosnt": "doesn't", "doesent": "doesn't", "wasent": "wasn't",
	// and the spellings by ear that are too short or too far for the
	// index: the project's own list.
	"alot": "a lot", "becos": "because", "becoz": "because", "becuz": "because", "bcos": "because",
	"skool": "school", "eazy": "easy", "wot": "what", "wat": "what", "sed": "said", "thay": "they",
	"wen": "when", "wiv": "with", "luv": "love", "lik": "like", "hav": "have", "peple": "people",
	"sumthing": "something", "enuf": "enough", "tho": "though", "thru": "through", "nite": "night",
}

// nameCues are words after which a child names someone or something
// ("a rabbit called flopsy"): the next word is kept as it is.
var nameCues = map[string]bool{
	"called": true, "caled": true, "calld": true, "cald": true, "named": true, "nammed": true,
	"namd": true, "im": true, "i'm": true, "am": true,
}
