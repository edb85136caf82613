package main

// The worker runs apps of every kind: each kind registers itself when its
// package is imported, and kinds/all imports them all.
import _ "github.com/mnemo-ai/mnemo/kinds/all"
