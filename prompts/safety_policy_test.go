package prompts_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mnemo-ai/mnemo/prompts"
)

// special_categories and risk_webhook are checked at load, the error
// naming the folder and policy.json.
func TestLoadDirRefusesBadSafetyPolicy(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, old, new, want string
	}{
		{"unknown special policy", `"special_categories": "drop"`, `"special_categories": "forget"`, `"forget" is not one of drop, keep, keep_sealed`},
		{"sealed without a transcript", `"special_categories": "drop"`, `"special_categories": "keep_sealed"`, "needs a \"transcript_retention\" above 0s"},
		{"webhook not a URL", `"risk_webhook": ""`, `"risk_webhook": "hooks.example.com/risk"`, "not an http(s) URL"},
		{"webhook other scheme", `"risk_webhook": ""`, `"risk_webhook": "ftp://hooks.example.com/risk"`, "not an http(s) URL"},
		{"webhook with credentials", `"risk_webhook": ""`, `"risk_webhook": "https://user:pw@hooks.example.com/risk"`, "without credentials"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			dir := copyBuiltin(t, root, "mona")
			editPolicy(tt.old, tt.new)(dir)
			_, err := prompts.LoadDir(root)
			var le *prompts.LoadError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *LoadError", err)
			}
			for _, want := range []string{dir, "policy.json", tt.want} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}

	root := t.TempDir()
	dir := copyBuiltin(t, root, "mona")
	editPolicy(`"risk_webhook": ""`, `"risk_webhook": "https://hooks.example.com/risk?k=1"`)(dir)
	apps, err := prompts.LoadDir(root)
	if err != nil || apps["mona"].Policy.RiskWebhook != "https://hooks.example.com/risk?k=1" {
		t.Fatalf("%v %v", apps, err)
	}
}

func TestBuiltinSpecialCategories(t *testing.T) {
	apps, err := prompts.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"mona": "drop", "lara": "drop", "clara": "keep", "eldertree": "keep", "coach": "keep_sealed"} {
		if got := apps[name].Policy.SpecialCategories; got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
