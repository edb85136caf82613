package extract

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/internal/num"
)

// Default context budgets by rules kind, used when Pack is given a budget of
// 0 or less. An app's policy usually names its own (ContextBudgetTokens).
const (
	DefaultBudgetElderTree = 600
	DefaultBudgetMona      = 400
	DefaultBudgetLara      = 300
	DefaultBudgetCoach     = 500
)

// PackInput is what the store knows about a user when a session starts:
// everything a context pack may draw on. Which fields a kind reads is told
// by Pack.
type PackInput struct {
	// DisplayName is the name the chat service gave at the last session.
	DisplayName string
	// Profile is the current profile document (Elder Tree's seed fields;
	// coach's goals, recurring_themes and coach_preferences).
	Profile map[string]any
	// Summaries are the earlier session summaries, newest first. The newest
	// three make Elder Tree's momentum and coach's open threads; all of them
	// rank Elder Tree's triggers, date its last relapse and give coach's last
	// recognition moment.
	Summaries []PastSummary
	// Cues are the unresolved cues, newest first.
	Cues []PackCue
	// Memories are the active, unexpired memories (mona).
	Memories []PackMemory
	// Records are LaRa's structured records: learning, emotional, preference
	// and reinforcement_state.
	Records []Record
	// RollingSummary is the rolling conversation summary, if any (mona).
	RollingSummary string
	// Query is the user's first message, when known, for relevance scoring.
	Query string
	// Now is the time of the request.
	Now time.Time
	// Location is the user's time zone: every date a pack writes (a
	// session's day, a streak's days) is a calendar date there. nil is UTC.
	Location *time.Location
}

// PackCue is an unresolved cue (see Cue) and when it was raised.
type PackCue struct {
	Kind   string
	Field  string
	Detail map[string]any
	At     time.Time
}

// PackMemory is an active memory as the pack needs it.
type PackMemory struct {
	ID         string
	Key        string
	Value      string
	Category   string
	Importance int
	LastUsedAt *time.Time
	UpdatedAt  time.Time
}

// ContextPack is the text a chat service puts into its LLM prompt at the
// start of a session, with what it took. Tokens is CountTokens(Text) and
// never more than BudgetTokens.
type ContextPack struct {
	Text         string     `json:"text"`
	Tokens       int        `json:"tokens"`
	BudgetTokens int        `json:"budget_tokens"`
	Parts        []PackPart `json:"parts"`

	memoryIDs []string
}

// UsedMemories returns the IDs of the memories pack included, sorted, so
// that the caller can bump their last use. It is empty, never nil, when the
// pack included none.
func UsedMemories(pack ContextPack) []string {
	return append([]string{}, pack.memoryIDs...)
}

// PackPart is one section of a pack: how many tokens its text takes on its
// own, how many items it holds and how many candidate items were left out,
// for want of room or beyond the section's cap.
type PackPart struct {
	Name    string `json:"name"`
	Tokens  int    `json:"tokens"`
	Items   int    `json:"items"`
	Dropped int    `json:"dropped"`
}

// PackBudget is the budget Pack uses for rules kind when given budget: budget
// itself when positive, the kind's default otherwise (clara has none: its
// pack is always empty).
func PackBudget(rules string, budget int) int {
	if budget > 0 {
		return budget
	}
	switch packKind(rules) {
	case "eldertree":
		return DefaultBudgetElderTree
	case "lara":
		return DefaultBudgetLara
	case "coach":
		return DefaultBudgetCoach
	case "clara":
		return 0
	}
	return DefaultBudgetMona
}

// Pack builds the context pack of a user of an app whose rules kind is rules
// (an unknown kind packs as mona). It is a pure, deterministic function of
// its arguments.
//
// Every kind renders sections of "- " lines under an upper-case header,
// separated by a blank line. Items are added in the kind's priority order;
// an item that would take the text over budget is left out and counted as
// dropped, and the items after it still get their chance. As a last resort
// the first item left out that may be cut (a rolling summary, a recognition
// moment; or any item when nothing else fitted) is cut at a token boundary
// and ends with "…". Values are rendered plainly, with control characters and
// line breaks turned into spaces so that no stored value can start a line of
// its own, and long values are shortened.
//
//   - eldertree (seed 002): USER CONTEXT (preferred name and addiction type,
//     current step, sponsor and fellowship, the three known triggers most
//     often primary in the summaries, red/yellow/green zones), RECENT MOMENTUM
//     (the streak since the later of recovery_start_date and the last
//     relapsed session, or sobriety_days when no session relapsed; then the
//     last three sessions: date, outcome, urge intensity, primary trigger,
//     and the follow-up of all but the newest) and CONVERSATION CUES (the
//     newest session's follow-up, each cue kind once as a fixed sentence,
//     the profile's current_focus).
//   - mona (seed 004): USER (name memory or DisplayName, and nickname), CORE
//     PREFERENCES (the five most important preference memories), RELEVANT
//     MEMORIES (the ten best of the others by the seed's score: 0.3 per word
//     shared with Query, importance/100 × 0.5, 0.1 when used in the last
//     seven days; feelings and events as "Recently" lines) and CONVERSATION
//     SUMMARY (the rolling summary).
//   - lara (seed 001): structured state only: LEARNER (name), LEARNING STATE
//     (concepts with mastery and difficulty, most recently practised first),
//     REINFORCEMENT (style) and PREFERENCES (at most 20 likes and dislikes).
//     Emotional records, summaries and memories are never read, and any
//     value holding an emotional word is left out.
//   - coach (seed 003): CLIENT (name, goals, coaching preferences, recurring
//     themes), OPEN THREADS (of the last three summaries, deduplicated,
//     newest first) and LAST RECOGNITION MOMENT.
//   - clara (seed 000 §6.5–6.6): always empty. Cross-session data never
//     enters Clara's LLM context, whatever is passed in.
//
// Every date is written as a calendar date in the user's zone
// (in.Location), for every kind.
//
// budget is resolved by PackBudget. The pack's Tokens never exceed it; when
// not even a cut item fits, Text is empty.
func Pack(rules string, in PackInput, budget int) ContextPack {
	budget = PackBudget(rules, budget)
	kind := packKind(rules)
	if kind == "clara" {
		return ContextPack{BudgetTokens: budget, Parts: []PackPart{}, memoryIDs: []string{}}
	}
	in = packInZone(in)
	var plan packPlan
	switch kind {
	case "eldertree":
		plan = packElderTree(in)
	case "lara":
		plan = packLara(in)
	case "coach":
		plan = packCoach(in)
	default:
		plan = packMona(in)
	}
	return plan.fit(budget)
}

