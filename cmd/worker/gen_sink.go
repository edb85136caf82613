package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemo-ai/mnemo/store"
)

// The sinks write gen's rows straight to the database, beside the store:
// COPY is what makes a million rows a matter of seconds, and no Querier
// method copies. They write the columns as the store does (its SQLite
// time layout, JSON as text, booleans as 0 and 1 on SQLite; River's own
// time layout and JSONB for river_job there).

// templateJobs reads River's finished jobs from the template's scratch
// database (SQLite) and groups them by the session their arguments name.
// River may not have marked them completed yet: it does so in batches
// after the work is done; gen writes them completed.
func templateJobs(ctx context.Context, st store.Store, sessionIDs []string) (map[string][]genTplJob, error) {
	db, ok := st.Raw().(*sql.DB)
	if !ok {
		return nil, fmt.Errorf("the template database is not SQLite")
	}
	rows, err := db.QueryContext(ctx, `SELECT kind, queue, json(args), json(metadata), max_attempts, priority
		FROM river_job ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]genTplJob{}
	for rows.Next() {
		var j genTplJob
		if err := rows.Scan(&j.kind, &j.queue, &j.args, &j.meta, &j.maxAttempts, &j.priority); err != nil {
			return nil, err
		}
		j.attemptDelay = 50 * time.Millisecond
		for _, id := range sessionIDs {
			if strings.Contains(j.args, `"`+id+`"`) {
				out[id] = append(out[id], j)
				break
			}
		}
	}
	return out, rows.Err()
}

// pgSink writes with COPY (River's jobs, whose state is an enum, with
// multi-row INSERTs), one transaction per flush.
type pgSink struct {
	pool *pgxpool.Pool
	rows [][][]any
}

func newPGSink(_ context.Context, st store.Store) (*pgSink, error) {
	pool, ok := st.Raw().(*pgxpool.Pool)
	if !ok {
		return nil, fmt.Errorf("not a Postgres pool")
	}
	return &pgSink{pool: pool, rows: make([][][]any, len(genTables))}, nil
}

func (s *pgSink) add(t int, row []any) {
	for i, v := range row {
		if j, ok := v.(json.RawMessage); ok {
			row[i] = string(j)
		}
	}
	s.rows[t] = append(s.rows[t], row)
}

func (s *pgSink) flush(ctx context.Context) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for t, rows := range s.rows {
			if len(rows) == 0 {
				continue
			}
			tab := genTables[t]
			if tab.name == "river_job" {
				per := 60000 / len(tab.cols)
				for i := 0; i < len(rows); i += per {
					part := rows[i:min(len(rows), i+per)]
					var b strings.Builder
					args := make([]any, 0, len(part)*len(tab.cols))
					fmt.Fprintf(&b, "INSERT INTO river_job (%s) VALUES ", strings.Join(tab.cols, ", "))
					for r, row := range part {
						if r > 0 {
							b.WriteString(", ")
						}
						b.WriteString("(")
						for c := range tab.cols {
							if c > 0 {
								b.WriteString(", ")
							}
							fmt.Fprintf(&b, "$%d", len(args)+1)
							switch tab.cols[c] {
							case "state":
								b.WriteString("::river_job_state")
							case "args", "metadata":
								b.WriteString("::jsonb")
							}
							args = append(args, row[c])
						}
						b.WriteString(")")
					}
					if _, err := tx.Exec(ctx, b.String(), args...); err != nil {
						return fmt.Errorf("insert river_job: %w", err)
					}
				}
				n += int64(len(rows))
				continue
			}
			c, err := tx.CopyFrom(ctx, pgx.Identifier{tab.name}, tab.cols, pgx.CopyFromRows(rows))
			if err != nil {
				return fmt.Errorf("copy %s: %w", tab.name, err)
			}
			n += c
		}
		return nil
	})
	for t := range s.rows {
		s.rows[t] = s.rows[t][:0]
	}
	return n, err
}

func (s *pgSink) nextJobID(ctx context.Context) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT GREATEST((SELECT COALESCE(max(id), 0) FROM river_job),
		(SELECT last_value FROM river_job_id_seq)) + 1`).Scan(&n)
	return n, err
}

