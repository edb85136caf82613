package extract

import "cmp"

// CapMemories holds the rules' result to the same bound as a model's
// answer (ModelResult): of more than max memories (0 is
// DefaultMaxMemories), the most important are kept (ties in the result's
// order), Result.Cut counts the others and each is named in Dropped as
// DropMemoryCap with its source message. A session of thousands of list
// items would otherwise become thousands of memories (issue 34 §2).
func CapMemories(res *Result, max int) {
	var cut int
	res.Memories, cut = capMemories(res.Memories, cmp.Or(max, DefaultMaxMemories), &res.Dropped)
	res.Cut += cut
}
