package prompts

import (
	"encoding/json"
	"strings"
	"testing"
	"text/template"
	"time"
)

// TestExecuteStopsAtItsTimeLimit: a rendering that outlasts its limit is
// abandoned with an error, and its next write ends it.
func TestExecuteStopsAtItsTimeLimit(t *testing.T) {
	t.Parallel()
	tmpl := template.Must(template.New("t").Parse("{{range .}}x{{end}}"))
	_, err := execute(tmpl, make([]struct{}, 50_000_000), 1<<30, time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "longer than 1ms") {
		t.Fatalf("got %v, want the time limit", err)
	}
}

func TestExecuteBoundsItsOutput(t *testing.T) {
	t.Parallel()
	tmpl := template.Must(template.New("t").Parse("{{range .}}0123456789{{end}}"))
	if _, err := execute(tmpl, make([]struct{}, 11), 100, time.Minute); err == nil || !strings.Contains(err.Error(), "exceeds 100 bytes") {
		t.Fatalf("got %v, want the size bound", err)
	}
	if out, err := execute(tmpl, make([]struct{}, 10), 100, time.Minute); err != nil || len(out) != 100 {
		t.Fatalf("got %d bytes, %v; want 100", len(out), err)
	}
}

// fuzzData is a session whose every string holds text, which must never
// reach a prompt raw: mark is "<", ">" and "&" in one rendering and control
// characters of the same escaped length in the other.
func fuzzData(lt, gt, amp string) UserData {
	s := func(v string) string { return "a" + lt + "b" + gt + "c" + amp + v }
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return UserData{
		Session: SessionMeta{ID: s("s"), App: "mona", StartedAt: at, EndedAt: at.Add(time.Hour), Timezone: s("tz"), DisplayName: s("name")},
		Messages: []Turn{
			{ID: s("m1"), Role: s("user"), At: at, Content: s(strings.Repeat("long text ", 8))},
			{ID: s("m2"), Role: "assistant", At: at, Content: s("")},
		},
		Events: []EventNote{{Kind: s("k"), At: at, MessageID: s("m1"), Data: json.RawMessage(`{"x":"` + s("") + `"}`)}},
		Part:   1, Parts: 2,
		Earlier: map[string]any{"summary": s("earlier")},
	}
}

// FuzzTemplateCheck: a template that the checks accept renders within its
// bounds, and the '<', '>' and '&' it prints never depend on session text:
// the same template over a session holding them and over one holding
// control characters (escaped to the same length) prints as many of each.
func FuzzTemplateCheck(f *testing.F) {
	for _, name := range []string{"mona", "eldertree", "clara", "coach"} {
		b, err := builtin.ReadFile(name + "/" + fileUser)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, s := range []string{
		"{{range .Messages}}{{if gt (len .Content) 40}}{{.Content}}{{end}}{{end}}",
		"{{range 100000}}{{range 100000}}x{{end}}{{end}}",
		"{{range .Messages}}{{range $.Events}}{{.Data}}{{$.Session.DisplayName}}{{end}}{{end}}",
		`{{define "x"}}{{template "x" .}}{{end}}{{template "x" .}}`,
		`{{printf "%s %q %v %x" .Earlier .Session.ID .Messages .Session.Timezone}}{{html .Earlier}}{{js .Earlier}}{{urlquery .Earlier}}`,
		`{{with index .Messages 0}}{{slice .Content 2}}{{index .Content 3}}{{end}}{{json .Session}}{{json .Earlier}}`,
		`{{call .Session}}{{.Session.StartedAt.Year}}`,
	} {
		f.Add(s)
	}
	plain, masked := fuzzData("<", ">", "&"), fuzzData("\x01", "\x02", "\x03")
	f.Fuzz(func(t *testing.T, text string) {
		tmpl, err := parseTemplate(fileUser, text)
		if err != nil {
			return
		}
		a, v := newUserView(plain), newUserView(masked)
		outA, errA := execute(tmpl, a, a.maxBytes(), loadTimeLimit)
		outB, errB := execute(tmpl, v, v.maxBytes(), loadTimeLimit)
		if (errA == nil) != (errB == nil) {
			return // a length or a comparison over the text differs: nothing printed
		}
		if errA != nil {
			return
		}
		for _, c := range []string{"<", ">", "&"} {
			if strings.Count(outA, c) != strings.Count(outB, c) {
				t.Fatalf("template %q prints %q from session text:\n%s\nvs\n%s", text, c, outA, outB)
			}
		}
	})
}
