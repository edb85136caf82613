package extract

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mnemo-ai/mnemo/prompts"
)

// The engine's side of an extraction by a chat model: what the model is
// asked (ModelPrompt) and what its answers become (MergeModelAnswers,
// ModelResult). Asking is the llm package's; extract/llmextract drives both.

// ModelPrompt is what a model is asked about a session: the session in the
// user's zone, split into parts whose transcripts fit the input budget.
type ModelPrompt struct {
	s      Session
	chunks [][]Message
	events [][]Event
}

// PlanModelPrompt splits s for the model when its transcript exceeds the
// input budget (the smaller of maxIn and the app's policy, where either is
// set; 0 is none) with ChunkMessages; each event goes with the part holding
// its message. The model reads times in the user's zone, so that "tomorrow"
// said late on a Monday evening in Chicago is a Tuesday there.
func PlanModelPrompt(app *prompts.App, s Session, maxIn int) (*ModelPrompt, error) {
	chunks, err := chunk(app, inZone(s.Messages, sessionZone(s.Timezone)), maxIn)
	if err != nil {
		return nil, err
	}
	return &ModelPrompt{s: s, chunks: chunks, events: eventsByChunk(chunks, s.Events)}, nil
}

// Parts is how many parts the session is asked about in turn.
func (p *ModelPrompt) Parts() int { return len(p.chunks) }

// UserData is the data of part i's user prompt (from 0); earlier is the
// session summary of the answer to the part before, nil for the first.
func (p *ModelPrompt) UserData(i int, earlier map[string]any) prompts.UserData {
	return promptData(p.s, p.chunks[i], p.events[i], i+1, len(p.chunks), earlier)
}

// ModelResult turns a model's answer about s, valid against the app's schema
// (merged with MergeModelAnswers when s was asked in parts), into a Result
// with Source "llm": memories of the same key keep the last; of more than
// maxMems memories (0 is DefaultMaxMemories), the most important are kept
// (ties in the answer's order) and Result.Cut counts the others, each
// reported in Dropped as DropMemoryCap with its source message; dates out
// of the session's range are dropped. The result passes Screen, the same
// gate as the rules'. Raw and Usage are the caller's to set.
func ModelResult(app *prompts.App, s Session, answer map[string]any, maxMems int) Result {
	res := Result{App: app.Name, Source: SourceLLM, PromptVersion: app.PromptVersion}
	res.Memories, res.Dropped = memoriesFrom(app, s, answer["memories"])
	res.Memories, res.Cut = capMemories(res.Memories, cmp.Or(maxMems, DefaultMaxMemories), &res.Dropped)
	res.ProfileUpdates = objectFrom(answer["profile_updates"])
	res.SessionSummary = objectFrom(answer["session_summary"])
	res.ModelRisks = modelRisksFrom(answer["risks"])
	res.Dropped = append(res.Dropped, dropDates(s, res.ProfileUpdates)...)
	res.Dropped = append(res.Dropped, dropDates(s, res.SessionSummary)...)
	Screen(&res, app.Policy, s) // the model's answer passes the same gate as the rules'
	return res
}

// DefaultMaxMemories is the cap of ModelResult when it is given 0: more than a session
// says about a user, far less than a runaway answer holds.
const DefaultMaxMemories = 50

// DropMemoryCap is the Dropped reason of a memory cut by the cap of ModelResult.
const DropMemoryCap = "memory_cap"

// chunk splits msgs when their transcript exceeds the input budget: the
// smaller of maxIn and the app's policy, where either is set.
func chunk(app *prompts.App, msgs []Message, maxIn int) ([][]Message, error) {
	budget := app.Policy.MaxInputTokens
	if maxIn > 0 && (budget <= 0 || maxIn < budget) {
		budget = maxIn
	}
	if budget <= 0 || len(msgs) == 0 {
		return [][]Message{msgs}, nil
	}
	fits, lines, counts := fitsBudget(msgs, budget)
	if fits {
		return [][]Message{msgs}, nil
	}
	// The lines counted already are not counted again.
	return chunkMessages(msgs, budget, func(i int) int {
		if counts[i] == 0 {
			counts[i] = CountTokens(lines[i] + "\n")
		}
		return counts[i]
	})
}

// eventsByChunk gives each event to the chunk holding its message, or else
// to the first chunk that ends at or after it, or else to the last.
func eventsByChunk(chunks [][]Message, events []Event) [][]Event {
	out := make([][]Event, len(chunks))
	if len(chunks) == 1 {
		out[0] = events
		return out
	}
next:
	for _, e := range events {
		if e.MessageID != "" {
			for i, c := range chunks {
				for _, m := range c {
					if m.ID == e.MessageID {
						out[i] = append(out[i], e)
						continue next
					}
				}
			}
		}
		for i, c := range chunks {
			if len(c) > 0 && !c[len(c)-1].At.Before(e.At) {
				out[i] = append(out[i], e)
				continue next
			}
		}
		out[len(out)-1] = append(out[len(out)-1], e)
	}
	return out
}

