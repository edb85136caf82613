package extract

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// Statement is one time a memory was said, as the timeline of its key sees
// it.
type Statement struct {
	// ID names the statement; MemoryID is the memory holding it ("" for a
	// statement not stored yet).
	ID, MemoryID         string
	Key, Value, Category string
	Importance           int
	Confidence           float64
	ExpiresAt            *time.Time
	StatedAt             time.Time
	SessionID, MessageID string
	// Weight is how many confirmations the statement stands for (at least 1).
	Weight             int
	EventDate, Wording string
}

// Run is a memory as its statements make it: consecutive statements of one
// key and value in the timeline of a subject (likes:x and dislikes:x are
// one subject).
type Run struct {
	// MemoryID is the stored memory the run keeps, or "" when the run needs
	// a new one (a new value, or the later half of a memory an older
	// statement arrived into the middle of).
	MemoryID   string
	Statements []Statement
	// The memory's fields, folded from its statements in order: the first
	// statement's value, category, time and source; importance as if each
	// statement had confirmed the ones before it (see Plan); the highest
	// confidence; the latest expiry (none if any statement has none); the
	// newest event date named; confirmations summed.
	Key, Value, Category string
	Importance           int
	Confidence           float64
	ExpiresAt            *time.Time
	StatedAt             time.Time
	SessionID, MessageID string
	Confirmations        int
	EventDate, Wording   string
}

// Timeline orders the statements of one subject by statement time (ties
// broken by session, message, value and key, so that any order of arrival
// gives one answer) and folds them into runs, oldest first. The last run is
// what is true now; each earlier run was true from its StatedAt until the
// next run's. A run keeps the memory of its first stored statement unless an
// earlier run already kept it. It is a pure function of the set of
// statements: the order they were handed in does not matter.
func Timeline(stmts []Statement) []Run {
	stmts = slices.Clone(stmts)
	slices.SortFunc(stmts, compareStatements)
	var runs []Run
	for _, s := range stmts {
		if n := len(runs); n > 0 {
			last := &runs[n-1]
			prev := last.Statements[len(last.Statements)-1]
			// One memory holds one run: statements of two memories that
			// became neighbours (the memory between was forgotten) stay two.
			sameMemory := s.MemoryID == "" || !slices.ContainsFunc(last.Statements, func(x Statement) bool {
				return x.MemoryID != "" && x.MemoryID != s.MemoryID
			})
			if prev.Key == s.Key && normValue(prev.Value) == normValue(s.Value) && sameMemory {
				last.Statements = append(last.Statements, s)
				continue
			}
		}
		runs = append(runs, Run{Statements: []Statement{s}})
	}
	claimed := map[string]bool{}
	for i := range runs {
		r := &runs[i]
		for _, s := range r.Statements {
			if s.MemoryID != "" && !claimed[s.MemoryID] {
				r.MemoryID = s.MemoryID
				claimed[s.MemoryID] = true
				break
			}
		}
		r.fold()
	}
	return runs
}

// FoldStatements is one statement standing for consecutive statements of one run,
// in timeline order: the first one, with the confirmations, importance,
// confidence, expiry, event date and wording the run has folded them to.
// A run that starts with the fold folds to the memory one that starts with
// the statements folds to (see Run's fields), at the same place in the
// timeline, so a long run's old statements can be stored as one without
// changing what its memory says or when it was true.
func FoldStatements(stmts []Statement) Statement {
	r := Run{Statements: stmts}
	r.fold()
	f := stmts[0]
	f.Weight, f.Importance, f.Confidence, f.ExpiresAt = r.Confirmations, r.Importance, r.Confidence, r.ExpiresAt
	f.EventDate, f.Wording = r.EventDate, r.Wording
	return f
}

func (r *Run) fold() {
	first := r.Statements[0]
	r.Key, r.Value, r.Category = first.Key, first.Value, first.Category
	r.StatedAt, r.SessionID, r.MessageID = first.StatedAt, first.SessionID, first.MessageID
	r.Importance, r.Confidence, r.ExpiresAt = first.Importance, first.Confidence, first.ExpiresAt
	r.Confirmations = max(first.Weight, 1)
	r.EventDate, r.Wording = first.EventDate, first.Wording
	for _, s := range r.Statements[1:] {
		w := max(s.Weight, 1)
		r.Importance = min(100, max(r.Importance+5*w, s.Importance+5*r.Confirmations))
		r.Confidence = max(r.Confidence, s.Confidence)
		if r.ExpiresAt != nil && (s.ExpiresAt == nil || s.ExpiresAt.After(*r.ExpiresAt)) {
			r.ExpiresAt = s.ExpiresAt
		}
		r.Confirmations += w
		if s.EventDate != "" {
			r.EventDate, r.Wording = s.EventDate, s.Wording
		}
	}
}

func compareStatements(a, b Statement) int {
	return cmp.Or(a.StatedAt.Compare(b.StatedAt), strings.Compare(a.SessionID, b.SessionID),
		strings.Compare(a.MessageID, b.MessageID), strings.Compare(normValue(a.Value), normValue(b.Value)),
		strings.Compare(a.Key, b.Key), strings.Compare(a.ID, b.ID))
}

// Subject is what a memory key is about: likes:x and dislikes:x share one,
// so that the later of two contradicting statements wins.
func Subject(key string) string { return subject(key) }

// SubjectKeys are the keys whose subject is key's: key itself, and for a
// preference its likes:, its dislikes: and its pref: key (a key stored as
// "pref:tea" has the subject of "likes:tea").
func SubjectKeys(key string) []string {
	if item, ok := strings.CutPrefix(subject(key), "pref:"); ok {
		return []string{"dislikes:" + item, "likes:" + item, "pref:" + item}
	}
	return []string{key}
}

// KeysToRead are the stored keys that merging candidates can touch (see
// Plan): the keys of every candidate's subject, as Plan cleans its key,
// and the keys a change may resolve to (Change.Keys), sorted and each once.
// What is stored under other keys decides nothing. It is nil, which reads
// every key, when a change names a prefix ("pet:", "event:"): which key
// it touches is known only from what is stored.
func KeysToRead(candidates []Memory) []string {
	var keys []string
	for _, c := range candidates {
		keys = append(keys, SubjectKeys(cleanCandidate(c).Key)...)
		if c.Change != nil {
			for _, k := range c.Change.Keys {
				if strings.HasSuffix(k, ":") || strings.HasSuffix(k, "_") {
					return nil
				}
				keys = append(keys, SubjectKeys(k)...)
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
