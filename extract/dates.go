package extract

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// DateMention is a date expression found in a text and resolved to a civil
// date.
type DateMention struct {
	// Date is the civil date, YYYY-MM-DD, in the zone it was resolved in.
	Date string `json:"date"`
	// Wording is the expression as written ("next Friday", "December 14th",
	// "the 3rd"); a leading "on" is not part of it.
	Wording string `json:"wording"`
	// Start and End are the byte offsets of Wording in the text.
	Start int `json:"start"`
	End   int `json:"end"`
}

// Tense is what a sentence says about when something happens. It decides
// the expressions that name no direction: "on Friday", "December 14th",
// "the 3rd".
type Tense int

// Tenses.
const (
	TenseUnknown Tense = iota
	TensePast
	TenseFuture
)

// ResolveDates finds the date expressions of text and resolves them against
// ref, read in loc (nil is UTC): "yesterday" said at 2026-11-24T05:00Z in
// America/Chicago is 2026-11-22, their Monday the 23rd minus one. The tense
// of each expression is guessed from the nearest tense word before it (else
// after it) in text; see ResolveDatesTense for the conventions.
func ResolveDates(text string, ref time.Time, loc *time.Location) []DateMention {
	return resolveDates(text, ref, loc, TenseUnknown, true)
}

// ResolveDate is the first of ResolveDates, and false when there is none.
func ResolveDate(text string, ref time.Time, loc *time.Location) (DateMention, bool) {
	ms := ResolveDates(text, ref, loc)
	if len(ms) == 0 {
		return DateMention{}, false
	}
	return ms[0], true
}

// ResolveDatesTense is ResolveDates with the tense given rather than guessed.
// It is pure: ref is the only clock. Weeks start on Monday. The conventions,
// with T the day of ref in loc:
//
//   - yesterday, today, tonight, this morning/afternoon/evening, last night,
//     tomorrow, the day after tomorrow, the day before yesterday: T-1, T,
//     T, T, T-1, T+1, T+2, T-2.
//   - next <weekday> (and "coming <weekday>"): the first such day after T,
//     so "next Friday" said on Tuesday is three days later and said on a
//     Friday is a week later. last <weekday> (and "this past <weekday>"):
//     the last such day before T. this <weekday>: the first at or after T,
//     or in the past tense the last at or before T.
//   - on <weekday>, or the weekday alone: the first at or after T, or in the
//     past tense the last before T.
//   - <weekday> next/last/this week: that day of the next, previous or
//     current week.
//   - next week, next month, next year: the first day of that period
//     (Monday, the 1st, 1 January); last week, last month, last year
//     likewise; this week, this month, this year: T.
//   - next weekend, last weekend: the Saturday of the next or previous week;
//     this weekend: T on a Saturday or Sunday (the Saturday, on a Sunday, in
//     the past tense), else the coming Saturday, or the Saturday before in
//     the past tense.
//   - in N days/weeks/months/years, N days… from now, N days… ago: N is
//     digits, one to twelve, "a", "an", "a couple of". A month or a year
//     later than the 31st or a 29 February is the last day of the month.
//   - December 14th, Dec 14, Dec. 14, 14 December, the 14th of December,
//     with an optional year ("December 14, 2027", "14 December 2027"), and
//     2027-12-14. Without a year: in the future tense the first occurrence
//     at or after T, in the past tense the last at or before T, otherwise
//     the first at or after T when that is within 183 days, else the last
//     before T. A day the month does not have (February 30) is no date.
//   - the 3rd, on the 21st: the first such day of a month at or after T,
//     in the past tense the last before T. "the 3rd time" is no date.
//
// Numeric dates with slashes or dots ("12/14", "3.4.") are left alone: the
// order of day and month is the writer's convention, which is not known.
// Results outside DateRange(ref, ref, loc) are dropped.
func ResolveDatesTense(text string, ref time.Time, loc *time.Location, tense Tense) []DateMention {
	return resolveDates(text, ref, loc, tense, false)
}

