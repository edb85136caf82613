package extract

import (
	"regexp"
	"strings"
)

// Special categories of personal data (GDPR article 9) SpecialCategory
// recognises. A policy's special_categories decides what happens to a
// candidate that holds one (see Screen).
const (
	SpecialHealth     = "health"           // conditions, treatments, diagnoses, medication, hospital stays, pregnancy
	SpecialSexLife    = "sex_life"         // sex life or sexual orientation
	SpecialReligion   = "religion"         // religious or philosophical beliefs and practice
	SpecialPolitics   = "politics"         // political opinions, votes, parties
	SpecialEthnicity  = "ethnicity"        // racial or ethnic origin
	SpecialUnion      = "union_membership" // trade union membership
	SpecialBiometrics = "biometrics"       // biometric and genetic data
)

// SpecialCategories lists the categories in the order SpecialCategory
// tries them.
var SpecialCategories = []string{SpecialHealth, SpecialSexLife, SpecialReligion, SpecialPolitics, SpecialEthnicity, SpecialUnion, SpecialBiometrics}

type specialPattern struct {
	category string
	re       *regexp.Regexp
}

func sp(category, re string) specialPattern {
	r := regexp.MustCompile(re)
	return specialPattern{category, r}
}

// specialPatterns are matched against riskNorm's folded text. They name
// conditions and practices, not everyday words that merely touch them: a
// routine visit to the dentist, feeling anxious or tired, working as a nurse
// at a hospital, a European union or a conservative estimate are not
// special-category data.
var specialPatterns = []specialPattern{
	sp(SpecialHealth, `\b(?:chemo(?:therapy)?|radiotherapy|cancer|tumou?rs?|leukaemia|leukemia|diagnos(?:ed|is)|diabet(?:es|ic)|insulin|asthma|hiv|aids\s+virus|hepatitis|epilep(?:sy|tic)|seizures?|dementia|alzheimer'?s?|parkinson'?s?|multiple\s+sclerosis|arthritis|migraines?|heart\s+attack|stroke\s+(?:last|in|a\s+few)|blood\s+pressure|cholesterol|antidepressants?|medication|meds\b|prescri(?:bed|ption)|pills?\s+for|therapist|psychiatrist|psychologist|therapy|rehab\b|depression|bipolar|schizophreni\w*|adhd|autis(?:m|tic)|ocd\b|ptsd|anxiety\s+disorder|panic\s+attacks?|eating\s+disorder|anorexi\w*|bulimi\w*|pregnan(?:t|cy)|miscarriage|abortion|ivf\b|disabilit(?:y|ies)|disabled|wheelchair|surgery|operat(?:ed|ion)\s+on\s+my|biopsy|mri\b|x-ray|covid|flu\b|infection|illness|chronic\s+(?:pain|fatigue|illness)|sick\s+(?:leave|note)|stds?\b|sti\b|addict(?:ion|ed)|alcoholi(?:c|sm)|sober|sobriety|relapse[ds]?|(?:seeing|see|saw|seen|visit(?:ing|ed)?|go(?:ing)?\s+to|went\s+to)\s+(?:a|the|my)\s+(?:doctor|gp|physician|specialist|cardiologist|oncologist|neurologist|dermatologist|gynaecologist|gynecologist|urologist)|(?:admitted|in)\s+(?:to\s+)?(?:the\s+)?hospital\b|hospitali[sz]ed)`),
	sp(SpecialHealth, `\b(?:in|to|into|from|out\s+of|admitted\s+to)\s+(?:the\s+)?(?:hospital|er\b|a&e|emergency\s+room|icu)\b`),
	sp(SpecialSexLife, `\b(?:i'm|i\s+am|i'm\s+not|being|as\s+a|came\s+out\s+as|coming\s+out\s+as)\s+(?:a\s+)?(?:gay|lesbian|bisexual|bi\b|queer|asexual|pansexual|trans\b|transgender|straight|homosexual|heterosexual|non-binary|nonbinary)|\b(?:sexual\s+orientation|sex\s+life|our\s+sex|having\s+sex|had\s+sex|came\s+out\s+to|coming\s+out\s+to|my\s+sexuality|hook\s*up|hooked\s+up|one-night\s+stand|porn|erectile|libido|kink\w*|fetish\w*|polyamor\w*)\b`),
	sp(SpecialReligion, `\b(?:church|mosque|synagogue|temple|mass\s+on|bible|quran|koran|torah|pray(?:ed|ing|s)?|prayers?|ramadan|yom\s+kippur|passover|diwali|sabbath|christian|catholic|protestant|muslim|islam\w*|jewish|judaism|hindu\w*|buddhis[mt]|sikh\w*|atheist|agnostic|religio(?:n|us)|my\s+faith|god\s+(?:wants|has\s+a\s+plan)|bapti[sz]ed|confirmation\s+class|bar\s+mitzvah|bat\s+mitzvah)\b`),
	sp(SpecialPolitics, `\b(?:vot(?:e|ed|ing)\s+(?:for|against|labour|tory|democrat|republican|conservative|green|liberal)|(?:democrat|democratic|republican|labour|labor|tory|conservative|green|liberal|libertarian|socialist|communist)\s+party|i'm\s+(?:a\s+)?(?:democrat|republican|tory|socialist|communist|libertarian|leftist|liberal|conservative|progressive)\b|left-wing|right-wing|my\s+politics|political\s+(?:views|opinions|party)|brexit|campaign(?:ed|ing)?\s+for)`),
	sp(SpecialHealth, `\bblood\s+(?:type|group)\b`),
	sp(SpecialEthnicity, `\b(?:of\s+(?:[a-z\-]+\s+){1,2}(?:descent|ancestry|heritage|extraction)|my\s+(?:ancestry|heritage))\b`),
	sp(SpecialEthnicity, `\b(?:my\s+(?:ethnicity|race|ethnic\s+background)|ethnic(?:ity|ally)?|mixed\s+race|biracial|(?:i'm|i\s+am|as\s+a)\s+(?:a\s+)?(?:black|white|asian|latino|latina|latinx|hispanic|african\s+american|indigenous|aboriginal|native\s+american|arab|roma|jewish)\b)`),
	sp(SpecialUnion, `\b(?:(?:trade|labou?r|teachers'?|nurses'?)\s+union|union\s+(?:member|membership|rep|representative|dues|meeting|card|steward)|(?:joined|join|in|my)\s+the\s+union|my\s+union|shop\s+steward|on\s+strike|picket\s+line)\b`),
	sp(SpecialBiometrics, `\b(?:fingerprints?|face\s*id|facial\s+recognition|retina|iris\s+scan|voiceprint|dna\s+(?:test|results?|sample)|genetic\s+(?:test|testing|results?|condition|disorder)|23andme|ancestrydna|brca)\b`),
}

