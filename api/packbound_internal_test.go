package api

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"

	_ "github.com/mnemo-ai/mnemo/kinds/all"
)

// TestBoundedPackIsThePackOfEveryMemory: for random Mona users stored on
// each database (ties of importance and update, blank values, names and
// nicknames in odd case and spacing, many preferences, categories not in
// the stored form, queries sharing words with memories through upper
// case, accents, the Kelvin sign and İ, memories used lately or eight
// days ago, expired, deprecated and forgotten ones, and more candidates
// than a bounded read takes), the pack built from the bounded read is the
// pack built from every active memory, and the bounded read is the one
// taken for most users that have more memories than it reads.
func TestBoundedPackIsThePackOfEveryMemory(t *testing.T) {
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := extract.KindOfApp(apps["mona"]).(extract.PackBounder); !ok {
		t.Fatal("the mona app's kind has no PackBound")
	}
	for _, bk := range storetest.Backends(t) {
		t.Run(bk.Name, func(t *testing.T) {
			st := bk.Open(t)
			ctx := context.Background()
			now := time.Date(2026, 11, 27, 12, 0, 0, 123456789, time.UTC)
			rng := rand.New(rand.NewPCG(25, uint64(len(bk.Name))))
			users := 300
			if testing.Short() {
				users = 40
			}
			bounded, large := 0, 0
			limit := packTopLimit
			defer func() { packTopLimit = limit }()
			for u := range users {
				id := fmt.Sprintf("u%d", u)
				must(t, st.UpsertUser(ctx, store.User{ID: id, App: "mona", DisplayName: "Sam", CreatedAt: now, UpdatedAt: now}))
				mems := randomPackMemories(rng, id, now, []int{0, 1, 2, 3, 2}[u%5])
				must(t, st.InsertMemories(ctx, mems))
				if rng.IntN(12) == 0 {
					must(t, st.InsertMemoryChange(ctx, store.MemoryChange{MemoryID: "m", UserID: id, Action: "forget", Actor: "user",
						At: now.Add(-time.Hour), Key: packWords[rng.IntN(len(packWords))].key}))
				}
				query := randomPackQuery(rng)
				// The marks would change the next pack: the store keeps none.
				ro := noMarks{st}
				want, err := buildContext(ctx, ro, apps, id, query, 0, now, 0, false)
				must(t, err)
				// The lists' limits as the pack takes them, and tighter ones
				// for the short list (Mona's preferences) or the long one,
				// which leave the proof of packBoundHolds fewer spare rows.
				for _, extra := range [][2]int{{-1, -1}, {1, 19}, {2, 19}, {4, 19}, {9, 1}, {9, 2}, {9, 4}} {
					packTopLimit = func(n int) int { return n + extra[min(n/10, 1)] }
					if extra[0] < 0 {
						packTopLimit = limit
					}
					got, err := buildContext(ctx, ro, apps, id, query, 0, now, 0, true)
					must(t, err)
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("user %d (%d memories, query %q, limits %d and %d for 5 and 15): bounded pack\n%s\n%+v\nwant\n%s\n%+v",
							u, len(mems), query, packTopLimit(5), packTopLimit(15), got.Text, got.Parts, want.Text, want.Parts)
					}
				}
				packTopLimit = limit
				all, err := st.ListPackMemories(ctx, id)
				must(t, err)
				if len(all) > 60 {
					large++
					if read, unread, err := packMemories(ctx, st, extract.KindOfApp(apps["mona"]), id, query, now, true, true); err == nil && unread > 0 && len(read) < len(all) {
						bounded++
					}
				}
			}
			if large == 0 || bounded < large/2 {
				t.Fatalf("the bounded read held the pack for %d of %d users with more than 60 active memories; want most", bounded, large)
			}
			t.Logf("%d users, %d with more than 60 active memories, of which %d read bounded", users, large, bounded)
		})
	}
}

// noMarks is a store that marks no memory used.
type noMarks struct{ store.Store }

func (noMarks) MarkMemoriesUsed(context.Context, string, []string, time.Time) error { return nil }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// packWords are keys and values random memories are made of.
var packWords = []struct{ key, value string }{
	{"likes:tea", "green tea"}, {"likes:cooking", "Cooking Thai food"}, {"dislikes:cats", "cats"},
	{"hobby:hiking", "hiking in the Alps"}, {"favorite_food", "Café crème"}, {"lives_in", "İstanbul"},
	{"works_at", "\u212aING's bakery"}, {"family:sister", "Maya"}, {"pet:dog", "Biscuit"}, {"goal:run", "run a marathon"},
	{"event:wedding", "sister's wedding"}, {"feeling", "tired"}, {"plan:trip", "trip to 東京"}, {"hometown", "ſtarfield"},
	{"allergy:nuts", "NUTS"}, {"studies_at", "ÉCOLE normale"},
}

