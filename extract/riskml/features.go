// Package riskml is the trained layer of the risk screen: a linear model
// over hashed words, word pairs and letter n-grams, whose weights are
// embedded in the binary (weights.bin, built by `go run ./cmd/risktrain`
// from the data under data/, each source with its licence beside it).
//
// It reads one user message and answers, per risk class, a calibrated
// probability, and the probability that the message carries an intent,
// a plan, means, a time or an act (the "acute" head). Judge turns those
// into at most one finding, with the thresholds set on a development
// split when the weights were built. The layer only ever adds findings:
// how they combine with the rules and a model is extract.Screen's policy
// (docs/safety.md, "Sources and the policy").
//
// Pure Go, no allocation per feature: a message is normalised once into a
// reused buffer and its features are hashed as they are read.
package riskml

// Feature kinds: each is hashed with its own seed, so that the word "die"
// and the letters "die" of "diet" are different features.
const (
	seedWord   uint32 = 0x9e3779b1
	seedPair   uint32 = 0x85ebca77
	seedChar   uint32 = 0xc2b2ae3d
	seedNeg    uint32 = 0x27d4eb2f
	seedSignal uint32 = 0x165667b1
)

// fnv hashes b into h (FNV-1a, 32 bits).
func fnv(h uint32, b []byte) uint32 {
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

// mix finishes a hash so that its low bits are usable as a bucket.
func mix(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x7feb352d
	h ^= h >> 15
	h *= 0x846ca68b
	h ^= h >> 16
	return h
}

// normalize writes text lowercased into dst: letters and digits kept,
// apostrophes dropped ("don't" and "dont" are one word), every other byte
// a space, runs of spaces one. Non-ASCII letters are kept as their bytes.
// Sentence ends become '|' so that word pairs do not cross them.
func normalize(dst []byte, text string) []byte {
	dst = dst[:0]
	space := true
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c >= 0x80:
		case c == '\'':
			continue
		case c == '.' || c == '!' || c == '?' || c == '\n' || c == ';':
			if n := len(dst); n > 0 && dst[n-1] == ' ' {
				dst = dst[:n-1]
			}
			if n := len(dst); n > 0 && dst[n-1] != '|' {
				dst = append(dst, '|')
			}
			space = true
			continue
		default:
			if !space {
				dst = append(dst, ' ')
				space = true
			}
			continue
		}
		if space && len(dst) > 0 && dst[len(dst)-1] != ' ' && dst[len(dst)-1] != '|' {
			dst = append(dst, ' ')
		}
		dst = append(dst, c)
		space = false
	}
	if n := len(dst); n > 0 && (dst[n-1] == ' ' || dst[n-1] == '|') {
		dst = dst[:n-1]
	}
	return dst
}

// negators open a scope of three words whose words are also read negated.
var negators = set("not", "no", "never", "dont", "didnt", "doesnt", "cant", "cannot", "wont", "wouldnt",
	"isnt", "arent", "wasnt", "nobody", "nothing", "neither", "nor", "without", "havent", "hasnt", "shouldnt")

// signals are the words of an intent, a plan, means, a time or an act, and
// of the first person and the past: each adds a feature of its group, so
// that the acute head can learn from the group what it has not seen word by
// word.
var signals = map[string]string{
	// intent and plan
	"gonna": "intent", "going": "intent", "plan": "plan", "planned": "plan", "planning": "plan", "decided": "intent",
	"ready": "intent", "will": "intent", "ill": "intent", "tonight": "time", "tomorrow": "time", "now": "time",
	"today": "time", "weekend": "time", "friday": "time", "midnight": "time", "soon": "time",
	// means
	"pills": "means", "pill": "means", "tablets": "means", "rope": "means", "noose": "means", "gun": "means",
	"bridge": "means", "blade": "means", "razor": "means", "knife": "means", "bottle": "means", "ledge": "means",
	"roof": "means", "overdose": "means", "od": "means", "belt": "means", "train": "means", "cliff": "means",
	// acts
	"took": "act", "swallowed": "act", "cut": "act", "cuts": "act", "cutting": "act", "burned": "act",
	"slit": "act", "tried": "act", "attempted": "act", "jumped": "act", "hanged": "act", "bled": "act",
	"bleeding": "act", "deeper": "act",
	// the first person
	"i": "first", "im": "first", "me": "first", "my": "first", "myself": "first", "ive": "first", "id": "first",
	// the past, resolved
	"ago": "past", "used": "past", "was": "past", "were": "past", "years": "past", "clean": "past", "recovered": "past",
}

// signalHash is the feature hash of each signal word's group.
var signalHash = func() map[string]uint32 {
	m := make(map[string]uint32, len(signals))
	for w, g := range signals {
		m[w] = mix(fnv(2166136261, []byte(g)) ^ seedSignal)
	}
	return m
}()

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// maxGramWord is the longest word read by its letters: a longer one is a
// run of letters ("xxxxxxxx…", a link, a hash), whose many n-grams would
// outweigh the sentence's words.
const maxGramWord = 24

// maxWords bounds the words read of one window: a longer text is read in
// windows (Model.Judge), never whole at once.
const maxWords = 400

// eachFeature calls f with the hash of every feature of the normalised
// text t (see normalize). Features repeat as often as they occur. It reads
// at most maxWords words.
func eachFeature(t []byte, f func(h uint32)) {
	var prev uint32 // hash of the previous word in the sentence, 0 at its start
	neg := 0        // words left in a negation scope
	words := 0
	var groups [8]uint32 // the signal groups already added
	ng := 0
	for i := 0; i < len(t) && words < maxWords; {
		if t[i] == ' ' {
			i++
			continue
		}
		if t[i] == '|' {
			prev, neg = 0, 0
			i++
			continue
		}
		j := i
		for j < len(t) && t[j] != ' ' && t[j] != '|' {
			j++
		}
		w := t[i:j]
		words++
		hw := fnv(2166136261, w)
		f(mix(hw ^ seedWord))
		if prev != 0 {
			f(mix(prev*31 ^ hw ^ seedPair))
		}
		if neg > 0 {
			f(mix(hw ^ seedNeg))
			neg--
		}
		if negators[string(w)] {
			neg = 3
		}
		if g, ok := signalHash[string(w)]; ok && ng < len(groups) {
			dup := false
			for _, x := range groups[:ng] {
				dup = dup || x == g
			}
			if !dup {
				groups[ng] = g
				ng++
				f(g)
			}
		}
		// Letter n-grams of the word with its edges: " cut " gives " cu",
		// "cut", "ut ", " cut", "cut ", " cut ".
		if len(w) <= maxGramWord {
			charGrams(w, f)
		}
		prev = hw
		i = j
	}
}

// charGrams calls f with the hashes of the 3- to 5-letter grams of " w ".
func charGrams(w []byte, f func(h uint32)) {
	var buf [64]byte
	if len(w) > len(buf)-2 {
		w = w[:len(buf)-2]
	}
	buf[0] = ' '
	copy(buf[1:], w)
	buf[len(w)+1] = ' '
	s := buf[:len(w)+2]
	for n := 3; n <= 5; n++ {
		for k := 0; k+n <= len(s); k++ {
			f(mix(fnv(2166136261, s[k:k+n]) ^ seedChar ^ uint32(n)))
		}
	}
}