func packKind(rules string) string { return strings.ToLower(strings.TrimSpace(rules)) }

// packInZone is in with every instant read in the user's zone, so that the
// dates a pack writes are the user's calendar dates: a session that ended at
// 05:00 UTC on the 24th was on the 23rd for a user in America/Chicago. The
// instants themselves (and so every duration and order) are unchanged.
func packInZone(in PackInput) PackInput {
	loc := in.Location
	if loc == nil {
		loc = time.UTC
	}
	in.Now = in.Now.In(loc)
	in.Summaries = slices.Clone(in.Summaries)
	for i := range in.Summaries {
		in.Summaries[i].At = in.Summaries[i].At.In(loc)
	}
	in.Cues = slices.Clone(in.Cues)
	for i := range in.Cues {
		in.Cues[i].At = in.Cues[i].At.In(loc)
	}
	in.Memories = slices.Clone(in.Memories)
	for i, m := range in.Memories {
		in.Memories[i].UpdatedAt = m.UpdatedAt.In(loc)
		if m.LastUsedAt != nil {
			t := m.LastUsedAt.In(loc)
			in.Memories[i].LastUsedAt = &t
		}
	}
	return in
}

// Longest values rendered, in runes. A rolling summary or a recognition
// moment is text; everything else is a short value.
const (
	packValueRunes = 160
	packTextRunes  = 4000
)

// Caps on how many candidates a section considers.
const (
	packSessions       = 3  // Elder Tree and coach summaries
	packTriggers       = 3  // Elder Tree key triggers
	packZoneBehaviours = 5  // per zone
	packCorePrefs      = 5  // mona tier 1
	packRelevant       = 10 // mona tier 2
	packConcepts       = 6  // LaRa concepts
	packLaraPrefMax    = 20 // LaRa likes and dislikes together
	packCoachList      = 5  // goals, themes, coach preferences
	packThreads        = 5  // open threads per summary
)

// packSlack is how many tokens a line may gain or lose at its edges when
// joined to the text; a line longer than the room left plus packSlack is not
// tried.
const packSlack = 4

// packSection is one section of a kind, in display order.
type packSection struct {
	name   string // as in PackPart
	header string // the line above its items
}

// packGroup gathers consecutive items of a section under one label: joined
// on the label's line ("- Key triggers: a, b"), or nested below it as
// "  * " lines.
type packGroup struct {
	one, many string // the label for one item, and for several (may hold %d)
	nested    bool
	sep       string // between joined items
}

func (g *packGroup) label(n int) string {
	if n == 1 {
		return g.one
	}
	if strings.Contains(g.many, "%d") {
		return fmt.Sprintf(g.many, n)
	}
	return g.many
}

// packItem is one candidate line (or one member of a group's line).
type packItem struct {
	section int
	prio    int // lower is added first; ties go by position in the plan
	group   *packGroup
	text    string
	cut     bool     // may be cut at a token boundary to fit
	ids     []string // memories it renders
}

// packPlan is a kind's candidates before they are fitted into a budget.
// Items of a section are in display order, items of a group consecutive.
type packPlan struct {
	sections []packSection
	items    []packItem
	capped   []int // per section: candidates left out by a cap
}

func newPackPlan(sections ...packSection) packPlan {
	return packPlan{sections: sections, capped: make([]int, len(sections))}
}

func (p *packPlan) add(it packItem) {
	if it.text != "" {
		p.items = append(p.items, it)
	}
}