func resolveDates(text string, ref time.Time, loc *time.Location, tense Tense, guess bool) []DateMention {
	exprs := scanDates(text)
	if len(exprs) == 0 {
		return nil
	}
	if loc == nil {
		loc = time.UTC
	}
	y, m, d := ref.In(loc).Date()
	today := civil(y, m, d)
	first, last := DateRange(ref, ref, loc)
	var toks []dateToken
	if guess {
		toks = dateTokens(text)
	}
	out := make([]DateMention, 0, len(exprs))
	for _, e := range exprs {
		t := tense
		if guess {
			t = tenseAround(toks, e.start, e.end)
		}
		day, ok := e.resolve(today, t)
		if !ok || day.Before(first) || day.After(last) {
			continue
		}
		out = append(out, DateMention{Date: day.Format(time.DateOnly), Wording: text[e.start:e.end], Start: e.start, End: e.end})
	}
	return out
}

// civil is a calendar day as a UTC midnight: day arithmetic on it knows no
// DST.
func civil(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// EndOfDate is the instant the civil date (YYYY-MM-DD) ends in loc (nil is
// UTC): the next day's midnight there, whatever DST does in between. ok is
// false when date is not a valid date.
func EndOfDate(date string, loc *time.Location) (time.Time, bool) {
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return time.Time{}, false
	}
	if loc == nil {
		loc = time.UTC
	}
	return time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, loc), true
}

// The range of a date a model, a user's words or a client may give for a
// session: from DatePastYears before the day the session started to
// DateFutureYears after the day it ended, as calendar days in the session's
// zone. An event further back is history, one further ahead a plan no one
// makes; and a date near the year 1 or 9999 breaks the arithmetic built on
// it (a 9999-12-31 event plus its TTL is in the year 10000, which JSON and
// SQLite's text timestamps cannot hold). A date outside is dropped, with a
// Dropped reason DropDateOutOfRange. The JSON Schemas of the apps whose
// answers carry dates say the same to the model.
const (
	DatePastYears   = 100
	DateFutureYears = 10
)

// DropDateOutOfRange is the Dropped reason of a date outside DateRange.
const DropDateOutOfRange = "date_out_of_range"

// DateRange is the first and last civil day a date about a session that ran
// from start to end may name, at midnight UTC; loc (nil is UTC) is the
// session's zone.
func DateRange(start, end time.Time, loc *time.Location) (first, last time.Time) {
	if loc == nil {
		loc = time.UTC
	}
	if end.Before(start) {
		end = start
	}
	sy, sm, sd := start.In(loc).Date()
	ey, em, ed := end.In(loc).Date()
	first, last = civil(sy-DatePastYears, sm, sd), civil(ey+DateFutureYears, em, ed)
	// A session without a time (the year 1) still names no year before 1.
	if lo := civil(1, 1, 1); first.Before(lo) {
		first = lo
	}
	if hi := civil(9999, 12, 31); last.After(hi) {
		last = hi
	}
	return first, last
}

// DateInRange reports whether date is a civil date written YYYY-MM-DD within
// DateRange(start, end, loc).
func DateInRange(date string, start, end time.Time, loc *time.Location) bool {
	if !ValidDate(date) {
		return false
	}
	d, _ := time.Parse(time.DateOnly, date)
	first, last := DateRange(start, end, loc)
	return !d.Before(first) && !d.After(last)
}

// ValidDate reports whether s is a civil date written YYYY-MM-DD.
func ValidDate(s string) bool {
	if len(s) != len(time.DateOnly) {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// dateToken is a word of a text: a run of letters and digits, lower-cased,
// with what separates it from the word before (spaces trimmed).
type dateToken struct {
	w          string
	start, end int
	gap        string // the non-space characters between the previous token and this one
	spaced     bool   // the gap held a space (or was the text's start)
}

// maxDateTokens bounds the words scanned: date expressions are looked for
// in sentences, and a longer text is cut rather than scanned without bound.
const maxDateTokens = 4096

func dateTokens(text string) []dateToken {
	var toks []dateToken
	prev := 0
	for i := 0; i < len(text) && len(toks) < maxDateTokens; {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			i += size
			continue
		}
		j := i + size
		for j < len(text) {
			r2, s2 := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r2) && !unicode.IsDigit(r2) {
				break
			}
			j += s2
		}
		between := text[prev:i]
		tok := dateToken{w: strings.ToLower(text[i:j]), start: i, end: j, spaced: prev == 0}
		if between != " " && between != "" {
			tok.gap = strings.Join(strings.Fields(between), "")
			tok.spaced = tok.spaced || strings.ContainsFunc(between, unicode.IsSpace)
		} else if between == " " {
			tok.spaced = true
		}
		toks = append(toks, tok)
		prev = j
		i = j
	}
	return toks
}

