package spelling

// The weighted edit cost that ranks candidates: the edits children make
// most cost least. A child spells by ear: letters that make no sound of
// their own get left out ("speling", "favrit", "cusin"), a consonant gets
// doubled ("borring"), one vowel stands for another ("trisaratops") and a
// letter for another of the same sound ("subjekt"). An edit of any other
// kind costs 1, a transposition 0.7.

const (
	costOmitTwice  = 0.35 // the child wrote a doubled letter once ("speling")
	costOmitQuiet  = 0.4  // the child left out a vowel or a silent h
	costOmit       = 0.6  // the child left out another letter
	costExtraTwice = 0.5  // the child doubled a letter
	costExtra      = 1.0  // the child wrote a letter too many
	costVowel      = 0.6  // one vowel for another
	costSound      = 0.7  // one letter for another of the same sound
	costOther      = 1.0
	costSwap       = 0.7 // two letters the wrong way round
)

// vowels marks the vowels (y with them: "happi" for happy).
var vowels = [256]bool{'a': true, 'e': true, 'i': true, 'o': true, 'u': true, 'y': true}

func vowel(c byte) bool { return vowels[c] }

// subCosts is subCost for every pair of bytes, worked out once.
var subCosts [256][256]float64

func init() {
	sound := map[[2]byte]bool{}
	// Pairs of letters that may stand for the same sound.
	for _, p := range []string{"ck", "cs", "kq", "sz", "fv", "iy", "gj", "ks", "xz", "td", "bp", "mn", "ph", "sh", "ch", "tc"} {
		sound[[2]byte{p[0], p[1]}] = true
		sound[[2]byte{p[1], p[0]}] = true
	}
	for a := range 256 {
		for b := range 256 {
			x, y := byte(a), byte(b)
			switch {
			case x == y:
				subCosts[a][b] = 0
			case vowel(x) && vowel(y):
				subCosts[a][b] = costVowel
			case sound[[2]byte{x, y}]:
				subCosts[a][b] = costSound
			default:
				subCosts[a][b] = costOther
			}
		}
	}
}

func subCost(a, b byte) float64 { return subCosts[a][b] }

// quietBeforeH are the letters after which an h makes no sound of its own.
var quietBeforeH = [256]bool{'c': true, 'g': true, 'p': true, 's': true, 't': true, 'w': true}

// omitCost is the cost of the child leaving out letter j of target.
func omitCost(target string, j int) float64 {
	c := target[j]
	if (j > 0 && target[j-1] == c) || (j+1 < len(target) && target[j+1] == c) {
		return costOmitTwice
	}
	if vowel(c) || (c == 'h' && j > 0 && quietBeforeH[target[j-1]]) {
		return costOmitQuiet
	}
	return costOmit
}

// extraCost is the cost of the child writing letter i of written that the
// target does not have.
func extraCost(written string, i int) float64 {
	c := written[i]
	if (i > 0 && written[i-1] == c) || (i+1 < len(written) && written[i+1] == c) {
		return costExtraTwice
	}
	return costExtra
}

// cost is the weighted edit cost from written to target (the optimal string
// alignment: insertions, deletions, substitutions and transpositions of
// two neighbours), and edits its plain count.
func cost(written, target string) (weighted float64, edits int) {
	var s scratch
	return s.cost(written, target, 1e9)
}

type cell struct {
	w float64
	e int
}

// scratch holds the rows of cost's table between calls.
type scratch [3][]cell

// cost is the package's cost, stopping early (with a cost above limit) once
// every alignment costs more than limit.
func (s *scratch) cost(written, target string, limit float64) (weighted float64, edits int) {
	n, m := len(written), len(target)
	// Three rows are enough for the transposition.
	for k := range s {
		if cap(s[k]) < m+1 {
			s[k] = make([]cell, m+1)
		}
		s[k] = s[k][:m+1]
		clear(s[k])
	}
	rows := *s
	for j := 1; j <= m; j++ {
		rows[0][j] = cell{rows[0][j-1].w + omitCost(target, j-1), j}
	}
	for i := 1; i <= n; i++ {
		cur, prev, prev2 := rows[i%3], rows[(i-1)%3], rows[(i+1)%3]
		cur[0] = cell{prev[0].w + extraCost(written, i-1), i}
		for j := 1; j <= m; j++ {
			best := cell{prev[j-1].w + subCost(written[i-1], target[j-1]), prev[j-1].e}
			if written[i-1] != target[j-1] {
				best.e++
			}
			if c := (cell{prev[j].w + extraCost(written, i-1), prev[j].e + 1}); c.w < best.w {
				best = c
			}
			if c := (cell{cur[j-1].w + omitCost(target, j-1), cur[j-1].e + 1}); c.w < best.w {
				best = c
			}
			if i > 1 && j > 1 && written[i-1] == target[j-2] && written[i-2] == target[j-1] && written[i-1] != written[i-2] {
				if c := (cell{prev2[j-2].w + costSwap, prev2[j-2].e + 1}); c.w < best.w {
					best = c
				}
			}
			cur[j] = best
		}
		low := cur[0].w
		for _, c := range cur[1:] {
			low = min(low, c.w)
		}
		if low > limit {
			return low, maxEdits + 1
		}
	}
	last := rows[n%3][m]
	return last.w, last.e
}
