package views

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	numeric "github.com/mnemo-ai/mnemo/internal/num"
	"github.com/mnemo-ai/mnemo/store"
)

// userBody is a user's page.
type userBody struct {
	App      string
	Kind     string
	Heading  string
	Head     []Fact
	Sections []Section
}

func (h *Handler) user(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	v, _ := viewerOf(r)
	st := h.cfg.Store
	// An id no user can have (a NUL, bytes that are not UTF-8) is no user,
	// answered before a query that Postgres would refuse.
	if !handoff.ValidID(r.PathValue("user_id")) {
		h.fail(w, r, store.ErrNotFound)
		return
	}
	u, err := st.GetUser(ctx, r.PathValue("user_id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if status, why := h.mayView(v, u); status != 0 {
		title := "Not for this token"
		if status == http.StatusNotFound {
			title = "Not found"
		}
		h.Error(w, r, status, title, why)
		return
	}
	x := &UserPage{h: h, Store: st, User: u, Loc: location(u.Timezone), Now: h.now()}
	if x.Sessions, err = st.ListUserSessions(ctx, u.ID); err != nil {
		h.fail(w, r, err)
		return
	}
	kind := h.kindOf(u.App)
	var view extract.View
	if kind != nil {
		view = kind.View()
	}
	build, known := userPages[view.Page]
	body := userBody{App: u.App, Heading: view.Heading}
	if kind != nil {
		body.Kind = kind.Name()
	}
	if !known {
		body.Heading = "User"
	}
	body.Head = x.head()
	if known {
		if body.Sections, err = build(x, ctx); err != nil {
			h.fail(w, r, err)
			return
		}
		boundSections(body.Sections)
	}
	if body.Sections, err = x.withSafety(ctx, body.Sections); err != nil {
		h.fail(w, r, err)
		return
	}
	// The name a chat service sent is printed as the pack prints it: no
	// control, bidi or zero-width character can turn the title around.
	title := extract.PlainText(u.DisplayName, maxTitleRunes)
	if title == "" {
		title = u.ID
	}
	h.render(w, r, http.StatusOK, "user", page{Title: title + " · " + u.App, Zone: x.Loc.String(),
		Now: TimeIn(x.Now, x.Loc), Body: body})
}

// maxTitleRunes bounds the display name in a user page's title.
const maxTitleRunes = 100

// head is the facts at the top of every user's page.
func (x *UserPage) head() []Fact {
	facts := []Fact{{Label: "User", Value: x.User.ID}, {Label: "App", Value: x.User.App}, {Label: "Time zone", Value: x.Loc.String()},
		{Label: "Sessions handed over", Value: strconv.Itoa(len(x.Sessions))}}
	if n := len(x.Sessions); n > 0 {
		facts = append(facts, Fact{Label: "First session", Value: DateIn(x.Sessions[0].StartedAt, x.Loc)},
			Fact{Label: "Latest session", Value: DateIn(x.Latest().EndedAt, x.Loc)})
	}
	if x.User.MemoryDisabled {
		facts = append(facts, Fact{Label: "Memory", Value: "off", Note: "nothing new is remembered"})
	}
	return facts
}

// Latest is the session that ended last.
func (x *UserPage) Latest() store.Session {
	var last store.Session
	for _, s := range x.Sessions {
		if s.EndedAt.After(last.EndedAt) {
			last = s
		}
	}
	return last
}

// SessionByID indexes the user's sessions.
func (x *UserPage) SessionByID() map[string]store.Session {
	m := make(map[string]store.Session, len(x.Sessions))
	for _, s := range x.Sessions {
		m[s.ID] = s
	}
	return m
}

// Summaries reads the newest limit summaries, keyed by session, decoded.
func (x *UserPage) Summaries(ctx context.Context, limit int) (map[string]map[string]any, []store.Summary, error) {
	list, err := x.Store.ListSummaries(ctx, x.User.ID, limit)
	if err != nil {
		return nil, nil, err
	}
	out := make(map[string]map[string]any, len(list))
	for _, s := range list {
		var m map[string]any
		if json.Unmarshal(s.Data, &m) == nil && m != nil {
			out[s.SessionID] = m
		}
	}
	return out, list, nil
}

// Decode reads a JSON object; a document that is not one is empty.
func Decode(raw json.RawMessage) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// FieldFloat reads a number field.
func FieldFloat(m map[string]any, key string) (float64, bool) { return numeric.Float(m[key]) }

// FieldInt reads a whole number field (0 when missing).
func FieldInt(m map[string]any, key string) int {
	v, _ := numeric.Float(m[key])
	return int(v)
}

// FieldLabel reads a short label field: a string of at most 40 characters and
// four words, anything else (prose, which may be someone's own words) "".
func FieldLabel(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return ShortLabel(s)
}

// ShortLabel is s as a short label: trimmed, at most 40 characters and
// four words, anything else (prose, which may be someone's own words) "".
func ShortLabel(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || utf8.RuneCountInString(s) > 40 || len(strings.Fields(s)) > 4 {
		return ""
	}
	return s
}

// FieldText reads a string field, bounded to 300 characters.
func FieldText(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return BoundText(s)
}

// BoundText is s trimmed and bounded to 300 characters.
func BoundText(s string) string { return clip(strings.TrimSpace(s), 300) }

// FieldTexts reads a list of strings, each bounded to 300 characters.
func FieldTexts(m map[string]any, key string) []string {
	list, _ := m[key].([]any)
	var out []string
	for _, v := range list {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, clip(strings.TrimSpace(s), 300))
		}
	}
	return out
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// FieldFlag prints a boolean field as yes or no.
func FieldFlag(m map[string]any, key string) string {
	if b, _ := m[key].(bool); b {
		return "yes"
	}
	return "no"
}

// FieldTime reads an RFC 3339 field.
func FieldTime(m map[string]any, key string) time.Time {
	s, _ := m[key].(string)
	return ParseTime(s)
}

// ParseTime reads an RFC 3339 instant; anything else is the zero time.
func ParseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Unix is an instant on a chart's time axis.
func Unix(t time.Time) float64 { return float64(t.Unix()) }

// Dec prints a value with three decimals, "–" for none.
func Dec(v *float64) string {
	if v == nil {
		return "–"
	}
	return strconv.FormatFloat(*v, 'f', 3, 64)
}

// NaNOr is *v, or NaN for none.
func NaNOr(v *float64) float64 {
	if v == nil {
		return nan
	}
	return *v
}

var nan = math.NaN()

// signed prints a change with its sign.
func signed(v float64) string {
	s := num(v)
	if v > 0 {
		s = "+" + s
	}
	return s
}

// Plural says "1 session", "2 sessions".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// SessionLabel names a session in a chart: its end in the user's zone.
func (x *UserPage) SessionLabel(s store.Session) string {
	return s.EndedAt.In(x.Loc).Format("Mon 2 Jan 15:04")
}

// Recent returns the user's sessions that ended at or after since, oldest first.
func (x *UserPage) Recent(since time.Time) []store.Session {
	var out []store.Session
	for _, s := range x.Sessions {
		if !s.EndedAt.Before(since) {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b store.Session) int { return a.EndedAt.Compare(b.EndedAt) })
	return out
}
