package eval

import (
	"strings"
	"unicode"
)

// The categories a gold item may name. They do not depend on how a key is
// spelt: KeyCategory maps a stored memory's key to one of them by its prefix.
const (
	CatName       = "name"
	CatNickname   = "nickname"
	CatLike       = "like"
	CatDislike    = "dislike"
	CatFavorite   = "favorite"
	CatHobby      = "hobby" // an activity the user does or is learning
	CatLocation   = "location"
	CatWork       = "work" // where the user works
	CatStudy      = "study"
	CatOccupation = "occupation"
	CatFamily     = "family"
	CatPet        = "pet"
	CatAllergy    = "allergy"
	CatDiet       = "diet"
	CatPlan       = "plan" // a goal, plan or intention
	CatEvent      = "event"
	CatFeeling    = "feeling"
	CatAge        = "age" // the user's age or age range
	// The apps' own things (AppItems, as each kind scores them): sobriety,
	// step work, substance, triggers and support (sponsor, fellowship,
	// therapist); goals, action steps, completed steps and coaching
	// preferences; caregiver concerns and routines; mastery; and follow-ups
	// (a risky event ahead, an open thread).
	CatSobriety   = "sobriety"
	CatStep       = "step"
	CatSubstance  = "substance"
	CatTrigger    = "trigger"
	CatSupport    = "support"
	CatGoal       = "goal"
	CatAction     = "action"
	CatDone       = "done"
	CatPreference = "preference"
	CatConcern    = "concern"
	CatMastery    = "mastery"
	CatFollowUp   = "followup"
	CatRoutine    = "routine" // a habit of the day ("tea at four")
	CatOther      = "other"   // a stored key of no known shape; never a gold category
)

// Categories are the gold categories, in report order.
var Categories = []string{
	CatName, CatNickname, CatLike, CatDislike, CatFavorite, CatHobby,
	CatLocation, CatWork, CatStudy, CatOccupation, CatFamily, CatPet,
	CatAllergy, CatDiet, CatPlan, CatEvent, CatFeeling, CatAge,
	CatSobriety, CatStep, CatSubstance, CatTrigger, CatSupport,
	CatGoal, CatAction, CatDone, CatPreference, CatConcern, CatMastery, CatFollowUp, CatRoutine,
}

// satisfies says which stored categories may satisfy a gold item of a
// category: "I enjoy painting" is well remembered as likes:painting or as
// hobby:painting, an upcoming trip as plan:… or event:….
var satisfies = map[string][]string{
	CatName:       {CatName, CatNickname},
	CatNickname:   {CatNickname, CatName},
	CatLike:       {CatLike, CatHobby, CatFavorite},
	CatDislike:    {CatDislike},
	CatFavorite:   {CatFavorite, CatLike},
	CatHobby:      {CatHobby, CatLike},
	CatLocation:   {CatLocation},
	CatWork:       {CatWork, CatOccupation},
	CatStudy:      {CatStudy, CatOccupation},
	CatOccupation: {CatOccupation, CatWork},
	CatFamily:     {CatFamily},
	CatPet:        {CatPet},
	CatAllergy:    {CatAllergy},
	CatDiet:       {CatDiet},
	CatPlan:       {CatPlan, CatEvent, CatGoal},
	CatEvent:      {CatEvent, CatPlan},
	CatFeeling:    {CatFeeling},
	CatAge:        {CatAge},
	CatSobriety:   {CatSobriety},
	CatStep:       {CatStep},
	CatSubstance:  {CatSubstance},
	CatTrigger:    {CatTrigger},
	CatSupport:    {CatSupport},
	CatGoal:       {CatGoal, CatPlan},
	CatAction:     {CatAction, CatPlan},
	CatDone:       {CatDone, CatEvent},
	CatPreference: {CatPreference, CatLike},
	CatConcern:    {CatConcern},
	CatMastery:    {CatMastery},
	CatFollowUp:   {CatFollowUp, CatPlan, CatEvent},
	CatRoutine:    {CatRoutine, CatHobby, CatEvent},
}

