package riskml

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

// Example is one labelled text of the training data.
type Example struct {
	ID       string  `json:"id"`
	Text     string  `json:"text"`
	Class    string  `json:"class"`              // a class of Classes, or danger (taught as abuse)
	Severity string  `json:"severity,omitempty"` // high, medium, low or ""
	Actor    string  `json:"actor,omitempty"`    // user (or "") or other
	Key      string  `json:"key,omitempty"`      // the sentence that carries the finding, taught too
	Source   string  `json:"-"`                  // the data folder it came from
	Weight   float64 `json:"-"`                  // the source's weight (0 means 1)
}

// label is the class index the model learns for e: none for someone
// else's risk and for a low finding (the layer adds medium and high only),
// and whether it is acute (high).
func (e Example) label() (int, bool) {
	c := e.Class
	if c == "danger" {
		c = "abuse"
	}
	k := slices.Index(Classes, c)
	if k < 0 || e.Actor == "other" || e.Severity == "low" {
		return 0, false
	}
	return k, k > 0 && e.Severity == "high" && highClasses[c]
}

// Options are the training's settings; the zero value is the shipped one.
type Options struct {
	Buckets int     // hashed features, a power of two (default 1<<18)
	Epochs  int     // passes over the data (default 12)
	Rate    float64 // AdaGrad's rate (default 0.4)
	L2      float64 // weight decay per update of a weight (default 1e-4)
	Seed    uint64  // the shuffles' seed (default 31)
	// MinFeatures is Meta.MinFeatures (default 40).
	MinFeatures int
	// FalseAlarm is the share of the development split's negatives a class
	// may flag at its threshold (default 0.004); HighBeta the beta of the
	// F-score the acute threshold maximises on it (default 0.5: precision
	// weighs four times recall).
	FalseAlarm float64
	HighBeta   float64
	// MinThreshold is the least probability a class's threshold may have
	// (default 0.5): below it, a class is not the model's best guess.
	MinThreshold float64
}

func (o *Options) defaults() {
	if o.Buckets == 0 {
		o.Buckets = 1 << 18
	}
	if o.Epochs == 0 {
		o.Epochs = 12
	}
	if o.Rate == 0 {
		o.Rate = 0.4
	}
	if o.L2 == 0 {
		o.L2 = 1e-4
	}
	if o.Seed == 0 {
		o.Seed = 31
	}
	if o.MinFeatures == 0 {
		o.MinFeatures = 40
	}
	if o.FalseAlarm == 0 {
		o.FalseAlarm = 0.004
	}
	if o.HighBeta == 0 {
		o.HighBeta = 0.5
	}
	if o.MinThreshold == 0 {
		o.MinThreshold = 0.5
	}
}

// InDev reports whether an example of this id belongs to the development
// split (one in five, by a hash of the id before any "#").
func InDev(id string) bool {
	if i := bytes.IndexByte([]byte(id), '#'); i >= 0 {
		id = id[:i]
	}
	return mix(fnv(2166136261, []byte(id)))%5 == 0
}

type prepared struct {
	feats  []uint32
	v      float32
	class  int
	acute  bool
	weight float32
}