type dateKind int

const (
	dOffset     dateKind = iota // n days from today
	dMonths                     // n months from today, clamped
	dNextWD                     // first weekday after today
	dLastWD                     // last weekday before today
	dThisWD                     // first at or after today, past: last at or before
	dOnWD                       // first at or after today, past: last before
	dWeekOfWD                   // weekday of the week n weeks from this one
	dWeekStart                  // Monday of the week n weeks from this one
	dMonthStart                 // 1st of the month n months from this one
	dYearStart                  // 1 January of the year n years from this one
	dThisWeekend
	dMonthDay // month and day, year when given
	dDayOnly  // day of an unnamed month
)

type dateExpr struct {
	kind       dateKind
	n          int
	wd         time.Weekday
	month      time.Month
	day, year  int
	start, end int
}

var weekdays = map[string]time.Weekday{
	"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday, "sunday": time.Sunday,
}

var months = map[string]time.Month{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8,
	"sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

var numberWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}

// dayAfterThe are the words that may follow "the 3rd" in a date: anything
// else ("the 3rd time", "the 14th century") makes it no date.
var dayAfterThe = toSet("at in and or but so because when then i we my for with to from until till is was will")

// maxOffsetDays bounds "in N days": a larger N is no date anyone plans by.
const maxOffsetDays = 3660

// dateOpeners are the words a date expression may begin with, besides
// numbers, weekdays and months.
var dateOpeners = toSet("yesterday today tonight tomorrow the day last next this coming in a an couple one two three four five six seven eight nine ten eleven twelve")

// mayOpenDate reports whether a date expression may begin with the
// lower-case word w: a cheap test before scanning.
func mayOpenDate(w string) bool {
	if w == "" {
		return false
	}
	if c := w[0]; c >= '0' && c <= '9' {
		return true
	}
	_, wd := weekdays[w]
	_, mo := months[w]
	return wd || mo || dateOpeners[w]
}

// scanDates finds the date expressions of text without resolving them.
// Expressions do not overlap; they come in the order of the text.
func scanDates(text string) []dateExpr {
	toks := dateTokens(text)
	var out []dateExpr
	for i := 0; i < len(toks); {
		if e, n, ok := matchDate(toks, i); ok {
			out = append(out, e)
			i += n
			continue
		}
		i++
	}
	return out
}

// joined reports whether toks[i] follows the token before it with nothing
// but space in between.
func joined(toks []dateToken, i int) bool { return toks[i].gap == "" }

// word returns toks[i].w when toks[i] exists and follows the token before
// it with nothing but space in between (any gap for i == start).
func word(toks []dateToken, i, start int) string {
	if i >= len(toks) || (i > start && !joined(toks, i)) {
		return ""
	}
	return toks[i].w
}

// matchDate matches the longest date expression starting at toks[i] and
// returns it with the number of tokens it spans.
func matchDate(toks []dateToken, i int) (dateExpr, int, bool) {
	w := func(k int) string { return word(toks, i+k, i) }
	span := func(e dateExpr, n int) (dateExpr, int, bool) {
		e.start, e.end = toks[i].start, toks[i+n-1].end
		return e, n, true
	}
	switch w(0) {
	case "yesterday":
		return span(dateExpr{kind: dOffset, n: -1}, 1)
	case "today", "tonight":
		return span(dateExpr{kind: dOffset}, 1)
	case "tomorrow":
		return span(dateExpr{kind: dOffset, n: 1}, 1)
	case "the", "day":
		k := 0
		if w(0) == "the" {
			k = 1
		}
		if w(k) == "day" && w(k+2) != "" {
			switch w(k+1) + " " + w(k+2) {
			case "after tomorrow":
				return span(dateExpr{kind: dOffset, n: 2}, k+3)
			case "before yesterday":
				return span(dateExpr{kind: dOffset, n: -2}, k+3)
			}
		}
		if k == 1 {
			return theDay(toks, i)
		}
	case "last", "next", "this", "coming":
		return relative(toks, i)
	case "in":
		if n, k, unit, ok := quantity(toks, i+1, i); ok {
			return span(offset(n, unit), 1+k)
		}
	}
	if wd, ok := weekdays[w(0)]; ok {
		if e, n, ok := weekdayOfWeek(toks, i, wd, 1); ok {
			return e, n, ok
		}
		return span(dateExpr{kind: dOnWD, wd: wd}, 1)
	}
	if n, k, unit, ok := quantity(toks, i, i); ok {
		switch {
		case w(k) == "ago":
			return span(offset(-n, unit), k+1)
		case w(k) == "from" && (w(k+1) == "now" || w(k+1) == "today"):
			return span(offset(n, unit), k+2)
		}
	}
	if e, n, ok := absolute(toks, i); ok {
		return e, n, ok
	}
	return dateExpr{}, 0, false
}

