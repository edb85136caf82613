package eval_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/extract/eval"
)

var personaSample = flag.String("eval.persona-sample", "", "TestPersonaChat writes its sample of stored memories for hand-checking (JSON) to this file; MNEMO_EVAL_PERSONA_SAMPLE too")

// The persona-chat floors: today's rules figures (rules-5: recall 0.249,
// 2,233 of 8,978 lines, against a ceiling of 3,254 for word matching;
// persona-matched 0.238; wrong speaker 65 of 10,450; 3 special lines
// kept), a little below, so that a change that loses ground fails. Raise them as
// the rules improve, towards the targets of issue 23: recall ≥ 0.50, wrong
// speaker ≤ 0.02, no special-category persona line kept.
const (
	personaRecallFloor = 0.245
	// personaStatedFloor: of the persona lines a user turn states, the
	// share kept (issue 33: 0.687, 2,234 of 3,254; the target is 0.85).
	personaStatedFloor     = 0.68
	personaMatchedFloor    = 0.23
	personaWrongCeiling    = 0.02
	personaSpecialKeptCeil = 3 // the hobby half of "I have an internet addiction and … play roleplaying games" (README.md)
)

// personaChats loads the Synthetic-Persona-Chat corpus from the corpora
// directory (see corpusDir), skipping without it unless
// MNEMO_REQUIRE_CORPORA=1.
func personaChats(t *testing.T) []eval.PersonaChat {
	t.Helper()
	dir := os.Getenv("MNEMO_CORPORA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpora")
	}
	path := filepath.Join(dir, filepath.FromSlash(eval.PersonaCorpus))
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("MNEMO_REQUIRE_CORPORA") == "1" {
			t.Fatalf("MNEMO_REQUIRE_CORPORA=1 but the persona-chat corpus is not in %s: %v", dir, err)
		}
		t.Skipf("the persona-chat corpus is not in %s (set MNEMO_CORPORA): %v", dir, err)
	}
	chats, err := eval.LoadPersonaChats(path)
	if err != nil {
		t.Fatal(err)
	}
	return chats
}

