package store

import (
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
