package prompts_test

// The built-in presets name their app kinds in "rules", which a policy may
// only name when the kind is registered: the test binary registers them
// all, as cmd/worker does.
import _ "github.com/mnemo-ai/mnemo/kinds/all"