// Train builds a weights file from the examples: it fits the model on the
// training split, quantises it, calibrates it and sets the thresholds on
// the development split (InDev), and returns the file's bytes and its
// header. The same examples and options give the same bytes.
func Train(examples []Example, opt Options) ([]byte, Meta, error) {
	opt.defaults()
	if opt.Buckets&(opt.Buckets-1) != 0 {
		return nil, Meta{}, fmt.Errorf("buckets %d is not a power of two", opt.Buckets)
	}
	mask := uint32(opt.Buckets - 1)
	var train, dev []Example
	for _, e := range examples {
		if InDev(e.ID) {
			dev = append(dev, e)
		} else {
			train = append(train, e)
		}
	}
	// Each example is taught whole and, when it names one, its key sentence.
	var data []prepared
	counts := make([]float64, len(Classes))
	add := func(e Example, text string) {
		k, ac := e.label()
		var fs []uint32
		eachFeature(normalize(nil, text), func(h uint32) { fs = append(fs, h&mask) })
		if len(fs) == 0 {
			return
		}
		w := e.Weight
		if w == 0 {
			w = 1
		}
		data = append(data, prepared{feats: fs, v: float32(1 / math.Sqrt(float64(max(len(fs), opt.MinFeatures)))), class: k, acute: ac, weight: float32(w)})
		counts[k] += w
	}
	for _, e := range train {
		add(e, e.Text)
		if e.Key != "" && e.Key != e.Text {
			add(e, e.Key)
		}
		if k, _ := e.label(); k == 0 {
			// Judge reads sentences alone too: each sentence of a negative
			// is taught as a negative, at half weight.
			half := e
			half.Weight = 0.5 * max(e.Weight, 0.5)
			n := normalize(nil, e.Text)
			if bytes.IndexByte(n, '|') >= 0 {
				for _, s := range bytes.Split(n, []byte{'|'}) {
					add(half, string(s))
				}
			}
		}
	}
	// Classes are weighted toward balance (square root of the inverse
	// frequency), so that a rare class is not drowned by the negatives.
	var total float64
	for _, c := range counts {
		total += c
	}
	cw := make([]float32, len(Classes))
	for k, c := range counts {
		if c > 0 {
			cw[k] = float32(math.Min(8, math.Sqrt(total/(float64(len(Classes))*c))))
		}
	}
	W := make([]float32, opt.Buckets*heads)
	G := make([]float32, opt.Buckets*heads)
	var bias [heads]float32
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6d6e656d6f))
	order := make([]int, len(data))
	for i := range order {
		order[i] = i
	}
	rate := float32(opt.Rate)
	l2 := float32(opt.L2)
	for ep := 0; ep < opt.Epochs; ep++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		lr := rate / float32(1+ep/4) // a slower rate in the later passes
		for _, i := range order {
			d := &data[i]
			var z [heads]float32
			for _, f := range d.feats {
				row := W[int(f)*heads : int(f)*heads+heads]
				for k := range heads {
					z[k] += row[k]
				}
			}
			for k := range heads {
				z[k] = bias[k] + d.v*z[k]
			}
			var p [7]float32
			hi := z[0]
			for k := 1; k < 7; k++ {
				hi = max(hi, z[k])
			}
			var tot float32
			for k := range 7 {
				p[k] = float32(math.Exp(float64(z[k] - hi)))
				tot += p[k]
			}
			var g [heads]float32
			c := d.weight * cw[d.class]
			for k := range 7 {
				y := float32(0)
				if k == d.class {
					y = 1
				}
				g[k] = c * (p[k]/tot - y)
			}
			if d.class > 0 { // the acute head learns high against medium, among risks
				y := float32(0)
				if d.acute {
					y = 1
				}
				g[acute] = c * (float32(sigmoid(float64(z[acute]))) - y)
			}
			for k := range heads {
				bias[k] -= 0.05 * lr * g[k]
			}
			for _, f := range d.feats {
				row := W[int(f)*heads : int(f)*heads+heads]
				acc := G[int(f)*heads : int(f)*heads+heads]
				for k := range heads {
					if g[k] == 0 {
						continue
					}
					gr := g[k]*d.v + l2*row[k]
					acc[k] += gr * gr
					row[k] -= lr * gr / float32(math.Sqrt(float64(acc[k])+1e-8))
				}
			}
		}
	}
	meta := Meta{Version: 1, Buckets: opt.Buckets, MinFeatures: opt.MinFeatures, Bias: bias, Temperature: 1, AcuteA: 1, TrainedOn: map[string]int{}}
	for _, e := range train {
		meta.TrainedOn[e.Source]++
	}
	// Quantise: each head's weights to int8 with its own scale.
	q := make([]byte, len(W))
	for k := range heads {
		var m float32
		for i := k; i < len(W); i += heads {
			m = max(m, float32(math.Abs(float64(W[i]))))
		}
		if m == 0 {
			m = 1
		}
		meta.Scale[k] = m / 127
		for i := k; i < len(W); i += heads {
			q[i] = byte(int8(math.Round(float64(W[i] / meta.Scale[k]))))
		}
	}
	model := &Model{Meta: meta, mask: mask}
	model.w = make([]int8, len(q))
	for i, c := range q {
		model.w[i] = int8(c)
	}
	calibrate(model, dev, opt)
	out, err := encode(model.Meta, q)
	return out, model.Meta, err
}

