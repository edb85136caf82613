// Package all registers every app kind: importing it (blank) is how a
// binary or a test gets them. The rule: a kind is one package under kinds/
// that registers itself with extract.Register from its init function, and
// this file holds one import line per kind; no other package outside
// kinds/ names a kind.
package all

import (
	_ "github.com/mnemo-ai/mnemo/kinds/clara"
	_ "github.com/mnemo-ai/mnemo/kinds/coach"
	_ "github.com/mnemo-ai/mnemo/kinds/eldertree"
	_ "github.com/mnemo-ai/mnemo/kinds/lara"
	_ "github.com/mnemo-ai/mnemo/kinds/mona"
)