// randomPackMemories are a user's memories: none to a few hundred, in one
// of four styles.
func randomPackMemories(rng *rand.Rand, user string, now time.Time, style int) []store.Memory {
	n := []int{0, 3, 12, 40, 90, 250, 250}[rng.IntN(7)]
	cats := []string{"preference", "preference", "preference", "fact", "event", "feeling", "other", "Preference", " preference", "PREFERENCE\t"}
	names := []string{"name", "nickname", "Name", " name", "NICKNAME", "nic\u212aname", "name\u00a0", "NAME", "\tname", "Nickname",
		"nickname ", "NickName", "\u3000name", "naMe"}
	values := []string{"", " ", "\u200b", "\u00a0\t", "Sam", "sammy", "東京", "\u212aelvin", "…"}
	imps := []int{-5, 0, 30, 50, 50, 70, 70, 100, 150}
	// Some users' most important memories are crowded: few importances and
	// times (ties), and many blank values and names among them.
	odd, times, unit := 10, 4, time.Hour
	switch style {
	case 1:
		imps, odd, times = []int{100, 150, 150, 150, 101}, 3, 2
	case 3:
		// Or they are blank values and names, not tied.
		imps, odd, times, unit = []int{99, 100, 150}, 2, 10000, time.Second
	}
	// Others' preferences are few, and come after many other memories.
	if style == 2 {
		cats = []string{"preference", "preference", "preference", " preference"}
		for range 25 {
			cats = append(cats, "fact", "other", "event")
		}
	}
	var out []store.Memory
	used := map[string]bool{}
	for i := range n {
		w := packWords[rng.IntN(len(packWords))]
		key := fmt.Sprintf("%s_%d", w.key, i)
		value := w.value
		switch rng.IntN(odd) {
		case 0:
			key = names[rng.IntN(len(names))]
		case 1:
			value = values[rng.IntN(len(values))]
			if style == 3 {
				value = values[rng.IntN(4)]
			}
		case 2:
			value += " " + packWords[rng.IntN(len(packWords))].value
		}
		if used[key] {
			key = fmt.Sprintf("%s_%d", w.key, i)
		}
		used[key] = true
		m := store.Memory{ID: fmt.Sprintf("%s-m%03d", user, i), UserID: user, App: "mona", Key: key, Value: value,
			Category: cats[rng.IntN(len(cats))], Importance: imps[rng.IntN(len(imps))], Confidence: 0.8,
			Status: store.MemoryActive, Confirmations: 1,
			CreatedAt: now.Add(-100 * time.Hour), UpdatedAt: now.Add(-time.Duration(rng.IntN(times)) * unit),
			StatedAt: now.Add(-100 * time.Hour)}
		switch rng.IntN(8) {
		case 0:
			m.LastUsedAt = ptr(now.Add(-24 * time.Hour))
		case 1:
			m.LastUsedAt = ptr(now.Add(-8 * 24 * time.Hour))
		case 2:
			m.LastUsedAt = ptr(now.Add(-7 * 24 * time.Hour).Truncate(time.Microsecond))
		}
		switch rng.IntN(10) {
		case 0:
			m.ExpiresAt = ptr(now.Add(-time.Hour))
		case 1:
			m.ExpiresAt = ptr(now.Add(time.Hour))
		case 2:
			m.ExpiresAt = ptr(now.Truncate(time.Microsecond))
		case 3:
			m.ExpiresAt = ptr(now.Truncate(time.Microsecond).Add(time.Microsecond))
		}
		if rng.IntN(15) == 0 {
			m.Status, m.InvalidatedAt = store.MemoryDeprecated, ptr(now)
			m.Key += "_old"
		}
		out = append(out, m)
	}
	return out
}

// randomPackQuery is a first message: often none, else a few words that
// some memories share in some case or form.
func randomPackQuery(rng *rand.Rand) string {
	qs := []string{"", "", "", "I love cooking and tea", "king", "istanbul trip", "CAFÉ", "東京", "star", "Sam", "hike hikes hiking",
		"my sister's wedding", "ÉCOLE", "nuts", "the"}
	var b strings.Builder
	for range 1 + rng.IntN(2) {
		b.WriteString(qs[rng.IntN(len(qs))] + " ")
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }
