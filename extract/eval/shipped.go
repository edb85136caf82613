package eval

import (
	"embed"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// shipped are the annotated sets built into the binary, for `worker eval`.
// A set whose turns live in a corpus (MemoryBank) still needs the corpus at
// run time.
//
//go:embed testdata/*.eval.json
var shipped embed.FS

// ShippedSets names the memory sets built into the binary ("adversarial",
// "memorybank", one per app, …), sorted. Files that are not memory sets (the risk
// sets) are left out.
func ShippedSets() []string {
	entries, _ := fs.ReadDir(shipped, "testdata")
	var names []string
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".eval.json")
		if !slices.Contains(RiskSets, name) {
			names = append(names, name)
		}
	}
	return names
}

// RiskSetName is the risk screen's set (testdata/risk.eval.json), scored
// apart from the memory sets.
const RiskSetName = "risk"

// RiskHoldoutSetName is the held-out risk set
// (testdata/risk.holdout.eval.json): written apart from the rules and never
// used to tune them, scored and reported beside RiskSetName, with no floors.
const RiskHoldoutSetName = "risk.holdout"

// RiskHoldout31SetName is the held-out risk set of issue 31
// (testdata/risk.holdout31.eval.json): written apart from the rules and
// from the trained layer, which never learns from it (riskml.LoadData
// leaves out any training example that repeats one of its items).
const RiskHoldout31SetName = "risk.holdout31"

// RiskHoldoutW4SetName is the held-out risk set of new wording
// (testdata/risk.holdout-w4.eval.json): 1,377 of 1,400 lines written by a
// helper who saw neither the rules, the other sets nor the training data,
// first as training data and moved here untrained on (docs/safety.md,
// "Measuring it"); the 23 through which a training example shares half of
// its six-word runs are out. riskml.LoadData leaves out any training
// example that repeats one of its items, as for the other held-out sets.
const RiskHoldoutW4SetName = "risk.holdout-w4"

// RiskSets are the shipped risk sets, in report order.
var RiskSets = []string{RiskSetName, RiskHoldoutSetName, RiskHoldout31SetName, RiskHoldoutW4SetName}

// RiskTitle is how a report names a risk set: "risk", "risk (held out)".
func RiskTitle(name string) string {
	switch name {
	case RiskHoldoutSetName:
		return "risk (held out)"
	case RiskHoldout31SetName:
		return "risk (held out, issue 31)"
	case RiskHoldoutW4SetName:
		return "risk (held out, new wording)"
	}
	return name
}

// ShippedFile is a built-in set's raw JSON (name as ShippedSets gives it,
// or one of RiskSets); ok is false when the binary has no such set.
func ShippedFile(name string) (raw []byte, ok bool) {
	raw, err := shipped.ReadFile(path.Join("testdata", name+".eval.json"))
	return raw, err == nil
}

// LoadShipped reads and checks a built-in memory set.
func LoadShipped(name string) (*Set, error) {
	raw, ok := ShippedFile(name)
	if !ok {
		return nil, fs.ErrNotExist
	}
	return parse(name+".eval.json", raw)
}
