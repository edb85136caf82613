package kindtest

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/views"
)

// Page is the kind's page layout (extract.View.Page), built by page.
const Page = "kindtest-notes"

func init() {
	views.RegisterPage(Page, func(p *views.UserPage, ctx context.Context) ([]views.Section, error) {
		return page(p, ctx)
	})
}

// page shows the user's notes (their active memories) and the tally the
// kind's batch stored, or when it appears.
func page(x *views.UserPage, ctx context.Context) ([]views.Section, error) {
	mems, err := x.Store.ListMemories(ctx, x.User.ID, store.MemoryFilter{})
	if err != nil {
		return nil, err
	}
	notes := views.List{Title: "Notes", Empty: "No note yet."}
	for _, m := range mems {
		if m.App == x.User.App && m.Status == store.MemoryActive {
			notes.Items = append(notes.Items, m.Value)
		}
	}
	tally := views.Section{ID: "tally", Title: "Tally of the last " + strconv.Itoa(TallyDays) + " days", Attr: "kindtest-tally"}
	recs, err := x.Store.ListRecords(ctx, x.User.ID, []string{TallyRecord})
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(recs, func(r store.Record) bool { return r.App == x.User.App && r.Key == TallyKey })
	switch {
	case i < 0:
		tally.Empty = x.AfterBatch("The tally appears", TallyBatch, x.Loc)
	default:
		rec := recs[i]
		var t Tally
		if json.Unmarshal(rec.Data, &t) != nil {
			tally.Empty = "The stored tally cannot be read; the next run rewrites it."
			break
		}
		tally.Facts = []views.Fact{{Label: "Sessions", Value: strconv.Itoa(t.Sessions)},
			{Label: "Notes", Value: strconv.Itoa(t.Notes)},
			{Label: "Computed", Value: views.TimeIn(rec.UpdatedAt, x.Loc), Note: "since " + views.DateIn(t.Since, x.Loc)}}
	}
	return []views.Section{{ID: "notes", Title: "Notes", Attr: "kindtest-notes", Lists: []views.List{notes}}, tally}, nil
}