// finish moves River's id sequence past the ids gen used and analyses
// the tables written, as autovacuum would soon after such a load.
func (s *pgSink) finish(ctx context.Context, next int64, written map[string]int64) error {
	if _, err := s.pool.Exec(ctx, `SELECT setval('river_job_id_seq', GREATEST($1::bigint - 1, (SELECT last_value FROM river_job_id_seq)))`, next); err != nil {
		return err
	}
	for _, t := range genTables {
		if written[t.name] == 0 {
			continue
		}
		if _, err := s.pool.Exec(ctx, "ANALYZE "+t.name); err != nil {
			return err
		}
	}
	return nil
}

// sqliteSink writes multi-row INSERTs, one transaction per flush.
type sqliteSink struct {
	db   *sql.DB
	rows [][][]any
}

func newSQLiteSink(_ context.Context, st store.Store) (*sqliteSink, error) {
	db, ok := st.Raw().(*sql.DB)
	if !ok {
		return nil, fmt.Errorf("not a SQLite database")
	}
	return &sqliteSink{db: db, rows: make([][][]any, len(genTables))}, nil
}

// sqliteTime is the store's SQLite time layout; riverTime River's.
const (
	genSQLiteTime = "2006-01-02T15:04:05.000000Z"
	genRiverTime  = "2006-01-02 15:04:05.000"
)

func (s *sqliteSink) add(t int, row []any) {
	layout := genSQLiteTime
	if genTables[t].name == "river_job" {
		layout = genRiverTime
	}
	for i, v := range row {
		switch x := v.(type) {
		case time.Time:
			row[i] = store.ClampTime(x).UTC().Format(layout)
		case *time.Time:
			if x == nil {
				row[i] = nil
			} else {
				row[i] = store.ClampTime(*x).UTC().Format(layout)
			}
		case json.RawMessage:
			row[i] = string(x)
		case bool:
			if x {
				row[i] = 1
			} else {
				row[i] = 0
			}
		}
	}
	s.rows[t] = append(s.rows[t], row)
}

func (s *sqliteSink) flush(ctx context.Context) (int64, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer func() { _ = tx.Rollback() }()
	var n int64
	for t, rows := range s.rows {
		if len(rows) == 0 {
			continue
		}
		tab := genTables[t]
		per := 30000 / len(tab.cols)
		for i := 0; i < len(rows); i += per {
			part := rows[i:min(len(rows), i+per)]
			var b strings.Builder
			args := make([]any, 0, len(part)*len(tab.cols))
			fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", tab.name, strings.Join(tab.cols, ", "))
			for r, row := range part {
				if r > 0 {
					b.WriteString(", ")
				}
				b.WriteString("(")
				for c := range tab.cols {
					if c > 0 {
						b.WriteString(", ")
					}
					if tab.name == "river_job" && (tab.cols[c] == "args" || tab.cols[c] == "metadata") {
						b.WriteString("jsonb(?)")
					} else {
						b.WriteString("?")
					}
					args = append(args, row[c])
				}
				b.WriteString(")")
			}
			if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
				return 0, fmt.Errorf("insert %s: %w", tab.name, err)
			}
		}
		n += int64(len(rows))
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	for t := range s.rows {
		s.rows[t] = s.rows[t][:0]
	}
	return n, nil
}

func (s *sqliteSink) nextJobID(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, `SELECT max(COALESCE((SELECT max(id) FROM river_job), 0),
		COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'river_job'), 0)) + 1`).Scan(&n)
	return n, err
}

func (s *sqliteSink) finish(ctx context.Context, _ int64, _ map[string]int64) error {
	_, err := s.db.ExecContext(ctx, "ANALYZE")
	return err
}