// offset is n units from today.
func offset(n int, unit string) dateExpr {
	switch unit {
	case "week":
		return dateExpr{kind: dOffset, n: 7 * n}
	case "month":
		return dateExpr{kind: dMonths, n: n}
	case "year":
		return dateExpr{kind: dMonths, n: 12 * n}
	}
	return dateExpr{kind: dOffset, n: n}
}

// quantity reads "two days", "a couple of weeks", "3 months" at toks[i]:
// the number, the tokens read and the unit (day, week, month or year).
func quantity(toks []dateToken, i, start int) (n, k int, unit string, ok bool) {
	w := func(j int) string { return word(toks, i+j, start) }
	switch {
	case w(0) == "a" && w(1) == "couple" && w(2) == "of":
		n, k = 2, 3
	case (w(0) == "a" && w(1) == "couple") || (w(0) == "couple" && w(1) == "of"):
		n, k = 2, 2
	default:
		if v, ok := numberWords[w(0)]; ok {
			n, k = v, 1
		} else if v, err := strconv.Atoi(w(0)); err == nil && len(w(0)) <= 4 {
			n, k = v, 1
		} else {
			return 0, 0, "", false
		}
	}
	u := strings.TrimSuffix(w(k), "s")
	switch u {
	case "day", "week", "month", "year":
	default:
		return 0, 0, "", false
	}
	if n < 1 || (u == "day" && n > maxOffsetDays) || (u == "week" && 7*n > maxOffsetDays) || (u == "month" && n > 120) || (u == "year" && n > 10) {
		return 0, 0, "", false
	}
	return n, k + 1, u, true
}

// relative reads last/next/this/coming followed by a weekday, week, month,
// year or weekend, and "this past <weekday|weekend>".
func relative(toks []dateToken, i int) (dateExpr, int, bool) {
	w := func(k int) string { return word(toks, i+k, i) }
	span := func(e dateExpr, n int) (dateExpr, int, bool) {
		e.start, e.end = toks[i].start, toks[i+n-1].end
		return e, n, true
	}
	dir, k := w(0), 1
	if dir == "this" && w(1) == "past" {
		dir, k = "last", 2
	}
	if dir == "this" && w(1) == "coming" {
		dir, k = "next", 2
	}
	if dir == "coming" {
		dir = "next"
	}
	step := map[string]int{"last": -1, "this": 0, "next": 1}[dir]
	if wd, ok := weekdays[w(k)]; ok {
		switch dir {
		case "next":
			return span(dateExpr{kind: dNextWD, wd: wd}, k+1)
		case "last":
			return span(dateExpr{kind: dLastWD, wd: wd}, k+1)
		}
		return span(dateExpr{kind: dThisWD, wd: wd}, k+1)
	}
	switch w(k) {
	case "morning", "afternoon", "evening":
		if dir == "this" {
			return span(dateExpr{kind: dOffset}, k+1)
		}
	case "night":
		if dir == "last" {
			return span(dateExpr{kind: dOffset, n: -1}, k+1)
		}
	case "week":
		if step == 0 {
			return span(dateExpr{kind: dOffset}, k+1)
		}
		return span(dateExpr{kind: dWeekStart, n: step}, k+1)
	case "month":
		if step == 0 {
			return span(dateExpr{kind: dOffset}, k+1)
		}
		return span(dateExpr{kind: dMonthStart, n: step}, k+1)
	case "year":
		if step == 0 {
			return span(dateExpr{kind: dOffset}, k+1)
		}
		return span(dateExpr{kind: dYearStart, n: step}, k+1)
	case "weekend":
		if step == 0 {
			return span(dateExpr{kind: dThisWeekend}, k+1)
		}
		return span(dateExpr{kind: dWeekOfWD, wd: time.Saturday, n: step}, k+1)
	}
	return dateExpr{}, 0, false
}

