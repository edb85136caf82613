package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/store"
)

func init() {
	cases = append(cases, sealCases...)
}

// fakeSealer "seals" by reversing the text and prefixing the key and the
// row, so that the tests see what is stored without real cryptography
// (package jobs tests the real one). Like the real one, which asks each
// app's policy (seal_derived), it seals the apps it is given: here
// sealedApps.
type fakeSealer struct{ key string }

// sealedApp is the app whose policy, in these cases, seals derived data;
// plainApp's policy does not. sealedApps lists the apps the fake seals.
const sealedApp, plainApp = appB, appE

var sealedApps = []string{sealedApp}

func (f *fakeSealer) Sealed(app string) bool { return slices.Contains(sealedApps, app) }

func (f *fakeSealer) Seal(id string, plaintext []byte) (string, error) {
	r := []rune(string(plaintext))
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return store.EncodeSealed([]byte(f.key + "|" + id + "|" + string(r))), nil
}

func (f *fakeSealer) Open(id string, sealed string) ([]byte, error) {
	b, err := store.DecodeSealed(sealed)
	if err != nil {
		return nil, err
	}
	parts := strings.SplitN(string(b), "|", 3)
	if len(parts) != 3 || parts[1] != id {
		return nil, errors.New("sealed for another row")
	}
	r := []rune(parts[2])
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return []byte(string(r)), nil
}

func (f *fakeSealer) Stale(sealed string) bool {
	b, err := store.DecodeSealed(sealed)
	return err == nil && !strings.HasPrefix(string(b), f.key+"|")
}

var sealCases = []testCase{
	{"SealedAppsDerivedDataIsSealedAtRestAndOpenOnRead", func(t *testing.T, s store.Store) {
		setter, ok := s.(interface{ SetSealer(store.Sealer) })
		if !ok {
			t.Fatal("the store cannot be given a sealer")
		}
		ctx := context.Background()
		sealer := &fakeSealer{key: "k1"}
		setter.SetSealer(sealer)
		defer setter.SetSealer(nil)

		must(t, s.UpsertUser(ctx, store.User{ID: "u-c", App: sealedApp, DisplayName: "Philippa", Timezone: "UTC", CreatedAt: T0, UpdatedAt: T0}))
		must(t, s.UpsertUser(ctx, store.User{ID: "u-m", App: plainApp, DisplayName: "Meg O'Hara", Timezone: "UTC", CreatedAt: T0, UpdatedAt: T0}))
		must(t, s.CreateSession(ctx, store.Session{ID: "s-c", UserID: "u-c", App: sealedApp, Status: store.StatusClosed,
			StartedAt: T0, EndedAt: T0, UpdatedAt: T0}))
		must(t, s.InTx(ctx, func(ctx context.Context, tx store.Tx) error {
			if err := tx.UpsertSummary(ctx, store.Summary{SessionID: "s-c", PromptVersion: "v1", UserID: "u-c", App: sealedApp,
				Source: "rules", Data: json.RawMessage(`{"recognition_moment":"I stay quiet"}`), CreatedAt: T0}); err != nil {
				return err
			}
			return tx.SaveProfile(ctx, store.Profile{UserID: "u-c", App: sealedApp, Doc: json.RawMessage(`{"goals":["speak up"]}`), Version: 1, UpdatedAt: T0},
				store.ProfileChange{Changed: json.RawMessage(`{"goals":["speak up"]}`), Actor: "extraction", SessionID: "s-c", At: T0})
		}))

		// Read back through the store: plaintext, for both apps.
		if u, err := s.GetUser(ctx, "u-c"); err != nil || u.DisplayName != "Philippa" {
			t.Fatalf("sealed app's user = %+v, %v", u, err)
		}
		if u, err := s.GetUser(ctx, "u-m"); err != nil || u.DisplayName != "Meg O'Hara" {
			t.Fatalf("plain app's user = %+v, %v", u, err)
		}
		sum, err := s.GetSummary(ctx, "s-c")
		if err != nil || !strings.Contains(string(sum.Data), "I stay quiet") {
			t.Fatalf("summary = %s, %v", sum.Data, err)
		}
		if sums, err := s.ListSummaries(ctx, "u-c", 5); err != nil || len(sums) != 1 || !strings.Contains(string(sums[0].Data), "quiet") {
			t.Fatalf("summaries = %v, %v", sums, err)
		}
		if p, err := s.GetProfile(ctx, "u-c"); err != nil || !strings.Contains(string(p.Doc), "speak up") {
			t.Fatalf("profile = %s, %v", p.Doc, err)
		}
		hist, err := s.ListProfileHistory(ctx, "u-c")
		if err != nil || len(hist) != 1 || !strings.Contains(string(hist[0].Doc), "speak up") || !strings.Contains(string(hist[0].Changed), "speak up") {
			t.Fatalf("history = %v, %v", hist, err)
		}

		// A plaintext app's value that merely looks sealed is the user's own.
		lookalike := json.RawMessage(`{"sealed":"sealed:v1:not-a-sealed-value"}`)
		must(t, s.SaveProfile(ctx, store.Profile{UserID: "u-m", App: plainApp, Doc: lookalike, Version: 1, UpdatedAt: T0},
			store.ProfileChange{Changed: lookalike, Actor: "user", At: T0}))
		if p, err := s.GetProfile(ctx, "u-m"); err != nil || !strings.Contains(string(p.Doc), "not-a-sealed-value") {
			t.Fatalf("a plain app's profile that looks sealed = %s, %v; want it as stored", p.Doc, err)
		}
		if h, err := s.ListProfileHistory(ctx, "u-m"); err != nil || len(h) != 1 || !strings.Contains(string(h[0].Changed), "not-a-sealed-value") {
			t.Fatalf("its history = %v, %v", h, err)
		}

		// Without the sealer, nothing of the sealed app's user opens; the plain app's does.
		setter.SetSealer(nil)
		if _, err := s.GetSummary(ctx, "s-c"); err == nil {
			t.Error("the sealed app's summary opened without a sealer: it is stored in plaintext")
		}
		if _, err := s.GetProfile(ctx, "u-c"); err == nil {
			t.Error("the sealed app's profile opened without a sealer")
		}
		if _, err := s.GetUser(ctx, "u-c"); err == nil {
			t.Error("the sealed app's display name opened without a sealer")
		}
		if u, err := s.GetUser(ctx, "u-m"); err != nil || u.DisplayName != "Meg O'Hara" {
			t.Errorf("the plain app's user without a sealer = %+v, %v", u, err)
		}

		// A new key: reseal moves every sealed value to it, and they open.
		rotated := &fakeSealer{key: "k2"}
		setter.SetSealer(rotated)
		r, ok := s.(store.Resealer)
		if !ok {
			t.Fatal("the store cannot reseal")
		}
		n, err := r.ResealDerived(ctx)
		must(t, err)
		if n != 7 { // summary, profile, display name, four history columns
			t.Errorf("resealed %d values; want 7", n)
		}
		if n, err := r.ResealDerived(ctx); err != nil || n != 0 {
			t.Errorf("a second reseal did %d, %v; want nothing", n, err)
		}
		if p, err := s.GetProfile(ctx, "u-c"); err != nil || !strings.Contains(string(p.Doc), "speak up") {
			t.Fatalf("profile after reseal = %s, %v", p.Doc, err)
		}
		if u, err := s.GetUser(ctx, "u-c"); err != nil || u.DisplayName != "Philippa" {
			t.Fatalf("user after reseal = %+v, %v", u, err)
		}
	}},
}
