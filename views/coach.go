package views

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemo-ai/mnemo/store"
)

// coachSessions is how many of the latest sessions the coach page reads.
const coachSessions = 20

// coaching is a coaching client's page (docs/presets.md, Coach): goals, recurring themes
// and preferences from the profile, and the action steps and open threads
// of each session's summary. The summary's text and recognition moment,
// which may hold the client's own sentences at length, are left out.
func (x *userCtx) coaching(ctx context.Context) ([]Section, error) {
	goals := Section{ID: "goals", Title: "Goals and recurring themes", Attr: "coach-goals",
		Intro: "Derived from every session's summary: up to three goals, the themes found in two or more sessions, and how the client likes to be coached."}
	prof, err := x.st.GetProfile(ctx, x.u.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		goals.Empty = "Goals and themes appear once a session in which the client names a goal (\"my goal is …\") is processed; a theme once two sessions share a topic."
	case err != nil:
		return nil, err
	default:
		d := decode(prof.Doc)
		goals.Lists = []List{
			{Title: "Goals", Items: texts(d, "goals"), Empty: "No goal named yet."},
			{Title: "Recurring themes", Items: texts(d, "recurring_themes"), Empty: "No topic has come up in two sessions yet."},
			{Title: "Coaching preferences", Items: texts(d, "coach_preferences"), Empty: "None said yet."},
		}
	}

	over := Section{ID: "sessions", Title: "Action steps and open threads over sessions", Attr: "coach-sessions",
		Intro: fmt.Sprintf("The latest %d sessions' summaries: what the client said they will do, and what was left open.", coachSessions)}
	_, list, err := x.summaries(ctx, coachSessions)
	if err != nil {
		return nil, err
	}
	slices.Reverse(list) // oldest first
	byID := x.sessionByID()
	var cats []string
	var steps, threads []float64
	table := VTable{Caption: "Sessions", Head: []string{"Session", "Action steps", "Open threads", "Topics"},
		Empty: "Sessions appear here once their summaries are written, a few seconds after a session is handed over."}
	latest := map[string]any(nil)
	for _, s := range list {
		d := decode(s.Data)
		at := s.SessionAt
		if sess, ok := byID[s.SessionID]; ok {
			at = sess.EndedAt
		}
		name := at.In(x.loc).Format("Mon 2 Jan 15:04")
		a, t := texts(d, "action_steps"), texts(d, "open_threads")
		cats = append(cats, name)
		steps, threads = append(steps, float64(len(a))), append(threads, float64(len(t)))
		table.Rows = append(table.Rows, []string{name, orDash(strings.Join(a, "; ")), orDash(strings.Join(t, "; ")), orDash(strings.Join(texts(d, "topics"), ", "))})
		latest = d
	}
	slices.Reverse(table.Rows) // newest first
	over.Charts = []*Chart{BarChart(BarSpec{ID: "coach-sessions", Title: "Action steps and open threads per session",
		Desc:          fmt.Sprintf("%s, oldest first.", plural(len(list), "session", "sessions")),
		CategoryLabel: "Session ended (" + x.loc.String() + ")", ValueLabel: "Items", Categories: cats,
		Series: []BarSeries{{Name: "Action steps", Values: steps}, {Name: "Open threads", Values: threads}},
		Empty:  "The chart appears once a session's summary is written."})}
	over.Tables = []VTable{table}

	open := Section{ID: "open", Title: "Carried into the next session", Attr: "coach-open",
		Intro: "The latest session's action steps and open threads, which the next session's context pack lists."}
	if latest == nil {
		open.Empty = "Nothing yet: these appear once a session is processed."
	} else {
		open.Lists = []List{{Title: "Action steps", Items: texts(latest, "action_steps"), Empty: "None in the latest session."},
			{Title: "Open threads", Items: texts(latest, "open_threads"), Empty: "None in the latest session."}}
	}
	return []Section{goals, open, over}, nil
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
