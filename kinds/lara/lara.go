package lara

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/grammar"

	"github.com/mnemo-ai/mnemo/internal/num"
	"github.com/mnemo-ai/mnemo/prompts"
)

// lara (docs/presets.md, LaRa): the child-learning tutor, deterministic only.
// Lara is the child-learning tutor: the kind of apps whose rules are "lara".
var Lara extract.Kind = kindLara{}

func init() { extract.Register(Lara) }

type kindLara struct{ extract.BaseKind }

// defaultBudget is the context pack's budget, in tokens, when neither the
// request nor the app's policy sets one.
const defaultBudget = 300

func (kindLara) Name() string                   { return "lara" }
func (kindLara) PackPolicy() extract.PackPolicy { return extract.PackPolicy{Budget: defaultBudget} }
func (kindLara) View() extract.View {
	return extract.View{Heading: "Learning progress", Page: extract.PageLearning}
}
func (kindLara) Rules(res *extract.Result, p prompts.Policy, s extract.Session, now time.Time) {
	laraRules(res, p, s, now)
}
func (kindLara) Pack(in extract.PackInput) *extract.PackPlan { return packLara(in) }

// Fold: LaRa's learning, emotional and reinforcement records accumulate
// over the sessions; its preferences are restated by each session.
func (kindLara) Fold() *extract.Fold { return &extract.Fold{Restated: LaraPreference} }

var moodStates = []string{MoodFrustrated, MoodRecovered, MoodStable, MoodAnxious}

// Stability trends of the lara session summary.
const (
	TrendImproving = "improving"
	TrendStable    = "stable"
	TrendDeclining = "declining"
)

// laraRules is the lara preset: deterministic from end to end, the LLM never
// decides what is stored. From the session's attempt, mood, emotion and
// reinforcement events and its user messages it builds
//
//   - the session summary: current_concept (the last attempt's), highest_difficulty
//     (the hardest successful attempt, 0 when none), frustration_events and
//     recovery_events (counted mood events), stability_trend (see laraTrend),
//     attempts, successes and turns (user messages). No text, no interpretation;
//   - the records (see the Lara* kinds), folded into the user's records in
//     s.History.Records and passed through LaraGuard. Memories stay empty.
//
// Learning: every attempt counts in total_attempts; a success counts in
// successful_attempts and, when it was at the concept's current difficulty or
// harder, in success_streak. At LaraMasteryStreak the streak completes:
// mastery rises one level (at most LaraMaxMastery), difficulty one step, and
// the streak starts again. A completion needs LaraCooldown since the record
// was last written and happens at most once per session and concept; a
// streak held back by the cooldown carries on and completes at the next
// qualifying success. LaraFailureStreak failures in a row lower difficulty
// one step, never below 1; mastery never falls here (decay is a batch). A
// new concept starts at mastery 0 and at its first attempt's difficulty.
// Attempts without a difficulty count as difficulty 1.
//
// Emotional metrics are counts only, never labels. Mood events count when
// their confidence, if given, reaches p.MinConfidence; emotion events whose
// emotion is one of the four mood states count the same way, but only in a
// session that has no mood events at all, so that a service sending both is
// not counted twice. The record keeps cumulative counts, the number of
// sessions, and a per-session history ("recent", at most LaraMaxRecent
// sessions of the last LaraWindow) from which last_30_day_averages (each
// state's events per session) and last_30_day_average (distress events,
// frustrated plus anxious, per session) are computed. Weekly normalisation
// is the decay batch's.
//
// Preferences are mined from user messages only, by the same patterns as the
// mona rules; only likes:, dislikes: and favorite_ keys are kept, and an
// emotional state ("I like being sad") is refused. dislikes:x deletes likes:x
// and any favorite whose value is x, and the other way round. Past
// LaraMaxPreferences the least recently seen are deleted.
//
// Reinforcement: each style counts events and successes. The user's style is
// the first one ever seen; after a session it switches to the best other
// style that has at least LaraSwitchMinEvents events and a success rate at
// least LaraSwitchPoints percentage points above the current style's, so at
// most once per session.
func laraRules(res *extract.Result, p prompts.Policy, s extract.Session, now time.Time) {
	now = now.UTC()
	ev := laraReadEvents(s.Events, p, now)
	// Children's spelling (correct_spelling in the preset): the preferences
	// are mined from the words meant; a message either reading says is
	// special is dropped.
	prefs, skills, turns, prefDrops := laraMinePreferences(s.SpellingCorrected(p), s, now)
	if len(s.Messages) == 0 && s.Said != nil {
		prefs, skills = nil, nil // a session folded again: what it said was mined when it was processed
		for _, m := range s.Said {
			if strings.HasPrefix(m.Key, skillPrefix) {
				skills = append(skills, laraPref{m.Key, m.Value, m.StatedAt})
			} else {
				prefs = append(prefs, laraPref{m.Key, m.Value, m.StatedAt})
			}
		}
	}
	res.SessionSummary = laraSummary(ev, turns)
	// The preferences the session stated, kept so that the records can be
	// folded again when an older session arrives after it (the transcript
	// is not kept).
	said := make([]any, 0, len(prefs)+len(skills))
	for _, p := range append(slices.Clone(prefs), skills...) {
		said = append(said, map[string]any{"key": p.key, "value": p.value, "at": p.at.UTC().Format(time.RFC3339Nano)})
	}
	res.SessionSummary["preferences"] = said

	dropped := append(ev.dropped, prefDrops...)
	own := map[laraRef]extract.Record{}
	for _, r := range s.History.Records {
		if s.UserID != "" && laraOwner(r) == s.UserID {
			own[laraRef{r.Type, r.Key}] = r
		}
	}
	b := laraBuilder{user: s.UserID, session: s.ID, now: now, own: own}
	var next []extract.Record
	next = append(next, b.learning(ev.attempts)...)
	next = append(next, b.emotional(ev.moods, laraSessionTime(s, now)))
	next = append(next, b.preferences(prefs)...)
	next = append(next, b.skills(skills)...)
	next = append(next, b.reinforcement(ev.reinforcements)...)
	slices.SortStableFunc(next, laraRecordOrder)

	ok, guardDrops := LaraGuard(s.UserID, s.ID, s.History.Records, next, now)
	res.Records = ok
	for _, d := range append(dropped, guardDrops...) {
		if !slices.Contains(res.Dropped, d) {
			res.Dropped = append(res.Dropped, d)
		}
	}
}

