package extract

import (
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/prompts"
)

// TestKindsAreTheRuleSetsAppsMayName: the registry and the names a
// policy.json may give in "rules" (checked when the presets load) are one
// list, so that an app can name every kind and no name lacks a home.
func TestKindsAreTheRuleSetsAppsMayName(t *testing.T) {
	if got := KindNames(); !slices.Equal(got, prompts.RuleSets()) {
		t.Fatalf("kinds %v, rule sets an app may name %v", got, prompts.RuleSets())
	}
	for _, name := range KindNames() {
		if KindOf(" "+name+" ").Name() != name {
			t.Errorf("KindOf(%q) is %s", name, KindOf(name).Name())
		}
	}
	if KindOf("unknown").Name() != "mona" {
		t.Error("an unknown kind should behave as mona, the general companion")
	}
}
