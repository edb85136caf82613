package mona

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/extract"
)

// TestPackMonaNotesAfterKeyedMemories: a note (note:, prompts.Policy.Notes)
// is told after every keyed memory, only in a place the keyed ones leave
// free, at most packNotes of them, even when it is more important or
// shares the query's words; a second job and a thing owned read as such.
func TestPackMonaNotesAfterKeyedMemories(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	mem := func(id, key, value, cat string, imp int) extract.PackMemory {
		return extract.PackMemory{ID: id, Key: key, Value: value, Category: cat, Importance: imp, UpdatedAt: now.Add(-time.Hour)}
	}
	in := extract.PackInput{Now: now, Query: "swimming", Memories: []extract.PackMemory{
		mem("n1", "note:swims_every_morning", "swims every morning", "fact", 95),
		mem("n2", "note:takes_care_grandma", "takes care of their grandma on weekends", "fact", 40),
		mem("n3", "note:collects_stamps", "collects old stamps", "fact", 40),
		mem("n4", "note:bakes_bread", "bakes bread on sundays", "fact", 40),
		mem("k1", "lives_in", "Denver", "fact", 80),
		mem("k2", "job:bookstore", "bookstore (weekends)", "fact", 75),
		mem("k3", "owns:civic", "drives a 2012 Civic", "fact", 65),
	}}
	text := extract.Pack("mona", in, 0).Text
	for _, want := range []string{`Lives in: "Denver"`, `Also works at: "bookstore (weekends)"`, `Owns: "drives a 2012 Civic"`, `Note: "swims every morning"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the pack lacks %s:\n%s", want, text)
		}
	}
	if strings.Index(text, "Note:") < strings.Index(text, "Owns:") {
		t.Errorf("a note comes before a keyed memory:\n%s", text)
	}
	if n := strings.Count(text, "Note:"); n != packNotes {
		t.Errorf("%d notes told, want %d:\n%s", n, packNotes, text)
	}

	// Ten keyed memories leave no place for a note, however important.
	for i := range packRelevant {
		in.Memories = append(in.Memories, mem(fmt.Sprint("e", i), fmt.Sprintf("goal:goal_%d", i), fmt.Sprintf("goal %d", i), "fact", 30))
	}
	if text := extract.Pack("mona", in, 0).Text; strings.Contains(text, "Note:") {
		t.Errorf("a note took a keyed memory's place:\n%s", text)
	}
}
