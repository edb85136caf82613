package views

import (
	"testing"

	"github.com/mnemo-ai/mnemo/extract"
)

// Every kind an app may name shows its users on a page this package
// builds, under a heading of its own: a new kind shows up here until its
// View names one.
func TestEveryKindHasAUserPage(t *testing.T) {
	if len(extract.KindNames()) == 0 {
		t.Fatal("no kind is registered")
	}
	for _, name := range extract.KindNames() {
		v := extract.KindOf(name).View()
		if _, ok := userPages[v.Page]; !ok || v.Heading == "" {
			t.Errorf("kind %q: page %q, heading %q; the pages are %v", name, v.Page, v.Heading, extract.PageCaregiver+" "+extract.PageRecovery+" "+extract.PageLearning+" "+extract.PageCoaching+" "+extract.PageMemories)
		}
	}
}
