package store_test

// The store's tests load the built-in apps, whose kinds register
// themselves: the test binary imports them all, as cmd/worker does.
import _ "github.com/mnemo-ai/mnemo/kinds/all"