// weekdayOfWeek reads "<weekday> next week" (and last, this) at toks[i],
// the weekday having taken k tokens.
func weekdayOfWeek(toks []dateToken, i int, wd time.Weekday, k int) (dateExpr, int, bool) {
	w := func(j int) string { return word(toks, i+j, i) }
	if w(k+1) != "week" {
		return dateExpr{}, 0, false
	}
	step, ok := map[string]int{"last": -1, "this": 0, "next": 1}[w(k)]
	if !ok {
		return dateExpr{}, 0, false
	}
	n := k + 2
	return dateExpr{kind: dWeekOfWD, wd: wd, n: step, start: toks[i].start, end: toks[i+n-1].end}, n, true
}

// ordinalDay reads "14", "14th", "1st", "22nd", "3rd": a day from 1 to 31;
// ordinal reports that it had a suffix.
func ordinalDay(w string) (day int, ordinal bool, ok bool) {
	digits := strings.TrimRightFunc(w, unicode.IsLetter)
	suffix := w[len(digits):]
	switch suffix {
	case "", "st", "nd", "rd", "th":
	default:
		return 0, false, false
	}
	if len(digits) == 0 || len(digits) > 2 {
		return 0, false, false
	}
	d, err := strconv.Atoi(digits)
	if err != nil || d < 1 || d > 31 {
		return 0, false, false
	}
	return d, suffix != "", true
}

// year reads a four-digit year from 1900 to 2199: "December 14, 1000
// people" names no year.
func year(w string) (int, bool) {
	if len(w) != 4 {
		return 0, false
	}
	y, err := strconv.Atoi(w)
	if err != nil || y < 1900 || y > 2199 {
		return 0, false
	}
	return y, true
}

// monthAt reads a month at toks[j], which must follow the word before it
// with nothing but space in between.
func monthAt(toks []dateToken, j, start int) (time.Month, bool) {
	if w := word(toks, j, start); w != "" {
		m, ok := months[w]
		return m, ok
	}
	return 0, false
}

// followsMonth reports whether toks[j] follows a month, allowing the dot of
// an abbreviation ("Dec. 14").
func followsMonth(toks []dateToken, j int) bool {
	if j >= len(toks) {
		return false
	}
	g := toks[j].gap
	return g == "" || (g == "." && len(toks[j-1].w) <= 4)
}

// yearAfter reads ", 2027" or " 2027" after toks[j-1].
func yearAfter(toks []dateToken, j int) (int, bool) {
	if j >= len(toks) || (toks[j].gap != "" && toks[j].gap != ",") {
		return 0, false
	}
	return year(toks[j].w)
}

// absolute reads "December 14th[, 2027]", "14 December [2027]",
// "14th of December" and 2027-12-14 at toks[i].
func absolute(toks []dateToken, i int) (dateExpr, int, bool) {
	span := func(e dateExpr, n int) (dateExpr, int, bool) {
		e.start, e.end = toks[i].start, toks[i+n-1].end
		if !validMonthDay(e.year, e.month, e.day) {
			return dateExpr{}, 0, false
		}
		return e, n, true
	}
	// 2027-12-14
	if y, ok := year(toks[i].w); ok && i+2 < len(toks) && toks[i+1].gap == "-" && toks[i+2].gap == "-" &&
		!toks[i+1].spaced && !toks[i+2].spaced && len(toks[i+1].w) == 2 && len(toks[i+2].w) == 2 {
		mo, err1 := strconv.Atoi(toks[i+1].w)
		d, err2 := strconv.Atoi(toks[i+2].w)
		if err1 == nil && err2 == nil && mo >= 1 && mo <= 12 {
			return span(dateExpr{kind: dMonthDay, month: time.Month(mo), day: d, year: y}, 3)
		}
	}
	// December 14th, Dec. 14, 2027
	if m, ok := months[toks[i].w]; ok && followsMonth(toks, i+1) {
		if d, _, ok := ordinalDay(toks[i+1].w); ok {
			e := dateExpr{kind: dMonthDay, month: m, day: d}
			if y, ok := yearAfter(toks, i+2); ok {
				e.year = y
				return span(e, 3)
			}
			return span(e, 2)
		}
	}
	// 14 December 2027, 14th of December
	if d, _, ok := ordinalDay(toks[i].w); ok {
		j := i + 1
		if word(toks, j, i) == "of" {
			j++
		}
		if m, ok := monthAt(toks, j, i); ok {
			e := dateExpr{kind: dMonthDay, month: m, day: d}
			if y, ok := yearAfter(toks, j+1); ok {
				e.year = y
				return span(e, j+2-i)
			}
			return span(e, j+1-i)
		}
	}
	return dateExpr{}, 0, false
}

