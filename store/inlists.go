package store

import (
	"cmp"
	"slices"
	"strings"
)

// IN lists longer than a statement's parameters allow (issue 34 §2: a
// session of 2,500 messages, each naming seven things it likes, reads and
// forgets 35,000 keys) go in several statements, each of at most
// inListMax values besides the few parameters before them.
func (q queries) inListMax() int { return q.statementParams() - 16 }

// inLists splits vals into lists of at most inListMax values, each as the
// arguments that follow fixed (the parameters before the list), and the
// list's placeholders ("$2, $3, …"). No values gives no list.
func (q queries) inLists(fixed []any, vals []string) (args [][]any, lists []string) {
	per := q.inListMax()
	for start := 0; start < len(vals); start += per {
		part := vals[start:min(len(vals), start+per)]
		a := make([]any, 0, len(fixed)+len(part))
		a = append(a, fixed...)
		for _, v := range part {
			a = append(a, v)
		}
		args = append(args, a)
		lists = append(lists, placeholders(len(fixed)+1, len(part)))
	}
	return args, lists
}

// sortMemories puts memories read by several statements in memoryOrder,
// once each.
func sortMemories(ms []Memory) []Memory {
	slices.SortFunc(ms, func(a, b Memory) int {
		return cmp.Or(cmp.Compare(b.Importance, a.Importance), a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	return slices.CompactFunc(ms, func(a, b Memory) bool { return a.ID == b.ID })
}

// sortStatements puts statements read by several statements in
// statementOrder.
func sortStatements(ss []Statement) []Statement {
	slices.SortFunc(ss, func(a, b Statement) int {
		return cmp.Or(a.StatedAt.Compare(b.StatedAt), strings.Compare(a.ID, b.ID))
	})
	return slices.CompactFunc(ss, func(a, b Statement) bool { return a.ID == b.ID })
}
