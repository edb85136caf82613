package riskml

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
)

// Classes are the model's outputs of the class head, in order: none first,
// then the risk classes of extract.RiskClasses (danger is taught as abuse,
// as the rules report it).
var Classes = []string{"none", "suicidal", "self_harm", "abuse", "hopelessness", "distress", "substance"}

// heads is the number of outputs a feature has a weight for: the classes,
// and the acute head.
const heads = 8

// acute is the index of the acute head: an intent, a plan, means, a time
// or an act.
const acute = 7

// highClasses are the classes a finding may be high in; hopelessness and
// distress are medium at most (docs/safety.md, "Severity").
var highClasses = map[string]bool{"suicidal": true, "self_harm": true, "abuse": true, "substance": true}

// magic opens a weights file; the version is in the metadata.
const magic = "MNEMORISK\n"

// Meta is the weights file's header: sizes, calibration, thresholds and
// what the weights were built from. It is JSON in the file.
type Meta struct {
	Version int `json:"version"`
	// Buckets is the number of hashed features (a power of two).
	Buckets int `json:"buckets"`
	// MinFeatures: a text's features are scaled by one over the square
	// root of their count, or of MinFeatures when it has fewer, so that a
	// short sentence's few features are not blown up.
	MinFeatures int `json:"min_features"`
	// Scale turns a head's int8 weights back into floats; Bias is the
	// head's intercept.
	Scale [heads]float32 `json:"scale"`
	Bias  [heads]float32 `json:"bias"`
	// Temperature divides the class head's scores before the softmax
	// (calibrated on the development split); AcuteA and AcuteB are the
	// acute head's Platt scaling.
	Temperature float64 `json:"temperature"`
	AcuteA      float64 `json:"acute_a"`
	AcuteB      float64 `json:"acute_b"`
	// Threshold is, per class, the calibrated probability a finding needs;
	// AcuteThreshold the acute probability a high finding needs. Grey is
	// the band of a class probability below its threshold in which a
	// message may be worth a model's second look (Finding.Grey).
	Threshold      map[string]float64 `json:"threshold"`
	AcuteThreshold float64            `json:"acute_threshold"`
	Grey           float64            `json:"grey"`
	// TrainedOn counts the examples of each source; Dev is the figures on
	// the development split the thresholds were set on.
	TrainedOn map[string]int `json:"trained_on"`
	Dev       DevFigures     `json:"dev"`
}

// DevFigures are the model's figures on the development split.
type DevFigures struct {
	Positives    int     `json:"positives"`
	Negatives    int     `json:"negatives"`
	Recall       float64 `json:"recall"`
	ClassOK      float64 `json:"class_ok"`
	HighRecall   float64 `json:"high_recall"`
	HighPrec     float64 `json:"high_precision"`
	FalseAlarms  float64 `json:"false_alarms"`
	HighFalseAlm float64 `json:"high_false_alarms"`
}

// Model is a loaded set of weights. Its methods are safe for concurrent use.
type Model struct {
	Meta Meta
	w    []int8 // Buckets × heads
	mask uint32
	bufs sync.Pool
}

//go:embed weights.bin
var shipped []byte

var (
	defaultOnce  sync.Once
	defaultModel *Model
	defaultErr   error
)

// Default is the model of the shipped weights. It panics when they do not
// load, which TestShippedWeightsLoad catches before a release.
func Default() *Model {
	defaultOnce.Do(func() { defaultModel, defaultErr = Load(shipped) })
	if defaultErr != nil {
		panic(fmt.Sprintf("riskml: shipped weights: %v", defaultErr))
	}
	return defaultModel
}

// Shipped is the bytes of the embedded weights file.
func Shipped() []byte { return shipped }

// Load reads a weights file written by Train.
func Load(b []byte) (*Model, error) {
	if !bytes.HasPrefix(b, []byte(magic)) {
		return nil, errors.New("not a weights file")
	}
	b = b[len(magic):]
	if len(b) < 4 {
		return nil, errors.New("truncated header")
	}
	n := binary.LittleEndian.Uint32(b)
	b = b[4:]
	if uint64(n) > uint64(len(b)) {
		return nil, errors.New("truncated header")
	}
	var m Model
	if err := json.Unmarshal(b[:n], &m.Meta); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	b = b[n:]
	if m.Meta.Version != 1 {
		return nil, fmt.Errorf("version %d, want 1", m.Meta.Version)
	}
	if bk := m.Meta.Buckets; bk <= 0 || bk&(bk-1) != 0 || len(b) != bk*heads {
		return nil, fmt.Errorf("%d weights for %d buckets", len(b), bk)
	}
	m.w = make([]int8, len(b))
	for i, c := range b {
		m.w[i] = int8(c)
	}
	m.mask = uint32(m.Meta.Buckets - 1)
	m.bufs.New = func() any { s := make([]byte, 0, 256); return &s }
	return &m, nil
}