// theDay reads "the 14th [of December]" at toks[i] ("the").
func theDay(toks []dateToken, i int) (dateExpr, int, bool) {
	if i+1 >= len(toks) || !joined(toks, i+1) {
		return dateExpr{}, 0, false
	}
	d, ordinal, ok := ordinalDay(toks[i+1].w)
	if !ok || !ordinal {
		return dateExpr{}, 0, false
	}
	if e, n, ok := absolute(toks, i+1); ok {
		e.start = toks[i].start
		return e, n + 1, true
	}
	if i+2 < len(toks) && joined(toks, i+2) && !dayAfterThe[toks[i+2].w] {
		return dateExpr{}, 0, false // the 3rd time, the 14th century
	}
	return dateExpr{kind: dDayOnly, day: d, start: toks[i].start, end: toks[i+1].end}, 2, true
}

func validMonthDay(y int, m time.Month, d int) bool {
	if d < 1 || d > 31 {
		return false
	}
	if y == 0 {
		y = 2000 // a leap year: 29 February exists in some year
	}
	return civil(y, m, d).Day() == d
}

// resolve is the date e names, said on today (a civil date) in tense.
func (e dateExpr) resolve(today time.Time, tense Tense) (time.Time, bool) {
	past := tense == TensePast
	switch e.kind {
	case dOffset:
		return today.AddDate(0, 0, e.n), true
	case dMonths:
		return addMonths(today, e.n), true
	case dNextWD:
		return today.AddDate(0, 0, 1+daysUntil(today.AddDate(0, 0, 1).Weekday(), e.wd)), true
	case dLastWD:
		return today.AddDate(0, 0, -1-daysUntil(e.wd, today.AddDate(0, 0, -1).Weekday())), true
	case dThisWD:
		if past {
			return today.AddDate(0, 0, -daysUntil(e.wd, today.Weekday())), true
		}
		return today.AddDate(0, 0, daysUntil(today.Weekday(), e.wd)), true
	case dOnWD:
		if past {
			return today.AddDate(0, 0, -1-daysUntil(e.wd, today.AddDate(0, 0, -1).Weekday())), true
		}
		return today.AddDate(0, 0, daysUntil(today.Weekday(), e.wd)), true
	case dWeekOfWD:
		monday := weekStart(today).AddDate(0, 0, 7*e.n)
		return monday.AddDate(0, 0, daysUntil(time.Monday, e.wd)), true
	case dWeekStart:
		return weekStart(today).AddDate(0, 0, 7*e.n), true
	case dMonthStart:
		return civil(today.Year(), today.Month()+time.Month(e.n), 1), true
	case dYearStart:
		return civil(today.Year()+e.n, 1, 1), true
	case dThisWeekend:
		switch {
		case today.Weekday() == time.Saturday:
			return today, true
		case today.Weekday() == time.Sunday && past:
			return today.AddDate(0, 0, -1), true
		case today.Weekday() == time.Sunday:
			return today, true
		case past:
			return today.AddDate(0, 0, -daysUntil(time.Saturday, today.Weekday())), true
		}
		return today.AddDate(0, 0, daysUntil(today.Weekday(), time.Saturday)), true
	case dMonthDay:
		if e.year != 0 {
			return civil(e.year, e.month, e.day), true
		}
		return nearestMonthDay(today, e.month, e.day, tense)
	case dDayOnly:
		return nearestDay(today, e.day, past), true
	}
	return time.Time{}, false
}

