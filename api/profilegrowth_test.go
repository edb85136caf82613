package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/store"
	"github.com/mnemo-ai/mnemo/store/storetest"
)

// TestNullPatchesDoNotGrowTheProfile (issue 34 §5): 200 PATCHes of 256 new
// null fields, names the app's schema does not hold, were accepted, each
// null kept as a statement of its own: the profile's statements reached
// 10 MB and each PATCH took seconds. Now, on both databases:
//   - an app that declares its profile fields (Elder Tree) refuses a field
//     it does not declare, null or not, with a 422 naming it, and keeps
//     nothing;
//   - an app that declares none (Mona) keeps nothing of a null for a field
//     its profile neither holds nor ever stated: no statement, no version;
//   - fields set and then removed keep a removal marker each, at most
//     MNEMO_PROFILE_MAX_FIELDS of them, the newest removals kept.
func TestNullPatchesDoNotGrowTheProfile(t *testing.T) {
	t.Parallel()
	for _, b := range storetest.Backends(t) {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv, st, _ := setupAPIWith(t, b, func(_ *api.Config, data *api.Data) {
				data.Profile = api.ProfileLimits{MaxFields: 64}
			})
			for _, c := range []string{body, elderClose} {
				if rec := call(srv, "POST", "/v1/sessions/s-"+fmt.Sprint(len(c))+"/close", c, "application/json"); rec.Code != 202 {
					t.Fatalf("close: %d %s", rec.Code, rec.Body)
				}
			}
			patch := func(user string, fields map[string]any) (int, string) {
				raw, _ := json.Marshal(fields)
				rec := call(srv, "PATCH", "/v1/users/"+user+"/profile", string(raw), "application/merge-patch+json")
				return rec.Code, rec.Body.String()
			}
			nulls := func(prefix string, n int) map[string]any {
				m := map[string]any{}
				for i := range n {
					m[fmt.Sprintf("%s_%03d", prefix, i)] = nil
				}
				return m
			}
			profile := func(user string) (store.Profile, map[string]store.FieldStatement, int) {
				p, err := st.GetProfile(ctx, user)
				if err != nil {
					t.Fatalf("profile of %s: %v", user, err)
				}
				var stated map[string]store.FieldStatement
				if len(p.Stated) > 0 {
					if err := json.Unmarshal(p.Stated, &stated); err != nil {
						t.Fatal(err)
					}
				}
				removed := 0
				for _, e := range stated {
					if e.Removed {
						removed++
					}
				}
				return p, stated, removed
			}

			// Elder Tree: a field it does not declare is refused, null or not.
			if code, got := patch("u-e", map[string]any{"sponsor_name": "Dave"}); code != 200 {
				t.Fatalf("a declared field = %d %s", code, got)
			}
			before, _, _ := profile("u-e")
			for _, p := range []map[string]any{{"favourite_colour": nil}, {"sponsor_name": nil, "zz_made_up": nil}, nulls("ghost", 64)} {
				code, got := patch("u-e", p)
				if code != 422 || !strings.Contains(got, "is not one of eldertree's profile fields") {
					t.Errorf("Elder Tree, %d undeclared nulls = %d %s; want 422 naming the field", len(p), code, got)
				}
			}
			if _, got := patch("u-e", map[string]any{"zz_made_up": nil}); !strings.Contains(got, "zz_made_up: is not one of") {
				t.Errorf("the refusal does not name the field: %s", got)
			}
			if after, _, _ := profile("u-e"); after.Version != before.Version || string(after.Stated) != string(before.Stated) {
				t.Errorf("refused patches wrote Elder Tree's profile: version %d → %d", before.Version, after.Version)
			}
			// Its declared field's removal is kept as before.
			if code, got := patch("u-e", map[string]any{"sponsor_name": nil}); code != 200 {
				t.Fatalf("removing a declared field = %d %s", code, got)
			}
			if _, stated, removed := profile("u-e"); removed != 1 || !stated["sponsor_name"].Removed {
				t.Errorf("Elder Tree's removal marker: %d removed, %+v", removed, stated["sponsor_name"])
			}

			// Mona: 20 PATCHes of 64 new nulls each keep nothing.
			if code, got := patch("u-1", map[string]any{"pronouns": "he/him"}); code != 200 {
				t.Fatalf("a field = %d %s", code, got)
			}
			before, _, _ = profile("u-1")
			for i := range 20 {
				if code, got := patch("u-1", nulls(fmt.Sprintf("n%02d", i), 64)); code != 200 {
					t.Fatalf("PATCH %d of 64 nulls = %d %s", i, code, got)
				}
			}
			after, stated, _ := profile("u-1")
			if after.Version != before.Version || len(stated) != 1 {
				t.Errorf("20 PATCHes of 64 new nulls: version %d → %d, %d statements (%d bytes); want no new version and the one field's statement",
					before.Version, after.Version, len(stated), len(after.Stated))
			}
			history, err := st.ListProfileHistory(ctx, "u-1")
			if err != nil || len(history) != 1 {
				t.Errorf("profile history: %d versions, %v; want the one that set a field", len(history), err)
			}

			// Mona: three rounds of setting 64 new fields and removing them
			// keep the markers of the last 64 removals only.
			for r := range 3 {
				set := map[string]any{}
				for k := range nulls(fmt.Sprintf("r%d", r), 63) {
					set[k] = "x"
				}
				if code, got := patch("u-1", set); code != 200 {
					t.Fatalf("round %d, set = %d %s", r, code, got)
				}
				if code, got := patch("u-1", nulls(fmt.Sprintf("r%d", r), 63)); code != 200 {
					t.Fatalf("round %d, remove = %d %s", r, code, got)
				}
			}
			p, stated, removed := profile("u-1")
			if removed != 64 || len(stated) != 65 {
				t.Errorf("after 189 fields set and removed: %d removal markers, %d statements; want 64 and 65", removed, len(stated))
			}
			for i := range 63 {
				if f := fmt.Sprintf("r2_%03d", i); !stated[f].Removed {
					t.Errorf("the newest removal %s lost its marker", f)
				}
			}
			if !strings.Contains(string(p.Doc), "he/him") {
				t.Errorf("the profile lost its field: %s", p.Doc)
			}
		})
	}
}
