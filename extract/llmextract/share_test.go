package llmextract_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/eval"
	"github.com/mnemo-ai/mnemo/internal/tokens"
	"github.com/mnemo-ai/mnemo/prompts"
)

// shareRow is what the risk check would cost on one set: its sessions, those
// with a message flagged or grey (a risk check each), the messages asked
// about, and the input tokens of the checks.
type shareRow struct {
	set, app          string
	sessions, checked int
	asked, grey       int
	tokens            int
}

// TestEscalationShare measures how many sessions of the shipped evaluation
// sets would get the risk check (MNEMO_RISK_MODEL=escalate) when the rules
// extract them: those with a message the screen flagged or put in its grey
// zone (docs/safety.md, "Escalation to a model"). Print it with
//
//	go test ./extract/llmextract -run TestEscalationShare -v
//
// The MemoryBank set and the persona chats need the shared corpora
// (MNEMO_CORPORA, or ../shared/corpora beside the checkout); without them
// they are left out. It checks what a user would notice whatever the
// figures: no session of an app whose policy allows no model is ever
// checked, and a check is asked about at most extract.MaxRiskQuestions
// messages.
func TestEscalationShare(t *testing.T) {
	apps := builtin(t)
	check, err := prompts.RiskCheck()
	if err != nil {
		t.Fatal(err)
	}
	system, err := check.RenderSystem()
	if err != nil {
		t.Fatal(err)
	}
	wire, _, _ := check.ResponseSchema()
	fixed := tokens.Count(system) + tokens.Count(string(wire)) + 11 // the framing of two messages

	corpora := os.Getenv("MNEMO_CORPORA")
	if corpora == "" {
		corpora = filepath.Join("..", "..", "..", "shared", "corpora")
	}
	var rows []shareRow
	measure := func(row *shareRow, app *prompts.App, s extract.Session) {
		row.sessions++
		res := extract.Rules(app, s, s.EndedAt)
		qs := extract.RiskQuestions(s, res)
		if len(qs) > extract.MaxRiskQuestions {
			t.Errorf("%s: %d messages asked about; at most %d", s.ID, len(qs), extract.MaxRiskQuestions)
		}
		if len(qs) == 0 || !app.Policy.LLM {
			return // an app that allows no model is never checked (TestEscalateMakesNoCall)
		}
		user, err := prompts.RiskCheckUser(qs)
		if err != nil {
			t.Fatal(err)
		}
		row.checked++
		row.asked += len(qs)
		row.grey += len(res.RiskGrey)
		row.tokens += fixed + tokens.Count(user)
	}
	session := func(id, app string, turns []string) extract.Session {
		t0 := time.Date(2026, 12, 1, 19, 0, 0, 0, time.UTC)
		s := extract.Session{ID: id, UserID: id, App: app, StartedAt: t0, Timezone: "UTC"}
		for i, text := range turns {
			s.Messages = append(s.Messages, extract.Message{ID: fmt.Sprintf("q%d", i), Role: "user", Content: text, At: t0.Add(time.Duration(i) * time.Minute)})
		}
		s.EndedAt = t0.Add(time.Hour)
		return s
	}

	for _, name := range eval.ShippedSets() {
		set, err := eval.LoadShipped(name)
		if err != nil {
			t.Fatal(err)
		}
		if set.Corpus != "" {
			if err := set.Resolve(corpora); err != nil {
				t.Logf("%s left out: %v", name, err)
				continue
			}
		}
		row := shareRow{set: name, app: set.App}
		for _, ses := range set.Sessions {
			turns := make([]string, len(ses.Turns))
			for i, tn := range ses.Turns {
				turns[i] = tn.Text
			}
			measure(&row, apps[set.App], session(name+":"+ses.Persona+"/"+ses.Date, set.App, turns))
		}
		rows = append(rows, row)
	}
	for _, name := range eval.RiskSets {
		raw, _ := eval.ShippedFile(name)
		set, err := eval.ParseRisk(name, raw)
		if err != nil {
			t.Fatal(err)
		}
		pos, neg := shareRow{set: name + " crises", app: "each"}, shareRow{set: name + " ordinary", app: "each"}
		for _, it := range set.Items {
			row := &neg
			if it.Positive() {
				row = &pos
			}
			measure(row, apps[it.App], session(name+":"+it.ID, it.App, it.Messages()))
		}
		rows = append(rows, pos, neg)
	}
	if chats, err := eval.LoadPersonaChats(filepath.Join(corpora, filepath.FromSlash(eval.PersonaCorpus))); err != nil {
		t.Logf("persona chats left out: %v", err)
	} else {
		row := shareRow{set: "persona-chat", app: "mona"}
		for _, c := range chats {
			for sp := range 2 {
				var turns []string
				for _, l := range c.Lines {
					if l.Speaker == sp {
						turns = append(turns, l.Text)
					}
				}
				measure(&row, apps["mona"], session(fmt.Sprintf("persona:%d:%d", c.Index, sp), "mona", turns))
			}
		}
		rows = append(rows, row)
	}

	var out strings.Builder
	w := tabwriter.NewWriter(&out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "set\tapp\tsessions\tchecked\tshare\tmessages asked\tof them grey\tinput tokens per check\t")
	for _, r := range rows {
		if r.app == "lara" && r.checked != 0 {
			t.Errorf("%s: %d LaRa sessions would be checked; LaRa's words never go to a model", r.set, r.checked)
		}
		per := 0
		if r.checked > 0 {
			per = r.tokens / r.checked
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.1f%%\t%d\t%d\t%d\t\n", r.set, r.app, r.sessions, r.checked, 100*float64(r.checked)/float64(max(r.sessions, 1)), r.asked, r.grey, per)
	}
	w.Flush()
	t.Logf("sessions the risk check would ask about, on the rules path:\n%s", out.String())
}
