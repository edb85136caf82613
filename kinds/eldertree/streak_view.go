package eldertree

import (
	"context"
	"errors"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/views"
)

// streakLines are the page's streak lines while the streak is unconfirmed
// (UnconfirmedSince, as the pack reads it): the Streak fact says since when
// instead of a count, and a notice says why, also before any week is
// computed. Nothing changes otherwise.
func (x page) streakLines(ctx context.Context, progress *views.Section) error {
	prof, err := x.Store.GetProfile(ctx, x.User.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	_, list, err := x.Summaries(ctx, extract.PackSessions)
	if err != nil {
		return err
	}
	sums := make([]extract.PastSummary, 0, len(list))
	for _, s := range list {
		sums = append(sums, extract.PastSummary{SessionID: s.SessionID, At: s.SessionAt, Data: views.Decode(s.Data)})
	}
	since, ok := UnconfirmedSince(views.Decode(prof.Doc), sums)
	if !ok {
		return nil
	}
	value, notice := "Unconfirmed", "Streak unconfirmed: a recent session hinted at drinking or using without saying so."
	if !since.IsZero() {
		day := since.Format("Mon 2 Jan 2006")
		value = "Unconfirmed since " + day
		notice = "Streak unconfirmed since " + day + ": a session hinted at drinking or using then without saying so."
	}
	progress.Notice = notice + " It is counted again once a later session confirms or clears it."
	for i, f := range progress.Facts {
		if f.Label == "Streak" {
			progress.Facts[i] = views.Fact{Label: "Streak", Value: value, Note: "not counted until confirmed or cleared"}
		}
	}
	return nil
}