// LaraGuard is the gate every lara write passes, for the rules and for the
// worker that stores their records. prior are the user's stored records (as
// read before the write), next the records to write for session sessionID of
// user userID at now, which must be the time the records were built with
// (the now given to Rules). ok are the records that may be written, in next's
// order; dropped says, once per reason, why others were refused. It never
// changes a record: a write is taken whole or refused whole, so that a
// refused write leaves the stored record as it was.
//
// The guards, and what each protects:
//
//   - confidence (extract.GuardConfidence): a mood or emotion classified with less
//     than min_confidence is not counted, so a misread "anxious" never enters
//     the child's metrics. Records carry counts, not confidences, so this
//     guard runs where events are read (laraRules), not here.
//   - cooldown (extract.GuardCooldown): a learning record's mastery_level may change,
//     and its difficulty may rise, only when the stored record was written
//     LaraCooldown or longer ago (an unreadable updated_at counts as just
//     now), so two sessions in quick succession cannot promote a child twice
//     or escalate difficulty abruptly.
//   - no duplicate writes (extract.GuardDuplicate): when any stored record says the
//     session was applied (its last_session_id, the emotional history or the
//     last style switch names it), or the session has no ID, nothing is
//     written: a retried job cannot count attempts or moods twice.
//   - timestamped (extract.GuardTimestamp): every record must carry updated_at equal
//     to now in RFC 3339 and last_session_id equal to sessionID, so that
//     every stored value says when and from which session it was written,
//     and the cooldown and duplicate guards have something to read.
//   - no cross-user writes (extract.GuardCrossUser): every record carries its
//     "user_id". A stored record of another user (or of none) is refused as
//     input, so it can neither be folded into this user's metrics nor be
//     deleted; a record to write for another user is refused; with no userID
//     nothing is written.
//   - no emotional labels (extract.GuardLabel): no string in a record (key, values,
//     nested keys and values) may read as a label of the child ("child is
//     anxious", "he seems sad", "anxious child", "has ADHD"), and no
//     preference may be an emotional state ("likes:being sad"): emotions are
//     aggregated as counts, never stored as what the child is.
//
// Beside these, a record must have its kind's shape (extract.GuardInvalid): mastery
// within [0, LaraMaxMastery] that never falls and rises by at most one,
// difficulty at least 1 that rises by at most one step, counts that are not
// negative, a preference key of the documented shape; a delete must name a
// stored record of the user. And the user keeps at most LaraMaxPreferences
// preferences (extract.GuardCap): writes of new preference keys past the cap are
// refused.
func LaraGuard(userID, sessionID string, prior, next []extract.Record, now time.Time) (ok []extract.Record, dropped []extract.Dropped) {
	drop := func(reason string) {
		d := extract.Dropped{Reason: reason}
		if !slices.Contains(dropped, d) {
			dropped = append(dropped, d)
		}
	}
	stamp := now.UTC().Format(time.RFC3339)
	own := map[laraRef]extract.Record{}
	for _, r := range prior {
		if userID == "" || laraOwner(r) != userID {
			drop(extract.GuardCrossUser)
			continue
		}
		own[laraRef{r.Type, r.Key}] = r
	}
	if len(next) == 0 {
		return nil, dropped
	}
	switch {
	case userID == "":
		drop(extract.GuardCrossUser)
		return nil, dropped
	case sessionID == "" || laraApplied(own, sessionID):
		drop(extract.GuardDuplicate)
		return nil, dropped
	}

	for _, r := range next {
		if laraRisky(r) { // a preference for being hurt is refused like a label
			drop(extract.GuardRisk)
			continue
		}
		if reason := laraCheck(r, own, userID, sessionID, stamp, now); reason != "" {
			drop(reason)
			continue
		}
		ok = append(ok, r)
	}

	// The preference cap, over what the user will have once ok is written.
	prefs := map[string]bool{}
	for ref := range own {
		if ref.kind == LaraPreference {
			prefs[ref.key] = true
		}
	}
	for _, r := range ok {
		if r.Type == LaraPreference && r.Delete {
			delete(prefs, r.Key)
		}
	}
	kept := ok[:0]
	for _, r := range ok {
		if r.Type == LaraPreference && !r.Delete && !prefs[r.Key] {
			if len(prefs) >= LaraMaxPreferences {
				drop(extract.GuardCap)
				continue
			}
			prefs[r.Key] = true
		}
		kept = append(kept, r)
	}
	if len(kept) == 0 {
		return nil, dropped
	}
	return kept, dropped
}

