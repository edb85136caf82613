package views_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
	"github.com/mnemo-ai/mnemo/views"
)

// TestUserPageIsBounded (issue 34 §3): a user's page listed every memory
// (21,000 memories, a page of 2.4 MB). Now each table shows at most
// views.MaxTableRows rows and says how many more there are.
func TestUserPageIsBounded(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, b, allTokens())
			f.handOver(t, "m-big", "mona-big", "mona", "UTC", f.now.Add(-2*time.Hour), 20, []msg{{"user", "Hello"}}, nil)
			const n = views.MaxTableRows + 150
			var ms []store.Memory
			at := f.now.Add(-time.Hour)
			for i := range n {
				ms = append(ms, store.Memory{ID: fmt.Sprintf("big-%04d", i), UserID: "mona-big", App: "mona", Key: fmt.Sprintf("pet:p%04d", i),
					Value: "v", Category: "fact", Importance: 50, Confidence: 0.8, Status: store.MemoryActive, CreatedAt: at, UpdatedAt: at, StatedAt: at})
			}
			if err := f.st.InsertMemories(context.Background(), ms); err != nil {
				t.Fatal(err)
			}
			body := page(t, f, "/views/users/mona-big", adminToken)
			section := regexp.MustCompile(`(?s)<section id="memories".*?</section>`).FindString(body)
			rows := 0
			for _, table := range regexp.MustCompile(`(?s)<div class="table-wrap">.*?</table>`).FindAllString(section, -1) {
				rows += strings.Count(table, "<tr>") - 1 // the head's
			}
			if rows > views.MaxTableRows {
				t.Errorf("the memories section shows %d rows of %d memories; want at most %d", rows, n, views.MaxTableRows)
			}
			wantText(t, "mona-big", section, fmt.Sprintf("%d more rows not shown", n-views.MaxTableRows))
		})
	}
}