// encode writes a weights file.
func encode(meta Meta, q []byte) ([]byte, error) {
	h, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(magic)
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(h)))
	b.Write(n[:])
	b.Write(h)
	b.Write(q)
	return b.Bytes(), nil
}

// windowed is an example's reading by windows, as Judge reads it.
type windowed struct {
	class, raw int
	acute      bool
	maxP       [7]float64 // per class, the highest probability of any window
	acuteAt    [7]float64 // the acute probability in that window
}

// readWindows scores text as Judge does, before thresholds.
func (m *Model) readWindows(text string) (maxP, acuteAt [7]float64) {
	return m.windows(normalize(nil, text))
}

// calibrate fits the temperature and the acute head's scaling on the
// development split and sets the thresholds and the development figures.
func calibrate(m *Model, dev []Example, opt Options) {
	type zs struct {
		z     [heads]float64
		class int
		acute bool
	}
	// Raw scores of the whole texts.
	var rows []zs
	for _, e := range dev {
		k, ac := e.label()
		var sum [heads]float32
		n := 0
		eachFeature(normalize(nil, e.Text), func(h uint32) {
			row := m.w[int(h&m.mask)*heads : int(h&m.mask)*heads+heads]
			for j := range heads {
				sum[j] += float32(row[j])
			}
			n++
		})
		var r zs
		v := 1 / math.Sqrt(float64(max(n, m.Meta.MinFeatures, 1)))
		for j := range heads {
			r.z[j] = float64(m.Meta.Bias[j]) + v*float64(sum[j])*float64(m.Meta.Scale[j])
		}
		r.class, r.acute = k, ac
		rows = append(rows, r)
	}
	// Temperature: the one of a grid with the least log loss.
	bestT, bestLoss := 1.0, math.Inf(1)
	for t := 0.5; t <= 4.0001; t += 0.05 {
		var loss float64
		for _, r := range rows {
			hi := math.Inf(-1)
			for k := range 7 {
				hi = max(hi, r.z[k]/t)
			}
			var tot float64
			for k := range 7 {
				tot += math.Exp(r.z[k]/t - hi)
			}
			loss -= r.z[r.class]/t - hi - math.Log(tot)
		}
		if loss < bestLoss {
			bestT, bestLoss = t, loss
		}
	}
	m.Meta.Temperature = math.Round(bestT*100) / 100
	// The acute head's Platt scaling, on the development risks.
	a, b := 1.0, 0.0
	for it := 0; it < 2000; it++ {
		var ga, gb float64
		n := 0
		for _, r := range rows {
			if r.class == 0 {
				continue
			}
			y := 0.0
			if r.acute {
				y = 1
			}
			p := sigmoid(a*r.z[acute] + b)
			ga += (p - y) * r.z[acute]
			gb += p - y
			n++
		}
		if n == 0 {
			break
		}
		a -= 0.5 * ga / float64(n)
		b -= 0.5 * gb / float64(n)
	}
	m.Meta.AcuteA, m.Meta.AcuteB = a, b
	// Thresholds, on the windowed reading Judge makes.
	ws := make([]windowed, len(dev))
	negs := 0
	for i, e := range dev {
		ws[i].class, ws[i].acute = e.label()
		ws[i].maxP, ws[i].acuteAt = m.readWindows(e.Text)
		if ws[i].class == 0 {
			negs++
		}
	}
	m.Meta.Threshold = map[string]float64{}
	for k := 1; k < 7; k++ {
		// The lowest threshold at which this class flags at most
		// FalseAlarm of the ordinary negatives, and never below
		// MinThreshold. The
		// relabelled posts of people in distress that hold no risk of the
		// taxonomy (borderline) are not counted: a medium finding on one
		// of them is a judgement call, and they would set the bar by their
		// label noise.
		var neg []float64
		for i, w := range ws {
			if w.class == 0 && !borderline(dev[i]) {
				neg = append(neg, w.maxP[k])
			}
		}
		sort.Sort(sort.Reverse(sort.Float64Slice(neg)))
		allowed := int(opt.FalseAlarm * float64(len(neg)))
		th := opt.MinThreshold
		if allowed < len(neg) {
			th = max(th, neg[allowed]+1e-6)
		}
		m.Meta.Threshold[Classes[k]] = math.Round(th*1000) / 1000
	}
	// The acute threshold: the lowest at which the high findings on the
	// development split keep HighPrecision.
	type hp struct {
		a    float64
		good bool
	}
	var highs []hp
	for _, w := range ws {
		k, ratio := bestClass(m, w.maxP)
		if k == 0 || !highClasses[Classes[k]] || ratio < 1 {
			continue
		}
		highs = append(highs, hp{w.acuteAt[k], w.acute})
	}
	sort.Slice(highs, func(i, j int) bool { return highs[i].a > highs[j].a })
	// The threshold that best weighs the precision of a high finding
	// against its recall on the development split (F-beta with beta
	// HighBeta: precision counts more), among those at or above 0.5.
	wantHigh := 0
	for _, w := range ws {
		if w.acute {
			wantHigh++
		}
	}
	th, bestF := 0.9, -1.0
	good := 0
	b2 := opt.HighBeta * opt.HighBeta
	for i, h := range highs {
		if h.good {
			good++
		}
		if h.a < 0.5 || (i+1 < len(highs) && highs[i+1].a == h.a) {
			continue
		}
		p, r := float64(good)/float64(i+1), float64(good)/float64(max(wantHigh, 1))
		if p+r == 0 {
			continue
		}
		if f := (1 + b2) * p * r / (b2*p + r); f > bestF {
			th, bestF = h.a, f
		}
	}
	m.Meta.AcuteThreshold = math.Round(th*1000) / 1000
	m.Meta.Grey = 0.3
	// The development figures, with the thresholds set.
	var f DevFigures
	var found, classOK, highs2, highOK, highWant, highGot, fa, fah int
	for _, w := range ws {
		k, ratio := bestClass(m, w.maxP)
		hit := k > 0 && ratio >= 1
		high := hit && highClasses[Classes[k]] && w.acuteAt[k] >= m.Meta.AcuteThreshold
		if w.class == 0 {
			f.Negatives++
			if hit {
				fa++
			}
			if high {
				fah++
			}
			continue
		}
		f.Positives++
		if hit {
			found++
			if k == w.class {
				classOK++
			}
		}
		if w.acute {
			highWant++
			if high {
				highGot++
			}
		}
		if high {
			highs2++
			if w.acute {
				highOK++
			}
		}
	}
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return math.Round(float64(a)/float64(b)*1000) / 1000
	}
	f.Recall, f.ClassOK = ratio(found, f.Positives), ratio(classOK, f.Positives)
	f.HighRecall, f.HighPrec = ratio(highGot, highWant), ratio(highOK, highs2)
	f.FalseAlarms, f.HighFalseAlm = ratio(fa, f.Negatives), ratio(fah, f.Negatives)
	m.Meta.Dev = f
}

// borderline reports whether e is a relabelled post of someone in
// distress (a DiaSafety risk context or a counsel-chat question) that
// holds no risk of the taxonomy.
func borderline(e Example) bool {
	k, _ := e.label()
	return k == 0 && (e.Source == "counsel-chat" || (e.Source == "diasafety" && strings.HasPrefix(e.ID, "dia-")))
}

// bestClass is the class whose probability stands highest over its
// threshold, and that ratio (below 1: no finding).
func bestClass(m *Model, p [7]float64) (int, float64) {
	best, br := 0, 0.0
	for k := 1; k < 7; k++ {
		th := m.Meta.Threshold[Classes[k]]
		if th <= 0 {
			continue
		}
		if r := p[k] / th; r > br {
			best, br = k, r
		}
	}
	return best, br
}
