package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
)

// helpSetting is one setting as `worker --help` prints it.
type helpSetting struct{ flag, def string }

// helpLine is a setting's line in --help: "  --flag / ENV (default X)".
var helpLine = regexp.MustCompile(`(?m)^  --([a-z0-9-]+) / ([A-Z0-9_]+) \(default (.*)\)$`)

// TestReadmeConfigurationListsEverySetting: every setting `worker --help`
// lists is a row of the README's Configuration table with its flag and
// default, and the table holds no setting --help does not list, so that
// the two cannot drift apart.
func TestReadmeConfigurationListsEverySetting(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, mapEnv(nil), strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("--help exit %d: %s", code, errOut.String())
	}
	help := map[string]helpSetting{}
	for _, m := range helpLine.FindAllStringSubmatch(out.String(), -1) {
		def := m[3]
		if def == `""` {
			def = ""
		}
		help[m[2]] = helpSetting{flag: m[1], def: def}
	}
	if len(help) != len(settings) {
		t.Fatalf("read %d settings from --help; the settings table has %d (has the format of --help changed?)", len(help), len(settings))
	}

	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := configRows(t, string(readme))
	for env, h := range help {
		cells, ok := rows[env]
		if !ok {
			t.Errorf("README.md, Configuration: no row for %s (--%s), which --help lists", env, h.flag)
			continue
		}
		if want := "`--" + h.flag + "`"; cells[1] != want {
			t.Errorf("README.md, Configuration, %s: flag %s; --help says %s", env, cells[1], want)
		}
		switch def := cells[2]; {
		case h.def == "" && def != "empty" && def != "derived":
			t.Errorf("README.md, Configuration, %s: default %s; --help says none (write empty, or derived)", env, def)
		case h.def != "" && def != "`"+h.def+"`":
			t.Errorf("README.md, Configuration, %s: default %s; --help says `%s`", env, def, h.def)
		}
	}
	for env := range rows {
		if _, ok := help[env]; !ok {
			t.Errorf("README.md, Configuration: a row for %s, which --help does not list", env)
		}
	}
}

// configRows reads the table of the README's Configuration section: its
// cells by environment variable.
func configRows(t *testing.T, readme string) map[string][]string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Configuration\n")
	if !ok {
		t.Fatal("README.md has no Configuration section")
	}
	if i := strings.Index(section, "\n#"); i >= 0 {
		section = section[:i]
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		// Cells are separated by " | "; an escaped pipe (\|) inside a cell has no spaces around it.
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 4 {
			t.Fatalf("README.md, Configuration: a row of %d cells, want 4: %s", len(cells), line)
		}
		env := strings.Trim(cells[0], "`")
		if _, dup := rows[env]; dup {
			t.Errorf("README.md, Configuration: two rows for %s", env)
		}
		rows[env] = cells
	}
	if len(rows) == 0 {
		t.Fatal("README.md, Configuration: no table rows")
	}
	return rows
}