// render is the text of the items whose texts are not empty, and the text
// of each section on its own.
func (p *packPlan) render(texts []string) (string, []string) {
	secs := make([]string, len(p.sections))
	var out []string
	for s, sec := range p.sections {
		var lines []string
		for i := 0; i < len(p.items); i++ {
			it := p.items[i]
			if it.section != s || texts[i] == "" {
				continue
			}
			if it.group == nil {
				lines = append(lines, "- "+texts[i])
				continue
			}
			var members []string
			j := i
			for ; j < len(p.items) && p.items[j].section == s && p.items[j].group == it.group; j++ {
				if texts[j] != "" {
					members = append(members, texts[j])
				}
			}
			i = j - 1
			g := it.group
			if g.nested {
				lines = append(lines, "- "+g.label(len(members))+":")
				for _, m := range members {
					lines = append(lines, "  * "+m)
				}
			} else {
				lines = append(lines, "- "+g.label(len(members))+": "+strings.Join(members, g.sep))
			}
		}
		if len(lines) > 0 {
			secs[s] = sec.header + "\n" + strings.Join(lines, "\n")
			out = append(out, secs[s])
		}
	}
	return strings.Join(out, "\n\n"), secs
}

// fit packs the plan's items into budget tokens.
func (p *packPlan) fit(budget int) ContextPack {
	n := len(p.items)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p.items[a].prio, p.items[b].prio) })

	texts := make([]string, n)
	left := make([]bool, n)
	used := 0
	for _, i := range order {
		it := p.items[i]
		if CountTokens(it.text)-packSlack > budget-used {
			left[i] = true
			continue
		}
		texts[i] = it.text
		t, _ := p.render(texts)
		if k := CountTokens(t); k <= budget {
			used = k
		} else {
			texts[i] = ""
			left[i] = true
		}
	}

	// The last resort: cut one item to the room that is left.
	for _, i := range order {
		if left[i] && (p.items[i].cut || used == 0) {
			if t, ok := p.cut(texts, i, budget); ok {
				texts[i] = t
				left[i] = false
			}
			break
		}
	}

	text, secs := p.render(texts)
	tokens := CountTokens(text)
	if tokens > budget { // cannot happen: every text above was counted
		clear(texts)
		text, secs, tokens = "", make([]string, len(p.sections)), 0
		for i := range left {
			left[i] = true
		}
	}
	pack := ContextPack{Text: text, Tokens: tokens, BudgetTokens: budget, Parts: []PackPart{}, memoryIDs: []string{}}
	for s, sec := range p.sections {
		part := PackPart{Name: sec.name, Tokens: CountTokens(secs[s]), Dropped: p.capped[s]}
		for i, it := range p.items {
			if it.section != s {
				continue
			}
			if texts[i] != "" {
				part.Items++
				pack.memoryIDs = append(pack.memoryIDs, it.ids...)
			} else {
				part.Dropped++
			}
		}
		if part.Items+part.Dropped > 0 {
			pack.Parts = append(pack.Parts, part)
		}
	}
	slices.Sort(pack.memoryIDs)
	pack.memoryIDs = slices.Compact(pack.memoryIDs)
	return pack
}

// cut returns the longest token-boundary prefix of item i, followed by "…",
// with which the text stays within budget.
func (p *packPlan) cut(texts []string, i, budget int) (string, bool) {
	full := p.items[i].text
	_, pieces, err := tokenCodec().Encode(full)
	if err != nil || len(pieces) < 2 {
		return "", false
	}
	// ends are the byte offsets where a cut may fall: token boundaries that
	// start a character.
	var ends []int
	off := 0
	for _, pc := range pieces[:len(pieces)-1] {
		off += len(pc)
		if off < len(full) && utf8.RuneStart(full[off]) {
			ends = append(ends, off)
		}
	}
	try := func(k int) (string, bool) {
		prefix := strings.TrimRightFunc(full[:ends[k]], unicode.IsSpace)
		if prefix == "" {
			return "", false
		}
		texts[i] = prefix + "…"
		t, _ := p.render(texts)
		ok := CountTokens(t) <= budget
		s := texts[i]
		texts[i] = ""
		return s, ok
	}
	// The text grows with the prefix (nearly always strictly): find the
	// longest prefix that fits, then make sure of it.
	lo, hi := 0, len(ends)-1
	best := -1
	for lo <= hi {
		mid := (lo + hi) / 2
		if _, ok := try(mid); ok {
			best, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	for k := best; k >= 0; k-- {
		if s, ok := try(k); ok {
			return s, true
		}
	}
	return "", false
}

// packClean renders a stored string plainly: invalid UTF-8, control and
// format characters dropped, every run of white space (line breaks
// included) one space, trimmed, and cut to max runes with "…".
func packClean(s string, max int) string {
	var b strings.Builder
	space, runes := false, 0
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			continue
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space = true
			continue
		case unicode.Is(unicode.Cf, r) && r != '\u200d': // keep emoji sequences whole
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
			runes++
		}
		space = false
		b.WriteRune(r)
		runes++
		if runes > max {
			return strings.TrimRightFunc(packTruncRunes(b.String(), max-1), unicode.IsSpace) + "…"
		}
	}
	return b.String()
}

func packTruncRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// packValue renders a scalar profile or record value; "" for anything else.
func packValue(v any) string {
	switch x := v.(type) {
	case string:
		return packClean(x, packValueRunes)
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case json.Number:
		return packClean(x.String(), packValueRunes)
	}
	if f, ok := num.Float(v); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return ""
}

