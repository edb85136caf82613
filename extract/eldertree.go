package extract

import (
	"encoding/json"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/internal/num"
	"github.com/mnemo-ai/mnemo/prompts"
)

// eldertree (seed 002): the recovery mentor.
type kindElderTree struct{ baseKind }

func (kindElderTree) Name() string       { return "eldertree" }
func (kindElderTree) DefaultBudget() int { return DefaultBudgetElderTree }
func (kindElderTree) Rules(res *Result, _ prompts.Policy, s Session, _ time.Time) {
	res.SessionSummary = elderTreeSummary(s.Events)
}
func (kindElderTree) pack(in PackInput) *packPlan { p := packElderTree(in); return &p }
func (kindElderTree) Batches() []string           { return []string{"weekly-analytics"} }

// Urge outcomes (seed 002).
const (
	OutcomeUrgePassed = "urge_passed"
	OutcomeRelapsed   = "relapsed"
	OutcomeOngoing    = "ongoing_struggle"
)

// Follow-up cues the rules give an Elder Tree session. They are fixed
// sentences, never text from the session.
const (
	FollowUpRelapse    = "Check in gently about the relapse."
	FollowUpEscalation = "Follow up on the escalation in the last session."
	FollowUpOngoing    = "Ask how the urge that was still present at the end of the last session went."
)

// elderTreeSummary builds the seed's session_summary from urge, emotion and
// escalation events, in the order the chat service sent them. It invents no
// text: key_insights stays empty, and urge_intensity is null when the session
// had no urge, so that averages are not pulled towards zero.
//
// A relapse anywhere in the session makes the outcome "relapsed", even when a
// later urge passed: the next session must not lose sight of it.
func elderTreeSummary(events []Event) map[string]any {
	var (
		intensity   = -1
		urges       int
		triggers    = map[string]int{}
		triggerSeen []string // display forms, in order of first appearance
		triggerName = map[string]string{}
		strategies  []string
		strategyKey = map[string]bool{}
		outcome     string
		relapsed    bool
		escalated   bool
		emoStart    string
		emoEnd      string
	)
	for _, e := range events {
		switch strings.ToLower(strings.TrimSpace(e.Kind)) {
		case "urge":
			urges++
			d := eventData(e.Data)
			if v, ok := num.Float(d["intensity"]); ok {
				intensity = max(intensity, int(math.Round(min(max(v, 0), 10))))
			}
			if t := label(d["trigger"]); labelKey(t) != "" {
				k := labelKey(t)
				if triggers[k] == 0 {
					triggerSeen = append(triggerSeen, k)
					triggerName[k] = t
				}
				triggers[k]++
			}
			if st := label(d["strategy"]); labelKey(st) != "" && !strategyKey[labelKey(st)] {
				strategyKey[labelKey(st)] = true
				strategies = append(strategies, st)
			}
			switch o, _ := d["outcome"].(string); strings.ToLower(strings.TrimSpace(o)) {
			case OutcomeRelapsed:
				relapsed = true
				outcome = OutcomeRelapsed
			case OutcomeUrgePassed:
				outcome = OutcomeUrgePassed
			case OutcomeOngoing:
				outcome = OutcomeOngoing
			}
		case "emotion":
			if emo := label(eventData(e.Data)["emotion"]); emo != "" {
				if emoStart == "" {
					emoStart = emo
				}
				emoEnd = emo
			}
		case "escalation":
			escalated = true
		}
	}

	primary, best := "", 0
	for _, k := range triggerSeen { // first seen wins a tie
		if triggers[k] > best {
			primary, best = triggerName[k], triggers[k]
		}
	}
	if relapsed {
		outcome = OutcomeRelapsed
	}
	if urges > 0 && outcome == "" {
		outcome = OutcomeOngoing
	}
	var urgeIntensity any // null when no urge said how strong it was
	if intensity >= 0 {
		urgeIntensity = intensity
	}
	followUp := ""
	switch {
	case outcome == OutcomeRelapsed:
		followUp = FollowUpRelapse
	case escalated:
		followUp = FollowUpEscalation
	case outcome == OutcomeOngoing:
		followUp = FollowUpOngoing
	}
	return map[string]any{
		"urge_intensity":           urgeIntensity,
		"primary_trigger":          primary,
		"resistance_strategy_used": strings.Join(strategies, ", "),
		"outcome":                  outcome,
		"key_insights":             []string{},
		"emotional_state_start":    emoStart,
		"emotional_state_end":      emoEnd,
		"follow_up_needed":         followUp,
	}
}

func eventData(raw json.RawMessage) map[string]any {
	var d map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &d) != nil {
		return map[string]any{}
	}
	return d
}

// label is a short structured value from an event (a trigger, a strategy, an
// emotion): trimmed, lower-cased, spaces collapsed, cut to MaxValueRunes. A
// value that looks sensitive is dropped: event data is written by the chat
// service, but it may have copied it from what the user typed.
func label(v any) string {
	s, _ := v.(string)
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	if s == "" {
		return ""
	}
	if _, bad := Sensitive(s); bad {
		return ""
	}
	if utf8.RuneCountInString(s) > MaxValueRunes {
		r := []rune(s)
		s = strings.TrimSpace(string(r[:MaxValueRunes]))
	}
	return s
}

// labelKey is what makes two labels the same: "work_stress", "Work stress"
// and "work-stress" count as one trigger.
func labelKey(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}