// inZone returns msgs with their times in loc: the same instants, written
// with the user's UTC offset when rendered.
func inZone(msgs []Message, loc *time.Location) []Message {
	if loc == time.UTC {
		return msgs
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		m.At = m.At.In(loc)
		out[i] = m
	}
	return out
}

func promptData(s Session, msgs []Message, events []Event, part, parts int, earlier map[string]any) prompts.UserData {
	loc := sessionZone(s.Timezone)
	d := prompts.UserData{
		Session: prompts.SessionMeta{
			ID: s.ID, App: s.App, StartedAt: s.StartedAt.In(loc), EndedAt: s.EndedAt.In(loc),
			Timezone: s.Timezone, DisplayName: s.DisplayName,
		},
		Messages: make([]prompts.Turn, len(msgs)),
		Events:   make([]prompts.EventNote, len(events)),
		Part:     part,
		Parts:    parts,
		Earlier:  earlier,
	}
	for i, m := range msgs {
		d.Messages[i] = promptTurn(m)
	}
	for i, e := range events {
		d.Events[i] = prompts.EventNote{Type: e.Type, At: e.At.In(loc), MessageID: e.MessageID, Data: e.Data}
	}
	return d
}

// capMemories keeps the max most important of mems (ties in their order),
// in their order, and reports each one cut in dropped as DropMemoryCap (once
// per source message); cut is how many were.
func capMemories(mems []Memory, max int, dropped *[]Dropped) (kept []Memory, cut int) {
	if max <= 0 || len(mems) <= max {
		return mems, 0
	}
	order := make([]int, len(mems))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(mems[b].Importance, mems[a].Importance) })
	keep := make([]bool, len(mems))
	for _, i := range order[:max] {
		keep[i] = true
	}
	kept = make([]Memory, 0, max)
	reported := map[string]bool{}
	for i, m := range mems {
		if keep[i] {
			kept = append(kept, m)
			continue
		}
		if !reported[m.SourceMessageID] {
			reported[m.SourceMessageID] = true
			*dropped = append(*dropped, Dropped{MessageID: m.SourceMessageID, Reason: DropMemoryCap})
		}
	}
	return kept, len(mems) - max
}

// MergeModelAnswers merges the model's answers to the parts of a split
// session (see ModelPrompt): lists at the top level (memories) are
// concatenated; in objects (profile_updates, session_summary) a later part's
// value wins, except that lists are united (the later part's items first,
// without repeats, cut to the schema's maxItems). One answer is returned as
// it is.
func MergeModelAnswers(app *prompts.App, answers []map[string]any) map[string]any {
	if len(answers) == 1 {
		return answers[0]
	}
	out := map[string]any{}
	for _, ans := range answers {
		for k, v := range ans {
			switch v := v.(type) {
			case []any:
				prev, _ := out[k].([]any)
				out[k] = append(slices.Clip(prev), v...)
			case map[string]any:
				prev, _ := out[k].(map[string]any)
				out[k] = mergeObject(app, k, prev, v)
			default:
				out[k] = v
			}
		}
	}
	return out
}

func mergeObject(app *prompts.App, key string, prev, next map[string]any) map[string]any {
	out := make(map[string]any, len(prev)+len(next))
	for k, v := range prev {
		out[k] = v
	}
	for k, v := range next {
		list, ok := v.([]any)
		if !ok {
			out[k] = v
			continue
		}
		earlier, _ := prev[k].([]any)
		united := uniteLists(list, earlier)
		if n, ok := app.ArrayLimit(key, k); ok && len(united) > n {
			united = united[:n]
		}
		out[k] = united
	}
	return out
}

// uniteLists returns first's items, then those of second not already there.
// Strings compare case-insensitively and without surrounding space.
func uniteLists(first, second []any) []any {
	out := make([]any, 0, len(first)+len(second))
	seen := map[string]bool{}
	for _, v := range slices.Concat(first, second) {
		k := fmt.Sprint(v)
		if s, ok := v.(string); ok {
			k = strings.ToLower(strings.TrimSpace(s))
		} else if b, err := json.Marshal(v); err == nil {
			k = string(b)
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, v)
	}
	return out
}

