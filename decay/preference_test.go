package decay_test

import (
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/decay"
	"github.com/mnemo-ai/mnemo/extract"
)

func TestPreference(t *testing.T) {
	t.Parallel()
	ago := func(days int) string { return ts(now.Add(-time.Duration(days) * day)) }
	const unused = 180
	tests := []struct {
		name string
		rec  extract.Record
		p    decay.Policy
		want bool
	}{
		{"seen yesterday", preference("likes:dinosaurs", ago(400), ago(1)), decay.DefaultPolicy(), false},
		{"6 months minus a day", preference("likes:dinosaurs", ago(400), ago(unused-1)), decay.DefaultPolicy(), false},
		{"exactly 180 days (kept)", preference("likes:dinosaurs", ago(400), ago(unused)), decay.DefaultPolicy(), false},
		{"180 days and a second", preference("likes:dinosaurs", ago(400), ts(now.Add(-unused*day-time.Second))), decay.DefaultPolicy(), true},
		{"6 months plus a day", preference("likes:dinosaurs", ago(400), ago(unused+1)), decay.DefaultPolicy(), true},
		{"dislike unused for a year", preference("dislikes:loud_noises", ago(400), ago(365)), decay.DefaultPolicy(), true},
		{"favorite unused for a year", preference("favorite_color", ago(400), ago(365)), decay.DefaultPolicy(), true},
		{"no last_seen, old first_seen", preference("likes:dinosaurs", ago(200), nil), decay.DefaultPolicy(), true},
		{"no last_seen, recent first_seen", preference("likes:dinosaurs", ago(20), nil), decay.DefaultPolicy(), false},
		{"last_seen later than now", preference("likes:dinosaurs", ago(400), ts(now.Add(day))), decay.DefaultPolicy(), false},
		{"last_seen not RFC 3339", preference("likes:dinosaurs", ago(400), "last spring"), decay.DefaultPolicy(), false},
		{"last_seen a date only", preference("likes:dinosaurs", ago(400), "2024-01-01"), decay.DefaultPolicy(), false},
		{"last_seen a number", preference("likes:dinosaurs", ago(400), 1700000000), decay.DefaultPolicy(), false},
		{"bad last_seen, old first_seen", preference("likes:dinosaurs", ago(400), ""), decay.DefaultPolicy(), false},
		{"no dates at all", preference("likes:dinosaurs", nil, nil), decay.DefaultPolicy(), false},
		{"bad first_seen only", preference("likes:dinosaurs", "yesterday", nil), decay.DefaultPolicy(), false},
		{"shorter policy", preference("likes:dinosaurs", ago(400), ago(31)), decay.Policy{PreferenceUnused: 30 * day}, true},
		{"learning record", func() extract.Record { r := learning(3, 400*day); return r }(), decay.DefaultPolicy(), false},
		{"a delete already", func() extract.Record {
			r := preference("likes:dinosaurs", ago(400), ago(365))
			r.Delete = true
			return r
		}(), decay.DefaultPolicy(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := preferenceRemoved(tt.rec, now, tt.p); got != tt.want {
				t.Fatalf("Preference(%s) = %v, want %v", jsonOf(t, tt.rec.Data), got, tt.want)
			}
		})
	}
}