// packInt reads a whole number.
func packInt(v any) (int, bool) { return num.Whole(v, 1e9) }

// packStrings reads a list of scalars, cleaned, empty ones skipped.
func packStrings(v any) []string {
	var raw []any
	switch x := v.(type) {
	case []any:
		raw = x
	case []string:
		for _, s := range x {
			raw = append(raw, s)
		}
	case string:
		raw = []any{x}
	}
	var out []string
	for _, r := range raw {
		if s := packValue(r); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// packFirst is the first of keys that m holds with a non-empty value.
func packFirst(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok && v != nil && v != "" {
			return v
		}
	}
	return nil
}

func packDate(t time.Time) string {
	if t.IsZero() {
		return "undated"
	}
	return t.Format(time.DateOnly)
}

// packCivilDays is the number of calendar days from a to b, each read in its own
// location.
func packCivilDays(a, b time.Time) int {
	da := time.Date(a.Year(), a.Month(), a.Day(), 0, 0, 0, 0, time.UTC)
	db := time.Date(b.Year(), b.Month(), b.Day(), 0, 0, 0, 0, time.UTC)
	return int(db.Sub(da) / (24 * time.Hour))
}

func packPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// ---- Elder Tree -------------------------------------------------------------

func packElderTree(in PackInput) packPlan {
	const (
		userContext = iota
		momentum
		cues
	)
	p := newPackPlan(
		packSection{"user_context", "USER CONTEXT:"},
		packSection{"recent_momentum", "RECENT MOMENTUM:"},
		packSection{"conversation_cues", "CONVERSATION CUES:"},
	)
	prof := in.Profile
	sums := in.Summaries[:min(len(in.Summaries), packSessions)]

	// USER CONTEXT
	name := cmp.Or(packValue(prof["preferred_name"]), packClean(in.DisplayName, packValueRunes))
	addiction := packValue(prof["addiction_type"])
	var who string
	switch {
	case name != "" && addiction != "":
		who = name + " is in recovery from " + addiction
	case name != "":
		who = "Preferred name: " + name
	case addiction != "":
		who = "In recovery from " + addiction
	}
	p.add(packItem{section: userContext, prio: 0, text: who})
	if step, ok := packInt(prof["current_step"]); ok && step > 0 {
		p.add(packItem{section: userContext, prio: 20, text: "Currently working Step " + strconv.Itoa(step)})
	}
	p.add(packItem{section: userContext, prio: 40, text: packElderSupport(prof)})

	triggers := packElderTriggers(prof, in.Summaries)
	g := &packGroup{one: "Key trigger", many: "Key triggers", sep: ", "}
	for i, t := range triggers {
		if i >= packTriggers {
			p.capped[userContext]++
			continue
		}
		p.add(packItem{section: userContext, prio: 50, group: g, text: t})
	}
	zones := &packGroup{one: "Zone boundaries", many: "Zone boundaries", sep: ", "}
	for _, z := range []struct{ field, name string }{
		{"red_zone_behaviors", "Red"}, {"yellow_zone_behaviors", "Yellow"}, {"green_zone_behaviors", "Green"},
	} {
		bs := packStrings(prof[z.field])
		if len(bs) == 0 {
			continue
		}
		bs = bs[:min(len(bs), packZoneBehaviours)]
		p.add(packItem{section: userContext, prio: 60, group: zones, text: z.name + " [" + strings.Join(bs, ", ") + "]"})
	}

	// RECENT MOMENTUM
	if days, ok := packElderStreak(prof, in.Summaries, in.Now); ok {
		p.add(packItem{section: momentum, prio: 21, text: "Current streak: " + packPlural(days, "day", "days")})
	}
	sessions := &packGroup{one: "Last session", many: "Last %d sessions", nested: true}
	for i, s := range sums {
		line := packDate(s.At) + ": " + packElderOutcome(s.Data)
		if t := packValue(s.Data["primary_trigger"]); t != "" {
			line += "; trigger: " + t
		}
		// The newest session's follow-up is a cue of its own.
		if f := packValue(s.Data["follow_up_needed"]); f != "" && i > 0 {
			line += "; follow-up: " + f
		}
		p.add(packItem{section: momentum, prio: 30, group: sessions, text: line})
	}

	// CONVERSATION CUES
	if len(sums) > 0 {
		if f := packValue(sums[0].Data["follow_up_needed"]); f != "" {
			p.add(packItem{section: cues, prio: 10, text: "Last session follow-up: " + f})
		}
	}
	seen := map[string]bool{}
	for _, c := range in.Cues {
		k := packKind(c.Kind)
		if seen[k] {
			continue
		}
		if line := packElderCue(k, c.Detail); line != "" {
			seen[k] = true
			p.add(packItem{section: cues, prio: 11, text: line})
		}
	}
	if f := packValue(prof["current_focus"]); f != "" {
		p.add(packItem{section: cues, prio: 70, text: "Active growth area: " + f})
	}
	return p
}

func packElderSupport(prof map[string]any) string {
	var parts []string
	sponsor := packValue(prof["sponsor_name"])
	switch prof["has_sponsor"] {
	case true:
		if sponsor != "" {
			parts = append(parts, "sponsor "+sponsor)
		} else {
			parts = append(parts, "has a sponsor")
		}
	case false:
		parts = append(parts, "no sponsor")
	default:
		if sponsor != "" {
			parts = append(parts, "sponsor "+sponsor)
		}
	}
	fellowship := packValue(prof["fellowship_name"])
	switch prof["in_fellowship"] {
	case true:
		if fellowship != "" {
			parts = append(parts, "attends "+fellowship)
		} else {
			parts = append(parts, "attends a fellowship")
		}
	case false:
		parts = append(parts, "not attending a fellowship")
	default:
		if fellowship != "" {
			parts = append(parts, "fellowship "+fellowship)
		}
	}
	if prof["has_therapist"] == true {
		parts = append(parts, "sees a therapist")
	}
	if len(parts) == 0 {
		return ""
	}
	return "Support: " + strings.Join(parts, ", ")
}

// packElderTriggers are the profile's known triggers, those most often the
// primary trigger of the given sessions first, then in profile order.
func packElderTriggers(prof map[string]any, sums []PastSummary) []string {
	ts := packStrings(prof["known_triggers"])
	seen := map[string]int{}
	for _, s := range sums {
		if k := labelKey(text(s.Data["primary_trigger"])); k != "" {
			seen[k]++
		}
	}
	type ranked struct {
		t        string
		n, order int
	}
	var rs []ranked
	dup := map[string]bool{}
	for i, t := range ts {
		k := labelKey(t)
		if k == "" || dup[k] {
			continue
		}
		dup[k] = true
		rs = append(rs, ranked{t, seen[k], i})
	}
	slices.SortStableFunc(rs, func(a, b ranked) int { return cmp.Or(cmp.Compare(b.n, a.n), cmp.Compare(a.order, b.order)) })
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.t
	}
	return out
}

