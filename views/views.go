// Package views serves Mnemo's pages for people: a user's page, whose
// sections the user's app kind builds (RegisterPage, from the kind's own
// package), the week's anonymised supervisor insights, and an operations
// page. This package holds the shell of every page, the charts and tables
// the kinds draw with, and who may see what. Pages are rendered on the
// server with html/template, which escapes every value; charts are SVG drawn
// here (chart.go) with a table of their numbers for screen readers. The one
// stylesheet and the icon are embedded: the pages need no JavaScript, no
// CDN and no network beyond the worker, read well on a phone and print.
//
// What a page shows is read through the store: aggregates, records,
// summaries' structured fields, memories and cues. No page reads a
// transcript, a rolling buffer or a summary's free text.
//
// Who may see what is decided here from the Viewer the HTTP layer puts in
// the request's context (WithViewer): see Viewer.
package views

import (
	"bytes"
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/internal/zones"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/queue"
	"github.com/mnemo-ai/mnemo/schedule"
	"github.com/mnemo-ai/mnemo/store"
)

// Prefix is where the views are served.
const Prefix = "/views"

// Scopes a Viewer may have (the token scopes of package api).
const (
	ScopeAdmin     = "admin"
	ScopeService   = "service"
	ScopeCaregiver = "caregiver"
)

// Viewer is who is looking, as the HTTP layer authenticated them.
//
//   - Open (no tokens configured, loopback only: a developer's machine)
//     sees every page.
//   - An admin token sees operations, insights and every user's page but
//     those of a caregiver-only kind (extract.View.CaregiverOnly): those
//     are for the caregiver only.
//   - A service token bound to an app sees the pages of that app's users,
//     unless its kind is caregiver-only; a user of another app is not
//     found, as in the API.
//   - A caregiver token (bound to an app of a caregiver-only kind) sees the
//     pages of that app's users and nothing else.
//
// An unbound service token is a chat service's machine credential and sees
// no page.
type Viewer struct {
	Open  bool
	Scope string
	App   string
}

// Admin reports whether the viewer may see the operator's pages.
func (v Viewer) Admin() bool { return v.Open || v.Scope == ScopeAdmin }

type viewerKey struct{}

