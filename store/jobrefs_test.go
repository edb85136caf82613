package store

import (
	"encoding/json"
	"slices"
	"testing"
)

// FuzzDecodeJobRefs: whatever an erasure row holds, DecodeJobRefs answers
// refs or an error, never panics; what it accepts encodes and decodes again
// to the same ids.
func FuzzDecodeJobRefs(f *testing.F) {
	f.Add("")
	f.Add(EncodeJobRefs(JobRefs{UserID: "u-1", SessionIDs: []string{"s-1", "s-2"}, ExportIDs: []string{"e-1"}}))
	f.Add(`{"user_id":"u","session_ids":null}`)
	f.Add(`{"session_ids":[1]}`)
	f.Add(`[]`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, s string) {
		r, err := DecodeJobRefs(s)
		if err != nil {
			return
		}
		if s == "" {
			if r != nil {
				t.Fatalf("empty refs decoded to %+v", r)
			}
			return
		}
		if r == nil || r.SessionIDs == nil || r.ExportIDs == nil {
			t.Fatalf("decoded %q to %+v: want non-nil lists", s, r)
		}
		again, err := DecodeJobRefs(EncodeJobRefs(*r))
		if err != nil || again == nil || !slices.Equal(again.All(), r.All()) {
			t.Fatalf("round trip of %+v = %+v, %v", r, again, err)
		}
	})
}

// FuzzNamesAnyToken: the one-pass, set-based token test the scrub uses
// answers as namesToken, the definition, does, for any text and id.
func FuzzNamesAnyToken(f *testing.F) {
	for _, c := range [][2]string{{"session s-1: gone", "s-1"}, {"s-10", "s-1"}, {"kind=export", "e"}, {"u-e", "e"},
		{"erased e.", "e"}, {"e-mail", "e"}, {`"e"`, "e"}, {"user_id=e", "e"}, {"a--", "a-"}, {"x.y.", "x.y"}, {"", "a"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, text, id string) {
		if id == "" {
			return
		}
		for i := 0; i < len(id); i++ {
			if !idByte(id[i]) {
				return // ids are made of id bytes (handoff.ValidID)
			}
		}
		want := namesToken(text, []string{id})
		if got := namesAnyToken(text, map[string]bool{id: true}); got != want {
			t.Fatalf("namesAnyToken(%q, %q) = %v; namesToken says %v", text, id, got, want)
		}
	})
}

// FuzzJSONNamesAny: the scrub's shortcut (a document whose text names none
// of the ids is not decoded) answers as decoding every document does.
func FuzzJSONNamesAny(f *testing.F) {
	for _, c := range [][2]string{{`{"river:log":[{"attempt":1,"log":"session s-1: gone"}]}`, "s-1"}, {`{"s-1":"x"}`, "s-1"},
		{`["line\ns-1"]`, "s-1"}, {`["\u0073-1"]`, "s-1"}, {`{"a":1}`, ":1"}, {`not json s-1`, "s-1"}, {`["e-mail"]`, "e"}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, doc, id string) {
		if id == "" {
			return
		}
		for i := 0; i < len(id); i++ {
			if !idByte(id[i]) {
				return
			}
		}
		ids := map[string]bool{id: true}
		want := false
		var v any
		if doc == "" {
			want = false
		} else if err := json.Unmarshal([]byte(doc), &v); err != nil {
			want = namesAnyToken(doc, ids)
		} else {
			want = walkStrings(v, func(s string) bool { return namesAnyToken(s, ids) })
		}
		if got := jsonNamesAny(doc, ids); got != want {
			t.Fatalf("jsonNamesAny(%q, %q) = %v; decoding says %v", doc, id, got, want)
		}
	})
}