// laraCheck is the reason r may not be written, or "".
func laraCheck(r extract.Record, own map[laraRef]extract.Record, userID, sessionID, stamp string, now time.Time) string {
	if laraOwner(r) != userID {
		return extract.GuardCrossUser
	}
	// The guard reads the data to write as it is, not as the typed records
	// read it: a typed read takes what merely encodes as text (a time.Time)
	// for the text it encodes to, and the guard must refuse that.
	if s, _ := r.Data["updated_at"].(string); s != stamp {
		return extract.GuardTimestamp
	}
	if s, _ := r.Data["last_session_id"].(string); s != sessionID {
		return extract.GuardTimestamp
	}
	if laraHasLabel(r.Key) || laraHasLabel(r.Data) {
		return extract.GuardLabel
	}
	if !slices.Contains(laraKindOrder, r.Type) || r.Key == "" {
		return extract.GuardInvalid
	}
	prev, had := own[laraRef{r.Type, r.Key}]
	if r.Delete {
		if !had {
			return extract.GuardInvalid
		}
		return ""
	}
	switch r.Type {
	case LaraLearning:
		m, mok := laraInt(r.Data["mastery_level"])
		d, dok := laraInt(r.Data["difficulty"])
		if !mok || !dok || m < 0 || m > LaraMaxMastery || d < 1 || d > LaraMaxDifficulty {
			return extract.GuardInvalid
		}
		for _, f := range []string{"total_attempts", "successful_attempts", "success_streak", "failure_streak"} {
			if n, ok := laraInt(r.Data[f]); !ok || n < 0 {
				return extract.GuardInvalid
			}
		}
		if !had {
			return ""
		}
		pl, _ := extract.DecodeRecord[Learning](prev)
		pm := min(max(pl.MasteryLevel, 0), LaraMaxMastery)
		pd := min(max(pl.Difficulty, 1), LaraMaxDifficulty)
		if m < pm || m > pm+1 || d > pd+1 {
			return extract.GuardInvalid
		}
		if (m != pm || d > pd) && !laraCooledDown(prev, now) {
			return extract.GuardCooldown
		}
	case LaraPreference:
		v, _ := r.Data["value"].(string)
		pol, _ := r.Data["polarity"].(string)
		if !extract.ValidKey(r.Key) || v == "" || laraPreferenceKey(r.Key) == "" || (pol != "likes" && pol != "dislikes") {
			return extract.GuardInvalid
		}
		if laraState(v) || laraState(strings.ReplaceAll(laraPreferenceKey(r.Key), "_", " ")) {
			return extract.GuardLabel
		}
	case LaraEmotional:
		for _, f := range []string{"frustration_count", "recovery_count", "stable_count", "anxious_count", "sessions"} {
			if n, ok := laraInt(r.Data[f]); !ok || n < 0 {
				return extract.GuardInvalid
			}
		}
	case LaraReinforcement:
		n, nok := laraInt(r.Data["events"])
		k, kok := laraInt(r.Data["successes"])
		if !nok || !kok || k < 0 || k > n {
			return extract.GuardInvalid
		}
	case LaraReinforcementState:
		if s, _ := r.Data["style"].(string); s == "" {
			return extract.GuardInvalid
		}
	case LaraSkill:
		if c, _ := r.Data["concept"].(string); c == "" || !extract.ValidKey("likes:"+r.Key) {
			return extract.GuardInvalid
		}
	}
	return ""
}

// laraRef names a record within one user.
type laraRef struct{ kind, key string }

// laraOwner is r's user_id, read as it is (see laraCheck): "" unless text.
func laraOwner(r extract.Record) string {
	s, _ := r.Data["user_id"].(string)
	return s
}

// stampOf is r's Stamp (every LaRa record has one).
func stampOf(r extract.Record) Stamp {
	st, _ := extract.DecodeRecord[Stamp](r)
	return st
}

// laraApplied reports whether a stored record says session was applied.
func laraApplied(own map[laraRef]extract.Record, session string) bool {
	for _, r := range own {
		// The last session that wrote a record, or that switched the style.
		if w, _ := extract.DecodeRecord[ReinforcementState](r); w.LastSessionID == session || w.SwitchSessionID == session {
			return true
		}
		if r.Type == LaraEmotional {
			e, _ := extract.DecodeRecord[Emotional](r)
			for _, e := range laraRecent(e.Recent) {
				if e.session == session {
					return true
				}
			}
		}
	}
	return false
}

// laraCooledDown reports whether LaraCooldown has passed since r was written.
func laraCooledDown(r extract.Record, now time.Time) bool {
	t, ok := decay.Instant(stampOf(r).UpdatedAt)
	return ok && now.Sub(t) >= LaraCooldown
}

var laraKindOrder = []string{LaraLearning, LaraEmotional, LaraPreference, LaraReinforcement, LaraReinforcementState, LaraSkill}

func laraRecordOrder(a, b extract.Record) int {
	return cmp.Or(
		cmp.Compare(slices.Index(laraKindOrder, a.Type), slices.Index(laraKindOrder, b.Type)),
		strings.Compare(a.Key, b.Key),
	)
}

// Events.

type laraAttempt struct {
	concept    string // the learning record's key
	difficulty int
	success    bool
	at         time.Time
}

type laraReinforcementEvent struct {
	style   string
	success bool
}

type laraEvents struct {
	attempts       []laraAttempt
	moods          []string // counted mood states, in order
	reinforcements []laraReinforcementEvent
	dropped        []extract.Dropped
}