// WithViewer returns ctx carrying v.
func WithViewer(ctx context.Context, v Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

func viewerOf(r *http.Request) (Viewer, bool) {
	v, ok := r.Context().Value(viewerKey{}).(Viewer)
	return v, ok
}

// Config configures the views: what they read of the worker, given by
// whoever wires the process (the views import no workers).
type Config struct {
	Store store.Store
	Apps  map[string]*prompts.App
	// Queue is the job queue whose depths the operations page shows; nil shows none.
	Queue queue.Queue
	// Schedules are the batches' cron schedules; nil means this process
	// schedules no batches.
	Schedules map[string]*schedule.Schedule
	// BatchStates reports every batch's runs as of now; it is called only
	// when Schedules is set.
	BatchStates func(ctx context.Context, now time.Time) ([]BatchState, error)
	// AppsFeeding lists, sorted, the configured apps whose kind declares a
	// batch (batch.Declarer): the apps a run of it is for.
	AppsFeeding func(batch string) []string
	// MonthlyBudgetUSD is the LLM spend per month above which extraction
	// uses the rules; 0 means no limit.
	MonthlyBudgetUSD float64
	// Model names the configured LLM; empty means none (the rules serve every app).
	Model string
	// Decay is the decay policy the user pages explain.
	Decay decay.Policy
	// UIPrefix is where River UI is served ("/ui"); empty leaves its links out.
	UIPrefix string
	// Now reads the clock; nil is time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// BatchState is what the operations page shows of one batch.
type BatchState struct {
	Name     string
	Schedule *schedule.Schedule
	Last     *store.BatchRun
	Next     time.Time
	Missed   []schedule.Period
	// Dirty are periods the scheduler re-runs as their input changed; Stale
	// are such periods beyond the catch-up window.
	Dirty []store.DirtyPeriod
	Stale []store.DirtyPeriod
	// Skipped are the users the last run left out, by reason.
	Skipped store.BatchSkips
}

// Handler serves the views under Prefix.
type Handler struct {
	cfg   Config
	log   *slog.Logger
	mux   *http.ServeMux
	pages map[string]*template.Template
}

//go:embed templates/*.tmpl
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// New builds the handler; it fails only on a template that does not parse.
func New(cfg Config) (*Handler, error) {
	if cfg.Store == nil {
		return nil, errors.New("views: no store")
	}
	h := &Handler{cfg: cfg, log: cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler)), mux: http.NewServeMux(), pages: map[string]*template.Template{}}
	base, err := template.New("base").Funcs(funcs).ParseFS(templateFS, "templates/layout.tmpl", "templates/chart.tmpl", "templates/section.tmpl")
	if err != nil {
		return nil, fmt.Errorf("views: %w", err)
	}
	for _, p := range []string{"index", "user", "insights", "operations", "error"} {
		t, err := template.Must(base.Clone()).ParseFS(templateFS, "templates/"+p+".tmpl")
		if err != nil {
			return nil, fmt.Errorf("views: %w", err)
		}
		h.pages[p] = t
	}
	static, _ := fs.Sub(staticFS, "static")
	h.mux.Handle("GET "+Prefix+"/static/", http.StripPrefix(Prefix+"/static/", cacheable(http.FileServerFS(static))))
	h.mux.HandleFunc("GET "+Prefix+"/{$}", h.index)
	h.mux.HandleFunc("GET "+Prefix+"/", func(w http.ResponseWriter, r *http.Request) {
		h.Error(w, r, http.StatusNotFound, "Not found", "There is no page here.")
	})
	h.mux.HandleFunc("GET "+Prefix+"/users", h.lookup)
	h.mux.HandleFunc("GET "+Prefix+"/users/{user_id}", h.user)
	h.mux.HandleFunc("GET "+Prefix+"/insights", h.insights)
	h.mux.HandleFunc("GET "+Prefix+"/operations", h.operations)
	return h, nil
}

func cacheable(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		h.ServeHTTP(w, r)
	})
}

// ServeHTTP serves a page. A request without a Viewer (not authenticated by
// the HTTP layer) is refused.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	securityHeaders(w)
	if _, ok := viewerOf(r); !ok {
		h.Error(w, r, http.StatusUnauthorized, "Sign in", "These pages need a token.")
		return
	}
	h.mux.ServeHTTP(w, r)
}

// securityHeaders: nothing but the page's own stylesheet and icon load, no
// script runs, the page is not framed and not cached.
func securityHeaders(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
}

func (h *Handler) now() time.Time {
	if h.cfg.Now != nil {
		return h.cfg.Now().UTC()
	}
	return time.Now().UTC()
}

// page is what every page template gets.
type page struct {
	Title    string
	Viewer   Viewer
	Zone     string
	Now      string
	Nav      bool
	UIPrefix string
	// Message is an error page's sentence.
	Message string
	// Body is the page's own data.
	Body any
}

func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	v, _ := viewerOf(r)
	p.Viewer, p.Nav, p.UIPrefix = v, v.Admin(), h.cfg.UIPrefix
	if p.Zone == "" {
		p.Zone = "UTC"
	}
	if p.Now == "" {
		p.Now = h.now().Format(dateTimeLayout) + " UTC"
	}
	var buf bytes.Buffer
	if err := h.pages[name].ExecuteTemplate(&buf, "layout", p); err != nil {
		h.log.ErrorContext(r.Context(), "render view", slog.String("page", name), slog.String("error", err.Error()))
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// Error answers an HTML error page.
func (h *Handler) Error(w http.ResponseWriter, r *http.Request, status int, title, message string) {
	securityHeaders(w)
	h.render(w, r, status, "error", page{Title: title, Message: message})
}

// fail answers a store error: not found is 404, anything else is logged and 503.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, store.ErrNotFound) {
		h.Error(w, r, http.StatusNotFound, "Not found", "There is no such user.")
		return
	}
	h.log.WarnContext(r.Context(), "view", slog.String("path", r.URL.Path), slog.String("error", err.Error()))
	h.Error(w, r, http.StatusServiceUnavailable, "Unavailable", "The data could not be read just now; try again in a moment.")
}

