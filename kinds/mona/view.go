package mona

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/views"
)

// The page of a user of this kind: views builds the shell (title, the
// facts at the top, who may see it) and asks this package for the sections.
func init() {
	views.RegisterPage(extract.PageMemories, func(p *views.UserPage, ctx context.Context) ([]views.Section, error) {
		return page{p}.memories(ctx)
	})
}

// page is a user's page as this kind's builder reads it.
type page struct{ *views.UserPage }

// monaCategories are Mona's memory categories in the order shown.
var monaCategories = []string{"fact", "preference", "event", "feeling", "other"}

// monaRows bounds the keys on the memory timeline.
const monaRows = 24

// memories is what Mona remembers (docs/presets.md, Mona): the active memories by category
// with their history and expiry. Forgotten memories are not shown.
func (x page) memories(ctx context.Context) ([]views.Section, error) {
	all, err := x.Store.ListMemories(ctx, x.User.ID, store.MemoryFilter{All: true})
	if err != nil {
		return nil, err
	}
	mems := slices.DeleteFunc(all, func(m store.Memory) bool { return m.Status == store.MemoryForgotten || m.App != x.User.App })
	byKey := map[string][]store.Memory{}
	active := map[string][]store.Memory{} // by category
	for _, m := range mems {
		byKey[m.Key] = append(byKey[m.Key], m)
		if m.Status == store.MemoryActive {
			active[m.Category] = append(active[m.Category], m)
		}
	}
	cats := slices.Clone(monaCategories)
	for c := range active {
		if !slices.Contains(cats, c) {
			cats = append(cats, c)
		}
	}
	nActive := 0
	for _, c := range cats {
		nActive += len(active[c])
	}

	summary := views.Section{ID: "memories", Title: "Active memories by category", Attr: "mona-memories",
		Intro: "What Mona remembers now. Facts and preferences last until they change; events expire 7 days after their day, feelings after 6 hours, anything else after a day."}
	var counts []float64
	var shown []string
	for _, c := range cats {
		if len(active[c]) > 0 || slices.Contains(monaCategories, c) {
			shown = append(shown, c)
			counts = append(counts, float64(len(active[c])))
		}
	}
	if nActive == 0 {
		counts = nil
	}
	summary.Facts = []views.Fact{{Label: "Active memories", Value: strconv.Itoa(nActive)},
		{Label: "Earlier values kept", Value: strconv.Itoa(len(mems) - nActive), Note: "replaced or expired"}}
	if x.User.MemoryDisabled {
		summary.Notice = "Memory is turned off for this user: nothing new is remembered."
	}
	summary.Charts = []*views.Chart{views.BarChart(views.BarSpec{ID: "mona-categories", Title: "Active memories by category", Horizontal: true,
		Desc:          fmt.Sprintf("%s in %s.", views.Plural(nActive, "active memory", "active memories"), views.Plural(len(shown), "category", "categories")),
		CategoryLabel: "Category", ValueLabel: "Memories", Categories: shown, Series: []views.BarSeries{{Values: counts}},
		Empty: "Memories appear once a session in which the user tells Mona about themselves (\"my name is …\", \"I like …\") is processed."})}
	for _, c := range cats {
		list := active[c]
		if len(list) == 0 {
			continue
		}
		slices.SortFunc(list, func(a, b store.Memory) int {
			return cmp.Or(strings.Compare(a.Key, b.Key), a.StatedAt.Compare(b.StatedAt))
		})
		t := views.VTable{Caption: titleCase(c), Head: []string{"Key", "Value", "Said", "Confirmed", "Expires", "Earlier values"}}
		for _, m := range list {
			var earlier []string
			for _, o := range byKey[m.Key] {
				if o.ID != m.ID && o.Status != store.MemoryActive {
					earlier = append(earlier, fmt.Sprintf("%s (%s, said %s)", o.Value, o.Status, views.DateIn(o.StatedAt, x.Loc)))
				}
			}
			value := m.Value
			if m.EventDate != "" {
				value += " (on " + views.WeekLabel(m.EventDate) + ")"
			}
			t.Rows = append(t.Rows, []string{m.Key, value, views.TimeIn(m.StatedAt, x.Loc), views.Plural(max(m.Confirmations, 1), "time", "times"),
				x.expiry(m.ExpiresAt), views.OrDash(strings.Join(earlier, "; "))})
		}
		summary.Tables = append(summary.Tables, t)
	}

	// The timeline: each key's values from when they were said until they
	// were replaced, expired, or now.
	history := views.Section{ID: "history", Title: "History and expiry", Attr: "mona-history",
		Intro: "Each key's values over time: a bar runs from when the value was said until a newer one replaced it, it expired, or, for an active memory, until its expiry (open when it has none)."}
	keys := views.SortedKeys(byKey)
	latest := func(k string) time.Time {
		var t time.Time
		for _, m := range byKey[k] {
			if m.StatedAt.After(t) {
				t = m.StatedAt
			}
		}
		return t
	}
	slices.SortStableFunc(keys, func(a, b string) int { return latest(b).Compare(latest(a)) })
	keys = keys[:min(len(keys), monaRows)]
	slices.Sort(keys)
	from, to := x.Now.Add(-2*24*time.Hour), x.Now.Add(7*24*time.Hour)
	var rows []views.TimelineRow
	for _, k := range keys {
		row := views.TimelineRow{Label: k}
		list := byKey[k]
		slices.SortFunc(list, func(a, b store.Memory) int { return a.StatedAt.Compare(b.StatedAt) })
		for _, m := range list {
			if m.StatedAt.Add(-24 * time.Hour).Before(from) {
				from = m.StatedAt.Add(-24 * time.Hour)
			}
			sp := views.Span{From: m.StatedAt, Label: m.Value + " (" + m.Status + ")"}
			switch m.Status {
			case store.MemoryActive:
				sp.Class = "s0"
				if m.ExpiresAt != nil {
					sp.To = *m.ExpiresAt
				}
			case store.MemoryExpired:
				sp.Class = "expired"
				if m.ExpiresAt != nil {
					sp.To = *m.ExpiresAt
				}
			default:
				sp.Class = "past"
				if m.InvalidatedAt != nil {
					sp.To = *m.InvalidatedAt
				} else {
					sp.To = m.UpdatedAt
				}
			}
			if !sp.To.IsZero() && sp.To.After(to) {
				to = sp.To
			}
			row.Spans = append(row.Spans, sp)
		}
		rows = append(rows, row)
	}
	if to.Sub(from) > 400*24*time.Hour {
		to = x.Now.Add(30 * 24 * time.Hour)
	}
	tl := views.TimelineChart(views.TimelineSpec{ID: "mona-timeline", Title: "Memories over time",
		Desc:   fmt.Sprintf("%s of %s.", views.Plural(len(mems), "value", "values"), views.Plural(len(keys), "key", "keys")),
		XLabel: "Date (" + x.Loc.String() + ")", RowLabel: "Key", Rows: rows, From: from, To: to, Loc: x.Loc, Now: x.Now,
		Empty: "The history appears once Mona remembers something; a value the user changes stays here as history."})
	tl.Legend = []views.LegendItem{{Class: "s0", Name: "active"}, {Class: "past", Name: "replaced"}, {Class: "expired", Name: "expired"}}
	history.Charts = []*views.Chart{tl}
	return []views.Section{summary, history}, nil
}

// expiry says when a memory expires, in the user's zone.
func (x page) expiry(t *time.Time) string {
	if t == nil {
		return "never"
	}
	if t.After(x.Now) {
		return views.TimeIn(*t, x.Loc) + " (in " + views.Ago(t.Sub(x.Now)) + ")"
	}
	return views.TimeIn(*t, x.Loc)
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