// packElderStreak is the days since the later of recovery_start_date and the
// newest relapsed session; without a start date, sobriety_days when none of
// the sessions relapsed.
func packElderStreak(prof map[string]any, sums []PastSummary, now time.Time) (int, bool) {
	var relapse time.Time
	for _, s := range sums {
		if strings.EqualFold(text(s.Data["outcome"]), OutcomeRelapsed) && s.At.After(relapse) {
			relapse = s.At
		}
	}
	if start, ok := date(prof["recovery_start_date"]); ok {
		from := start
		if !relapse.IsZero() && packCivilDays(start, relapse) > 0 {
			from = relapse
		}
		if d := packCivilDays(from, now); d >= 0 {
			return d, true
		}
		return 0, false
	}
	if days, ok := packInt(prof["sobriety_days"]); ok && days >= 0 && relapse.IsZero() {
		return days, true
	}
	return 0, false
}

func packElderOutcome(d map[string]any) string {
	o := text(d["outcome"])
	var s string
	switch strings.ToLower(o) {
	case OutcomeUrgePassed:
		s = "urge passed"
	case OutcomeRelapsed:
		s = "relapsed"
	case OutcomeOngoing:
		s = "still struggling at the end"
	case "":
		s = "no outcome recorded"
	default:
		s = packValue(o)
	}
	if n, ok := packInt(d["urge_intensity"]); ok && n >= 0 && n <= 10 {
		s += " (urge " + strconv.Itoa(n) + "/10)"
	}
	return s
}

// packElderCue is the fixed sentence of a cue kind, with the profile values its
// detail holds; "" for a kind it does not know.
func packElderCue(kind string, d map[string]any) string {
	switch kind {
	case CueRelapse:
		if n, ok := packInt(d["before"]); ok && n > 0 {
			return "A relapse was recorded after " + packPlural(n, "day", "days") + " sober; acknowledge it gently and ask what they need right now."
		}
		return "A relapse was recorded recently; acknowledge it gently and ask what they need right now."
	case CueFellowshipDropped:
		if f := packValue(d["fellowship_name"]); f != "" {
			return "Has stopped going to " + f + " meetings; ask what led to that, without judgement."
		}
		return "Has stopped going to fellowship meetings; ask what led to that, without judgement."
	case CueSponsorChange:
		prev, next := packValue(d["previous_sponsor_name"]), packValue(d["sponsor_name"])
		switch {
		case next != "" && prev != "":
			return "Sponsor changed from " + prev + " to " + next + "; invite them to talk about working with " + next + "."
		case next != "":
			return "Has a new sponsor, " + next + "; invite them to talk about working with them."
		case prev != "":
			return "No longer has a sponsor (previously " + prev + "); ask how it has been without sponsor support."
		}
		return "Their sponsor support changed; ask how it has been."
	case CueRecurringTrigger:
		t := packValue(d["trigger"])
		if t == "" {
			return ""
		}
		return "The trigger " + t + " has come up often lately; offer to explore it."
	}
	return ""
}

// ---- Mona -------------------------------------------------------------------