// careerCare finds a care profession named as a job or a field of work or
// study, not as care received: "I'm a physical therapist", the value
// "physical therapist", "studying psychology", "going into physical
// therapy", "I work as a speech therapist". An occupation is not a health
// fact (issue 23); "my therapist", "seeing a therapist" and "in therapy"
// still are.
var careerCare = regexp.MustCompile(`^ (?:an? )?(?:[a-z\-]+ )?(?:therapist|psychologist|psychiatrist|counsell?or)s? $|\b(?:i'm|i am|i was|work(?:s|ed|ing)? as|job as|career as|become|becoming|became|be|to be) (?:an? )?(?:[a-z\-]+ )?(?:therapist|psychologist|psychiatrist)s?\b|\b(?:into|study|studying|studied|major(?:ing)? in|degree in|career in|job in|work in|working in|school for|student of) (?:[a-z\-]+ )?(?:therapy|psychology)\b`)

// SpecialCategory reports the first special category of personal data text
// holds, in the order of SpecialCategories.
func SpecialCategory(text string) (category string, ok bool) {
	norm := riskNorm(text)
	if strings.Contains(norm, "therap") || strings.Contains(norm, "psych") || strings.Contains(norm, "counsel") {
		norm = careerCare.ReplaceAllString(norm, " ")
	}
	may := specialSet.mask(norm)
	for i, p := range specialPatterns {
		if may&(1<<i) != 0 && p.re.MatchString(norm) {
			return p.category, true
		}
	}
	return "", false
}

// specialSet reads a text once for the words of every special-category
// pattern.
var specialSet = newPrefilterSet(prefiltersOf(len(specialPatterns), func(i int) prefilter { return newPrefilter(specialPatterns[i].re) }))