// laraReadEvents reads the events lara uses, in the order they were sent.
// Confidence is checked here (see LaraGuard).
func laraReadEvents(events []extract.Event, p prompts.Policy, now time.Time) laraEvents {
	var ev laraEvents
	bad := func(e extract.Event, reason string) {
		d := extract.Dropped{MessageID: e.MessageID, Reason: reason}
		if !slices.Contains(ev.dropped, d) {
			ev.dropped = append(ev.dropped, d)
		}
	}
	hasMood := slices.ContainsFunc(events, func(e extract.Event) bool { return laraKind(e) == "mood" })
	for _, e := range events {
		d := extract.EventData(e.Data)
		switch laraKind(e) {
		case "attempt":
			concept := extract.Slug(extract.Label(d["concept"]), false)
			success, ok := d["success"].(bool)
			if concept == "" || !ok {
				bad(e, extract.DropBadEvent+":attempt")
				continue
			}
			if laraHasLabel(concept) {
				bad(e, extract.GuardLabel) // a concept named "child is sad" would end up in the summary
				continue
			}
			diff := 1
			if f, ok := num.Float(d["difficulty"]); ok && !math.IsNaN(f) {
				diff = int(math.Round(min(max(f, 1), LaraMaxDifficulty)))
			}
			ev.attempts = append(ev.attempts, laraAttempt{concept, diff, success, laraClamp(e.At, now)})
		case "mood", "emotion":
			field := "state"
			if laraKind(e) == "emotion" {
				if hasMood {
					continue
				}
				field = "emotion"
			}
			state, _ := d[field].(string)
			state = strings.ToLower(strings.TrimSpace(state))
			if !slices.Contains(moodStates, state) {
				if laraKind(e) == "mood" {
					bad(e, extract.DropBadEvent+":mood")
				}
				continue // other emotions are not lara's
			}
			if !laraConfident(d, p.MinConfidence) {
				bad(e, extract.GuardConfidence)
				continue
			}
			ev.moods = append(ev.moods, state)
		case "reinforcement":
			style := extract.Slug(extract.Label(d["style"]), false)
			success, ok := d["success"].(bool)
			if style == "" || !ok {
				bad(e, extract.DropBadEvent+":reinforcement")
				continue
			}
			if laraHasLabel(style) {
				bad(e, extract.GuardLabel)
				continue
			}
			ev.reinforcements = append(ev.reinforcements, laraReinforcementEvent{style, success})
		}
	}
	return ev
}

func laraKind(e extract.Event) string { return strings.ToLower(strings.TrimSpace(e.Type)) }

// laraConfident reports whether an event's confidence, when it gives one,
// is a number in [0, 1] of at least min. An event without a confidence was
// not classified (the chat service knows the state), so it counts.
func laraConfident(d map[string]any, min float64) bool {
	v, ok := d["confidence"]
	if !ok || v == nil {
		return true
	}
	c, ok := num.Float(v)
	return ok && c >= 0 && c <= 1 && c >= min
}

// laraClamp is t, or now when t is unknown or later than now: a time in the
// future would hold off decay.
func laraClamp(t, now time.Time) time.Time {
	if t.IsZero() || t.After(now) {
		return now
	}
	return t.UTC()
}

func laraSessionTime(s extract.Session, now time.Time) time.Time {
	return laraClamp(extract.SessionEnd(s), now)
}

// Summary.

func laraSummary(ev laraEvents, turns int) map[string]any {
	concept, highest, successes := "", 0, 0
	for _, a := range ev.attempts {
		concept = a.concept
		if a.success {
			successes++
			highest = max(highest, a.difficulty)
		}
	}
	counts := laraCount(ev.moods)
	return map[string]any{
		"current_concept":    concept,
		"highest_difficulty": highest,
		"frustration_events": counts[MoodFrustrated],
		"recovery_events":    counts[MoodRecovered],
		"stability_trend":    laraTrend(ev.moods),
		"attempts":           len(ev.attempts),
		"successes":          successes,
		"turns":              turns,
	}
}

func laraCount(moods []string) map[string]int {
	c := map[string]int{}
	for _, m := range moods {
		c[m]++
	}
	return c
}

// laraTrend is the session's stability trend from the order of its counted
// moods, where frustrated and anxious are distress and recovered and stable
// are not: "declining" when the last mood is distress, "improving" when it is
// not but an earlier one was, "stable" otherwise (no distress, or no moods).
// The end of a session decides because it is what the next one starts from.
func laraTrend(moods []string) string {
	if len(moods) == 0 {
		return TrendStable
	}
	distress := func(m string) bool { return m == MoodFrustrated || m == MoodAnxious }
	switch {
	case distress(moods[len(moods)-1]):
		return TrendDeclining
	case slices.ContainsFunc(moods, distress):
		return TrendImproving
	}
	return TrendStable
}

// Records.

type laraBuilder struct {
	user, session string
	now           time.Time
	own           map[laraRef]extract.Record
}

// stamp is what a record b writes carries: b's user, time and session.
func (b laraBuilder) stamp() Stamp {
	return Stamp{UserID: b.user, UpdatedAt: b.now.Format(time.RFC3339), LastSessionID: b.session}
}

func (b laraBuilder) remove(kind, key, why string) extract.Record {
	r := extract.NewRecord(kind, key, Removal{Stamp: b.stamp(), Reason: why})
	r.Delete = true
	return r
}

