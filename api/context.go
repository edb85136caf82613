package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/apperr"
	"github.com/mnemo-ai/mnemo/internal/zones"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store"
)

// MaxContextBudget bounds budget_tokens.
const MaxContextBudget = 8000

// BuildContext assembles the context pack for a user's next session: what
// their app lets a chat model know, counted with the real tokenizer and never
// over budget (0 means the app's default). Memories it includes are marked
// used. The demo command prints the same pack.
//
// For memory.DefaultCareNoteDays after a risk finding of the user's own,
// of medium or high severity, not lowered and not resolved, the pack opens
// with a care note (BuildContextCare).
func BuildContext(ctx context.Context, st store.Store, apps map[string]*prompts.App, userID, query string, budget int, now time.Time) (extract.ContextPack, error) {
	return buildContext(ctx, st, apps, userID, query, budget, now, memory.DefaultCareNoteDays, true)
}

// BuildContextCare is BuildContext with a care note for careDays days
// after a finding (MNEMO_CARE_NOTE_DAYS): see careFinding.
func BuildContextCare(ctx context.Context, st store.Store, apps map[string]*prompts.App, userID, query string, budget int, now time.Time, careDays int) (extract.ContextPack, error) {
	return buildContext(ctx, st, apps, userID, query, budget, now, careDays, true)
}

