package extract_test

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the tests name zones; do not depend on the machine's zone database

	"github.com/mnemo-ai/mnemo/extract"
)

func zone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// tuesdayNoonBerlin is Tuesday 2026-11-24, 12:00 in Berlin.
var tuesdayNoonBerlin = time.Date(2026, 11, 24, 11, 0, 0, 0, time.UTC)

func TestResolveDates(t *testing.T) {
	t.Parallel()
	berlin := zone(t, "Europe/Berlin")
	tests := []struct {
		text, date, wording string
	}{
		// The sentence, said on a Tuesday: this week's Friday.
		{"My sister's wedding is next Friday", "2026-11-27", "next Friday"},
		{"yesterday", "2026-11-23", "yesterday"},
		{"Today was long", "2026-11-24", "Today"},
		{"we're out tonight", "2026-11-24", "tonight"},
		{"see you TOMORROW", "2026-11-25", "TOMORROW"},
		{"the day after tomorrow is free", "2026-11-26", "the day after tomorrow"},
		{"I saw her the day before yesterday", "2026-11-22", "the day before yesterday"},
		{"I slept badly last night", "2026-11-23", "last night"},
		{"I ran this morning", "2026-11-24", "this morning"},
		// Weekdays.
		{"I met him last Friday", "2026-11-20", "last Friday"},
		{"I met him last Tuesday", "2026-11-17", "last Tuesday"},
		{"it is next Tuesday", "2026-12-01", "next Tuesday"},
		{"the party is this Friday", "2026-11-27", "this Friday"},
		{"the party is this coming Monday", "2026-11-30", "this coming Monday"},
		{"I went hiking this Monday", "2026-11-23", "this Monday"},
		{"I went hiking this past Sunday", "2026-11-22", "this past Sunday"},
		{"I'm seeing her on Friday", "2026-11-27", "Friday"},
		{"I went hiking on Friday", "2026-11-20", "Friday"},
		{"my exam is on Tuesday", "2026-11-24", "Tuesday"},
		{"I went there on Tuesday", "2026-11-17", "Tuesday"},
		{"dinner is Friday next week", "2026-12-04", "Friday next week"},
		{"we met Monday last week", "2026-11-16", "Monday last week"},
		// Weeks, months, years, weekends.
		{"my exams are next week", "2026-11-30", "next week"},
		{"I was ill last week", "2026-11-16", "last week"},
		{"it is due this week", "2026-11-24", "this week"},
		{"I move next month", "2026-12-01", "next month"},
		{"I moved last month", "2026-10-01", "last month"},
		{"I retire next year", "2027-01-01", "next year"},
		{"I retired last year", "2025-01-01", "last year"},
		{"we're away next weekend", "2026-12-05", "next weekend"},
		{"we were away last weekend", "2026-11-21", "last weekend"},
		{"we're away this weekend", "2026-11-28", "this weekend"},
		{"I went camping this weekend", "2026-11-21", "this weekend"},
		// Counted.
		{"my flight is in two days", "2026-11-26", "in two days"},
		{"I start in 3 weeks", "2026-12-15", "in 3 weeks"},
		{"she arrives in a couple of days", "2026-11-26", "in a couple of days"},
		{"back in twelve days", "2026-12-06", "in twelve days"},
		{"the lease ends in a month", "2026-12-24", "in a month"},
		{"it happened two days ago", "2026-11-22", "two days ago"},
		{"I quit a week ago", "2026-11-17", "a week ago"},
		{"3 days from now it's over", "2026-11-27", "3 days from now"},
		// Named days.
		{"my birthday is on December 14th", "2026-12-14", "December 14th"},
		{"it's Dec 14", "2026-12-14", "Dec 14"},
		{"it's Dec. 14", "2026-12-14", "Dec. 14"},
		{"it's 14 December", "2026-12-14", "14 December"},
		{"it's on the 14th of December", "2026-12-14", "the 14th of December"},
		{"the wedding is December 14, 2027", "2027-12-14", "December 14, 2027"},
		{"the wedding is 14 December 2027", "2027-12-14", "14 December 2027"},
		{"the wedding is 2027-12-14", "2027-12-14", "2027-12-14"},
		{"my birthday was on March 3rd", "2026-03-03", "March 3rd"},
		{"my birthday is on March 3rd", "2027-03-03", "March 3rd"},
		{"March 3rd", "2027-03-03", "March 3rd"}, // 99 days ahead: the coming one
		{"July 4th", "2026-07-04", "July 4th"},   // 222 days ahead: the last one
		{"my appointment is on the 3rd", "2026-12-03", "the 3rd"},
		{"my appointment is on the 24th", "2026-11-24", "the 24th"},
		{"I moved in on the 3rd", "2026-11-03", "the 3rd"},
		{"I moved in on the 24th", "2026-10-24", "the 24th"},
		{"rent is due on the 31st", "2026-12-31", "the 31st"},
		{"I paid on the 31st", "2026-10-31", "the 31st"},
		// Leap days: the next one is in 2028, too far ahead without a tense.
		{"February 29", "2024-02-29", "February 29"},
		{"the party is on February 29th", "2028-02-29", "February 29th"},
		{"the party was on February 29th", "2024-02-29", "February 29th"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			got, ok := extract.ResolveDate(tt.text, tuesdayNoonBerlin, berlin)
			if !ok {
				t.Fatalf("no date found, want %s (%q)", tt.date, tt.wording)
			}
			if got.Date != tt.date || got.Wording != tt.wording {
				t.Errorf("got %s (%q), want %s (%q)", got.Date, got.Wording, tt.date, tt.wording)
			}
			if tt.text[got.Start:got.End] != got.Wording {
				t.Errorf("span [%d, %d) is %q, not the wording %q", got.Start, got.End, tt.text[got.Start:got.End], got.Wording)
			}
		})
	}
}