// Scores are the model's calibrated outputs for one text.
type Scores struct {
	P     [7]float64 // per class of Classes
	Acute float64    // an intent, a plan, means, a time or an act
}

// score reads the normalised text t.
func (m *Model) score(t []byte) Scores {
	var sum [heads]float32
	n := 0
	eachFeature(t, func(h uint32) {
		row := m.w[int(h&m.mask)*heads : int(h&m.mask)*heads+heads : int(h&m.mask)*heads+heads]
		for k := range heads {
			sum[k] += float32(row[k])
		}
		n++
	})
	return m.calibrate(sum, n)
}

// calibrate turns the raw sums of n features into Scores.
func (m *Model) calibrate(sum [heads]float32, n int) Scores {
	var z [heads]float64
	v := 1 / math.Sqrt(float64(max(n, m.Meta.MinFeatures, 1)))
	for k := range heads {
		z[k] = float64(m.Meta.Bias[k]) + v*float64(sum[k])*float64(m.Meta.Scale[k])
	}
	var s Scores
	t := m.Meta.Temperature
	if t <= 0 {
		t = 1
	}
	hi := math.Inf(-1)
	for k := range 7 {
		hi = max(hi, z[k]/t)
	}
	var tot float64
	for k := range 7 {
		s.P[k] = math.Exp(z[k]/t - hi)
		tot += s.P[k]
	}
	for k := range 7 {
		s.P[k] /= tot
	}
	s.Acute = sigmoid(m.Meta.AcuteA*z[acute] + m.Meta.AcuteB)
	return s
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// Finding is what Judge found in a message: never its text.
type Finding struct {
	Class    string  // "" when none
	Severity string  // medium or high
	P        float64 // the class's calibrated probability
	Acute    float64 // the acute head's, in the window the class was found in
	// Grey is set when no class passed its threshold but one came within
	// Meta.Grey of it: a message a model may look at again.
	Grey bool
}

// Judge reads a user message: the whole of it (its first maxWords words),
// each sentence, and each pair of neighbouring sentences, and returns the
// strongest finding of any window. A class needs its threshold; high
// needs, besides, a class that can be high and the acute head's threshold
// in the window where the class stood highest.
func (m *Model) Judge(text string) Finding {
	bp := m.bufs.Get().(*[]byte)
	t := normalize((*bp)[:0], text)
	maxP, acuteAt := m.windows(t)
	if cap(t) <= 1<<16 { // a huge message's buffer is not kept
		*bp = t
		m.bufs.Put(bp)
	}
	k, r := bestClass(m, maxP)
	if k == 0 || r < 1 {
		return Finding{Grey: k > 0 && m.Meta.Grey > 0 && r >= 1-m.Meta.Grey}
	}
	f := Finding{Class: Classes[k], Severity: "medium", P: maxP[k], Acute: acuteAt[k]}
	if highClasses[f.Class] && acuteAt[k] >= m.Meta.AcuteThreshold {
		f.Severity = "high"
	}
	return f
}

// windows scores each window of the normalised text t (eachWindow): per
// class, the highest probability of any window, and the acute probability
// of that window.
func (m *Model) windows(t []byte) (maxP, acuteAt [7]float64) {
	eachWindow(t, func(w []byte) {
		if len(w) == 0 {
			return
		}
		s := m.score(w)
		for k := 1; k < 7; k++ {
			if s.P[k] > maxP[k] {
				maxP[k], acuteAt[k] = s.P[k], s.Acute
			}
		}
	})
	return
}

// Score is the calibrated outputs of the whole text (its first maxWords
// words), for reports.
func (m *Model) Score(text string) Scores {
	return m.score(normalize(nil, text))
}

// eachWindow calls f with the whole normalised text t, each of its
// sentences and each pair of neighbouring sentences (a text of one
// sentence is read once), as sub-slices of t. Every window is read up to
// maxWords words, so the work is linear in the text.
func eachWindow(t []byte, f func([]byte)) {
	f(t)
	first := bytes.IndexByte(t, '|')
	if first < 0 {
		return
	}
	prev := -1 // start of the previous sentence
	start := 0
	for start <= len(t) {
		end := bytes.IndexByte(t[start:], '|')
		if end < 0 {
			end = len(t)
		} else {
			end += start
		}
		f(t[start:end])
		if prev >= 0 && !(prev == 0 && end == len(t)) { // the pair that is the whole text was read
			f(t[prev:end])
		}
		prev, start = start, end+1
	}
}
