package jobs_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// corpusDir is where the shared companion corpora are (outside the
// repository: ../shared/corpora beside the checkout); MNEMO_CORPORA
// overrides it. With MNEMO_REQUIRE_CORPORA=1 (CI) a missing corpus fails
// the tests that read it instead of skipping them.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MNEMO_CORPORA")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpora")
	}
	if _, err := os.Stat(filepath.Join(dir, "memorybank", "memory_bank_en.json")); err != nil {
		if os.Getenv("MNEMO_REQUIRE_CORPORA") == "1" {
			t.Fatalf("MNEMO_REQUIRE_CORPORA=1 but the MemoryBank corpus is not in %s: %v", dir, err)
		}
		t.Skipf("the MemoryBank corpus is not in %s (set MNEMO_CORPORA): %v", dir, err)
	}
	return dir
}

// memoryBankSessions reads the MemoryBank companion conversations (MIT
// License, copyright 2023 Wanjun Zhong): per persona, one Mona session per
// day, oldest first.
func memoryBankSessions(t *testing.T) map[string][]handoff.Request {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(corpusDir(t), "memorybank", "memory_bank_en.json"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus map[string]struct {
		History map[string][]struct {
			Query    string `json:"query"`
			Response string `json:"response"`
		} `json:"history"`
	}
	if err := json.Unmarshal(raw, &corpus); err != nil {
		t.Fatal(err)
	}
	out := map[string][]handoff.Request{}
	for persona, c := range corpus {
		days := make([]string, 0, len(c.History))
		for day := range c.History {
			days = append(days, day)
		}
		slices.Sort(days)
		for _, day := range days {
			if len(c.History[day]) == 0 {
				continue // a day without a conversation is no session
			}
			start, err := time.Parse(time.DateOnly, day)
			if err != nil {
				t.Fatal(err)
			}
			start = start.Add(19 * time.Hour)
			req := handoff.Request{App: "mona", StartedAt: start, Timezone: "Asia/Shanghai"}
			at := start
			for i, ex := range c.History[day] {
				at = at.Add(time.Minute)
				req.Messages = append(req.Messages, extract.Message{ID: fmt.Sprintf("q%d", i), Role: "user", Content: ex.Query, At: at})
				at = at.Add(time.Minute)
				req.Messages = append(req.Messages, extract.Message{ID: fmt.Sprintf("r%d", i), Role: "assistant", Content: ex.Response, At: at})
			}
			req.EndedAt = at.Add(time.Minute)
			out[persona] = append(out[persona], req)
		}
	}
	return out
}

// TestCorpusInAnyOrder hands the MemoryBank personas' ten days of real
// companion conversation over as a chat service might: in order, newest day
// first, and all ten days at once (processed in parallel). Each persona ends
// with the same memories and profile whichever way, on both databases.
func TestCorpusInAnyOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: TestAnyOrderLeavesWhatChronologicalOrderLeaves checks the same on generated sessions of four kinds")
	}
	personas := memoryBankSessions(t)
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			bundle := setupExtract(t, b, false)
			rng := rand.New(rand.NewPCG(20230427, 1))
			names := make([]string, 0, len(personas))
			for name := range personas {
				names = append(names, name)
			}
			slices.Sort(names)

			// One persona's sessions are handed over one at a time (a round
			// per day); the personas' rounds run side by side.
			orders := map[string][][]int{}
			remembered := 0
			for _, mode := range []string{"ref", "rev", "par"} {
				var rounds [][]job
				for _, name := range names {
					n := len(personas[name])
					order := make([]int, n)
					for i := range order {
						order[i] = i
					}
					switch mode {
					case "rev":
						slices.Reverse(order)
					case "par":
						rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
					}
					orders[mode] = append(orders[mode], order)
					for k, i := range order {
						round := k
						if mode == "par" {
							round = 0
						}
						for len(rounds) <= round {
							rounds = append(rounds, nil)
						}
						rounds[round] = append(rounds[round], job{user: fmt.Sprintf("%s-p%02d", mode, slices.Index(names, name)), session: i, req: personas[name][i]})
					}
				}
				bundle.handOverRounds(t, rounds)
			}
			for i, name := range names {
				user := func(mode string) string { return fmt.Sprintf("%s-p%02d", mode, i) }
				want := bundle.stateOf(t, user("ref"))
				remembered += len(want.active) + len(want.history)
				want.equal(t, bundle.stateOf(t, user("rev")), fmt.Sprintf("%s, newest day first", name))
				want.equal(t, bundle.stateOf(t, user("par")), fmt.Sprintf("%s, all days at once in order %v", name, orders["par"][i]))
			}
			if remembered == 0 {
				t.Fatal("the corpus left no memory at all: nothing was compared")
			}
			t.Logf("%d personas, %d memories (active and history) compared across three orders", len(names), remembered)
		})
	}
}

// job is one session of one user to hand over.
type job struct {
	user    string
	session int
	req     handoff.Request
}

// handOverRounds hands each round's sessions over together and waits for
// them all before the next round.
func (b *extractBundle) handOverRounds(t *testing.T, rounds [][]job) {
	t.Helper()
	for _, round := range rounds {
		var ids []int64
		for _, j := range round {
			req := j.req
			req.UserID = j.user
			ids = append(ids, b.closeSession(t, fmt.Sprintf("%s-s%d", j.user, j.session), req))
		}
		for _, id := range ids {
			b.waitJob(t, id)
		}
	}
}
