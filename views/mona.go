package views

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

// monaCategories are Mona's memory categories in the order shown.
var monaCategories = []string{"fact", "preference", "event", "feeling", "other"}

// monaRows bounds the keys on the memory timeline.
const monaRows = 24

// memories is what Mona remembers (docs/presets.md, Mona): the active memories by category
// with their history and expiry. Forgotten memories are not shown.
func (x *userCtx) memories(ctx context.Context) ([]Section, error) {
	all, err := x.st.ListMemories(ctx, x.u.ID, store.MemoryFilter{All: true})
	if err != nil {
		return nil, err
	}
	mems := slices.DeleteFunc(all, func(m store.Memory) bool { return m.Status == store.MemoryForgotten || m.App != x.u.App })
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

	summary := Section{ID: "memories", Title: "Active memories by category", Attr: "mona-memories",
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
	summary.Facts = []Fact{{Label: "Active memories", Value: strconv.Itoa(nActive)},
		{Label: "Earlier values kept", Value: strconv.Itoa(len(mems) - nActive), Note: "replaced or expired"}}
	if x.u.MemoryDisabled {
		summary.Notice = "Memory is turned off for this user: nothing new is remembered."
	}
	summary.Charts = []*Chart{BarChart(BarSpec{ID: "mona-categories", Title: "Active memories by category", Horizontal: true,
		Desc:          fmt.Sprintf("%s in %s.", plural(nActive, "active memory", "active memories"), plural(len(shown), "category", "categories")),
		CategoryLabel: "Category", ValueLabel: "Memories", Categories: shown, Series: []BarSeries{{Values: counts}},
		Empty: "Memories appear once a session in which the user tells Mona about themselves (\"my name is …\", \"I like …\") is processed."})}
	for _, c := range cats {
		list := active[c]
		if len(list) == 0 {
			continue
		}
		slices.SortFunc(list, func(a, b store.Memory) int {
			return cmp.Or(strings.Compare(a.Key, b.Key), a.StatedAt.Compare(b.StatedAt))
		})
		t := VTable{Caption: titleCase(c), Head: []string{"Key", "Value", "Said", "Confirmed", "Expires", "Earlier values"}}
		for _, m := range list {
			var earlier []string
			for _, o := range byKey[m.Key] {
				if o.ID != m.ID && o.Status != store.MemoryActive {
					earlier = append(earlier, fmt.Sprintf("%s (%s, said %s)", o.Value, o.Status, dateIn(o.StatedAt, x.loc)))
				}
			}
			value := m.Value
			if m.EventDate != "" {
				value += " (on " + weekLabel(m.EventDate) + ")"
			}
			t.Rows = append(t.Rows, []string{m.Key, value, timeIn(m.StatedAt, x.loc), plural(max(m.Confirmations, 1), "time", "times"),
				x.expiry(m.ExpiresAt), orDash(strings.Join(earlier, "; "))})
		}
		summary.Tables = append(summary.Tables, t)
	}

	// The timeline: each key's values from when they were said until they
	// were replaced, expired, or now.
	history := Section{ID: "history", Title: "History and expiry", Attr: "mona-history",
		Intro: "Each key's values over time: a bar runs from when the value was said until a newer one replaced it, it expired, or, for an active memory, until its expiry (open when it has none)."}
	keys := sortedKeys(byKey)
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
	from, to := x.now.Add(-2*24*time.Hour), x.now.Add(7*24*time.Hour)
	var rows []TimelineRow
	for _, k := range keys {
		row := TimelineRow{Label: k}
		list := byKey[k]
		slices.SortFunc(list, func(a, b store.Memory) int { return a.StatedAt.Compare(b.StatedAt) })
		for _, m := range list {
			if m.StatedAt.Add(-24 * time.Hour).Before(from) {
				from = m.StatedAt.Add(-24 * time.Hour)
			}
			sp := Span{From: m.StatedAt, Label: m.Value + " (" + m.Status + ")"}
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
		to = x.now.Add(30 * 24 * time.Hour)
	}
	tl := TimelineChart(TimelineSpec{ID: "mona-timeline", Title: "Memories over time",
		Desc:   fmt.Sprintf("%s of %s.", plural(len(mems), "value", "values"), plural(len(keys), "key", "keys")),
		XLabel: "Date (" + x.loc.String() + ")", RowLabel: "Key", Rows: rows, From: from, To: to, Loc: x.loc, Now: x.now,
		Empty: "The history appears once Mona remembers something; a value the user changes stays here as history."})
	tl.Legend = []LegendItem{{"s0", "active"}, {"past", "replaced"}, {"expired", "expired"}}
	history.Charts = []*Chart{tl}
	return []Section{summary, history}, nil
}

// expiry says when a memory expires, in the user's zone.
func (x *userCtx) expiry(t *time.Time) string {
	if t == nil {
		return "never"
	}
	if t.After(x.now) {
		return timeIn(*t, x.loc) + " (in " + ago(t.Sub(x.now)) + ")"
	}
	return timeIn(*t, x.loc)
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