// buildContext is BuildContextCare; bounded false reads every active memory
// whatever the kind's bound (the tests' reference).
func buildContext(ctx context.Context, st store.Store, apps map[string]*prompts.App, userID, query string, budget int, now time.Time, careDays int, bounded bool) (extract.ContextPack, error) {
	user, err := st.GetUser(ctx, userID)
	if err != nil {
		return extract.ContextPack{}, err
	}
	app := apps[user.App]
	if app == nil {
		return extract.ContextPack{}, fmt.Errorf("user %s: app %q is not configured", userID, user.App)
	}
	if budget <= 0 {
		budget = app.Policy.ContextBudgetTokens
	}
	// Dates in the pack are the user's calendar dates: their zone is the one
	// their chat service last sent with a session (UTC when it sent none or
	// one that no longer loads).
	loc, err := zones.Load(user.Timezone)
	if err != nil {
		loc = time.UTC
	}
	in := extract.PackInput{DisplayName: user.DisplayName, Query: query, Now: now, Location: loc}
	kind := extract.KindOfApp(app)
	rules := kind.Name()
	// The open cues, risk findings among them: a care note is safety, not
	// memory, and opens every kind's pack, an isolated one's too.
	cues, err := st.ListCues(ctx, userID, true)
	if err != nil {
		return extract.ContextPack{}, err
	}
	if in.Care, err = careFinding(ctx, st, user.App, cues, now, careDays); err != nil {
		return extract.ContextPack{}, err
	}
	if kind.PackPolicy().Isolated {
		// Cross-session data never enters an isolated kind's context: read nothing.
		return extract.Pack(rules, in, budget), nil
	}
	// A stored value the pack cannot read (a number beyond float64 kept as
	// text, a document that is not JSON) is left out, and the pack built
	// from the rest: one bad value never makes a user's pack fail for good.
	var skip unreadable
	defer skip.report(ctx, userID)
	// What the user asked to forget is not told, whatever holds it: the
	// forget routes rewrite the derived text they find, and the markers
	// catch what was written before they did (or raced them).
	forgot, err := memory.LoadForgotten(ctx, st, userID)
	if err != nil {
		return extract.ContextPack{}, err
	}
	// forgotten takes out of doc what names a forgotten key, and reports
	// whether it took anything or key itself is forgotten; one matcher
	// serves both.
	forgotten := func(doc map[string]any, at time.Time, key string) bool {
		if forgot.Empty() {
			return false
		}
		names := forgot.Since(at)
		return extract.Unmention(doc, names) || (key != "" && names(key))
	}
	if p, err := st.GetProfile(ctx, userID); err == nil {
		in.Profile = skip.object("profile", p.Doc)
	} else if !errors.Is(err, store.ErrNotFound) {
		return extract.ContextPack{}, err
	}
	sums, err := st.ListSummaries(ctx, userID, 3)
	if err != nil {
		return extract.ContextPack{}, err
	}
	for _, s := range sums {
		data := skip.object("summary", s.Data)
		if data == nil {
			continue
		}
		at := s.SessionAt // the session's end, which ListSummaries reads with the summary
		forgotten(data, at, "")
		in.Summaries = append(in.Summaries, extract.PastSummary{SessionID: s.SessionID, At: at, Data: data})
	}
	for i := len(cues) - 1; i >= 0; i-- {
		c := cues[i]
		detail := skip.object("cue", c.Detail)
		if forgotten(detail, c.CreatedAt, c.Field) {
			continue // a cue is one statement: one that named it goes whole
		}
		in.Cues = append(in.Cues, extract.PackCue{Type: c.Type, Field: c.Field, Detail: detail, At: c.CreatedAt})
	}
	// Only the columns the pack reads, in no particular order: the pack
	// does not depend on it (extract.PackInput.Memories). A kind that
	// bounds what it can tell (extract.PackBounder) gets only those, when
	// the read proves it holds them all (packMemories).
	mems, unread, err := packMemories(ctx, st, kind, userID, query, now, forgot.Empty(), bounded)
	if err != nil {
		return extract.ContextPack{}, err
	}
	in.UnreadMemories = unread
	in.Memories = make([]extract.PackMemory, 0, len(mems))
	for _, m := range mems {
		if m.ExpiresAt != nil && !m.ExpiresAt.After(now) || !forgot.Empty() && forgot.Memory(m.Key, m.Category, m.StatedAt) {
			continue
		}
		in.Memories = append(in.Memories, extract.PackMemory{ID: m.ID, Key: m.Key, Value: m.Value, Category: m.Category,
			Importance: m.Importance, LastUsedAt: m.LastUsedAt, UpdatedAt: m.UpdatedAt, EventDate: m.EventDate})
	}
	recs, err := st.ListRecords(ctx, userID, nil)
	if err != nil {
		return extract.ContextPack{}, err
	}
	for _, r := range recs {
		data := skip.object("record", r.Data)
		if data == nil || forgotten(data, r.StatedAt, r.Key) {
			continue
		}
		in.Records = append(in.Records, extract.Record{Type: r.Type, Key: r.Key, Data: data})
	}
	if rs, err := st.LatestRollingSummary(ctx, userID); err == nil {
		if doc := skip.object("rolling summary", rs.Summary); forgotten(doc, rs.UpdatedAt, "") {
			rs.Summary, _ = json.Marshal(doc)
		}
		in.RollingSummary = rollingText(rs.Summary)
	} else if !errors.Is(err, store.ErrNotFound) {
		return extract.ContextPack{}, err
	}
	pack := extract.Pack(rules, in, budget)
	// Memories handed to a model count as used: the recency boost of the
	// relevance score and the preference decay read last_used_at. That mark
	// is the only write here, and it is best effort: on a database that
	// takes no writes now (read-only, unreachable for writes) the chat
	// service still gets its pack, and the marks are simply not made.
	// The marks go in one statement, whatever the number of memories the
	// pack told (one round trip and, outside a transaction, one commit),
	// and set last_used_at alone.
	if used := extract.UsedMemories(pack); len(used) > 0 {
		if err := st.MarkMemoriesUsed(ctx, userID, used, now); err != nil && !store.IsReadOnly(err) {
			return extract.ContextPack{}, err
		}
	}
	return pack, nil
}

// careFinding is the finding the care note of a user of app tells of
// (memory.CareFindingOf), of the open cues: the gravest risk finding of the
// user's own, medium or high and not lowered, said in the careDays days
// before now; nil when there is none (or careDays is not positive). A
// finding was said when its session ended (when it was recorded, for a
// session no longer stored).
func careFinding(ctx context.Context, st store.Store, app string, cues []store.Cue, now time.Time, careDays int) (*extract.CareFinding, error) {
	if careDays <= 0 {
		return nil, nil
	}
	period := time.Duration(careDays) * 24 * time.Hour
	rows := make([]memory.CareCueRow, 0, len(cues))
	for _, c := range cues {
		// A session ends before its findings are recorded: one recorded
		// before the period (and a day's slack for a client's clock) was
		// said before it too, and its session is not read.
		if c.Type == memory.CueRisk && c.CreatedAt.After(now.Add(-period-24*time.Hour)) {
			rows = append(rows, memory.CareCueRow{Type: c.Type, Detail: c.Detail, SessionID: c.SessionID, CreatedAt: c.CreatedAt, Resolved: c.ResolvedAt != nil})
		}
	}
	found := memory.CareCues(rows)
	ends := map[string]time.Time{}
	for i, c := range found {
		end, ok := ends[c.SessionID]
		if !ok {
			s, err := st.GetSession(ctx, c.SessionID)
			switch {
			case err == nil && !s.EndedAt.IsZero():
				end = s.EndedAt
			case err == nil || errors.Is(err, store.ErrNotFound):
				end = c.CreatedAt
			default:
				return nil, err
			}
			ends[c.SessionID] = end
		}
		found[i].Said = end
	}
	return memory.CareFindingOf(app, found, now, period), nil
}