func (b laraBuilder) learning(attempts []laraAttempt) []extract.Record {
	var order []string
	byConcept := map[string][]laraAttempt{}
	for _, a := range attempts {
		if _, ok := byConcept[a.concept]; !ok {
			order = append(order, a.concept)
		}
		byConcept[a.concept] = append(byConcept[a.concept], a)
	}
	out := make([]extract.Record, 0, len(order))
	for _, c := range order {
		atts := byConcept[c]
		prev, had := b.own[laraRef{LaraLearning, c}]
		var pr struct{ mastery, total, successes, streak, fails, difficulty int }
		var last time.Time
		if had {
			d, _ := extract.DecodeRecord[Learning](prev)
			pr.mastery = min(max(d.MasteryLevel, 0), LaraMaxMastery)
			pr.total = max(d.TotalAttempts, 0)
			pr.successes = max(d.SuccessfulAttempts, 0)
			pr.streak = max(d.SuccessStreak, 0)
			pr.fails = max(d.FailureStreak, 0)
			pr.difficulty = min(max(d.Difficulty, 1), LaraMaxDifficulty)
			last, _ = decay.Instant(d.LastPracticed)
		} else {
			pr.difficulty = atts[0].difficulty
		}
		canRise := !had || laraCooledDown(prev, b.now)
		for _, a := range atts {
			pr.total++
			if a.at.After(last) {
				last = a.at
			}
			if !a.success {
				pr.streak = 0
				if pr.fails++; pr.fails >= LaraFailureStreak {
					pr.difficulty = max(pr.difficulty-1, 1)
					pr.fails = 0
				}
				continue
			}
			pr.successes++
			pr.fails = 0
			if a.difficulty >= pr.difficulty {
				pr.streak++
			}
			if pr.streak >= LaraMasteryStreak && canRise {
				pr.mastery = min(pr.mastery+1, LaraMaxMastery)
				pr.difficulty = min(pr.difficulty+1, LaraMaxDifficulty)
				pr.streak = 0
				canRise = false // once per session and cooldown window
			}
		}
		out = append(out, extract.NewRecord(LaraLearning, c, Learning{
			Stamp:              b.stamp(),
			MasteryLevel:       pr.mastery,
			TotalAttempts:      pr.total,
			SuccessfulAttempts: pr.successes,
			SuccessStreak:      pr.streak,
			FailureStreak:      pr.fails,
			Difficulty:         pr.difficulty,
			LastPracticed:      last.Format(time.RFC3339),
		}))
	}
	return out
}

// laraEntry is one session of the emotional record's recent history.
type laraEntry struct {
	session string
	at      time.Time
	counts  map[string]int
}

// laraRecent are the entries of a stored history whose time can be read.
func laraRecent(list []MoodSession) []laraEntry {
	out := make([]laraEntry, 0, len(list))
	for _, m := range list {
		at, ok := decay.Instant(m.At)
		if !ok {
			continue
		}
		e := laraEntry{session: m.SessionID, at: at, counts: map[string]int{}}
		c := m.counts()
		for _, st := range moodStates {
			e.counts[st] = c.Get(st)
		}
		out = append(out, e)
	}
	return out
}

func (b laraBuilder) emotional(moods []string, at time.Time) extract.Record {
	var d Emotional
	if prev, ok := b.own[laraRef{LaraEmotional, LaraCounts}]; ok {
		d, _ = extract.DecodeRecord[Emotional](prev)
	}
	counts := laraCount(moods)
	recent := append(laraRecent(d.Recent), laraEntry{session: b.session, at: at, counts: counts})
	recent = slices.DeleteFunc(recent, func(e laraEntry) bool { return b.now.Sub(e.at) > LaraWindow })
	slices.SortStableFunc(recent, func(x, y laraEntry) int { return x.at.Compare(y.at) })
	if len(recent) > LaraMaxRecent {
		recent = recent[len(recent)-LaraMaxRecent:]
	}
	list := make([]MoodSession, 0, len(recent))
	sums := map[string]int{}
	for _, e := range recent {
		list = append(list, MoodSession{SessionID: e.session, At: e.at.Format(time.RFC3339),
			Frustrated: e.counts[MoodFrustrated], Recovered: e.counts[MoodRecovered],
			Stable: e.counts[MoodStable], Anxious: e.counts[MoodAnxious]})
		for _, st := range moodStates {
			sums[st] += e.counts[st]
		}
	}
	avg := func(n int) float64 {
		if len(recent) == 0 {
			return 0
		}
		return math.Round(float64(n)/float64(len(recent))*1e4) / 1e4
	}
	averages := map[string]float64{}
	for _, st := range moodStates {
		averages[st] = avg(sums[st])
	}
	distress := avg(sums[MoodFrustrated] + sums[MoodAnxious])
	return extract.NewRecord(LaraEmotional, LaraCounts, Emotional{
		Stamp:             b.stamp(),
		FrustrationCount:  max(d.FrustrationCount, 0) + counts[MoodFrustrated],
		RecoveryCount:     max(d.RecoveryCount, 0) + counts[MoodRecovered],
		StableCount:       max(d.StableCount, 0) + counts[MoodStable],
		AnxiousCount:      max(d.AnxiousCount, 0) + counts[MoodAnxious],
		Sessions:          max(d.Sessions, 0) + 1,
		Last30DayAverage:  &distress,
		Last30DayAverages: averages,
		Recent:            list,
		Last30DaySessions: len(recent),
	})
}

// laraPref is one preference stated in the session.
type laraPref struct {
	key, value string
	at         time.Time
}

