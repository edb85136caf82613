package extract_test

// The engine's tests run the app kinds, which register themselves: the
// test binary imports them all, as cmd/worker does.
import _ "github.com/mnemo-ai/mnemo/kinds/all"
