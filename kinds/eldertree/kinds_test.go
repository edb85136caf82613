package eldertree_test

import (
	"testing"

	"github.com/mnemo-ai/mnemo/internal/golden"
	"github.com/mnemo-ai/mnemo/kinds/internal/presettest"
	// The tests load the built-in presets, which name every kind: the test
	// binary registers them all, as cmd/worker does.
	_ "github.com/mnemo-ai/mnemo/kinds/all"
)

// TestRulesGolden pins what the worker's rules make of Elder Tree's sample
// sessions (testdata/rules).
func TestRulesGolden(t *testing.T) {
	presettest.ExtractGolden(t, *golden.Update)
}