// laraMinePreferences mines the user's messages of s with the mona patterns
// and keeps the preferences. turns counts the user's messages. written is
// the session as handed over when s is its spelling corrected (the same
// messages, in the same order): a message is sensitive when either says so.
func laraMinePreferences(s, written extract.Session, now time.Time) (prefs, skills []laraPref, turns int, dropped []extract.Dropped) {
	var all []laraPref
	for i, m := range s.Messages {
		if !extract.IsUser(m.Role) {
			continue
		}
		turns++
		content := strings.ToValidUTF8(m.Content, "\uFFFD")
		reason, ok := extract.Sensitive(content)
		if !ok && i < len(written.Messages) {
			reason, ok = extract.Sensitive(strings.ToValidUTF8(written.Messages[i].Content, "\uFFFD"))
		}
		if ok {
			dropped = append(dropped, extract.Dropped{MessageID: m.ID, Reason: "sensitive:" + reason})
			continue
		}
		for _, f := range laraMine(content) {
			if strings.HasPrefix(f.Key, skillPrefix) {
				if !laraState(f.Value) && !laraHasLabel(f.Value) {
					skills = append(skills, laraPref{f.Key, f.Value, laraClamp(m.At, now)})
				}
				continue
			}
			if laraPreferenceKey(f.Key) == "" {
				continue // names, feelings and events are not lara's to keep
			}
			if laraState(f.Value) || laraState(strings.ReplaceAll(laraPreferenceKey(f.Key), "_", " ")) || laraHasLabel(f.Value) {
				if d := (extract.Dropped{MessageID: m.ID, Reason: extract.GuardLabel}); !slices.Contains(dropped, d) {
					dropped = append(dropped, d)
				}
				continue
			}
			all = append(all, laraPref{f.Key, f.Value, laraClamp(m.At, now)})
		}
	}
	// The later of two statements on one subject wins (likes:x against dislikes:x too).
	last := map[string]int{}
	for i, p := range all {
		last[extract.Subject(p.key)] = i
	}
	for i, p := range all {
		if last[extract.Subject(p.key)] == i {
			prefs = append(prefs, p)
		}
	}
	return prefs, skills, turns, dropped
}

// laraPreferenceKey is the item or thing of a preference key, or "" when key
// is not a preference.
func laraPreferenceKey(key string) string {
	for _, prefix := range []string{"likes:", "dislikes:", "favorite_"} {
		if rest, ok := strings.CutPrefix(key, prefix); ok {
			return rest
		}
	}
	return ""
}

func laraPolarity(key string) string {
	if strings.HasPrefix(key, "dislikes:") {
		return "dislikes"
	}
	return "likes"
}

func (b laraBuilder) preferences(prefs []laraPref) []extract.Record {
	type pref struct {
		value, polarity string
		first, last     time.Time
		written         bool
	}
	live := map[string]*pref{}
	for ref, r := range b.own {
		if ref.kind != LaraPreference {
			continue
		}
		d, _ := extract.DecodeRecord[Preference](r)
		p := &pref{polarity: laraPolarity(ref.key), value: d.Value}
		p.first, _ = decay.Instant(d.FirstSeen)
		if d.LastSeen != nil {
			p.last, _ = decay.Instant(*d.LastSeen)
		}
		live[ref.key] = p
	}
	deleted := map[string]string{} // stored keys to delete, and why
	remove := func(key, why string) {
		if _, ok := live[key]; !ok {
			return
		}
		delete(live, key)
		if _, stored := b.own[laraRef{LaraPreference, key}]; stored {
			deleted[key] = why
		}
	}
	for _, p := range prefs {
		item := laraPreferenceKey(p.key)
		if strings.HasPrefix(p.key, "favorite_") {
			item = extract.Slug(p.value, true)
		}
		// The preferences p contradicts. One said after p wins: p is history
		// (a session handed over late must not undo what was said since).
		var against []string
		if laraPolarity(p.key) == "dislikes" {
			against = append(against, "likes:"+item)
			for key, q := range live {
				if strings.HasPrefix(key, "favorite_") && extract.Slug(q.value, true) == item {
					against = append(against, key)
				}
			}
		} else {
			against = append(against, "dislikes:"+item)
		}
		if slices.ContainsFunc(against, func(key string) bool { q, ok := live[key]; return ok && q.last.After(p.at) }) {
			continue
		}
		for _, key := range against {
			remove(key, "contradicted")
		}
		next := &pref{value: p.value, polarity: laraPolarity(p.key), first: p.at, last: p.at, written: true}
		if q, ok := live[p.key]; ok {
			if !q.first.IsZero() && q.first.Before(next.first) {
				next.first = q.first
			}
			if q.last.After(next.last) {
				next.value, next.last = q.value, q.last // said again since, in these words
			}
		}
		live[p.key] = next
		delete(deleted, p.key)
	}
	if len(live) > LaraMaxPreferences {
		keys := make([]string, 0, len(live))
		for k := range live {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(x, y string) int {
			return cmp.Or(live[x].last.Compare(live[y].last), live[x].first.Compare(live[y].first), strings.Compare(x, y))
		})
		for _, k := range keys[:len(keys)-LaraMaxPreferences] {
			remove(k, "evicted")
		}
	}
	var out []extract.Record
	for key, why := range deleted {
		out = append(out, b.remove(LaraPreference, key, why))
	}
	for key, p := range live {
		if p.written {
			last := p.last.Format(time.RFC3339)
			out = append(out, extract.NewRecord(LaraPreference, key, Preference{
				Stamp:     b.stamp(),
				Value:     p.value,
				Polarity:  p.polarity,
				FirstSeen: p.first.Format(time.RFC3339),
				LastSeen:  &last,
			}))
		}
	}
	return out
}

