package prompts

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"

	"github.com/mnemo-ai/mnemo/internal/testwait"
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
		Events: []EventNote{{Type: s("k"), At: at, MessageID: s("m1"), Data: json.RawMessage(`{"x":"` + s("") + `"}`)}},
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

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestStoppedRenderingBurnsNoCPU: a quadratic loop that writes nothing was
// "stopped" at its time limit but ran on, burning a core for minutes, since
// only a write noticed the stop. Now every loop checks for it: once execute
// has answered the time limit, the rendering has ended and the process uses
// no CPU for it. Not parallel: the CPU measured is the whole process's.
func TestStoppedRenderingBurnsNoCPU(t *testing.T) {
	tmpl, err := parseTemplate(fileUser, `{{transcript .Messages}}{{range .Messages}}{{range $.Messages}}{{if eq .Content "never"}}{{end}}{{end}}{{end}}`)
	if err != nil {
		t.Fatal(err)
	}
	d := UserData{Messages: make([]Turn, 20_000)}
	for i := range d.Messages {
		d.Messages[i] = Turn{ID: fmt.Sprint("m", i), Role: "user", Content: "hello"}
	}
	view := newUserView(d)
	goroutines := runtime.NumGoroutine()
	before := cpuTime(t)
	if _, err := execute(tmpl.Funcs(funcsFor(&d)), view, view.maxBytes(), 50*time.Millisecond); err == nil || !strings.Contains(err.Error(), "longer than 50ms") {
		t.Fatalf("got %v, want the time limit", err)
	}
	returned := cpuTime(t)
	// A window in which a rendering left running would use a core.
	<-time.After(500 * time.Millisecond)
	settled := cpuTime(t)
	// The rendering's goroutine signals its end just before it returns: its
	// count is awaited (until the test binary's deadline, a busy machine
	// may be slow to schedule it), not read after a window of our own.
	testwait.Until(t, "the rendering's goroutine to end", func() (bool, string) {
		n := runtime.NumGoroutine()
		return n <= goroutines, fmt.Sprintf("%d goroutines after the rendering returned, %d before: it runs on", n, goroutines)
	})
	t.Logf("CPU: %v until execute returned, %v in the 500ms after", returned-before, settled-returned)
	if burnt := settled - returned; burnt > 150*time.Millisecond {
		t.Fatalf("the process used %v of CPU in the 500ms after the rendering was stopped", burnt)
	}
}

// TestGuardedRangeKeepsItsMeaning: the rewritten {{range}} (guardRanges)
// prints what text/template's own prints, over slices, maps, numbers, nil
// and empty values, with one variable, two, none, {{else}}, {{break}} and
// {{continue}}.
func TestGuardedRangeKeepsItsMeaning(t *testing.T) {
	t.Parallel()
	type item struct{ Name string }
	var nilMap map[string]int
	data := struct {
		List  []string
		Items []item
		Any   []any
		Map   map[string]any
		Ints  map[int]string
		N     int
		U     uint8
		Empty []int
		Nil   map[string]int
		Ptr   *[]int
		Iface any
	}{
		List: []string{"a", "", "c"}, Items: []item{{"x"}, {"y"}}, Any: []any{1, "two", nil, map[string]any{"k": 3}},
		Map: map[string]any{"b": 2, "a": []any{1, 2}, "c": ""}, Ints: map[int]string{3: "c", -1: "a", 2: "b"},
		N: 3, U: 2, Ptr: &[]int{7, 8}, Iface: []string{"i"}, Nil: nilMap,
	}
	for _, text := range []string{
		`{{range .List}}[{{.}}]{{end}}`,
		`{{range $i, $e := .List}}{{$i}}={{$e}};{{end}}`,
		`{{range $e := .List}}{{if $e}}{{$e}}{{else}}-{{end}}{{end}}`,
		`{{$i := 0}}{{$e := ""}}{{range $i, $e = .List}}{{$i}}{{$e}}{{end}}|{{$i}}{{$e}}`,
		`{{range .Items}}{{.Name}}{{range $.List}}{{.}}{{end}}{{end}}`,
		`{{range .Any}}<{{.}}>{{if .}}t{{else}}f{{end}}{{end}}`,
		`{{range $k, $v := .Map}}{{$k}}:{{$v}} {{end}}{{range .Map}}{{.}}{{end}}`,
		`{{range $k, $v := .Ints}}{{$k}}{{$v}}{{end}}`,
		`{{range .N}}{{.}}{{end}}{{range $n := .U}}{{$n}}{{end}}`,
		`{{range .Empty}}x{{else}}empty{{end}}{{range .Nil}}x{{else}}nil{{end}}`,
		`{{range .Ptr}}{{.}}{{end}}{{range .Iface}}{{.}}{{end}}`,
		`{{range .List}}{{if eq . "c"}}{{break}}{{end}}{{.}}{{end}}{{range .List}}{{if not .}}{{continue}}{{end}}{{.}}{{end}}`,
	} {
		plain := template.Must(template.New("t").Option("missingkey=error").Parse(text))
		want := new(strings.Builder)
		if err := plain.Execute(want, data); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		guarded, err := parseTemplate("t", text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		got, err := execute(guarded, data, 1<<20, time.Minute)
		if err != nil || got != want.String() {
			t.Errorf("%s:\ngot  %q, %v\nwant %q", text, got, err, want)
		}
	}
}