func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "index", page{Title: "Mnemo views"})
}

// lookup sends the user-lookup form to the user's page.
func (h *Handler) lookup(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimSpace(r.URL.Query().Get("id"))
	if id == "" {
		h.Error(w, r, http.StatusBadRequest, "Which user?", "Give a user id.")
		return
	}
	http.Redirect(w, r, Prefix+"/users/"+url.PathEscape(id), http.StatusSeeOther)
}

// requireAdmin answers 403 unless the viewer may see the operator's pages.
func (h *Handler) requireAdmin(w http.ResponseWriter, r *http.Request) bool {
	if v, _ := viewerOf(r); v.Admin() {
		return true
	}
	h.Error(w, r, http.StatusForbidden, "Not for this token", "This page needs an admin token.")
	return false
}

// kindOf is the kind of rules an app runs; nil for an app that is not
// configured.
func (h *Handler) kindOf(app string) extract.Kind {
	a := h.cfg.Apps[app]
	if a == nil {
		return nil
	}
	return extract.KindOfApp(a)
}

// caregiverOnly reports whether app's users' pages are for its caregiver
// token alone (extract.View.CaregiverOnly); false for an app not configured.
func (h *Handler) caregiverOnly(app string) bool {
	a := h.cfg.Apps[app]
	return a != nil && extract.KindOfApp(a).View().CaregiverOnly
}

// MayRead is the one rule of who reads a user's data, for these pages and
// for the JSON API alike: 0 when v may read the data of a user of app (a,
// nil when not configured), else the status to answer (404 for a user of
// another app than the token's, as if there were none) and why. The data of
// a user of a kind that keeps it for the caregiver (extract.View.
// CaregiverOnly: a person with dementia's emotions are health data) reaches
// that app's caregiver token and its own service token only: not the
// operator's admin token, nor a service token of every app. The operator
// still sees job state, re-runs jobs and carries out an erasure, none of
// which reads it. A caregiver token reads its app's users and nothing else;
// open mode (the developer's machine) reads everything.
func MayRead(v Viewer, app string, a *prompts.App) (int, string) {
	careOnly := a != nil && extract.KindOfApp(a).View().CaregiverOnly
	switch {
	case v.Open:
		return 0, ""
	case v.App != "" && v.App != app:
		return http.StatusNotFound, "There is no such user."
	case v.Scope == ScopeCaregiver && !careOnly:
		return http.StatusForbidden, "A caregiver token reads the data of its own app's users only."
	case !careOnly, v.Scope == ScopeCaregiver, v.Scope == ScopeService && v.App == app:
		return 0, ""
	}
	return http.StatusForbidden, "The data of this app's users is for its caregiver and its own service only: use the caregiver token or the service token bound to the app."
}

// SeesCaregiverNotes reports whether v, who may read the data of a user
// of app a (MayRead), also sees what is for the caregiver alone: a
// caregiver-only kind's session concerns (falls, pain, medication confusion, …; extract.View.CaregiverNotes). Only the
// caregiver token and open mode do; the app's own service token, whose
// reads may reach the model's prompt, does not.
func SeesCaregiverNotes(v Viewer, a *prompts.App) bool {
	careOnly := a != nil && extract.KindOfApp(a).View().CaregiverOnly
	return !careOnly || v.Open || v.Scope == ScopeCaregiver
}

// mayView decides whether v may see u's page: MayRead, and then the page
// of a caregiver-only kind's user is for the caregiver only (not the app's service token, which
// reads the same data over JSON) and the rest for an admin token or a token
// bound to the user's app.
func (h *Handler) mayView(v Viewer, u store.User) (int, string) {
	if status, why := MayRead(v, u.App, h.cfg.Apps[u.App]); status != 0 || v.Open || v.Scope == ScopeCaregiver {
		return status, why
	}
	switch {
	case h.caregiverOnly(u.App):
		return http.StatusForbidden, kindLabel(h.kindOf(u.App).Name()) + "'s pages are for the caregiver only: sign in with the caregiver token of this app."
	case v.Scope == ScopeAdmin || (v.Scope == ScopeService && v.App != ""):
		return 0, ""
	}
	return http.StatusForbidden, "This token cannot read users' pages: use an admin token or a token bound to the user's app."
}

