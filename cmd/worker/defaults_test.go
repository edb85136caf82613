package main

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-ai/mnemo/store"
)

func TestMachineDefaults(t *testing.T) {
	t.Parallel()
	const pg, lite = store.DialectPostgres, store.DialectSQLite
	cases := []struct {
		cores               int
		dialect             string
		llm                 bool
		def, extract, batch int
		cooldown, poll      time.Duration
		pool                int
	}{
		{1, pg, false, 4, 32, 1, 20 * time.Millisecond, time.Second, 8},
		{2, pg, false, 4, 32, 1, 20 * time.Millisecond, time.Second, 8},
		{16, pg, false, 32, 256, 1, 20 * time.Millisecond, time.Second, 64},
		{64, pg, false, 128, 512, 1, 20 * time.Millisecond, time.Second, 64},
		{2, pg, true, 4, 256, 1, 20 * time.Millisecond, time.Second, 8},
		{16, pg, true, 32, 256, 1, 20 * time.Millisecond, time.Second, 64},
		{32, pg, true, 64, 512, 1, 20 * time.Millisecond, time.Second, 64},
		{0, pg, false, 4, 32, 1, 20 * time.Millisecond, time.Second, 8},
		{1, lite, false, 4, 4, 1, 10 * time.Millisecond, 100 * time.Millisecond, 0},
		{2, lite, false, 4, 4, 1, 10 * time.Millisecond, 100 * time.Millisecond, 0},
		{16, lite, false, 32, 32, 1, 10 * time.Millisecond, 100 * time.Millisecond, 0},
		{2, lite, true, 4, 128, 1, 10 * time.Millisecond, 100 * time.Millisecond, 0},
	}
	for _, c := range cases {
		got := machineDefaults(c.cores, c.dialect, c.llm)
		want := map[string]int{"default": c.def, "extract": c.extract, "batch": c.batch}
		if !maps.Equal(got.Concurrency, want) || got.FetchCooldown != c.cooldown || got.PollInterval != c.poll || got.PoolSize != c.pool {
			t.Errorf("machineDefaults(%d, %s, llm=%v) = %v, cooldown %s, poll %s, pool %d; want %v, %s, %s, %d",
				c.cores, c.dialect, c.llm, got.Concurrency, got.FetchCooldown, got.PollInterval, got.PoolSize, want, c.cooldown, c.poll, c.pool)
		}
		// The old fixed defaults capped a worker at 16 ÷ 100 ms = 160 jobs/s:
		// no derived default may cap extraction below that.
		if ceiling := float64(got.Concurrency["extract"]) / got.FetchCooldown.Seconds(); ceiling < 160 {
			t.Errorf("machineDefaults(%d, %s, llm=%v): extract ceiling %.0f jobs/s below the old 160", c.cores, c.dialect, c.llm, ceiling)
		}
		if got.FetchCooldown > got.PollInterval {
			t.Errorf("machineDefaults(%d, %s): cooldown %s exceeds poll %s (River refuses it)", c.cores, c.dialect, got.FetchCooldown, got.PollInterval)
		}
	}
}