func TestResolveDatesFindsNoDate(t *testing.T) {
	t.Parallel()
	berlin := zone(t, "Europe/Berlin")
	for _, text := range []string{
		"",
		"I like pizza",
		"the 3rd time was the charm",
		"the 14th century was dark",
		"my birthday is 12/14", // day and month order unknown
		"it was on 3.4.",
		"I have 2 cats and a dog",
		"Fridays are fun",
		"may I ask something?",
		"December 32 is not a day",
		"February 30 neither",
		"December 14, 1000 people came", // a day, but 1000 is no year: only "December 14"
	} {
		got := extract.ResolveDates(text, tuesdayNoonBerlin, berlin)
		if text == "December 14, 1000 people came" {
			if len(got) != 1 || got[0].Wording != "December 14" {
				t.Errorf("%q: %+v, want December 14 alone", text, got)
			}
			continue
		}
		if len(got) != 0 {
			t.Errorf("%q: found %+v, want no date", text, got)
		}
	}
}

// The day is the day where the user is: the same instant is Monday the 23rd
// in Chicago and Tuesday the 24th in Berlin.
func TestResolveDatesInTheUsersZone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		zone string
		at   time.Time
		text string
		want string
	}{
		{"America/Chicago", time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC), "today", "2026-11-23"},
		{"America/Chicago", time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC), "yesterday", "2026-11-22"},
		{"America/Chicago", time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC), "My sister's wedding is next Friday", "2026-11-27"},
		{"America/Chicago", time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC), "it's next Monday", "2026-11-30"},
		{"Europe/Berlin", time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC), "it's next Monday", "2026-11-30"},
		{"Europe/Berlin", time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC), "yesterday", "2026-11-23"},
		{"Asia/Tokyo", time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC), "tomorrow", "2026-11-26"},
		{"", time.Date(2026, 11, 24, 23, 59, 0, 0, time.UTC), "tomorrow", "2026-11-25"},
		// DST starts in Berlin on Sunday 2026-03-29 (02:00 becomes 03:00).
		{"Europe/Berlin", time.Date(2026, 3, 28, 23, 30, 0, 0, time.UTC), "yesterday", "2026-03-28"},
		{"Europe/Berlin", time.Date(2026, 3, 29, 0, 30, 0, 0, time.UTC), "tomorrow", "2026-03-30"},
		{"Europe/Berlin", time.Date(2026, 3, 29, 21, 59, 0, 0, time.UTC), "today", "2026-03-29"},
		{"Europe/Berlin", time.Date(2026, 3, 29, 22, 0, 0, 0, time.UTC), "today", "2026-03-30"},
		// DST ends on Sunday 2026-10-25 (03:00 becomes 02:00): a 25-hour day.
		{"Europe/Berlin", time.Date(2026, 10, 24, 22, 30, 0, 0, time.UTC), "today", "2026-10-25"},
		{"Europe/Berlin", time.Date(2026, 10, 25, 22, 59, 0, 0, time.UTC), "today", "2026-10-25"},
		{"Europe/Berlin", time.Date(2026, 10, 25, 23, 0, 0, 0, time.UTC), "today", "2026-10-26"},
		{"America/New_York", time.Date(2026, 11, 1, 4, 30, 0, 0, time.UTC), "in a week", "2026-11-08"},
		// Samoa skipped 30 December 2011: the day after the 29th was the 31st.
		{"Pacific/Apia", time.Date(2011, 12, 30, 10, 30, 0, 0, time.UTC), "today", "2011-12-31"},
		// Month ends and leap years.
		{"UTC", time.Date(2027, 1, 31, 12, 0, 0, 0, time.UTC), "in a month", "2027-02-28"},
		{"UTC", time.Date(2028, 1, 31, 12, 0, 0, 0, time.UTC), "in a month", "2028-02-29"},
		{"UTC", time.Date(2028, 2, 29, 12, 0, 0, 0, time.UTC), "in a year", "2029-02-28"},
		{"UTC", time.Date(2028, 2, 28, 12, 0, 0, 0, time.UTC), "tomorrow", "2028-02-29"},
		{"UTC", time.Date(2027, 2, 28, 12, 0, 0, 0, time.UTC), "tomorrow", "2027-03-01"},
		{"UTC", time.Date(2026, 12, 31, 12, 0, 0, 0, time.UTC), "tomorrow", "2027-01-01"},
		{"UTC", time.Date(2026, 12, 15, 12, 0, 0, 0, time.UTC), "next month", "2027-01-01"},
		{"UTC", time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC), "last month", "2025-12-01"},
		{"UTC", time.Date(2027, 1, 1, 12, 0, 0, 0, time.UTC), "last week", "2026-12-21"},
		{"UTC", time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), "we're away this weekend", "2026-11-29"}, // a Sunday
		{"UTC", time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), "we were away this weekend", "2026-11-28"},
		{"UTC", time.Date(2027, 2, 1, 12, 0, 0, 0, time.UTC), "rent is due on the 30th", "2027-03-30"}, // February has none
	}
	for _, tt := range tests {
		loc := zone(t, tt.zone)
		got, ok := extract.ResolveDate(tt.text, tt.at, loc)
		if !ok || got.Date != tt.want {
			t.Errorf("%q at %s in %q: %+v, want %s", tt.text, tt.at.Format(time.RFC3339), tt.zone, got, tt.want)
		}
	}
}