func (b laraBuilder) reinforcement(events []laraReinforcementEvent) []extract.Record {
	if len(events) == 0 {
		return nil
	}
	metrics := map[string]*laraMetric{}
	for ref, r := range b.own {
		if ref.kind == LaraReinforcement {
			d, _ := extract.DecodeRecord[Reinforcement](r)
			n := max(d.Events, 0)
			metrics[ref.key] = &laraMetric{n, min(max(d.Successes, 0), n)}
		}
	}
	touched := map[string]bool{}
	for _, e := range events {
		m := metrics[e.style]
		if m == nil {
			m = &laraMetric{}
			metrics[e.style] = m
		}
		m.events++
		if e.success {
			m.successes++
		}
		touched[e.style] = true
	}

	state := ReinforcementState{Style: events[0].style}
	if prev, ok := b.own[laraRef{LaraReinforcementState, LaraCurrent}]; ok {
		if d, _ := extract.DecodeRecord[ReinforcementState](prev); d.Style != "" {
			state = d
		}
	}
	current := state.Style
	cur := metrics[current]
	if cur == nil {
		cur = &laraMetric{}
	}
	best := ""
	for style, m := range metrics {
		if style == current || m.events < LaraSwitchMinEvents || !laraBetter(*m, *cur) {
			continue
		}
		if bm := metrics[best]; best == "" || laraRateCompare(*m, *bm) > 0 ||
			(laraRateCompare(*m, *bm) == 0 && (m.events > bm.events || (m.events == bm.events && style < best))) {
			best = style
		}
	}
	if best != "" {
		state = ReinforcementState{
			Style:           best,
			PreviousStyle:   current,
			SwitchedAt:      b.now.Format(time.RFC3339),
			SwitchSessionID: b.session,
		}
	}

	var out []extract.Record
	for style := range touched {
		m := metrics[style]
		out = append(out, extract.NewRecord(LaraReinforcement, style, Reinforcement{
			Stamp:       b.stamp(),
			Events:      m.events,
			Successes:   m.successes,
			SuccessRate: math.Round(float64(m.successes)/float64(m.events)*1e4) / 1e4,
		}))
	}
	state.Stamp = b.stamp()
	return append(out, extract.NewRecord(LaraReinforcementState, LaraCurrent, state))
}

// laraMetric is a reinforcement style's events and successes.
type laraMetric struct{ events, successes int }

// laraBetter reports whether o's success rate is at least LaraSwitchPoints
// percentage points above c's, in integers so that 0.65 against 0.50 is
// exactly 15 points. A style without events has a rate of 0.
func laraBetter(o, c laraMetric) bool {
	if o.events == 0 {
		return false
	}
	if c.events == 0 {
		return 100*o.successes >= LaraSwitchPoints*o.events
	}
	return 100*(o.successes*c.events-c.successes*o.events) >= LaraSwitchPoints*o.events*c.events
}

func laraRateCompare(a, b laraMetric) int {
	return cmp.Compare(a.successes*b.events, b.successes*a.events)
}

// Values.

// laraInt reads a whole number written by Go code or decoded from JSON.
func laraInt(v any) (int, bool) { return num.Whole(v, 1e12) }

// Labels.
//
// Labels are recognised word by word rather than by one regular expression:
// an alternation of a hundred feelings is slow to run over every string of
// every record, and most strings hold no feeling at all.

var (
	// laraFeelings are feelings, distress words and diagnoses: a record may
	// count them, never say the child is one. Two-word feelings ("worn out")
	// are in laraFeelingPairs.
	laraFeelings, laraFeelingPairs = laraSplitFeelings(grammar.FeelWords + `|sadness|anxiety|anger|fear|fearful|frustration|loneliness|stress|distress|distressed|unhappy|crying|tearful|panicked|panicky|insecure|withdrawn|aggressive|hyperactive|moody|fragile|troubled|disturbed|traumatized|traumatised|unstable|emotional|needy|clingy|adhd|autistic|autism|bipolar|ocd|dyslexic|dyslexia|depression|disorder|disordered`)
	laraDiagnoses                  = extract.WordSet("adhd autism ocd anxiety depression dyslexia bipolar disorder")
	// laraCopulas say what someone is; laraDegrees may stand between them and
	// the feeling ("is always a bit sad"). "being", "feeling" and "getting"
	// are both.
	laraCopulas = extract.WordSet("is isn't was wasn't are aren't were weren't be been being seem seems seemed feel feels felt feeling look looks looked appear appears appeared get gets got getting become becomes became remain remains remained stay stays stayed")
	laraDegrees = extract.WordSet("very so really quite too extremely always often easily usually generally clearly highly a an bit little kind of kinda pretty rather somewhat more most still not mostly super")
	// laraSubjects contracted with a copula: "he's", "i'm", "they're".
	laraSubjects = extract.WordSet("he she they it child kid boy girl user learner student i you we who that")
	laraPersons  = extract.WordSet("child kid boy girl learner student pupil person user one")
	laraBecoming = extract.WordSet("being feeling getting becoming be feel get become")
)

func laraSplitFeelings(alternation string) (single map[string]bool, pairs map[string]bool) {
	single, pairs = map[string]bool{}, map[string]bool{}
	for _, f := range strings.Split(alternation, "|") {
		if strings.Contains(f, " ") {
			pairs[f] = true
		} else {
			single[f] = true
		}
	}
	return single, pairs
}

// laraFeelingAt is how many words of w, from i on, name a feeling: 0, 1 or 2.
func laraFeelingAt(w []string, i int) int {
	if i+1 < len(w) && laraFeelingPairs[w[i]+" "+w[i+1]] {
		return 2
	}
	if laraFeelings[w[i]] {
		return 1
	}
	return 0
}

// laraState reports whether a preference is an emotional state: "sad",
// "being sad", "feeling a bit anxious", "worn out".
func laraState(s string) bool {
	w := laraWords(s)
	i := 0
	if i < len(w) && laraBecoming[w[i]] {
		i++
	}
	for i < len(w) && laraDegrees[w[i]] {
		i++
	}
	return i < len(w) && i+laraFeelingAt(w, i) == len(w) && laraFeelingAt(w, i) > 0
}