// keyPrefixes maps the start of a memory key to its category. A prefix
// ending in ':' or '_' matches keys that continue it; any other matches the
// key itself and the key followed by ':' or '_' (so "diet" matches "diet"
// and "diet:vegan"). The first match wins.
var keyPrefixes = []struct{ prefix, category string }{
	{"name", CatName},
	{"nickname", CatNickname},
	{"feeling", CatFeeling},
	{"mood", CatFeeling},
	{"favorite_", CatFavorite},
	{"favourite_", CatFavorite},
	{"likes:", CatLike},
	{"like:", CatLike},
	{"dislikes:", CatDislike},
	{"dislike:", CatDislike},
	{"event:", CatEvent},
	{"lives_in", CatLocation},
	{"location", CatLocation},
	{"hometown", CatLocation},
	{"works_at", CatWork},
	{"work", CatWork},
	{"employer", CatWork},
	{"studies_at", CatStudy},
	{"studies", CatStudy},
	{"study", CatStudy},
	{"school", CatStudy},
	{"occupation", CatOccupation},
	{"job", CatOccupation},
	{"family:", CatFamily},
	{"pet:", CatPet},
	{"pet", CatPet},
	{"allergy:", CatAllergy},
	{"allergy", CatAllergy},
	{"diet", CatDiet},
	{"age", CatAge},
	{"goal:", CatPlan},
	{"plan:", CatPlan},
	{"goal", CatPlan},
	{"plan", CatPlan},
	{"hobby:", CatHobby},
	{"hobby", CatHobby},
	{"activity:", CatHobby},
	// The apps' profile and summary fields (AppItems).
	{"preferred_name", CatName},
	{"sobriety", CatSobriety},
	{"recovery_start_date", CatSobriety},
	{"days_sober", CatSobriety},
	{"current_step", CatStep},
	{"steps_completed", CatStep},
	{"step", CatStep},
	{"addiction_type", CatSubstance},
	{"substance", CatSubstance},
	{"primary_trigger", CatTrigger},
	{"known_triggers", CatTrigger},
	{"trigger", CatTrigger},
	{"vulnerability_windows", CatTrigger},
	{"sponsor", CatSupport},
	{"sponsor_name", CatSupport},
	{"has_sponsor", CatSupport},
	{"fellowship", CatSupport},
	{"fellowship_name", CatSupport},
	{"in_fellowship", CatSupport},
	{"has_therapist", CatSupport},
	{"other_support", CatSupport},
	{"resistance_strategy_used", CatEvent},
	{"successful_strategies", CatEvent},
	{"outcome", CatEvent},
	{"follow_up", CatFollowUp},
	{"open_threads", CatFollowUp},
	{"goals", CatGoal},
	{"action_steps", CatAction},
	{"action", CatAction},
	{"completed", CatDone},
	{"done", CatDone},
	{"_preferences", CatPreference}, // a suffix: how a user wants to be coached or taught
	{"preferences", CatPreference},
	{"concerns", CatConcern},
	{"caregiver_concerns", CatConcern},
	{"concern", CatConcern},
	{"notable_anchors", CatLike},
	{"mastery", CatMastery},
	{"routine", CatRoutine},
	{"routines", CatRoutine},
}

// KeyCategory is the category of a stored memory's key, by its prefix (or
// its suffix, for an entry that starts with "_");
// CatOther when no known prefix fits.
func KeyCategory(key string) string {
	k := strings.ToLower(strings.TrimSpace(key))
	for _, p := range keyPrefixes {
		if p.prefix[0] == '_' {
			if strings.HasSuffix(k, p.prefix) && len(k) > len(p.prefix) {
				return p.category
			}
			continue
		}
		last := p.prefix[len(p.prefix)-1]
		if last == ':' || last == '_' {
			if strings.HasPrefix(k, p.prefix) && len(k) > len(p.prefix) {
				return p.category
			}
			continue
		}
		if k == p.prefix || strings.HasPrefix(k, p.prefix+":") || strings.HasPrefix(k, p.prefix+"_") {
			return p.category
		}
	}
	return CatOther
}