// Real sentences from the MemoryBank corpus (MIT License, copyright 2023
// Wanjun Zhong; ../shared/corpora/memorybank), resolved against the day of
// the conversation they were said in, at noon UTC.
func TestResolveDatesCorpusSentences(t *testing.T) {
	t.Parallel()
	tests := []struct {
		day, text, date, wording string
	}{
		{"2023-04-29", "Speaking of which, I went for a run yesterday and ran into an unfamiliar place.", "2023-04-28", "yesterday"},
		{"2023-04-27", "Last weekend I went to Yuntai Mountain, and the scenery was really beautiful.", "2023-04-22", "Last weekend"},
		{"2023-05-04", "I want to go to Spain next month.", "2023-06-01", "next month"},
		{"2023-04-29", "I'm going to see a movie with my friends tonight.", "2023-04-29", "tonight"},
	}
	for _, tt := range tests {
		day, err := time.Parse(time.DateOnly, tt.day)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := extract.ResolveDate(tt.text, day.Add(12*time.Hour), time.UTC)
		if !ok || got.Date != tt.date || got.Wording != tt.wording {
			t.Errorf("%q on %s: %+v, want %s (%q)", tt.text, tt.day, got, tt.date, tt.wording)
		}
	}
}

func TestResolveDatesTenseGiven(t *testing.T) {
	t.Parallel()
	for tense, want := range map[extract.Tense]string{
		extract.TenseUnknown: "2026-07-04",
		extract.TensePast:    "2026-07-04",
		extract.TenseFuture:  "2027-07-04",
	} {
		got := extract.ResolveDatesTense("July 4th", tuesdayNoonBerlin, nil, tense)
		if len(got) != 1 || got[0].Date != want {
			t.Errorf("tense %d: %+v, want %s", tense, got, want)
		}
	}
}

func TestResolveDatesSeveral(t *testing.T) {
	t.Parallel()
	text := "I went hiking yesterday and my exam is next Friday"
	got := extract.ResolveDates(text, tuesdayNoonBerlin, zone(t, "Europe/Berlin"))
	if len(got) != 2 || got[0].Date != "2026-11-23" || got[1].Date != "2026-11-27" || got[1].Wording != "next Friday" {
		t.Errorf("%+v", got)
	}
}

