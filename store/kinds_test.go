package store_test

// The tests load the built-in presets, which name every kind: the test
// binary registers them all, as cmd/worker does.
import _ "github.com/mnemo-ai/mnemo/kinds/all"