func packMona(in PackInput) packPlan {
	const (
		user = iota
		prefs
		relevant
		summary
	)
	p := newPackPlan(
		packSection{"user", "USER:"},
		packSection{"core_preferences", "CORE PREFERENCES:"},
		packSection{"relevant_memories", "RELEVANT MEMORIES:"},
		packSection{"conversation_summary", "CONVERSATION SUMMARY:"},
	)
	newest := func(a, b PackMemory) int {
		return cmp.Or(b.UpdatedAt.Compare(a.UpdatedAt), cmp.Compare(a.ID, b.ID))
	}
	var (
		nameMem, nickMem *PackMemory
		rest             []PackMemory
	)
	for _, m := range in.Memories {
		if packClean(m.Value, packValueRunes) == "" {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(m.Key)) {
		case "name":
			if nameMem == nil || newest(m, *nameMem) < 0 {
				nameMem = &m
			}
		case "nickname":
			if nickMem == nil || newest(m, *nickMem) < 0 {
				nickMem = &m
			}
		default:
			rest = append(rest, m)
		}
	}

	// USER: what the user said their name is wins over the account's name.
	var who string
	var ids []string
	name := packClean(in.DisplayName, packValueRunes)
	if nameMem != nil {
		name = packClean(nameMem.Value, packValueRunes)
		ids = append(ids, nameMem.ID)
	}
	nick := ""
	if nickMem != nil {
		nick = packClean(nickMem.Value, packValueRunes)
	}
	switch {
	case name != "" && nick != "" && !strings.EqualFold(name, nick):
		who = "Name: " + name + " (goes by " + nick + ")"
		ids = append(ids, nickMem.ID)
	case name != "":
		who = "Name: " + name
		if nickMem != nil {
			ids = append(ids, nickMem.ID)
		}
	case nick != "":
		who = "Goes by: " + nick
		ids = append(ids, nickMem.ID)
	}
	p.add(packItem{section: user, prio: 0, text: who, ids: ids})

	// Tier 1: the most important preferences, always.
	byImportance := func(a, b PackMemory) int {
		return cmp.Or(cmp.Compare(b.Importance, a.Importance), newest(a, b), cmp.Compare(a.Key, b.Key))
	}
	var core, others []PackMemory
	for _, m := range rest {
		if strings.EqualFold(strings.TrimSpace(m.Category), CategoryPreference) {
			core = append(core, m)
		} else {
			others = append(others, m)
		}
	}
	slices.SortStableFunc(core, byImportance)
	if len(core) > packCorePrefs {
		others = append(others, core[packCorePrefs:]...)
		core = core[:packCorePrefs]
	}
	for _, m := range core {
		p.add(packItem{section: prefs, prio: 10, text: packMonaLine(m, in.Now), ids: []string{m.ID}})
	}

	// Tier 2: the others by relevance to the query.
	q := packMonaWords(in.Query)
	type scored struct {
		m     PackMemory
		score int // the seed's score × 1000, exact
	}
	ss := make([]scored, len(others))
	for i, m := range others {
		overlap := 0
		for w := range packMonaWords(m.Value + " " + packMonaSubject(m.Key)) {
			if q[w] {
				overlap++
			}
		}
		score := overlap*300 + min(max(m.Importance, 0), 100)*5
		if m.LastUsedAt != nil && in.Now.Sub(*m.LastUsedAt) < 7*24*time.Hour {
			score += 100
		}
		ss[i] = scored{m, score}
	}
	slices.SortStableFunc(ss, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), byImportance(a.m, b.m))
	})
	for i, s := range ss {
		if i >= packRelevant {
			p.capped[relevant]++
			continue
		}
		p.add(packItem{section: relevant, prio: 100, text: packMonaLine(s.m, in.Now), ids: []string{s.m.ID}})
	}

	p.add(packItem{section: summary, prio: 1000, text: packClean(in.RollingSummary, packTextRunes), cut: true})
	return p
}

// packMonaLine renders a memory by the shape of its key.
func packMonaLine(m PackMemory, now time.Time) string {
	v := packClean(m.Value, packValueRunes)
	key := strings.TrimSpace(m.Key)
	category := strings.ToLower(strings.TrimSpace(m.Category))
	switch {
	case key == "feeling" || (category == CategoryFeeling && !strings.HasPrefix(key, "event:")):
		return "Recently feeling: " + v
	case strings.HasPrefix(key, "event:") || category == CategoryEvent:
		if !m.UpdatedAt.IsZero() && now.Sub(m.UpdatedAt) >= 24*time.Hour {
			return "Recently (" + packPlural(int(now.Sub(m.UpdatedAt)/(24*time.Hour)), "day", "days") + " ago): " + v
		}
		return "Recently: " + v
	case strings.HasPrefix(key, "likes:"):
		return "Likes: " + v
	case strings.HasPrefix(key, "dislikes:"):
		return "Dislikes: " + v
	case strings.HasPrefix(key, "favorite_"):
		return "Favorite " + packHuman(strings.TrimPrefix(key, "favorite_")) + ": " + v
	}
	k := packHuman(key)
	if k == "" {
		return v
	}
	r, size := utf8.DecodeRuneInString(k)
	return string(unicode.ToUpper(r)) + k[size:] + ": " + v
}

// packHuman is a key as words: "pet_name" is "pet name".
func packHuman(key string) string {
	return packClean(strings.NewReplacer("_", " ", ":", " ").Replace(key), packValueRunes)
}