func TestEndOfDate(t *testing.T) {
	t.Parallel()
	berlin := zone(t, "Europe/Berlin")
	for _, tt := range []struct {
		date string
		loc  *time.Location
		want time.Time
	}{
		{"2026-11-27", berlin, time.Date(2026, 11, 27, 23, 0, 0, 0, time.UTC)},
		{"2026-03-29", berlin, time.Date(2026, 3, 29, 22, 0, 0, 0, time.UTC)},  // 23-hour day
		{"2026-10-25", berlin, time.Date(2026, 10, 25, 23, 0, 0, 0, time.UTC)}, // 25-hour day
		{"2026-11-23", zone(t, "America/Chicago"), time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)},
		{"2028-02-28", nil, time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC)},
	} {
		got, ok := extract.EndOfDate(tt.date, tt.loc)
		if !ok || !got.Equal(tt.want) {
			t.Errorf("EndOfDate(%s, %v) = %v, want %v", tt.date, tt.loc, got, tt.want)
		}
	}
	for _, bad := range []string{"", "2026-02-30", "next Friday", "2026-1-1"} {
		if _, ok := extract.EndOfDate(bad, nil); ok || extract.ValidDate(bad) {
			t.Errorf("%q accepted as a date", bad)
		}
	}
}

var fuzzZones = []string{"UTC", "Europe/Berlin", "America/Chicago", "Asia/Tokyo", "Asia/Kolkata", "Pacific/Chatham", "Pacific/Apia", "Pacific/Kiritimati", "America/St_Johns"}

// minFuzzUnix and fuzzSpan bound the reference instants: 1900 to 2200.
var (
	minFuzzUnix = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	fuzzSpan    = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).Unix() - minFuzzUnix
)

func FuzzResolveDate(f *testing.F) {
	for _, s := range []string{
		"My sister's wedding is next Friday",
		"I went for a run yesterday and ran into an unfamiliar place",
		"in a couple of days, the day after tomorrow, 3 weeks ago",
		"on December 14th, Dec. 14, 2027, 14 December 2027, 2027-12-14",
		"the 31st of February, the 3rd, the 3rd time",
		"this past weekend, next weekend, Friday next week",
		"in 9999 days, 5000 weeks from now",
	} {
		f.Add(s, tuesdayNoonBerlin.Unix(), uint8(1))
	}
	locs := make([]*time.Location, len(fuzzZones))
	for i, z := range fuzzZones {
		locs[i] = zone(f, z)
	}
	f.Fuzz(func(t *testing.T, text string, unix int64, z uint8) {
		if unix < 0 {
			unix = -(unix + 1)
		}
		ref := time.Unix(minFuzzUnix+unix%fuzzSpan, 0)
		loc := locs[int(z)%len(locs)]
		got := extract.ResolveDates(text, ref, loc)
		end := 0
		for _, m := range got {
			if !extract.ValidDate(m.Date) {
				t.Errorf("%q: date %q is not YYYY-MM-DD", m.Wording, m.Date)
			}
			if _, ok := extract.EndOfDate(m.Date, loc); !ok {
				t.Errorf("%q: date %q has no end", m.Wording, m.Date)
			}
			if m.Start < end || m.End <= m.Start || m.End > len(text) || text[m.Start:m.End] != m.Wording {
				t.Fatalf("mention %+v does not lie in order within the text", m)
			}
			if strings.TrimSpace(m.Wording) != m.Wording {
				t.Errorf("wording %q is not trimmed", m.Wording)
			}
			end = m.End
		}
	})
}

// TestResolveDatesWithinRange: a date the user's words name is kept only
// within extract.DateRange of when it was said (issue 22 item 6), as a
// model's dates are.
func TestResolveDatesWithinRange(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"the launch is on December 14, 2199": "",
		"we married on 14 December 1901":     "",
		"the lease ends on 2036-11-24":       "2036-11-24",
		"in 10 years I retire":               "2036-11-24",
		"my father was born 1926-11-24":      "1926-11-24",
		"my grandfather was born 1926-11-23": "",
	} {
		got, ok := extract.ResolveDate(text, tuesdayNoonBerlin, time.UTC)
		if (want == "" && ok) || (want != "" && got.Date != want) {
			t.Errorf("%q: %+v, %v; want %q", text, got, ok, want)
		}
	}
	first, last := extract.DateRange(tuesdayNoonBerlin, tuesdayNoonBerlin.Add(time.Hour), nil)
	if first.Format(time.DateOnly) != "1926-11-24" || last.Format(time.DateOnly) != "2036-11-24" {
		t.Errorf("DateRange = %s to %s", first, last)
	}
	for _, d := range []string{"9999-12-31", "0001-01-01", "2036-11-25", "1926-11-23", "2026-02-30"} {
		if extract.DateInRange(d, tuesdayNoonBerlin, tuesdayNoonBerlin, nil) {
			t.Errorf("%s is in range", d)
		}
	}
}
