package main

import (
	"fmt"
	"strings"
)

// The settings table of docs/configuration.md is written from the settings
// slice, the one table the flags, the environment and --help read, so that
// the reference cannot drift from the binary. Rewrite it with
//
//	go generate ./cmd/worker
//
// (TestConfigurationReference fails while it is stale).
//
//go:generate go test -run ^TestConfigurationReference$ -update .

// Markers around the generated table in docs/configuration.md; the prose
// before and after them is written by hand.
const (
	settingsBegin = "<!-- settings: generated from cmd/worker/config.go by `go generate ./cmd/worker`; do not edit by hand -->\n"
	settingsEnd   = "<!-- end of settings -->\n"
)

// settingsMarkdown is the reference table: one row per setting, in the
// order of the settings slice, with its variable, flag, default and help.
func settingsMarkdown() string {
	var b strings.Builder
	b.WriteString("| variable | flag | default | meaning |\n| --- | --- | --- | --- |\n")
	for _, s := range settings {
		def := "empty"
		if s.def != "" {
			def = "`" + s.def + "`"
		}
		fmt.Fprintf(&b, "| `%s` | `--%s` | %s | %s |\n", s.env, s.flag, def, markdownCell(s.help))
	}
	return b.String()
}

// markdownCell keeps a help text inside one table cell: pipes escaped,
// line breaks folded.
func markdownCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}
