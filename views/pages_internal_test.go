package views

import (
	"slices"
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
)

// Every kind an app may name has a page, and no page belongs to a kind the
// registry does not know: a new kind shows up here until its page exists.
func TestEveryKindHasAUserPage(t *testing.T) {
	var pages []string
	for k := range userPages {
		pages = append(pages, k.Name())
	}
	slices.Sort(pages)
	kinds := slices.Sorted(slices.Values(extract.KindNames()))
	if !slices.Equal(pages, kinds) {
		t.Fatalf("user pages for %v; the kinds are %v", pages, kinds)
	}
}
