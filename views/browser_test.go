package views_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/mnemo-ai/mnemo/internal/testwait"
	"github.com/mnemo-ai/mnemo/store"
)

// chromium finds Debian's chromium (or another Chrome). Without one the
// browser tests skip, unless MNEMO_REQUIRE_BROWSER=1 (CI) makes that a failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "/usr/bin/chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("MNEMO_REQUIRE_BROWSER") == "1" {
		t.Fatal("MNEMO_REQUIRE_BROWSER=1 but no chromium is installed (apt-get install chromium)")
	}
	t.Skip("no chromium: the browser tests skip (MNEMO_REQUIRE_BROWSER=1 makes this a failure)")
	return ""
}

// chartInfo is what the page's DOM says of one chart.
type chartInfo struct {
	ID       string  `json:"id"`
	SVG      bool    `json:"svg"`
	Points   int     `json:"points"`
	Declared int     `json:"declared"`
	Visible  int     `json:"visible"`
	Width    float64 `json:"width"`
	Empty    bool    `json:"empty"`
	Rows     int     `json:"rows"`
}

const chartsJS = `Array.from(document.querySelectorAll('figure[data-chart]')).map(f => {
  const svg = f.querySelector('svg');
  const pts = svg ? Array.from(svg.querySelectorAll('[data-point]')) : [];
  return {
    id: f.dataset.chart, svg: !!svg, points: pts.length,
    declared: svg ? Number(svg.dataset.points) : 0,
    visible: pts.filter(p => { const b = p.getBoundingClientRect(); return b.width > 0 && b.height > 0; }).length,
    width: svg ? svg.getBoundingClientRect().width : 0,
    empty: !!f.querySelector('.empty'),
    rows: f.querySelectorAll('table tbody tr').length,
  };
})`

// labelsJS reads every drawn chart's boxes as the browser laid them out
// and lists what a reader would see wrong: a chart wider than its figure
// or the screen (it would scroll sideways and open at one end), a label
// outside its drawing (cut), two labels over each other, a label drawn
// smaller than 9 px, a data point off the screen.
const labelsJS = `(() => {
  const out = [], vw = document.documentElement.clientWidth;
  for (const f of document.querySelectorAll('figure[data-chart]')) {
    const svg = f.querySelector('svg');
    if (!svg) continue;
    const id = f.dataset.chart, s = svg.getBoundingClientRect();
    if (f.scrollWidth > f.clientWidth + 0.5 || s.right > vw + 0.5 || s.left < -0.5)
      out.push(id + ': the chart does not fit the width (' + Math.round(s.width) + ' px in a figure of ' + f.clientWidth + ', screen ' + vw + ')');
    for (const p of svg.querySelectorAll('[data-point]')) {
      const b = p.getBoundingClientRect();
      if (b.right > vw + 0.5) { out.push(id + ': a data point lies off the screen at ' + Math.round(b.left) + ' px'); break; }
    }
    const texts = Array.from(svg.querySelectorAll('text')).filter(t => t.textContent.trim() !== '');
    const boxes = texts.map(t => ({t: t.textContent, b: t.getBoundingClientRect()}));
    for (const {t, b} of boxes) {
      if (b.left < s.left - 0.5 || b.right > s.right + 0.5 || b.top < s.top - 0.5 || b.bottom > s.bottom + 0.5)
        out.push(id + ': "' + t + '" is cut by the chart\'s edge');
      if (b.height < 9) out.push(id + ': "' + t + '" is drawn ' + b.height.toFixed(1) + ' px high');
    }
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i].b, b = boxes[j].b;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 0.5 && h > 0.5) out.push(id + ': "' + boxes[i].t + '" overlaps "' + boxes[j].t + '"');
    }
  }
  return out;
})()`

// browserPage is one page the browser loads and what its charts must hold.
type browserPage struct {
	name, path, token string
	// points are data points some charts must have.
	points map[string]int
}

// console collects a tab's console errors, uncaught exceptions and log
// entries of level error.
type console struct {
	mu       sync.Mutex
	problems []string
}

