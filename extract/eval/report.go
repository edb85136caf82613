package eval

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Combine adds up scores of one app's sets into one, named name.
func Combine(name string, scores ...Score) Score {
	out := Score{Set: name}
	rows := map[string]*Row{}
	for _, s := range scores {
		out.App = s.App
		out.Turns += s.Turns
		out.Candidates += s.Candidates
		out.Violations = append(out.Violations, s.Violations...)
		out.Misses = append(out.Misses, s.Misses...)
		out.Wrong = append(out.Wrong, s.Wrong...)
		for _, r := range s.Rows {
			if rows[r.Category] == nil {
				rows[r.Category] = &Row{Category: r.Category}
			}
			rows[r.Category].add(r)
		}
	}
	out.Rows, out.Total = ordered(rows)
	return out
}

// WriteTable prints a score's figures per category.
func WriteTable(w io.Writer, s Score) {
	fmt.Fprintf(w, "%s (app %s): %d user turns, %d candidates, %d stored: precision %.2f, recall %.2f, forbidden %d\n",
		s.Set, s.App, s.Turns, s.Candidates, s.Total.Stored, s.Total.Precision(), s.Total.Recall(), s.Total.Forbidden)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "category\tgold\trecalled\trecall\tstored\tcorrect\tprecision\tforbidden\t")
	for _, r := range append(slices.Clone(s.Rows), s.Total) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%d\t%s\t%d\t\n",
			r.Category, r.Gold, r.Recalled, fig(r.Gold, r.Recall()), r.Stored, r.Correct, fig(r.Stored, r.Precision()), r.Forbidden)
	}
	tw.Flush()
}

func fig(n int, v float64) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

// WriteDetail lists a score's forbidden memories, wrong memories and missed
// gold items, with the turn's text: what an engineer improving the
// extractor reads.
func WriteDetail(w io.Writer, s Score) {
	fmt.Fprintf(w, "%s: forbidden stored (%d)\n", s.Set, len(s.Violations))
	for _, v := range s.Violations {
		fmt.Fprintf(w, "  %s#%d %s: %s = %q   <- %s\n", v.Session, v.Turn, v.Class, v.Key, v.Value, short(v.Text))
	}
	fmt.Fprintf(w, "%s: stored but not expected (%d)\n", s.Set, len(s.Wrong))
	for _, st := range s.Wrong {
		fmt.Fprintf(w, "  %s#%d %s = %q\n", st.Session, st.Turn, st.Key, st.Value)
	}
	fmt.Fprintf(w, "%s: expected but not stored (%d)\n", s.Set, len(s.Misses))
	for _, m := range s.Misses {
		subj := ""
		if m.Gold.Subject != "" {
			subj = m.Gold.Subject + "="
		}
		fmt.Fprintf(w, "  %s#%d %s:%s%s   <- %s\n", m.Session, m.Turn, m.Gold.Category, subj, strings.Join(m.Gold.Value, "|"), short(m.Text))
	}
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 110 {
		return string(r[:110]) + "…"
	}
	return s
}