// packMonaSubject is what a key is about, as words.
func packMonaSubject(key string) string {
	for _, prefix := range []string{"favorite_", "likes:", "dislikes:", "event:"} {
		if s, ok := strings.CutPrefix(key, prefix); ok {
			return strings.ReplaceAll(s, "_", " ")
		}
	}
	return strings.NewReplacer("_", " ", ":", " ").Replace(key)
}

// packMonaStop are words too common to say that a memory is relevant.
var packMonaStop = toSet("a an the and or but if of to in on at for with from by about as is are was were be been am i i'm im me my mine you your we our it its this that these those do does did what who how when where why which can could would should will just so not no yes hi hello hey ok okay really very too also there their they them he she his her him have has had get got like want know think tell today now up out all some any more much")

// packMonaWords are the content words of s: lower case, split on anything but
// letters and digits, stop words and single characters left out, a plural
// "s" or an "-ing" removed ("cooking" meets "cook").
func packMonaWords(s string) map[string]bool {
	s = packTruncRunes(s, packTextRunes)
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if utf8.RuneCountInString(w) < 2 || packMonaStop[w] {
			continue
		}
		switch {
		case len(w) > 5 && strings.HasSuffix(w, "ing"):
			w = w[:len(w)-3]
		case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
			w = w[:len(w)-1]
		}
		out[w] = true
	}
	return out
}

// ---- LaRa -------------------------------------------------------------------

// packFeelingWords are words that would make a line an emotional label. A
// LaRa value holding one is never rendered (seed 001: no emotional labels).
var packFeelingWords = toSet("anxious anxiety anxiously frustrated frustration frustrating sad sadness angry anger angrily upset scared afraid fear fearful worried worry nervous stressed stress overwhelmed depressed depression lonely mad panic panicked panicky meltdown tantrum crying cried unhappy miserable irritable agitated distressed distress dysregulated emotional emotion emotions mood moody")

func packLaraSafe(s string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r)
	}) {
		if packFeelingWords[w] {
			return false
		}
	}
	return true
}

func packLara(in PackInput) packPlan {
	const (
		learner = iota
		learning
		reinforcement
		prefs
	)
	p := newPackPlan(
		packSection{"learner", "LEARNER:"},
		packSection{"learning_state", "LEARNING STATE:"},
		packSection{"reinforcement", "REINFORCEMENT:"},
		packSection{"preferences", "PREFERENCES:"},
	)
	// safe is s, or "" when s would be an emotional label; such a candidate
	// counts as left out.
	safe := func(section int, s string) string {
		if s == "" {
			return ""
		}
		if !packLaraSafe(s) {
			p.capped[section]++
			return ""
		}
		return s
	}
	name := cmp.Or(packClean(in.DisplayName, packValueRunes), packValue(in.Profile["preferred_name"]), packValue(in.Profile["name"]))
	if name = safe(learner, name); name != "" {
		p.add(packItem{section: learner, prio: 0, text: "Name: " + name})
	}

	records := slices.Clone(in.Records)
	slices.SortStableFunc(records, func(a, b Record) int {
		return cmp.Or(packLaraTime(b.Data).Compare(packLaraTime(a.Data)), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Key, b.Key))
	})
	concepts := 0
	style := ""
	var likes []packPref
	prefSeen := map[string]bool{}
	for _, r := range records {
		if r.Delete {
			continue
		}
		switch packKind(r.Kind) {
		case "learning":
			line := packLaraConcept(r)
			if line == "" {
				continue
			}
			if line = safe(learning, line); line == "" {
				continue
			}
			if concepts >= packConcepts {
				p.capped[learning]++
				continue
			}
			p.add(packItem{section: learning, prio: 10, text: line})
			concepts++
		case "reinforcement_state":
			if style != "" {
				continue
			}
			s := packValue(packFirst(r.Data, "style", "reinforcement_style", "current_style"))
			style = safe(reinforcement, cmp.Or(s, packHuman(r.Key)))
		case "preference":
			for _, pr := range packLaraPrefs(r) {
				k := fmt.Sprint(pr.like) + labelKey(pr.item)
				if labelKey(pr.item) == "" || prefSeen[k] {
					continue
				}
				prefSeen[k] = true
				if safe(prefs, pr.item) == "" {
					continue
				}
				likes = append(likes, pr)
			}
		}
		// Emotional records and every other kind are never rendered.
	}
	if style != "" {
		p.add(packItem{section: reinforcement, prio: 30, text: "Style: " + style})
	}
	like := &packGroup{one: "Likes", many: "Likes", sep: ", "}
	dislike := &packGroup{one: "Dislikes", many: "Dislikes", sep: ", "}
	if len(likes) > packLaraPrefMax {
		p.capped[prefs] += len(likes) - packLaraPrefMax
		likes = likes[:packLaraPrefMax]
	}
	// Likes before dislikes, each in the order above (most recent first).
	n := 0
	for _, want := range []bool{true, false} {
		for _, l := range likes {
			if l.like != want {
				continue
			}
			g := like
			if !want {
				g = dislike
			}
			p.add(packItem{section: prefs, prio: 40, group: g, text: l.item})
			n++
		}
	}
	return p
}