// stopwords carry no content: "To Live" is matched by "live".
var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "my": true,
	"i": true, "and": true, "in": true, "on": true, "with": true, "for": true,
	"at": true, "by": true, "me": true, "it": true, "is": true, "am": true,
	"was": true, "be": true, "this": true, "that": true, "very": true,
	"really": true, "so": true, "some": true, "about": true, "s": true,
}

// Tokens are the content words of a text, lower-cased and crudely stemmed,
// so that "Painting", "paint" and "paintings" meet, as do "running" and
// "run", "comedies" and "comedy". Keys are read as text too: their
// underscores, colons and the category prefix split words.
func Tokens(text string) []string {
	var out []string
	for w := range strings.FieldsFuncSeq(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}) {
		w = strings.Trim(w, "'")
		w = strings.TrimSuffix(w, "'s")
		w = strings.ReplaceAll(w, "'", "")
		if w == "" || stopwords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

func stem(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		w = w[:n-3] + "i"
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		w = w[:n-1]
	}
	n = len(w)
	switch {
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = w[:n-3]
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = w[:n-2]
	}
	// "comedy"/"comedies", "movie"/"movies", "dance"/"dancing": a final y
	// is i, a final e is dropped.
	if m := len(w); m > 3 && w[m-1] == 'y' {
		w = w[:m-1] + "i"
	}
	if m := len(w); m > 3 && w[m-1] == 'e' {
		w = w[:m-1]
	}
	// "runn" (running) is "run", "swimm" is "swim".
	if m := len(w); m > 2 && w[m-1] == w[m-2] && !strings.ContainsRune("aeiouls", rune(w[m-1])) {
		w = w[:m-1]
	}
	return w
}

func tokenSet(texts ...string) map[string]bool {
	set := map[string]bool{}
	for _, t := range texts {
		for _, w := range Tokens(t) {
			set[w] = true
		}
	}
	return set
}

// memoryText is what a memory says: its key's words after the prefix and its
// value.
func memoryText(key, value string) []string {
	return Tokens(key + " " + value)
}

// Matches reports whether a stored memory (key, value) remembers gold: its
// category may satisfy gold's, one of gold's value alternatives has all its
// content words in the memory's key and value, and, when gold names a
// subject, one of the subject's words is there too.
func Matches(g Gold, key, value string) bool {
	cat := KeyCategory(key)
	ok := false
	for _, c := range satisfies[g.Category] {
		ok = ok || c == cat
	}
	if !ok {
		return false
	}
	have := tokenSet(key, value)
	if g.Subject != "" {
		found := false
		for _, w := range Tokens(g.Subject) {
			found = found || have[w]
		}
		if !found {
			return false
		}
	}
	for _, alt := range g.Value {
		words := Tokens(alt)
		if len(words) == 0 {
			continue
		}
		all := true
		for _, w := range words {
			all = all && have[w]
		}
		if all {
			return true
		}
	}
	return false
}

// Violates reports whether a stored memory (key, value) learnt from a turn
// breaks one of the turn's must-nots: any memory at all for an Any item,
// otherwise one whose key or value says one of the words or phrases (a
// phrase as consecutive words), restricted to a category when the item
// names one.
func Violates(f Forbid, key, value string) bool {
	if f.Category != "" && KeyCategory(key) != f.Category {
		return false
	}
	if f.Any {
		return true
	}
	text := memoryText(key, value)
	for _, phrase := range f.Words {
		if containsSeq(text, Tokens(phrase)) {
			return true
		}
	}
	return false
}

func containsSeq(text, seq []string) bool {
	if len(seq) == 0 {
		return false
	}
	for i := 0; i+len(seq) <= len(text); i++ {
		ok := true
		for j, w := range seq {
			ok = ok && text[i+j] == w
		}
		if ok {
			return true
		}
	}
	return false
}
