package extract_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
)

// careApps are the five presets, each with the name its care note gives
// the app, and a custom app of the default kind under its own name.
var careApps = []struct{ rules, app, label string }{
	{"mona", "mona", "Mona"},
	{"eldertree", "eldertree", "Elder Tree"},
	{"coach", "coach", "the coach"},
	{"lara", "lara", "LaRa"},
	{"clara", "clara", "Clara"},
	{"custom", "acme-companion", "acme-companion"},
}

// careIn is the golden input of a kind, with a suicidal finding said the
// evening before ctxNow in Chicago (the 24th there, the 25th in UTC).
func careIn(t *testing.T, rules, app string) extract.PackInput {
	t.Helper()
	in := ctxReadInput(t, rules).pack()
	in.Location, _ = time.LoadLocation("America/Chicago")
	in.Care = &extract.CareFinding{App: app, Class: extract.RiskSuicidal, Severity: extract.SeverityHigh,
		At: time.Date(2026, 11, 25, 3, 30, 0, 0, time.UTC)}
	return in
}

// careOpening is how a pack with a care note begins.
const careOpening = extract.PackPreamble + "\n\nCARE NOTE:\n- "

// TestPackCareNoteOpensEveryAppsPack: after a crisis, the next session's
// pack of each app opens with the care note in the app's words: the day in
// the user's zone, the class in plain words, a gentle check-in first and
// the app's crisis guidance. The rest of the pack follows as before, and
// Clara's, which holds nothing of other sessions, holds the note alone.
func TestPackCareNoteOpensEveryAppsPack(t *testing.T) {
	t.Parallel()
	for _, a := range careApps {
		t.Run(a.rules, func(t *testing.T) {
			t.Parallel()
			in := careIn(t, a.rules, a.app)
			got := extract.Pack(a.rules, in, 0)
			if !strings.HasPrefix(got.Text, careOpening) {
				t.Fatalf("the pack does not open with the care note:\n%s", got.Text)
			}
			note, _, _ := strings.Cut(strings.TrimPrefix(got.Text, careOpening), "\n")
			for _, want := range []string{"2026-11-24", "thoughts of suicide or of not wanting to live", "gently", "follow " + a.label + "'s crisis guidance"} {
				if !strings.Contains(note, want) {
					t.Errorf("the care note %q does not say %q", note, want)
				}
			}
			if low := strings.ToLower(note); !strings.Contains(low, "before anything else") && !strings.Contains(low, "before any lesson") {
				t.Errorf("the care note %q does not ask for the check-in first", note)
			}
			if p := got.Parts[0]; p.Name != "care_note" || p.Items != 1 || p.Dropped != 0 {
				t.Errorf("first part %+v; want the care note", p)
			}
			if got.Tokens > got.BudgetTokens || got.Tokens != extract.CountTokens(got.Text) {
				t.Errorf("tokens %d of budget %d; the text counts %d", got.Tokens, got.BudgetTokens, extract.CountTokens(got.Text))
			}
			// Without the finding, the same pack minus the note.
			in.Care = nil
			without := extract.Pack(a.rules, in, 0)
			if a.rules == "clara" {
				if got.Text != careOpening+note || len(got.Parts) != 1 || without.Text != "" {
					t.Errorf("Clara's pack holds more than the care note:\n%s\nwithout it:\n%s", got.Text, without.Text)
				}
				return
			}
			if rest := strings.TrimPrefix(without.Text, extract.PackPreamble); !strings.HasSuffix(got.Text, rest) && without.Tokens+extract.CountTokens(note) < got.BudgetTokens-20 {
				t.Errorf("with room to spare, the pack with the note is not the pack without it after the note:\n%s\n---\n%s", got.Text, without.Text)
			}
		})
	}
}

// TestPackCareNoteSurvivesTheTightestBudget: the note takes the first part
// of any budget. At every budget from 1 token to twice the app's default,
// with more memories than fit, a pack that holds anything holds the note
// first (nothing is told without it), and from a small budget on (the short
// note: extract.CareNoteMinBudget, for every class) every pack holds it;
// from the app's default budget on, the full note.
func TestPackCareNoteSurvivesTheTightestBudget(t *testing.T) {
	t.Parallel()
	for _, a := range careApps {
		t.Run(a.rules, func(t *testing.T) {
			t.Parallel()
			in := careIn(t, a.rules, a.app)
			for i := range 60 {
				in.Memories = append(in.Memories, extract.PackMemory{ID: fmt.Sprintf("x%02d", i), Key: fmt.Sprintf("likes:thing_%02d", i),
					Value: "a long and important thing number " + fmt.Sprint(i), Category: extract.CategoryPreference, Importance: 90, UpdatedAt: ctxNow})
			}
			full := extract.Pack(a.rules, in, 0)
			def := full.BudgetTokens
			fullNote, _, _ := strings.Cut(strings.TrimPrefix(full.Text, careOpening), "\n")
			first := 0
			for budget := 1; budget <= 2*def; budget++ {
				if budget > 100 && budget%7 != 0 && budget != def {
					continue // every budget around the note's size, a sample above
				}
				got := extract.Pack(a.rules, in, budget)
				if got.Tokens > budget {
					t.Fatalf("budget %d: %d tokens", budget, got.Tokens)
				}
				if got.Text == "" {
					if first > 0 {
						t.Fatalf("budget %d: an empty pack, where %d held the note", budget, first)
					}
					continue
				}
				if !strings.HasPrefix(got.Text, careOpening) || got.Parts[0].Name != "care_note" {
					t.Fatalf("budget %d: the pack holds something without the care note first:\n%s", budget, got.Text)
				}
				if first == 0 {
					first = budget
				}
				if budget >= def && !strings.HasPrefix(got.Text, careOpening+fullNote) {
					t.Fatalf("budget %d (the default is %d): not the full note:\n%s", budget, def, got.Text)
				}
			}
			if first == 0 || first > extract.CareNoteMinBudget {
				t.Fatalf("the note first fits a budget of %d tokens; want %d or less", first, extract.CareNoteMinBudget)
			}
			// Every class's note fits that budget.
			for _, class := range extract.RiskClasses {
				in.Care.Class = class
				if got := extract.Pack(a.rules, in, extract.CareNoteMinBudget); !strings.HasPrefix(got.Text, careOpening) {
					t.Errorf("class %s: a budget of %d holds no care note: %q", class, extract.CareNoteMinBudget, got.Text)
				}
			}
		})
	}
}

// TestCareNoteSaysEveryClassInPlainWords: every class the screen finds has
// plain words of its own, none of them the class's code.
func TestCareNoteSaysEveryClassInPlainWords(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, class := range extract.RiskClasses {
		w := extract.RiskConcern(class)
		if w == extract.RiskConcern("no-such-class") || seen[w] || strings.Contains(w, "_") {
			t.Errorf("class %s: %q", class, w)
		}
		seen[w] = true
	}
}
