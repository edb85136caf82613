package memory

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store"
)

// CueRisk is the kind of the cue a distress or crisis statement raises
// (extract.Screen finds them). Its field is the message ID; its detail
// holds class, severity, message_id and actor, never the text.
const CueRisk = "risk"

// Who changed a profile, as the profile history and a cue's detail record it.
const (
	ActorExtraction = "extraction" // a session's extraction
	ActorUser       = "user"       // the user, through their chat service (PATCH)
	ActorOperator   = "operator"   // an operator (PATCH with ?actor=operator and an admin token)
)

// CueSource is where a profile change came from.
type CueSource struct {
	UserID string
	App    string
	// SessionID is the session whose extraction changed the profile; empty
	// for an edit by the user or an operator.
	SessionID string
	// Version is the profile version the change wrote. An edit's cues are
	// recorded under the source id "profile:<user>:v<Version>", so that the
	// same change recorded twice is one cue.
	Version int
	// Actor is ActorExtraction, ActorUser or ActorOperator.
	Actor string
	// Summary is the session's summary (extraction only), which the kind's
	// cue rules read.
	Summary map[string]any
}

// sourceID is the cue's source: the session, or the profile version an edit wrote.
func (s CueSource) sourceID() string {
	if s.SessionID != "" {
		return s.SessionID
	}
	return EditSource(s.UserID, s.Version)
}

// EditSource is the source id under which the cues of a user's profile edit
// that wrote version are recorded (in mnemo_cues.session_id, which is unique
// with kind and field across users, hence the user id).
func EditSource(userID string, version int) string {
	return "profile:" + userID + ":v" + strconv.Itoa(version)
}

// EditVersion reads the profile version out of a cue source written by
// EditSource for userID; false for a session's id.
func EditVersion(userID, source string) (int, bool) {
	rest, ok := strings.CutPrefix(source, "profile:"+userID+":v")
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(rest)
	return v, err == nil && v > 0
}

// RecordProfileCues records, inside tx, the significant changes between a
// profile before and after one write as cues for the next session: the one
// place where a profile change becomes a cue, whoever made it (a session's
// extraction, the user's PATCH, an operator). It must run in the same
// transaction as the profile write. Only the app's significant_fields raise
// cues (an app without any raises none); the rules are its kind's (Kind.Cues). Each
// cue's detail carries the actor. A cue already recorded for the same source,
// kind and field is left as it is. It returns the cues it computed.
func RecordProfileCues(ctx context.Context, tx store.Tx, app *prompts.App, src CueSource, before, after map[string]any, now time.Time) ([]extract.Cue, error) {
	if app == nil || len(app.Policy.SignificantFields) == 0 {
		return []extract.Cue{}, nil
	}
	in := extract.CueInput{Before: before, After: after, Summary: src.Summary, Significant: app.Policy.SignificantFields, Now: now}
	if src.SessionID != "" {
		in.Summaries = func(since time.Time) ([]extract.PastSummary, error) {
			recent, err := tx.ListSummaries(ctx, src.UserID, 200)
			if err != nil {
				return nil, err
			}
			var out []extract.PastSummary
			for _, s := range recent {
				// Sessions count by when they happened, not when they were handed over.
				if s.SessionID == src.SessionID || s.SessionAt.Before(since) {
					continue
				}
				var data map[string]any
				if json.Unmarshal(s.Data, &data) == nil {
					out = append(out, extract.PastSummary{SessionID: s.SessionID, At: s.SessionAt, Data: data})
				}
			}
			return out, nil
		}
	}
	cues, err := extract.KindOfApp(app).Cues(in)
	if err != nil {
		return nil, err
	}
	if cues == nil {
		cues = []extract.Cue{}
	}
	for _, c := range cues {
		detail := map[string]any{"actor": src.Actor}
		for k, v := range c.Detail {
			detail[k] = v
		}
		raw, err := json.Marshal(detail)
		if err != nil {
			return nil, err
		}
		if err := tx.InsertCue(ctx, store.Cue{UserID: src.UserID, App: src.App, Type: c.Type, Field: c.Field,
			Detail: raw, SessionID: src.sourceID(), CreatedAt: now}); err != nil {
			return nil, err
		}
	}
	return cues, nil
}
