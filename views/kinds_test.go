package views_test

// The tests run apps of every kind, which register themselves: the test
// binary imports them all, as cmd/worker does.
import _ "github.com/mnemo-ai/mnemo/kinds/all"