func (c *console) listen(ev any) {
	var p string
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError {
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			p = "console.error: " + strings.Join(args, " ")
		}
	case *runtime.EventExceptionThrown:
		p = "exception: " + e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			p += " " + e.ExceptionDetails.Exception.Description
		}
	case *cdplog.EventEntryAdded:
		if e.Entry.Level == cdplog.EntryLevelError {
			p = fmt.Sprintf("log (%s): %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL)
		}
	}
	if p != "" {
		c.mu.Lock()
		c.problems = append(c.problems, p)
		c.mu.Unlock()
	}
}

func (c *console) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.problems
	c.problems = nil
	return out
}

// testBrowser loads every page in headless Chromium: no console error, every
// chart drawn with its data points (as many as the data says for the
// charts named), every page fitting a phone's width and printable without
// its navigation. With MNEMO_SCREENSHOTS=DIR (on SQLite; a relative DIR is
// from the repository's root) it saves each page's screenshot as
// DIR/<page>.png, and Clara's on a phone as DIR/clara-phone.png.
func testBrowser(t *testing.T, f *fixture, backend string) {
	exe := chromium(t)
	ts := httptest.NewServer(f.srv)
	defer ts.Close()

	// A relative MNEMO_SCREENSHOTS is from the repository's root, the
	// parent of this package's directory (where go test runs it).
	shots := os.Getenv("MNEMO_SCREENSHOTS")
	if backend != store.DialectSQLite {
		shots = ""
	}
	if shots != "" && !filepath.IsAbs(shots) {
		shots = filepath.Join("..", shots)
	}
	if shots != "" {
		if err := os.MkdirAll(shots, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("lang", "en-GB"), chromedp.Flag("font-render-hinting", "none"))
	// The browser lives no longer than the test binary's -timeout allows;
	// each page's run has its own deadline (withRunDeadline). A chromedp
	// context's first run starts what it stands for (the browser, a tab)
	// and ties it to the context it is given, so that run gets the
	// context itself and the deadline comes after.
	root, cancelRoot := context.WithCancel(context.Background())
	if at := testwait.GiveUpAt(t); !at.IsZero() {
		root, cancelRoot = context.WithDeadline(context.Background(), at)
	}
	defer cancelRoot()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(root, opts...)
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Do(browserCtx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}

	readings, _ := f.emotionsSince("clara-rose", f.now.Add(-30*24*time.Hour))
	pages := []browserPage{
		{"clara", "/views/users/clara-rose", caregiverToken, map[string]int{"clara-30-days": readings, "clara-session-1": 3, "clara-morning-evening": 3, "clara-narratives": 3}},
		{"eldertree", "/views/users/et-1", elderToken, map[string]int{"eldertree-intensity": 4, "eldertree-streak": 4, "eldertree-steps": 4}},
		{"lara", "/views/users/lara-leo", adminToken, map[string]int{"lara-mastery": 2, "lara-progress": 6}},
		{"coach", "/views/users/coach-ana", adminToken, map[string]int{"coach-sessions": 6}},
		{"mona", "/views/users/mona-peggy", monaToken, nil},
		{"insights", "/views/insights", adminToken, map[string]int{"insights-history-eldertree": 2}},
		{"insights-suppressed", "/views/insights?week_ending=" + f.weeks[1], adminToken, nil},
		{"operations", "/views/operations", adminToken, map[string]int{"ops-sessions-day": 30, "ops-sessions-hour": 48, "ops-extraction": 42, "ops-spend": f.now.Day()}},
		{"index", "/views/", adminToken, nil},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			c := &console{}
			tab, cancel := chromedp.NewContext(browserCtx, chromedp.WithListener(c.listen))
			defer cancel()
			if err := chromedp.Do(tab); err != nil {
				t.Fatal(err)
			}
			ctx := withRunDeadline(t, tab)
			if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
				Headers: network.Headers{"Authorization": basic(p.token)}}); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1100, 900), chromedp.Navigate(ts.URL+p.path),
				chromedp.WaitVisible(chromedp.CSS("main h1"))); err != nil {
				t.Fatalf("load %s: %v", p.path, err)
			}
			infos, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartInfo](chartsJS))
			if err != nil {
				t.Fatal(err)
			}
			if problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](labelsJS)); err != nil {
				t.Fatal(err)
			} else if len(problems) > 0 {
				t.Errorf("%s at 1100 x 900:\n%s", p.path, strings.Join(problems, "\n"))
			}
			seen := map[string]bool{}
			for _, ci := range infos {
				seen[ci.ID] = true
				if want, ok := p.points[ci.ID]; ok && ci.Points != want {
					t.Errorf("%s: chart %s has %d data points in the browser; want %d", p.path, ci.ID, ci.Points, want)
				}
				switch {
				case ci.SVG && (ci.Points == 0 || ci.Points != ci.Declared || ci.Visible != ci.Points || ci.Width < 100 || ci.Rows == 0):
					t.Errorf("%s: chart %s drawn badly: %+v", p.path, ci.ID, ci)
				case !ci.SVG && !ci.Empty:
					t.Errorf("%s: chart %s has neither a drawing nor an empty state", p.path, ci.ID)
				}
			}
			for id := range p.points {
				if !seen[id] {
					t.Errorf("%s: no chart %s in the browser", p.path, id)
				}
			}
			if shots != "" && p.name != "index" {
				png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(shots, p.name+".png"), png, 0o644); err != nil {
					t.Fatal(err)
				}
			}

			// A phone: nothing wider than the screen.
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), chromedp.Reload(),
				chromedp.WaitVisible(chromedp.CSS("main h1"))); err != nil {
				t.Fatal(err)
			}
			overflow, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth - document.documentElement.clientWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if overflow > 0 {
				t.Errorf("%s: %v px wider than a phone's screen", p.path, overflow)
			}
			// On the phone every chart fits the width, whole and readable.
			if problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](labelsJS)); err != nil {
				t.Fatal(err)
			} else if len(problems) > 0 {
				t.Errorf("%s at 390 x 844:\n%s", p.path, strings.Join(problems, "\n"))
			}
			if shots != "" && p.name == "clara" {
				// The first screen, as a phone shows it.
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
					t.Fatal(err)
				}
				png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(shots, p.name+"-phone.png"), png, 0o644); err != nil {
					t.Fatal(err)
				}
			}

			// Printed: no navigation, the charts stay.
			if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
				t.Fatal(err)
			}
			navShown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const n = document.querySelector('.top nav'); return !!n && getComputedStyle(n).display !== 'none'; })()`))
			if err != nil {
				t.Fatal(err)
			}
			if navShown {
				t.Errorf("%s: the navigation is printed", p.path)
			}
			if problems := c.take(); len(problems) > 0 {
				t.Errorf("%s: the browser reported:\n%s", p.path, strings.Join(problems, "\n"))
			}
		})
	}

	// The listener sees what goes wrong: a page that is not there is
	// reported, so that "no console error" above means something.
	t.Run("listener", func(t *testing.T) {
		c := &console{}
		tab, cancel := chromedp.NewContext(browserCtx, chromedp.WithListener(c.listen))
		defer cancel()
		if err := chromedp.Do(tab); err != nil {
			t.Fatal(err)
		}
		ctx := withRunDeadline(t, tab)
		if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
			Headers: network.Headers{"Authorization": basic(adminToken)}}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/views/nowhere"), chromedp.WaitVisible(chromedp.CSS("main h1"))); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { console.error("probe"); return true; })()`)); err != nil {
			t.Fatal(err)
		}
		testwait.Until(t, "the probe's console error", func() (bool, string) {
			c.mu.Lock()
			defer c.mu.Unlock()
			return strings.Contains(strings.Join(c.problems, "\n"), "probe"), strings.Join(c.problems, "\n")
		})
		if got := strings.Join(c.take(), "\n"); !strings.Contains(got, "404") {
			t.Errorf("the 404 of a missing page was not reported: %q", got)
		}
	})
}

// withRunDeadline bounds a run in the browser by the test binary's
// -timeout alone (testwait.GiveUpAt), never by a clock of its own: a busy
// machine makes a page slower, not a failure.
func withRunDeadline(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	at := testwait.GiveUpAt(t)
	if at.IsZero() {
		ctx, cancel := context.WithCancel(ctx)
		t.Cleanup(cancel)
		return ctx
	}
	ctx, cancel := context.WithDeadline(ctx, at)
	t.Cleanup(cancel)
	return ctx
}