func TestResolveTuning(t *testing.T) {
	t.Parallel()
	pg := store.DialectPostgres
	got, err := resolveTuning(4, pg, false, explicitTuning{concurrency: map[string]int{"extract": 7}, poolSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got.Concurrency["extract"] != 7 || got.Source["concurrency.extract"] != fromSetting ||
		got.Concurrency["default"] != 8 || got.Source["concurrency.default"] != fromMachine ||
		got.PoolSize != 3 || got.Source["pool-size"] != fromSetting || got.Source["poll-interval"] != fromMachine {
		t.Errorf("explicit extract and pool: %+v", got)
	}
	// An explicit poll interval below the derived cooldown pulls it down.
	if got, _ = resolveTuning(4, pg, false, explicitTuning{pollInterval: 15 * time.Millisecond}); got.FetchCooldown != 15*time.Millisecond || got.PollInterval != 15*time.Millisecond {
		t.Errorf("poll 15ms: cooldown %s, poll %s", got.FetchCooldown, got.PollInterval)
	}
	// An explicit cooldown above the derived poll interval pushes it up.
	if got, _ = resolveTuning(4, store.DialectSQLite, false, explicitTuning{fetchCooldown: 300 * time.Millisecond}); got.PollInterval != 300*time.Millisecond || got.Source["fetch-cooldown"] != fromSetting {
		t.Errorf("cooldown 300ms: %+v", got)
	}
	// Both explicit and contradictory: refused, naming the setting.
	if _, err := resolveTuning(4, pg, false, explicitTuning{fetchCooldown: time.Second, pollInterval: 100 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "MNEMO_FETCH_COOLDOWN") {
		t.Errorf("cooldown above poll: %v", err)
	}
	// SQLite has no pool to size.
	if got, _ = resolveTuning(4, store.DialectSQLite, false, explicitTuning{poolSize: 9}); got.PoolSize != 0 {
		t.Errorf("sqlite pool %d", got.PoolSize)
	}
}

func TestExplicitTuningSettingsWin(t *testing.T) {
	t.Parallel()
	cfg := func(env map[string]string) Config {
		t.Helper()
		c, err := buildConfig(func(name string) string {
			for _, s := range settings {
				if s.flag == name {
					if v, ok := env[s.env]; ok {
						return v
					}
					return s.def
				}
			}
			return ""
		})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	pgURL := "postgres://u@db.example:5432/mnemo"
	c := cfg(map[string]string{"DATABASE_URL": pgURL, "MNEMO_CONCURRENCY": "extract=3,batch=2",
		"MNEMO_POLL_INTERVAL": "2s", "MNEMO_FETCH_COOLDOWN": "5ms", "MNEMO_DB_POOL_SIZE": "11"})
	d := machineDefaults(machineCores(), store.DialectPostgres, false)
	if c.Concurrency["extract"] != 3 || c.Concurrency["batch"] != 2 || c.Concurrency["default"] != d.Concurrency["default"] ||
		c.PollInterval != 2*time.Second || c.FetchCooldown != 5*time.Millisecond || c.PoolSize != 11 {
		t.Errorf("explicit settings: concurrency %v, poll %s, cooldown %s, pool %d", c.Concurrency, c.PollInterval, c.FetchCooldown, c.PoolSize)
	}
	// Nothing set: the machine's values.
	c = cfg(map[string]string{"DATABASE_URL": pgURL})
	if !maps.Equal(c.Concurrency, d.Concurrency) || c.PollInterval != d.PollInterval || c.FetchCooldown != d.FetchCooldown || c.PoolSize != d.PoolSize {
		t.Errorf("defaults: %v %s %s %d; want %v %s %s %d", c.Concurrency, c.PollInterval, c.FetchCooldown, c.PoolSize,
			d.Concurrency, d.PollInterval, d.FetchCooldown, d.PoolSize)
	}
	// An LLM changes the extract queue's default.
	if c = cfg(map[string]string{"DATABASE_URL": pgURL, "MNEMO_LLM_MODEL": "m"}); c.Concurrency["extract"] != 256 {
		t.Errorf("llm extract %d", c.Concurrency["extract"])
	}
	// pgx's pool_max_conns in the URL is a setting too.
	if c = cfg(map[string]string{"DATABASE_URL": pgURL + "?pool_max_conns=5"}); c.PoolSize != 5 || c.Tuning.Source["pool-size"] != fromSetting {
		t.Errorf("pool_max_conns: %d %s", c.PoolSize, c.Tuning.Source["pool-size"])
	}
	if u := withPoolSize(pgURL+"?sslmode=disable", 12); !strings.Contains(u, "pool_max_conns=12") || !strings.Contains(u, "sslmode=disable") {
		t.Errorf("withPoolSize: %s", u)
	}
}

func TestServeLogsItsTuning(t *testing.T) {
	t.Parallel()
	w := startWorker(t, map[string]string{"DATABASE_URL": "sqlite://" + filepath.Join(t.TempDir(), "mnemo.db"),
		"MNEMO_ENCRYPTION_KEY": "tuning-log-passphrase", "MNEMO_CONCURRENCY": "extract=3"})
	var line map[string]any
	for l := range strings.SplitSeq(w.stderr.String(), "\n") {
		if strings.Contains(l, `"queue tuning"`) {
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatal(err)
			}
		}
	}
	if line == nil {
		t.Fatalf("no queue tuning line in:\n%s", w.stderr.String())
	}
	d := machineDefaults(machineCores(), store.DialectSQLite, false)
	for k, want := range map[string]string{
		"concurrency":    "extract=3 (setting)",
		"fetch_cooldown": d.FetchCooldown.String() + " (machine)",
		"poll_interval":  d.PollInterval.String() + " (machine)",
		"db_pool":        "1 (SQLite",
	} {
		if v, _ := line[k].(string); !strings.Contains(v, want) {
			t.Errorf("%s = %q; want it to contain %q", k, v, want)
		}
	}
	if v, _ := line["concurrency"].(string); !strings.Contains(v, "default=") || !strings.Contains(v, "(machine)") {
		t.Errorf("concurrency = %q: want every queue with its source", v)
	}
}
