package coach

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/views"
)

// The page of a user of this kind: views builds the shell (title, the
// facts at the top, who may see it) and asks this package for the sections.
func init() {
	views.RegisterPage(extract.PageCoaching, func(p *views.UserPage, ctx context.Context) ([]views.Section, error) {
		return page{p}.coaching(ctx)
	})
}

// page is a user's page as this kind's builder reads it.
type page struct{ *views.UserPage }

// coachSessions is how many of the latest sessions the coach page reads.
const coachSessions = 20

// coaching is a coaching client's page (docs/presets.md, Coach): goals, recurring themes
// and preferences from the profile, and the action steps and open threads
// of each session's summary. The summary's text and recognition moment,
// which may hold the client's own sentences at length, are left out.
func (x page) coaching(ctx context.Context) ([]views.Section, error) {
	goals := views.Section{ID: "goals", Title: "Goals and recurring themes", Attr: "coach-goals",
		Intro: "Derived from every session's summary: up to three goals, the themes found in two or more sessions, and how the client likes to be coached."}
	prof, err := x.Store.GetProfile(ctx, x.User.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		goals.Empty = "Goals and themes appear once a session in which the client names a goal (\"my goal is …\") is processed; a theme once two sessions share a topic."
	case err != nil:
		return nil, err
	default:
		d := views.Decode(prof.Doc)
		goals.Lists = []views.List{
			{Title: "Goals", Items: views.FieldTexts(d, "goals"), Empty: "No goal named yet."},
			{Title: "Recurring themes", Items: views.FieldTexts(d, "recurring_themes"), Empty: "No topic has come up in two sessions yet."},
			{Title: "Coaching preferences", Items: views.FieldTexts(d, "coach_preferences"), Empty: "None said yet."},
		}
	}

	over := views.Section{ID: "sessions", Title: "Action steps and open threads over sessions", Attr: "coach-sessions",
		Intro: fmt.Sprintf("The latest %d sessions' summaries: what the client said they will do, and what was left open.", coachSessions)}
	_, list, err := x.Summaries(ctx, coachSessions)
	if err != nil {
		return nil, err
	}
	slices.Reverse(list) // oldest first
	byID := x.SessionByID()
	var cats []string
	var steps, threads []float64
	table := views.VTable{Caption: "Sessions", Head: []string{"Session", "Action steps", "Open threads", "Topics"},
		Empty: "Sessions appear here once their summaries are written, a few seconds after a session is handed over."}
	latest := map[string]any(nil)
	for _, s := range list {
		d := views.Decode(s.Data)
		at := s.SessionAt
		if sess, ok := byID[s.SessionID]; ok {
			at = sess.EndedAt
		}
		name := at.In(x.Loc).Format("Mon 2 Jan 15:04")
		a, t := views.FieldTexts(d, "action_steps"), views.FieldTexts(d, "open_threads")
		cats = append(cats, name)
		steps, threads = append(steps, float64(len(a))), append(threads, float64(len(t)))
		table.Rows = append(table.Rows, []string{name, views.OrDash(strings.Join(a, "; ")), views.OrDash(strings.Join(t, "; ")), views.OrDash(strings.Join(views.FieldTexts(d, "topics"), ", "))})
		latest = d
	}
	slices.Reverse(table.Rows) // newest first
	over.Charts = []*views.Chart{views.BarChart(views.BarSpec{ID: "coach-sessions", Title: "Action steps and open threads per session",
		Desc:          fmt.Sprintf("%s, oldest first.", views.Plural(len(list), "session", "sessions")),
		CategoryLabel: "Session ended (" + x.Loc.String() + ")", ValueLabel: "Items", Categories: cats,
		Series: []views.BarSeries{{Name: "Action steps", Values: steps}, {Name: "Open threads", Values: threads}},
		Empty:  "The chart appears once a session's summary is written."})}
	over.Tables = []views.VTable{table}

	open := views.Section{ID: "open", Title: "Carried into the next session", Attr: "coach-open",
		Intro: "The latest session's action steps and open threads, which the next session's context pack lists."}
	if latest == nil {
		open.Empty = "Nothing yet: these appear once a session is processed."
	} else {
		open.Lists = []views.List{{Title: "Action steps", Items: views.FieldTexts(latest, "action_steps"), Empty: "None in the latest session."},
			{Title: "Open threads", Items: views.FieldTexts(latest, "open_threads"), Empty: "None in the latest session."}}
	}
	return []views.Section{goals, open, over}, nil
}