// packPref is a like or a dislike.
type packPref struct {
	like bool
	item string
}

// packLaraConcept renders a learning record: its concept, mastery and difficulty.
func packLaraConcept(r Record) string {
	concept := cmp.Or(packValue(packFirst(r.Data, "concept", "concept_name")), packHuman(r.Key))
	if concept == "" {
		return ""
	}
	var facts []string
	if m, ok := num.Float(packFirst(r.Data, "mastery_level", "mastery")); ok && m >= 0 && m <= 1000 {
		facts = append(facts, "mastery "+strconv.FormatFloat(math.Round(m*10)/10, 'f', -1, 64)+" of 5")
	}
	if d, ok := num.Float(packFirst(r.Data, "current_difficulty", "difficulty")); ok && d >= 0 && d <= 1000 {
		facts = append(facts, "difficulty "+strconv.FormatFloat(math.Round(d*10)/10, 'f', -1, 64))
	} else if d, ok := num.Float(r.Data["highest_difficulty"]); ok && d >= 0 && d <= 1000 {
		facts = append(facts, "highest difficulty "+strconv.FormatFloat(math.Round(d*10)/10, 'f', -1, 64))
	}
	if len(facts) == 0 {
		return concept
	}
	return concept + ": " + strings.Join(facts, ", ")
}

// packLaraTime is when a record was last practised, used or updated.
func packLaraTime(d map[string]any) time.Time {
	if t, ok := date(packFirst(d, "last_practiced", "last_seen", "last_used_at", "last_updated", "updated_at")); ok {
		return t
	}
	return time.Time{}
}

// packLaraPrefs reads a preference record in any of its shapes: a
// likes:/dislikes: key, a favorite_<thing> or other key with a polarity, or
// the seed's likes and dislikes lists.
func packLaraPrefs(r Record) []packPref {
	type pr = packPref
	var out []pr
	for _, s := range packStrings(r.Data["likes"]) {
		out = append(out, pr{true, s})
	}
	for _, s := range packStrings(r.Data["dislikes"]) {
		out = append(out, pr{false, s})
	}
	if len(out) > 0 {
		return out
	}
	item := packValue(packFirst(r.Data, "item", "value"))
	key := strings.TrimSpace(r.Key)
	if thing, ok := strings.CutPrefix(key, "favorite_"); ok && item != "" {
		item += " (favorite " + packHuman(thing) + ")"
	}
	switch {
	case strings.HasPrefix(key, "likes:"):
		return []pr{{true, cmp.Or(item, packHuman(strings.TrimPrefix(key, "likes:")))}}
	case strings.HasPrefix(key, "dislikes:"):
		return []pr{{false, cmp.Or(item, packHuman(strings.TrimPrefix(key, "dislikes:")))}}
	}
	item = cmp.Or(item, packHuman(key))
	switch packKind(text(packFirst(r.Data, "polarity", "kind", "type"))) {
	case "like", "likes":
		return []pr{{true, item}}
	case "dislike", "dislikes":
		return []pr{{false, item}}
	}
	return nil
}

// ---- coach ------------------------------------------------------------------

func packCoach(in PackInput) packPlan {
	const (
		client = iota
		threads
		recognition
	)
	p := newPackPlan(
		packSection{"client", "CLIENT:"},
		packSection{"open_threads", "OPEN THREADS:"},
		packSection{"recognition", "LAST RECOGNITION MOMENT:"},
	)
	prof := in.Profile
	if name := cmp.Or(packValue(prof["preferred_name"]), packClean(in.DisplayName, packValueRunes)); name != "" {
		p.add(packItem{section: client, prio: 0, text: "Name: " + name})
	}
	list := func(field string, prio int, g *packGroup, prefix string) {
		for i, s := range packStrings(prof[field]) {
			if i >= packCoachList {
				p.capped[client]++
				continue
			}
			p.add(packItem{section: client, prio: prio, group: g, text: prefix + s})
		}
	}
	list("goals", 10, nil, "Goal: ")
	list("coach_preferences", 30, &packGroup{one: "Coaching preference", many: "Coaching preferences", sep: "; "}, "")
	list("recurring_themes", 50, &packGroup{one: "Recurring theme", many: "Recurring themes", sep: "; "}, "")

	seen := map[string]bool{}
	n := 0
	for _, s := range in.Summaries[:min(len(in.Summaries), packSessions)] {
		for i, t := range packStrings(s.Data["open_threads"]) {
			k := labelKey(t)
			if k == "" || seen[k] {
				continue
			}
			seen[k] = true
			if i >= packThreads {
				p.capped[threads]++
				continue
			}
			p.add(packItem{section: threads, prio: 20, text: packDate(s.At) + ": " + t})
			n++
		}
	}
	for _, s := range in.Summaries {
		// A moment is a string, or a list of which the first counts.
		r := packClean(text(s.Data["recognition_moment"]), packTextRunes)
		if ms := packStrings(s.Data["recognition_moment"]); r == "" && len(ms) > 0 {
			r = ms[0]
		}
		if r != "" {
			p.add(packItem{section: recognition, prio: 40, text: packDate(s.At) + ": " + r, cut: true})
			break
		}
	}
	return p
}