// laraLabel reports whether s reads as a label of a person: "X is / was /
// seems … anxious" (whoever X is: "Mia is sad" is as much a label as "the
// child is sad"), "he's upset", "anxious child", "has ADHD".
func laraLabel(s string) bool {
	w := laraWords(s)
	for i := range w {
		n := laraFeelingAt(w, i)
		if n == 0 {
			continue
		}
		if i+n < len(w) && laraPersons[w[i+n]] {
			return true
		}
		for j := i - 1; j >= 0; j-- {
			if laraCopulas[w[j]] {
				return true
			}
			if stem, _, ok := strings.Cut(w[j], "'"); ok && laraSubjects[stem] {
				return true
			}
			if !laraDegrees[w[j]] {
				break
			}
		}
		if laraDiagnoses[w[i]] {
			for j := max(i-3, 0); j < i; j++ {
				if w[j] == "has" || w[j] == "have" || w[j] == "had" || w[j] == "with" {
					return true
				}
			}
		}
	}
	return false
}

// laraWords reduces s to its lower-case words, so that punctuation cannot
// hide a label: "Child_is-'really'...ANXIOUS" reads child is really anxious.
// An apostrophe stays only inside a word ("he's").
func laraWords(s string) []string {
	rs := []rune(strings.ToLower(extract.StraightApostrophes(s)))
	letter := func(i int) bool { return i >= 0 && i < len(rs) && (unicode.IsLetter(rs[i]) || unicode.IsDigit(rs[i])) }
	for i, r := range rs {
		if !letter(i) && (r != '\'' || !letter(i-1) || !letter(i+1)) {
			rs[i] = ' '
		}
	}
	return strings.Fields(string(rs))
}

// laraHasLabel reports whether any string in v (map keys included) reads as
// an emotional label.
func laraHasLabel(v any) bool {
	switch x := v.(type) {
	case string:
		return laraLabel(x)
	case map[string]any:
		for k, e := range x {
			if laraHasLabel(k) || laraHasLabel(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(x, laraHasLabel)
	case []string:
		return slices.ContainsFunc(x, laraLabel)
	case []map[string]any:
		return slices.ContainsFunc(x, func(m map[string]any) bool { return laraHasLabel(m) })
	}
	return false
}

// harmWords are what a child's preference must not be about: LaRa keeps
// no preference for being hurt, dying or hurting (laraRisky).
var harmWords = regexp.MustCompile(`\b(?:hurt|hurting|hurts|pain|bleed|bleeding|blood|cut|cutting|cuts|die|dying|dead|death|kill|killing|suicide|hit|hitting|beaten|beating|punish|punished|punishment|starve|starving|choke|choking)\b`)

// laraRisky reports whether a LaRa preference record is about harm or
// risk ("I like being hurt"): LaraGuard refuses it as it refuses labels.
func laraRisky(r extract.Record) bool {
	if r.Type != LaraPreference || r.Delete {
		return false
	}
	text := strings.ReplaceAll(laraPreferenceKey(r.Key), "_", " ")
	if d, _ := extract.DecodeRecord[Preference](r); d.Value != "" {
		text += " " + d.Value
	}
	if extract.RiskyText(text) {
		return true
	}
	return harmWords.MatchString(extract.RiskNorm(text))
}

// RiskExtras are children's phrasings of risk that the core lexicons leave
// out, read in LaRa's messages only.
func (kindLara) RiskExtras() []extract.RiskPhrasing { return riskExtras }

var riskExtras = []extract.RiskPhrasing{
	// Wanting to go to heaven to be with someone, to be gone, to not be
	// borned.
	extract.Phrasing(extract.RiskSuicidal, extract.SeverityMedium, `\b(?:wish|wished|want|wanna)\s+(?:i\s+)?(?:was|were|had)?\s*(?:never|not)\s+(?:been\s+)?(?:borned|born)\b|\bwant\s+to\s+be\s+(?:dead|ded|gone)\s+(?:like|with)\b|\bwant\s+(?:to\s+)?(?:go|be)\s+where\s+(?:grandma|grandpa|nan|grandad|granny|[a-z]+)\s+(?:is|went)\b`),
	// A secret kept for someone who told the child not to tell.
	extract.Phrasing(extract.RiskAbuse, "", `\b(?:says?|said|told\s+me)\s+(?:it's|its|it\s+is|this\s+is)\s+(?:our|a)\s+(?:special\s+|little\s+)?secret\b`).Kept().
		Also(`not\s+(?:allowed|supposed)\s+to\s+tell|(?:can't|cant|mustn't|never)\s+tell|don't\s+tell|if\s+i\s+tell`).
		Needing(`\b(?:uncle|stepdad|step\s+dad|stepfather|coach|tutor|man|grandad|grandpa|granddad|neighbou?r|babysitter|boyfriend|priest|cousin|teacher|friend's\s+dad|he|him)\b`).
		Except(`\b(?:surprise|party|present|gift|birthday|christmas|santa|recipe|crush|ice\s+cream|sweets\s+before|cake|treat)\b`),
	// Being asked to meet, or to come to someone's place, by a stranger or
	// an older person.
	extract.Phrasing(extract.RiskAbuse, "", `\bkeeps?\s+asking\s+me\s+to\s+(?:come|go|get)\s+(?:to|in|into|back\s+to)\s+(?:his|her|their)\s+(?:house|car|flat|place|van)\b|\b(?:wants|asked|asks|keeps\s+asking)\s+(?:me\s+)?to\s+meet\s+(?:up\s+)?(?:him|her|in\s+person)\b`).
		Needing(`\b(?:man|stranger|secret|online|club|don't\s+tell|older|grown|adult|game|waited|gate|park|messages)\b`),
}