// TestPersonaChat scores Mona's rules on Synthetic-Persona-Chat and prints
// the figures (go test ./extract/eval -run PersonaChat -v). It fails when a
// special-category persona line is kept, or a figure falls past its floor.
func TestPersonaChat(t *testing.T) {
	chats := personaChats(t)
	sc, err := eval.RunPersona(context.Background(), mona(t), chats, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	eval.WritePersonaTable(&b, sc)
	t.Log("\n" + b.String())
	if r := sc.Recall(); r < personaRecallFloor {
		t.Errorf("persona recall %.3f, below the floor %.2f", r, personaRecallFloor)
	}
	if r := sc.StatedRecall(); r < personaStatedFloor {
		t.Errorf("recall of the stated persona lines %.3f, below the floor %.2f", r, personaStatedFloor)
	}
	if m := sc.MatchedShare(); m < personaMatchedFloor {
		t.Errorf("persona-matched share %.3f, below the floor %.2f", m, personaMatchedFloor)
	}
	if w := sc.WrongShare(); w > personaWrongCeiling {
		t.Errorf("%.3f of the memories are the other speaker's, above %.2f", w, personaWrongCeiling)
	}
	if sc.SpecialKept > personaSpecialKeptCeil {
		t.Errorf("%d special-category persona lines kept for Mona; at most %d", sc.SpecialKept, personaSpecialKeptCeil)
	}
	for _, m := range sc.Memories {
		if m.FromOther || m.Special != "" {
			t.Errorf("chat %d speaker %d: stored %s = %q (special %q, from the other speaker %v)", m.Chat, m.Speaker, m.Key, m.Value, m.Special, m.FromOther)
		}
	}
	path := *personaSample
	if path == "" {
		path = os.Getenv("MNEMO_EVAL_PERSONA_SAMPLE")
	}
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.WriteSample(f, eval.PersonaSampleSize); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// chatCSV is a two-row corpus in the persona-chat layout, one row with the
// markdown speaker prefixes some rows have.
const chatCSV = `user 1 personas,user 2 personas,Best Generated Conversation
"I have two cats.
I work as a nurse.","I love to bake cookies.
I go to church every Sunday.","User 1: Hi! I have two cats, Tom and Ginger.
User 2: I love to bake cookies. I go to church every Sunday.
User 1: I love cookies too!
User 2: That's nice."
"I live in Denver.","I play the violin.","*User 1:* Hello, I live in Denver.
* * *
*User 2:* I play the violin."
`

func writeChats(t *testing.T) []eval.PersonaChat {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chats.csv")
	if err := os.WriteFile(path, []byte(chatCSV), 0o600); err != nil {
		t.Fatal(err)
	}
	chats, err := eval.LoadPersonaChats(path)
	if err != nil {
		t.Fatal(err)
	}
	return chats
}

func TestLoadPersonaChats(t *testing.T) {
	chats := writeChats(t)
	if len(chats) != 2 {
		t.Fatalf("%d chats, want 2", len(chats))
	}
	if got := chats[0].Persona[1]; len(got) != 2 || got[1] != "I go to church every Sunday." {
		t.Errorf("speaker 2's persona = %q", got)
	}
	if got := chats[1].Lines; len(got) != 2 || got[0].Speaker != 0 || got[0].Text != "Hello, I live in Denver." || got[1].Speaker != 1 || got[1].Text != "I play the violin." {
		t.Errorf("second chat's lines = %+v", got)
	}
	bad := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(bad, []byte("a,b\n1,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := eval.LoadPersonaChats(bad); err == nil || !strings.Contains(err.Error(), "no column") {
		t.Errorf("a file without the corpus's columns: %v", err)
	}
}

func TestKeepsPersona(t *testing.T) {
	for _, c := range []struct {
		line, key, value string
		want             bool
	}{
		{"I love to bake cookies.", "likes:baking_cookies", "baking cookies", true},
		{"I love to bake cookies.", "likes:cookies", "cookies", true}, // half the content words
		{"I have a dogs.", "pet:dog", "a dog", true},
		{"I have a pet turtle.", "pet:dog", "a dog", false}, // the key's category prefix is no fact
		{"I live in Denver.", "lives_in", "Denver", true},
		{"I am a nurse at the county hospital.", "occupation", "nurse", false}, // one of four content words
		{"I like to read.", "feeling", "glad", false},
	} {
		if got := eval.KeepsPersona(c.line, c.key, c.value); got != c.want {
			t.Errorf("KeepsPersona(%q, %s = %q) = %v, want %v", c.line, c.key, c.value, got, c.want)
		}
	}
}

// TestRunPersona runs the two-row corpus through the rules: each speaker's
// facts are theirs, an agreeing "I love cookies too" is an echo and not a
// wrong attribution, the other speaker's lines are never mined and the
// church-going line (religion) is not kept.
func TestRunPersona(t *testing.T) {
	chats := writeChats(t)
	sc, err := eval.RunPersona(context.Background(), mona(t), chats, eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Sessions != 4 || sc.Lines != 6 || sc.SpecialLines != 1 {
		t.Fatalf("sessions %d, persona lines %d, special %d; want 4, 6, 1", sc.Sessions, sc.Lines, sc.SpecialLines)
	}
	if sc.SpecialKept != 0 || sc.SpecialStored != 0 || sc.Forbidden != 0 {
		t.Errorf("special kept %d, special stored %d, forbidden %d; want none", sc.SpecialKept, sc.SpecialStored, sc.Forbidden)
	}
	kept := map[string]bool{}
	for _, m := range sc.Memories {
		for _, l := range m.Keeps {
			kept[l] = true
		}
		if m.Speaker == 1 && m.Chat == 0 && m.Key == "likes:cookies" && (!m.Echo || m.WrongSpeaker()) {
			t.Errorf("speaker 1's own \"I love cookies too\": echo %v, wrong speaker %v", m.Echo, m.WrongSpeaker())
		}
	}
	for _, l := range []string{"I have two cats.", "I love to bake cookies.", "I live in Denver.", "I play the violin."} {
		if !kept[l] {
			t.Errorf("%q not kept; memories: %+v", l, sc.Memories)
		}
	}
	if sc.Total.Wrong != 0 || sc.Total.Echo != 1 {
		t.Errorf("wrong speaker %d, echoes %d; want 0 and 1", sc.Total.Wrong, sc.Total.Echo)
	}
	// The sample is the same memories each time, in corpus order.
	a, b := sc.Sample(3), sc.Sample(3)
	if len(a) != min(3, len(sc.Memories)) || fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("samples differ or are short: %v / %v", a, b)
	}
}