// packMemories reads the memories of a user's pack: every active one, or,
// for a kind that bounds what its pack can tell (extract.PackBounder), when
// bounded is true and the user forgot nothing (a forget marker hides
// memories the read would count), the ones its bound names and the number
// of the others (unread), when the read proves the bound holds
// (packBoundHolds); else every active one after all.
func packMemories(ctx context.Context, st store.Store, kind extract.Kind, userID, query string, now time.Time, noForgets, bounded bool) (mems []store.PackMemory, unread int, err error) {
	if b, ok := kind.(extract.PackBounder); ok && bounded && noForgets {
		bound := b.PackBound(query, now)
		pr := store.PackRead{Now: now, Keys: bound.Keys, UsedSince: bound.UsedSince, Words: bound.Words}
		for _, t := range bound.Top {
			pr.Tops = append(pr.Tops, store.PackTop{Category: t.Category, Limit: packTopLimit(t.N)})
		}
		rows, err := st.ReadPackMemories(ctx, userID, pr)
		if err != nil {
			return nil, 0, err
		}
		if packBoundHolds(bound, pr, rows) {
			return rows.Memories, rows.Active - len(rows.Memories), nil
		}
	}
	mems, err = st.ListPackMemories(ctx, userID)
	return mems, 0, err
}

// packTopLimit is how many memories a bounded read takes of a list of
// which the pack needs n: more than n, so that blank, expired or name
// memories and ties with the last one read seldom leave it short (then
// the pack reads every memory). A variable for the tests, which try
// tighter ones.
var packTopLimit = func(n int) int { return 2*n + 4 }

// packBoundHolds reports whether rows, read for bound (as pr), hold what
// extract.PackBound asks of a pack's memories: each list of the most
// important memories holds every memory of its category (fewer than its
// limit), or the N its bound needs, not blank, of none
// of the bound's keys as a kind compares them,
// ahead of every memory left out: of importance and update above those of
// the list's last row (which a memory left out may tie). (A list's
// memories are of its category byte for byte, store.PackRead.) Every memory the
// read left out is active, not expired (the count and the read use one
// condition) and regular, so not blank: the read takes every irregular
// memory (store.IrregularMemory).
func packBoundHolds(bound extract.PackBound, pr store.PackRead, rows store.PackRows) bool {
	if rows.Active == len(rows.Memories) {
		return true // every active memory was read
	}
	byID := make(map[string]*store.PackMemory, len(rows.Memories))
	for i := range rows.Memories {
		byID[rows.Memories[i].ID] = &rows.Memories[i]
	}
	for i, t := range bound.Top {
		ids := rows.Tops[i]
		if len(ids) < pr.Tops[i].Limit {
			continue // every memory of the category was read
		}
		last := byID[ids[len(ids)-1]]
		for _, id := range ids {
			if m := byID[id]; m.Importance < last.Importance || m.Importance == last.Importance && m.UpdatedAt.Before(last.UpdatedAt) {
				last = m
			}
		}
		ahead := 0
		for _, id := range ids {
			m := byID[id]
			if m.Importance < last.Importance || m.Importance == last.Importance && !m.UpdatedAt.After(last.UpdatedAt) ||
				extract.PackBlank(m.Value) ||
				slices.Contains(bound.Keys, strings.ToLower(strings.TrimSpace(m.Key))) {
				continue
			}
			ahead++
		}
		if ahead < t.N {
			return false
		}
	}
	return true
}