// location is a user's zone; an unknown one is UTC.
func location(name string) *time.Location {
	loc, err := zones.Load(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// nextRun says when a batch runs next, in loc: "Mon 30 Nov 2026 04:00
// (Europe/Berlin)"; "" when it has no schedule.
func (h *Handler) nextRun(batch string, loc *time.Location) string {
	s := h.cfg.Schedules[batch]
	if s == nil {
		return ""
	}
	t := s.Next(h.now())
	if t.IsZero() {
		return ""
	}
	return t.In(loc).Format(dateTimeLayout) + " (" + loc.String() + ")"
}

// afterBatch is an empty state's sentence: what appears after which batch
// and when that batch runs next.
func (h *Handler) afterBatch(what, batch string, loc *time.Location) string {
	s := h.cfg.Schedules[batch]
	if s == nil {
		return what + " after the " + batch + " batch runs."
	}
	msg := fmt.Sprintf("%s after the %s batch (schedule %s)", what, batch, s.String())
	if next := h.nextRun(batch, loc); next != "" {
		msg += "; its next run is " + next
	}
	return msg + "."
}

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"f1": func(v float64) string { return fmt.Sprintf("%.1f", v) },
	"rotate": func(t Text) string {
		return fmt.Sprintf("rotate(-90 %.1f %.1f)", t.X, t.Y)
	},
}

// Fact is a labelled value shown in a definition list.
type Fact struct {
	Label string
	Value string
	// Note explains the value (its unit, where it comes from).
	Note string
}

// VTable is a visible table.
type VTable struct {
	Caption string
	Head    []string
	Rows    [][]string
	// Empty is shown instead when there is no row.
	Empty string
	// RowLinks, when set, link each row's first cell (one per row; "" for none).
	RowLinks []string
	// Omitted counts the rows left out beyond MaxTableRows.
	Omitted int
}

// MaxTableRows bounds the rows a table of a user's page shows, and the
// items of a list: a user with 21,000 memories had a page of 2.4 MB (issue
// 34 §3). What is left out is counted under the table; the API pages
// through all of it (GET /v1/users/{user_id}/memories).
const MaxTableRows = 200

// boundSections cuts each table and list of sections to MaxTableRows.
func boundSections(sections []Section) {
	for i := range sections {
		for j := range sections[i].Tables {
			t := &sections[i].Tables[j]
			if n := len(t.Rows); n > MaxTableRows {
				t.Omitted += n - MaxTableRows
				t.Rows = t.Rows[:MaxTableRows]
				if len(t.RowLinks) > MaxTableRows {
					t.RowLinks = t.RowLinks[:MaxTableRows]
				}
			}
		}
		for j := range sections[i].Lists {
			l := &sections[i].Lists[j]
			if n := len(l.Items); n > MaxTableRows {
				l.Items = append(l.Items[:MaxTableRows:MaxTableRows], fmt.Sprintf("… and %d more, not shown", n-MaxTableRows))
			}
		}
	}
}

// Section is one titled part of a page.
type Section struct {
	ID     string
	Title  string
	Intro  string
	Facts  []Fact
	Charts []*Chart
	Tables []VTable
	// Lists are titled lists of short items.
	Lists []List
	// Notice is a highlighted sentence (a suppressed insight, say).
	Notice string
	// Empty replaces the section's content.
	Empty string
	// Attr is a data attribute value tests find sections by.
	Attr string
}

// List is a titled list.
type List struct {
	Title string
	Items []string
	Empty string
}

// DateIn prints an instant as a day in loc.
func DateIn(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "–"
	}
	return t.In(loc).Format("Mon 2 Jan 2006")
}

// TimeIn prints an instant in loc.
func TimeIn(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "–"
	}
	return t.In(loc).Format(dateTimeLayout)
}

// Ago says how long before now t was: "3 h 5 min", "2 d 4 h".
func Ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%d d %d h", int(d.Hours())/24, int(d.Hours())%24)
}

// SortedKeys are m's keys in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