// daysUntil is how many days from weekday a to the next b (0 when equal).
func daysUntil(a, b time.Weekday) int { return (int(b) - int(a) + 7) % 7 }

// weekStart is the Monday of t's week.
func weekStart(t time.Time) time.Time { return t.AddDate(0, 0, -daysUntil(time.Monday, t.Weekday())) }

// addMonths adds n months to a civil date, keeping the day or else taking
// the month's last day (31 January plus a month is 28 or 29 February).
func addMonths(t time.Time, n int) time.Time {
	first := civil(t.Year(), t.Month()+time.Month(n), 1)
	last := first.AddDate(0, 1, -1).Day()
	return civil(first.Year(), first.Month(), min(t.Day(), last))
}

// nearestMonthDay is the occurrence of month and day nearest to today that
// agrees with tense (see ResolveDatesTense).
func nearestMonthDay(today time.Time, m time.Month, d int, tense Tense) (time.Time, bool) {
	var next, prev time.Time
	for y := today.Year(); y <= today.Year()+8; y++ {
		if c := civil(y, m, d); c.Day() == d && !c.Before(today) {
			next = c
			break
		}
	}
	for y := today.Year(); y >= today.Year()-8; y-- {
		if c := civil(y, m, d); c.Day() == d && !c.After(today) {
			prev = c
			break
		}
	}
	switch {
	case next.IsZero() && prev.IsZero():
		return time.Time{}, false
	case tense == TensePast && !prev.IsZero(), next.IsZero():
		return prev, true
	case tense == TenseFuture, prev.IsZero(), next.Sub(today) <= 183*24*time.Hour:
		return next, true
	}
	return prev, true
}

// nearestDay is the first day-of-month d at or after today, or in the past
// the last one before today; months without that day are skipped.
func nearestDay(today time.Time, d int, past bool) time.Time {
	step := 1
	if past {
		step = -1
	}
	for k := 0; ; k += step {
		first := civil(today.Year(), today.Month()+time.Month(k), 1)
		c := civil(first.Year(), first.Month(), d)
		if c.Month() != first.Month() {
			continue
		}
		if (!past && !c.Before(today)) || (past && c.Before(today)) {
			return c
		}
	}
}

// Tense words: the nearest one to a date expression decides its tense.
var (
	pastWords = toSet("was were wasn wasnt weren werent did didn didnt had went got came saw met made took gave bought brought left ran ate won lost ago yesterday been paid said told thought found felt heard kept knew sent slept spent stood wore wrote drove flew forgot began fell sang swam")
	// subjectWords before a word in -ed make it a past: "I moved", not "I'm tired".
	subjectWords = toSet("i we they he she")
	// "ll" is the tail of "I'll", "wasn" of "wasn't"; "m" of "I'm" is left
	// out: "I'm glad I went" is past. "won" is past: "won't" is rare.
	futureWords = toSet("will ll wont going gonna is are am plan plans planning planned tomorrow next upcoming coming soon hope hoping want wants cant excited")
	// haveWords before "got" make it a present: "I've got an exam on Friday".
	haveWords = toSet("ve have has s")
)

// tenseAround guesses the tense of the expression at [start, end): the
// nearest tense word before it, else the nearest after it.
func tenseAround(toks []dateToken, start, end int) Tense {
	of := func(i int) Tense {
		w := toks[i].w
		switch {
		case w == "got" && i > 0 && haveWords[toks[i-1].w]:
			return TenseUnknown
		case pastWords[w], strings.HasSuffix(w, "ed") && len(w) > 3 && i > 0 && subjectWords[toks[i-1].w]:
			return TensePast
		case futureWords[w]:
			return TenseFuture
		}
		return TenseUnknown
	}
	first := len(toks)
	for i, t := range toks {
		if t.start >= start {
			first = i
			break
		}
	}
	for i := first - 1; i >= 0; i-- {
		if t := of(i); t != TenseUnknown {
			return t
		}
	}
	for i := first; i < len(toks); i++ {
		if toks[i].start < end {
			continue
		}
		if t := of(i); t != TenseUnknown {
			return t
		}
	}
	return TenseUnknown
}