// rollingText renders a stored rolling summary as one line for the pack:
// what the user said so far with its values ("name: Priya; lives in:
// Seattle; likes: tea, hiking"), or, for a summary stored before values
// were kept, the keys mentioned.
func rollingText(raw json.RawMessage) string {
	var s struct {
		MessagesCovered int                   `json:"messages_covered"`
		Mentioned       []string              `json:"mentioned"`
		Facts           []extract.RollingFact `json:"facts"`
	}
	if json.Unmarshal(raw, &s) != nil || s.MessagesCovered == 0 {
		return ""
	}
	text := fmt.Sprintf("%d earlier turns", s.MessagesCovered)
	if said := extract.RollingFactsText(s.Facts); said != "" {
		return text + "; the user mentioned: " + said
	}
	if len(s.Mentioned) > 0 {
		text += "; the user mentioned: "
		for i, m := range s.Mentioned {
			if i > 0 {
				text += ", "
			}
			text += m
		}
	}
	return text
}

func (h *handlers) getContext(w http.ResponseWriter, r *http.Request) {
	u, ok := h.userOf(w, r)
	if !ok {
		return
	}
	userID := u.ID
	budget := 0
	if v := r.URL.Query().Get("budget_tokens"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxContextBudget {
			writeError(w, apperr.Errorf(apperr.EBadRequest, "budget_tokens must be a number from 1 to %d", MaxContextBudget))
			return
		}
		budget = n
	}
	q := r.URL.Query().Get("q")
	if len(q) > 2000 {
		q = q[:2000]
	}
	pack, err := BuildContextCare(withPackLog(r.Context(), h.log), h.Store, h.Handoff.Apps, userID, q, budget, h.now(), h.careNoteDays())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, pack)
}

// unreadable counts, per part of the pack, the stored values BuildContext
// left out because it could not read them.
type unreadable map[string]int

// object decodes a stored JSON object as json.Unmarshal would, except that
// a number no float64 holds (1e400) is left out of its object or list
// instead of failing the whole document; a document that is not a JSON
// object is left out whole (nil). Each value left out is counted for part.
func (u *unreadable) object(part string, raw json.RawMessage) map[string]any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	m, dropped, ok := decodeLenient(raw)
	if !ok {
		dropped++
	}
	if dropped > 0 {
		if *u == nil {
			*u = unreadable{}
		}
		(*u)[part] += dropped
	}
	return m
}

// report logs, once per pack, what was left out: the parts and counts,
// never the values.
func (u unreadable) report(ctx context.Context, userID string) {
	if len(u) == 0 {
		return
	}
	attrs := []any{slog.String("user_id", userID)}
	for _, part := range slices.Sorted(maps.Keys(u)) {
		attrs = append(attrs, slog.Int(part, u[part]))
	}
	packLogger(ctx).WarnContext(ctx, "context pack: stored values that cannot be read were left out", attrs...)
}

type packLogKey struct{}

// withPackLog makes BuildContext log to l (default: nowhere).
func withPackLog(ctx context.Context, l *slog.Logger) context.Context {
	if l == nil {
		return ctx
	}
	return context.WithValue(ctx, packLogKey{}, l)
}

func packLogger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(packLogKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.New(slog.DiscardHandler)
}

// decodeLenient decodes a JSON object, leaving out every number that is not
// a finite float64 and counting them. ok is false when raw is not a JSON
// object at all.
func decodeLenient(raw []byte) (m map[string]any, dropped int, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, 0, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, 0, false // trailing data: not one document
	}
	m, isObject := v.(map[string]any)
	if !isObject {
		return nil, 0, false
	}
	out, _ := finite(m, &dropped)
	return out.(map[string]any), dropped, true
}

// finite replaces each json.Number in v by its float64 and reports false
// for a number that has none (out of range), which its container leaves out.
func finite(v any, dropped *int) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			*dropped++
			return nil, false
		}
		return f, true
	case map[string]any:
		for k, e := range x {
			if e2, ok := finite(e, dropped); ok {
				x[k] = e2
			} else {
				delete(x, k)
			}
		}
		return x, true
	case []any:
		out := x[:0]
		for _, e := range x {
			if e2, ok := finite(e, dropped); ok {
				out = append(out, e2)
			}
		}
		return out, true
	}
	return v, true
}
