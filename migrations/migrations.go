// Package migrations embeds Mnemo's schema migrations, one directory per
// database dialect. Files are named NNNN_name.up.sql and NNNN_name.down.sql;
// the store applies each with its version row in one transaction.
package migrations

import "embed"

// FS holds postgres/*.sql and sqlite/*.sql.
//
//go:embed postgres/*.sql sqlite/*.sql
var FS embed.FS