// memoriesFrom turns the validated "memories" list into Memories: the LLM's
// confidence capped at ConfidenceLLM, an event's date and wording (see
// eventDateFrom), expiry by the app's TTL for the category from the end of
// the session or, for an event still to come, from the end of its day in
// the user's zone, source message IDs the session does not have cleared,
// and one memory per key (the last). An event date outside DateRange is
// dropped, the memory kept without it, and reported in dropped.
func memoriesFrom(app *prompts.App, s Session, v any) (mems []Memory, dropped []Dropped) {
	items, _ := v.([]any)
	ids := make(map[string]bool, len(s.Messages))
	for _, m := range s.Messages {
		ids[m.ID] = true
	}
	end := sessionEnd(s)
	loc := sessionZone(s.Timezone)
	out := []Memory{}
	dropped = []Dropped{}
	byKey := map[string]int{}
	for _, it := range items {
		o, ok := it.(map[string]any)
		if !ok {
			continue
		}
		m := Memory{
			Key:             answerString(o["key"]),
			Value:           strings.TrimSpace(answerString(o["value"])),
			Category:        answerString(o["category"]),
			Importance:      int(math.Round(answerFloat(o["importance"]))),
			Confidence:      ConfidenceLLM,
			SourceMessageID: answerString(o["source_message_id"]),
		}
		if c, ok := o["confidence"]; ok {
			m.Confidence = min(ConfidenceLLM, answerFloat(c))
		}
		if !ids[m.SourceMessageID] {
			m.SourceMessageID = ""
		}
		if m.Category == CategoryEvent {
			var inRange bool
			m.EventDate, m.Wording, inRange = eventDateFrom(o, s)
			if !inRange {
				d := Dropped{MessageID: m.SourceMessageID, Reason: DropDateOutOfRange}
				if !slices.Contains(dropped, d) {
					dropped = append(dropped, d)
				}
			}
		}
		if ttl, ok := app.Policy.MemoryTTL[m.Category]; ok {
			t := ttlStart(m, end, loc).Add(time.Duration(ttl))
			m.ExpiresAt = &t
		}
		if i, ok := byKey[m.Key]; ok {
			out[i] = m
			continue
		}
		byKey[m.Key] = len(out)
		out = append(out, m)
	}
	return out, dropped
}

// eventDateFrom reads an event memory's "event_date" and "wording". The
// schema checks the date's shape; a date no calendar has (2026-02-30), or
// one outside DateRange of the session (inRange false), is dropped with its
// wording, and the memory kept without them. Wording is kept only with a
// date, trimmed and at most MaxValueRunes long.
func eventDateFrom(o map[string]any, s Session) (date, wording string, inRange bool) {
	date = strings.TrimSpace(answerString(o["event_date"]))
	if !ValidDate(date) {
		return "", "", true
	}
	if !DateInRange(date, s.StartedAt, sessionEnd(s), sessionZone(s.Timezone)) {
		return "", "", false
	}
	wording = strings.Join(strings.Fields(answerString(o["wording"])), " ")
	if utf8.RuneCountInString(wording) > MaxValueRunes {
		wording = ""
	}
	return date, wording, true
}

// dropDates removes from an answer object (profile updates, a session
// summary) the dates outside DateRange of the session: the string values of
// its fields named *_date, such as a recovery start date. Each
// removal is reported as DropDateOutOfRange.
func dropDates(s Session, obj map[string]any) []Dropped {
	dropped := false
	for k, v := range obj {
		date, ok := v.(string)
		if !ok || !strings.HasSuffix(k, "_date") {
			continue
		}
		if !DateInRange(strings.TrimSpace(date), s.StartedAt, sessionEnd(s), sessionZone(s.Timezone)) {
			delete(obj, k)
			dropped = true
		}
	}
	if dropped {
		return []Dropped{{Reason: DropDateOutOfRange}}
	}
	return nil
}

// sessionEnd is when the session ended: EndedAt, or else its last known time.
func sessionEnd(s Session) time.Time {
	if !s.EndedAt.IsZero() {
		return s.EndedAt
	}
	end := s.StartedAt
	for _, m := range s.Messages {
		if m.At.After(end) {
			end = m.At
		}
	}
	return end
}

func answerString(v any) string {
	s, _ := v.(string)
	return s
}

func answerFloat(v any) float64 {
	switch n := v.(type) {
	case json.Number:
		f, _ := n.Float64()
		return f
	case float64:
		return n
	}
	return 0
}

// objectFrom returns a copy of an answer object with its numbers as float64,
// as encoding/json decodes them elsewhere; never nil.
func objectFrom(v any) map[string]any {
	m, _ := withFloats(v).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

func withFloats(v any) any {
	switch v := v.(type) {
	case json.Number:
		return answerFloat(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = withFloats(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withFloats(x)
		}
		return out
	}
	return v
}
