package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mnemo-ai/mnemo/api"
	"github.com/mnemo-ai/mnemo/extract"
	"github.com/mnemo-ai/mnemo/extract/llmextract"
	"github.com/mnemo-ai/mnemo/handoff"
	"github.com/mnemo-ai/mnemo/jobs"
	"github.com/mnemo-ai/mnemo/memory"
	"github.com/mnemo-ai/mnemo/prompts"
	"github.com/mnemo-ai/mnemo/schedule"
)

// Config is the worker's whole configuration, read from the environment and
// overridden by flags of the same meaning, validated once at start.
type Config struct {
	// DatabaseURL selects the database: postgres://…, sqlite://path, or empty
	// for the embedded SQLite file ./data/mnemo.db.
	DatabaseURL string
	// Dialect and SQLitePath are derived from DatabaseURL.
	Dialect    string
	SQLitePath string
	// Listen is the HTTP address.
	Listen string
	// Tokens are the accepted bearer tokens, from MNEMO_API_TOKENS.
	Tokens []api.Token
	// OpenAI-compatible LLM settings; with no model configured the
	// deterministic extractor serves every preset.
	OpenAIKey     string
	OpenAIBaseURL string
	LLMModel      string
	LLMTimeout    time.Duration
	LLMPrices     string
	// LLMTemperature is sent with every LLM call unless the app's policy
	// sets its own; 0 leaves the endpoint's default.
	LLMTemperature float64
	// LLMMaxInputTokens caps the transcript tokens of one LLM call; longer
	// transcripts are extracted in chunks (0: the app's own budget).
	LLMMaxInputTokens int
	// LLMMaxMemories is the most memories kept of one LLM answer; the rest
	// are cut and reported.
	LLMMaxMemories int
	// RulesMaxMemories is the most memories the rules keep of one session.
	RulesMaxMemories int
	// MaxUserMemories bounds a user's active memories.
	MaxUserMemories int
	// MaxExportsPerUser is how many exports a user keeps at most.
	MaxExportsPerUser int
	// LLMMonthlyBudget is the spend in USD above which the LLM path is skipped.
	LLMMonthlyBudget float64
	// LLMRPM and LLMTPM are the provider's requests and tokens per minute
	// for the model, which this process keeps under (0: unlimited).
	LLMRPM, LLMTPM int
	// RiskModel is the second looks a model takes at the risk screen's
	// flagged and grey messages on the rules path (MNEMO_RISK_MODEL).
	RiskModel llmextract.RiskModel
	// RiskAlertURLs are MNEMO_RISK_ALERTS by app, and RiskAlertSecrets
	// MNEMO_RISK_ALERT_SECRETS by app ("*": every app without its own).
	RiskAlertURLs, RiskAlertSecrets map[string]string
	// EncryptionKey seals transcripts at rest (a 32-byte base64 key or a passphrase).
	EncryptionKey string
	// AppsDir holds operator-defined app presets.
	AppsDir string
	// JobTimeout is how long one job may run.
	JobTimeout time.Duration
	// RescueAfter is after how long a job left running by a dead worker is run again.
	RescueAfter time.Duration
	// RetryBackoff is the delay before a failed job's first retry, doubling
	// after each attempt; zero keeps River's policy (attempt⁴ seconds).
	RetryBackoff time.Duration
	// Concurrency is the most jobs worked at once per queue: the settings
	// laid over the machine's defaults (Tuning).
	Concurrency map[string]int
	// ShutdownGrace is how long running jobs may finish after SIGTERM before they are cancelled.
	ShutdownGrace time.Duration
	// PollInterval is how often queues are polled for new jobs, and
	// FetchCooldown the least time between two fetches of a queue.
	PollInterval  time.Duration
	FetchCooldown time.Duration
	// PoolSize is the Postgres pool's most connections (0 on SQLite).
	PoolSize int
	// PGPooler is what stands between the worker and PostgreSQL:
	// PoolerNone, or PoolerTransaction for PgBouncer in transaction
	// pooling (River polls instead of LISTEN/NOTIFY, no statement is
	// prepared by name).
	PGPooler string
	// Tuning is the effective concurrency, fetch cooldown, poll interval and
	// pool size, with where each came from (the machine or a setting).
	Tuning Tuning
	// MaxBodyBytes limits request bodies.
	MaxBodyBytes int64
	// BodyBytesInFlight bounds the request body bytes held at once.
	BodyBytesInFlight int64
	// BodyBytesPerToken bounds the request body bytes one token's requests
	// hold at once.
	BodyBytesPerToken int64
	// MinBodyBytesPerSecond is the slowest a request body may arrive.
	MinBodyBytesPerSecond int64
	// MaxSessionEvents bounds the events of one session.
	MaxSessionEvents int
	// Profile bounds a user's profile as an edit would leave it.
	Profile api.ProfileLimits
	// Schedules are the batches' cron schedules with their catch-up policies.
	Schedules map[string]*schedule.Schedule
	// Batch tunes the scheduled batches.
	Batch jobs.BatchConfig
	// CareNoteDays is how many days after a risk finding the context pack
	// carries a care note.
	CareNoteDays int
	// LogLevel and LogFormat shape the structured log.
	LogLevel  string
	LogFormat string
}

// setting is one configuration value: its flag, its environment variable,
// its default and its help text.
type setting struct {
	flag, env, def, help string
}

var settings = []setting{
	{"database-url", "DATABASE_URL", "", "postgres://…, sqlite://PATH, or empty for the embedded SQLite file ./data/mnemo.db"},
	{"listen", "MNEMO_LISTEN", "127.0.0.1:8080", "HTTP listen address; a non-loopback address requires MNEMO_API_TOKENS"},
	{"api-tokens", "MNEMO_API_TOKENS", "", "comma-separated scope:token pairs, scope service, service@APP (bound to one app), caregiver@APP (the views of an app whose kind is for a caregiver only) or admin (tokens ≥ 16 characters)"},
	{"openai-api-key", "OPENAI_API_KEY", "", "API key of the OpenAI-compatible endpoint"},
	{"openai-base-url", "OPENAI_BASE_URL", "", "base URL of the OpenAI-compatible endpoint (e.g. http://127.0.0.1:11434/v1)"},
	{"llm-model", "MNEMO_LLM_MODEL", "", "model name; empty keeps the deterministic extractor for every app"},
	{"llm-timeout", "MNEMO_LLM_TIMEOUT", "60s", "timeout of one LLM call"},
	{"llm-temperature", "MNEMO_LLM_TEMPERATURE", "0", "sampling temperature of LLM calls in [0, 2], unless the app's policy sets one (0: the endpoint's default)"},
	{"llm-max-input-tokens", "MNEMO_LLM_MAX_INPUT_TOKENS", "0", "most transcript tokens of one LLM call, longer transcripts are extracted in parts; the smaller of this and the app's max_input_tokens applies (0: the app's)"},
	{"llm-max-memories", "MNEMO_LLM_MAX_MEMORIES", "50", "most memories kept of one LLM answer (1 to 1000); the most important are kept, the others dropped as memory_cap and the run's outcome is capped"},
	{"rules-max-memories", "MNEMO_RULES_MAX_MEMORIES", strconv.Itoa(extract.DefaultMaxMemories), "most memories the rules keep of one session (1 to 10000), as llm-max-memories bounds a model's answer; the most important are kept, the others dropped as memory_cap and the run's outcome is capped"},
	{"max-user-memories", "MNEMO_MAX_USER_MEMORIES", strconv.Itoa(jobs.DefaultMaxUserMemories), "most active memories of one user (100 to 1000000); after each extraction those beyond leave the active set (status expired, audit action evict): unconfirmed before confirmed, then the least important, then the oldest said"},
	{"max-exports-per-user", "MNEMO_MAX_EXPORTS_PER_USER", strconv.Itoa(api.DefaultMaxExportsPerUser), "most exports one user keeps (1 to 100); a new export replaces the oldest, which answers 404 from then on"},
	{"llm-prices", "MNEMO_LLM_PRICES", "", "price table: model=inputUSD/outputUSD per million tokens, comma-separated"},
	{"llm-monthly-budget", "MNEMO_LLM_MONTHLY_BUDGET_USD", "0", "monthly LLM spend above which extraction falls back to rules (0: no limit)"},
	{"llm-rpm", "MNEMO_LLM_RPM", "0", "LLM requests per minute this process keeps under, the provider's limit for the model; calls wait their turn (0: unlimited)"},
	{"llm-tpm", "MNEMO_LLM_TPM", "0", "LLM tokens per minute (input and output) this process keeps under, the provider's limit for the model (0: unlimited)"},
	{"risk-model", "MNEMO_RISK_MODEL", "off", "second look at the risk screen's flagged and grey messages of a session extracted by the rules (an LLM app's fallback; never an app whose policy says llm: false; not once the monthly budget is spent), which may add or raise findings but never lower a high one: off; escalate (one small risk-only call to MNEMO_LLM_MODEL per such session, tokens and cost counted in the extraction run and the budget); moderation (the endpoint's /moderations, omni-moderation-latest, one call per such message); or escalate,moderation. A failed call leaves the screen's findings; needs MNEMO_LLM_MODEL"},
	{"risk-alerts", "MNEMO_RISK_ALERTS", "", riskAlertsHelp},
	{"risk-alert-secrets", "MNEMO_RISK_ALERT_SECRETS", "", riskAlertSecretsHelp},
	{"encryption-key", "MNEMO_ENCRYPTION_KEY", "", "transcript keys: id:base64-of-32-bytes or id:passphrase (PBKDF2), comma-separated for rotation, the last one writes (empty: a key generated in mnemo.key beside the SQLite database, or in ./data with Postgres)"},
	{"apps-dir", "MNEMO_APPS_DIR", "", "directory of operator-defined app presets (one folder per app)"},
	{"job-timeout", "MNEMO_JOB_TIMEOUT", "5m", "how long one job may run"},
	{"rescue-after", "MNEMO_RESCUE_AFTER", "15m", "after how long a job left running by a dead worker is rescued and run again"},
	{"retry-backoff", "MNEMO_RETRY_BACKOFF", "", "delay before a failed job's first retry, doubling after each attempt (empty: River's attempt⁴ seconds)"},
	{"concurrency", "MNEMO_CONCURRENCY", "", "most jobs worked at once per queue, queue=N comma-separated; a queue not named keeps its derived default (see Derived defaults)"},
	{"fetch-cooldown", "MNEMO_FETCH_COOLDOWN", "", "least time between two job fetches of a queue, which caps a queue at concurrency ÷ cooldown jobs/s (empty: derived)"},
	{"pg-pooler", "MNEMO_PG_POOLER", "", "what DATABASE_URL reaches: empty (PostgreSQL itself, or a pooler in session mode) or transaction (PgBouncer in transaction pooling: River polls instead of LISTEN/NOTIFY, statements are not prepared by name)"},
	{"db-pool-size", "MNEMO_DB_POOL_SIZE", "", "most connections of the Postgres pool, over pool_max_conns in DATABASE_URL (empty: derived)"},
	{"shutdown-grace", "MNEMO_SHUTDOWN_GRACE", "30s", "on SIGTERM, how long running jobs may finish before they are cancelled"},
	{"poll-interval", "MNEMO_POLL_INTERVAL", "", "how often an idle queue is polled for jobs no notification announced (empty: derived)"},
	{"max-body-bytes", "MNEMO_MAX_BODY_BYTES", "4194304", "largest accepted request body"},
	{"max-body-bytes-in-flight", "MNEMO_MAX_BODY_BYTES_IN_FLIGHT", "33554432", "most request body bytes held at once, each request counting its Content-Length (at least max-body-bytes); a request that finds no room within 2s is answered 503 busy with Retry-After"},
	{"max-body-bytes-per-token", "MNEMO_MAX_BODY_BYTES_PER_TOKEN", "", "most request body bytes one token's requests hold at once (in open mode, all requests together), so that one tenant's large or slow bodies leave room for the others; from max-body-bytes to max-body-bytes-in-flight, beyond it 503 busy with Retry-After (empty: max-body-bytes-in-flight shared equally among the service and admin tokens, at least max-body-bytes)"},
	{"min-body-bytes-per-second", "MNEMO_MIN_BODY_BYTES_PER_SECOND", "16384", "slowest a request body may arrive once its first 5s have passed: a body that falls behind this rate is cut off with 408 too_slow and its bytes given back (0: no minimum)"},
	{"max-session-events", "MNEMO_MAX_SESSION_EVENTS", strconv.Itoa(handoff.DefaultMaxEvents), "most events one session may carry, 1 to 10000 (more is 422)"},
	{"profile-max-fields", "MNEMO_PROFILE_MAX_FIELDS", "256", "most top-level fields of a user's profile (a PATCH beyond is 422)"},
	{"profile-max-depth", "MNEMO_PROFILE_MAX_DEPTH", "8", "deepest nesting of a profile value (a PATCH beyond is 422)"},
	{"profile-max-value-bytes", "MNEMO_PROFILE_MAX_VALUE_BYTES", "4096", "largest profile value, as JSON (a PATCH beyond is 422)"},
	{"profile-max-bytes", "MNEMO_PROFILE_MAX_BYTES", "65536", "largest profile, as JSON (a PATCH beyond is 413)"},
	{"session-idle", "MNEMO_SESSION_IDLE", "2h", "a session without new turns for this long is expired and processed"},
	{"insights-k", "MNEMO_INSIGHTS_K", "5", "supervisor insights suppress groups of fewer users than this"},
	{"keep-bookkeeping", "MNEMO_KEEP_BOOKKEEPING", "9600h", "how long extraction runs, batch runs, the memory audit log and inactive memories are kept"},
	{"care-note-days", "MNEMO_CARE_NOTE_DAYS", strconv.Itoa(memory.DefaultCareNoteDays), "days after a risk finding of the user's own (medium or high, not lowered) that the context pack opens with a care note for the companion, unless an operator resolves it first (1 to " + strconv.Itoa(memory.MaxCareNoteDays) + ")"},
	{"export-ttl", "MNEMO_EXPORT_TTL", "168h", "how long a user's export is served after it was requested (1m to 720h); retention deletes it then"},
	{"log-level", "MNEMO_LOG_LEVEL", "info", "debug, info, warn or error"},
	{"log-format", "MNEMO_LOG_FORMAT", "auto", "json, text, or auto (JSON unless stderr is a terminal)"},
}

func init() {
	// One setting per batch: its cron spec and catch-up policy.
	// The batches are the registered kinds' and the engine's (jobs.Batches):
	// kinds register from their init functions, which run before this one.
	defaults := jobs.DefaultSchedules()
	for _, name := range jobs.BatchNames() {
		settings = append(settings, setting{"schedule-" + name, "MNEMO_SCHEDULE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")),
			defaults[name], "schedule of the " + name + " batch: [CRON_TZ=Zone] cron spec[; latest|all WINDOW|skip]"})
	}
}

// registerSettings adds every setting to fs with defaults from def (the
// environment, or an earlier flag set's values) and returns a getter.
func registerSettings(fs *flag.FlagSet, def func(s setting) string) func(name string) string {
	values := map[string]*string{}
	for _, s := range settings {
		values[s.flag] = fs.String(s.flag, def(s), fmt.Sprintf("%s (env %s)", s.help, s.env))
	}
	return func(name string) string { return *values[name] }
}

// envDefault is a setting's value from the environment, or its default.
func envDefault(getenv func(string) string) func(s setting) string {
	return func(s setting) string {
		if v := getenv(s.env); v != "" {
			return v
		}
		return s.def
	}
}

// settingError names the setting that is wrong, by its environment variable.
func settingError(flagName string, format string, a ...any) error {
	env := flagName
	for _, s := range settings {
		if s.flag == flagName {
			env = s.env
		}
	}
	return fmt.Errorf("%s: %s", env, fmt.Sprintf(format, a...))
}

func buildConfig(get func(string) string) (Config, error) {
	var c Config
	var err error
	c.DatabaseURL = get("database-url")
	if c.Dialect, c.SQLitePath, err = parseDatabaseURL(c.DatabaseURL); err != nil {
		return c, settingError("database-url", "%v", err)
	}
	c.Listen = get("listen")
	host, port, err := net.SplitHostPort(c.Listen)
	if err != nil {
		return c, settingError("listen", "%q is not host:port", c.Listen)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return c, settingError("listen", "%q has no valid port", c.Listen)
	}
	if c.Tokens, err = api.ParseTokens(get("api-tokens")); err != nil {
		return c, settingError("api-tokens", "%v", err)
	}
	if err := checkTokenApps(c.Tokens, get("apps-dir")); err != nil {
		return c, err
	}
	if len(c.Tokens) == 0 && !isLoopback(host) {
		return c, settingError("listen", "%q is not a loopback address: refusing to serve without MNEMO_API_TOKENS", c.Listen)
	}
	c.OpenAIKey = get("openai-api-key")
	c.OpenAIBaseURL = get("openai-base-url")
	if c.OpenAIBaseURL != "" {
		u, err := url.Parse(c.OpenAIBaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, settingError("openai-base-url", "%q is not an http(s) URL", c.OpenAIBaseURL)
		}
	}
	c.LLMModel = get("llm-model")
	c.LLMPrices = get("llm-prices")
	if c.LLMMaxInputTokens, err = strconv.Atoi(get("llm-max-input-tokens")); err != nil || c.LLMMaxInputTokens < 0 {
		return c, settingError("llm-max-input-tokens", "%q is not a non-negative number", get("llm-max-input-tokens"))
	}
	if c.LLMMaxMemories, err = strconv.Atoi(get("llm-max-memories")); err != nil || c.LLMMaxMemories < 1 || c.LLMMaxMemories > 1000 {
		return c, settingError("llm-max-memories", "%q is not a number from 1 to 1000", get("llm-max-memories"))
	}
	for _, s := range []struct {
		name     string
		v        *int
		min, max int
	}{
		{"rules-max-memories", &c.RulesMaxMemories, 1, 10_000},
		{"max-user-memories", &c.MaxUserMemories, 100, 1_000_000},
		{"max-exports-per-user", &c.MaxExportsPerUser, 1, 100},
	} {
		n, err := strconv.Atoi(get(s.name))
		if err != nil || n < s.min || n > s.max {
			return c, settingError(s.name, "%q is not a whole number from %d to %d", get(s.name), s.min, s.max)
		}
		*s.v = n
	}
	if c.LLMTemperature, err = strconv.ParseFloat(get("llm-temperature"), 64); err != nil || !(c.LLMTemperature >= 0 && c.LLMTemperature <= 2) {
		return c, settingError("llm-temperature", "%q is not a number in [0, 2]", get("llm-temperature"))
	}
	if c.LLMMonthlyBudget, err = strconv.ParseFloat(get("llm-monthly-budget"), 64); err != nil || c.LLMMonthlyBudget < 0 {
		return c, settingError("llm-monthly-budget", "%q is not a non-negative number", get("llm-monthly-budget"))
	}
	if c.LLMRPM, err = strconv.Atoi(get("llm-rpm")); err != nil || c.LLMRPM < 0 {
		return c, settingError("llm-rpm", "%q is not a non-negative number of requests per minute", get("llm-rpm"))
	}
	if c.LLMTPM, err = strconv.Atoi(get("llm-tpm")); err != nil || c.LLMTPM < 0 {
		return c, settingError("llm-tpm", "%q is not a non-negative number of tokens per minute", get("llm-tpm"))
	}
	if c.RiskModel, err = llmextract.ParseRiskModel(get("risk-model")); err != nil {
		return c, settingError("risk-model", "%v", err)
	}
	if c.RiskModel.On() && c.LLMModel == "" {
		return c, settingError("risk-model", "%s needs a model: set MNEMO_LLM_MODEL, or leave it off", c.RiskModel)
	}
	c.EncryptionKey = get("encryption-key")
	c.AppsDir = get("apps-dir")
	if c.RiskAlertURLs, c.RiskAlertSecrets, err = parseRiskAlerts(get("risk-alerts"), get("risk-alert-secrets"), c.AppsDir); err != nil {
		return c, err
	}
	for _, d := range []struct {
		name string
		dst  *time.Duration
		min  time.Duration
	}{
		{"llm-timeout", &c.LLMTimeout, time.Second},
		{"job-timeout", &c.JobTimeout, time.Second},
		{"rescue-after", &c.RescueAfter, time.Second},
		{"shutdown-grace", &c.ShutdownGrace, 0},
		{"poll-interval", &c.PollInterval, 10 * time.Millisecond},
		{"fetch-cooldown", &c.FetchCooldown, time.Millisecond},
	} {
		if get(d.name) == "" && (d.name == "poll-interval" || d.name == "fetch-cooldown") {
			continue // derived from the machine (resolveTuning)
		}
		v, err := time.ParseDuration(get(d.name))
		if err != nil {
			return c, settingError(d.name, "%q is not a duration such as 30s or 5m", get(d.name))
		}
		if v < d.min {
			return c, settingError(d.name, "%s is below the minimum %s", v, d.min)
		}
		*d.dst = v
	}
	if c.RescueAfter <= c.JobTimeout {
		return c, settingError("rescue-after", "%s must exceed MNEMO_JOB_TIMEOUT (%s), or running jobs would be rescued while still alive", c.RescueAfter, c.JobTimeout)
	}
	if v := get("retry-backoff"); v != "" {
		if c.RetryBackoff, err = time.ParseDuration(v); err != nil || c.RetryBackoff < 100*time.Millisecond || c.RetryBackoff > time.Hour {
			return c, settingError("retry-backoff", "%q is not a duration between 100ms and 1h (or empty for River's policy)", v)
		}
	}
	if c.Concurrency, err = parseConcurrency(get("concurrency")); err != nil {
		return c, settingError("concurrency", "%v", err)
	}
	if v := get("db-pool-size"); v != "" {
		if c.PoolSize, err = strconv.Atoi(v); err != nil || c.PoolSize < 1 || c.PoolSize > 10000 {
			return c, settingError("db-pool-size", "%q is not a number from 1 to 10000", v)
		}
	} else if c.Dialect == "postgres" {
		if c.PoolSize, err = urlPoolSize(c.DatabaseURL); err != nil {
			return c, settingError("database-url", "%v", err)
		}
	}
	switch c.PGPooler = get("pg-pooler"); c.PGPooler {
	case PoolerNone:
	case PoolerTransaction:
		if c.Dialect != "postgres" {
			return c, settingError("pg-pooler", "%q needs a postgres:// DATABASE_URL", c.PGPooler)
		}
	default:
		return c, settingError("pg-pooler", "%q is not empty or transaction", c.PGPooler)
	}
	if c.Tuning, err = resolveTuning(machineCores(), c.Dialect, c.LLMModel != "", explicitTuning{
		concurrency: c.Concurrency, fetchCooldown: c.FetchCooldown, pollInterval: c.PollInterval, poolSize: c.PoolSize,
		pollOnly: c.PGPooler == PoolerTransaction}); err != nil {
		return c, err
	}
	c.Concurrency, c.FetchCooldown, c.PollInterval, c.PoolSize = c.Tuning.Concurrency, c.Tuning.FetchCooldown, c.Tuning.PollInterval, c.Tuning.PoolSize
	if c.MaxBodyBytes, err = strconv.ParseInt(get("max-body-bytes"), 10, 64); err != nil || c.MaxBodyBytes < 1024 {
		return c, settingError("max-body-bytes", "%q is not a byte count of at least 1024", get("max-body-bytes"))
	}
	if c.BodyBytesInFlight, err = strconv.ParseInt(get("max-body-bytes-in-flight"), 10, 64); err != nil || c.BodyBytesInFlight < c.MaxBodyBytes {
		return c, settingError("max-body-bytes-in-flight", "%q is not a byte count of at least max-body-bytes (%d)", get("max-body-bytes-in-flight"), c.MaxBodyBytes)
	}
	c.BodyBytesPerToken = max(c.MaxBodyBytes, c.BodyBytesInFlight/int64(max(1, bodyTokens(c.Tokens))))
	if v := get("max-body-bytes-per-token"); v != "" {
		if c.BodyBytesPerToken, err = strconv.ParseInt(v, 10, 64); err != nil || c.BodyBytesPerToken < c.MaxBodyBytes || c.BodyBytesPerToken > c.BodyBytesInFlight {
			return c, settingError("max-body-bytes-per-token", "%q is not a byte count from max-body-bytes (%d) to max-body-bytes-in-flight (%d)", v, c.MaxBodyBytes, c.BodyBytesInFlight)
		}
	}
	if c.MinBodyBytesPerSecond, err = strconv.ParseInt(get("min-body-bytes-per-second"), 10, 64); err != nil || c.MinBodyBytesPerSecond < 0 {
		return c, settingError("min-body-bytes-per-second", "%q is not a byte count of 0 or more", get("min-body-bytes-per-second"))
	}
	if c.MaxSessionEvents, err = strconv.Atoi(get("max-session-events")); err != nil || c.MaxSessionEvents < 1 || c.MaxSessionEvents > handoff.MaxEvents {
		return c, settingError("max-session-events", "%q is not a number from 1 to %d", get("max-session-events"), handoff.MaxEvents)
	}
	for _, s := range []struct {
		name     string
		v        *int
		min, max int
	}{
		{"profile-max-fields", &c.Profile.MaxFields, 1, 100_000},
		{"profile-max-depth", &c.Profile.MaxDepth, 1, 64},
		{"profile-max-value-bytes", &c.Profile.MaxValueBytes, 16, 16 << 20},
		{"profile-max-bytes", &c.Profile.MaxBytes, 64, 64 << 20},
	} {
		n, err := strconv.Atoi(get(s.name))
		if err != nil || n < s.min || n > s.max {
			return c, settingError(s.name, "%q is not a whole number from %d to %d", get(s.name), s.min, s.max)
		}
		*s.v = n
	}
	if c.Profile.MaxValueBytes > c.Profile.MaxBytes {
		return c, settingError("profile-max-value-bytes", "%d is more than MNEMO_PROFILE_MAX_BYTES (%d)", c.Profile.MaxValueBytes, c.Profile.MaxBytes)
	}
	schedules := map[string]string{}
	names := jobs.BatchNames()
	for _, name := range names {
		schedules[name] = get("schedule-" + name)
	}
	if c.Schedules, err = jobs.ParseSchedules(schedules); err != nil {
		if be := (*schedule.BatchError)(nil); errors.As(err, &be) && slices.Contains(names, be.Batch) {
			return c, settingError("schedule-"+be.Batch, "%v", err)
		}
		return c, fmt.Errorf("schedules: %w", err)
	}
	if c.Batch.SessionIdle, err = time.ParseDuration(get("session-idle")); err != nil || c.Batch.SessionIdle < time.Minute {
		return c, settingError("session-idle", "%q is not a duration of at least 1m", get("session-idle"))
	}
	if c.Batch.KeepBookkeeping, err = time.ParseDuration(get("keep-bookkeeping")); err != nil || c.Batch.KeepBookkeeping < 24*time.Hour {
		return c, settingError("keep-bookkeeping", "%q is not a duration of at least 24h", get("keep-bookkeeping"))
	}
	if c.Batch.ExportTTL, err = parseExportTTL(get("export-ttl")); err != nil {
		return c, settingError("export-ttl", "%v", err)
	}
	if c.CareNoteDays, err = strconv.Atoi(get("care-note-days")); err != nil || c.CareNoteDays < 1 || c.CareNoteDays > memory.MaxCareNoteDays {
		return c, settingError("care-note-days", "%q is not a whole number of days from 1 to %d", get("care-note-days"), memory.MaxCareNoteDays)
	}
	if c.Batch.InsightsK, err = strconv.Atoi(get("insights-k")); err != nil || c.Batch.InsightsK < 2 {
		return c, settingError("insights-k", "%q is not a number of at least 2", get("insights-k"))
	}
	c.LogLevel = get("log-level")
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return c, settingError("log-level", "%q is not debug, info, warn or error", c.LogLevel)
	}
	c.LogFormat = get("log-format")
	switch c.LogFormat {
	case "auto", "json", "text":
	default:
		return c, settingError("log-format", "%q is not auto, json or text", c.LogFormat)
	}
	return c, nil
}

// The values of MNEMO_PG_POOLER.
const (
	PoolerNone        = ""
	PoolerTransaction = "transaction"
)

// parseDatabaseURL maps DATABASE_URL onto a dialect and, for SQLite, a file path.
func parseDatabaseURL(s string) (dialect, sqlitePath string, err error) {
	if s == "" {
		return "sqlite", filepath.Join("data", "mnemo.db"), nil
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return "", "", errors.New("not a URL: want postgres://…, sqlite://PATH or empty")
	}
	switch scheme {
	case "postgres", "postgresql":
		u, err := url.Parse(s)
		if err != nil {
			return "", "", errors.New("unparseable postgres URL")
		}
		if u.Host == "" && u.Query().Get("host") == "" {
			return "", "", errors.New("postgres URL has no host")
		}
		return "postgres", "", nil
	case "sqlite", "sqlite3", "file":
		if rest == "" {
			return "", "", errors.New("sqlite URL has no path (sqlite://./data/mnemo.db)")
		}
		return "sqlite", rest, nil
	}
	return "", "", fmt.Errorf("unknown scheme %q: want postgres, sqlite or empty", scheme)
}

func parseConcurrency(s string) (map[string]int, error) {
	out := map[string]int{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, n, ok := strings.Cut(part, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("%q is not queue=N", part)
		}
		v, err := strconv.Atoi(n)
		if err != nil {
			return nil, fmt.Errorf("queue %s: %q is not a number", name, n)
		}
		if v < 1 || v > 10000 {
			return nil, fmt.Errorf("queue %s: concurrency %d must be between 1 and 10000", name, v)
		}
		out[name] = v
	}
	return out, nil
}

// checkTokenApps refuses a token bound to an app that is not configured
// (built in or in the apps dir), naming the app, never the token.
func checkTokenApps(tokens []api.Token, appsDir string) error {
	var apps map[string]*prompts.App
	for i, t := range tokens {
		if t.App == "" {
			continue
		}
		if apps == nil {
			var err error
			if apps, err = prompts.Load(appsDir); err != nil {
				return settingError("apps-dir", "%v", err)
			}
		}
		if apps[t.App] == nil {
			return settingError("api-tokens", "token %d is bound to app %q, which is not configured (apps: %s)",
				i+1, t.App, strings.Join(prompts.Names(apps), ", "))
		}
		// A caregiver reads the pages of a caregiver-only kind and nothing
		// else: bound to another kind of app it could open no page at all.
		if t.Scope == api.ScopeCaregiver && !extract.KindOfApp(apps[t.App]).View().CaregiverOnly {
			careOnly := api.KindsLabel(func(k extract.Kind) bool { return k.View().CaregiverOnly })
			return settingError("api-tokens", "token %d is a caregiver token for app %q, which is not a %s app: caregiver tokens read %s's caregiver pages only",
				i+1, t.App, careOnly, careOnly)
		}
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func usage(out io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(out, `Mnemo worker: turns finished chat sessions into durable memory.

Usage: worker [flags] [command]

Commands:
  serve                 run the HTTP API and the job worker (default)
  migrate up            apply River's and Mnemo's migrations
  migrate down N        roll back Mnemo's newest N migrations
  migrate status        list migrations and whether they are applied
  batch list            each batch: schedule, last run, next run, missed periods
  batch run NAME [--period P] [--now RFC3339]
                        run a batch for one period by hand (back-fill)
  jobs list [--state S] [--kind K] [--queue Q] [--limit N] [--json]
  jobs retry ID… | jobs retry --state discarded [--kind K] [--since DUR]
  jobs cancel ID…
  queues list | queues pause NAME | queues resume NAME
  resummarize --app APP --prompt-version V
                        re-summarise stored transcripts (back-fill), with progress
  keys rewrap           seal stored transcripts again under the newest key
  demo [--dir DIR]      hand sample sessions of every preset to an embedded worker;
                        print each conversation, what was remembered, what was
                        dropped and why, and the context pack
  extract --app APP [--in FILE] [--llm=off]
                        run extraction offline on a session-close body, print JSON
  eval [--llm=off] [--sets S,…] [--corpora DIR] [--persona-chats N] [--sample FILE] [--json]
                        score the shipped sets (memories, persona chat, risk) against
                        the configured extractor: precision, recall, forbidden, cost
  gen --app APP --users N [--sessions M] [--memories K] [--span DUR] [--now RFC3339]
                        fill the configured database with synthetic users of an app
                        (benchmarks; docs/benchmarks.md)

Derived defaults: unless set, the queues' concurrency, the fetch cooldown, the
poll interval and the Postgres pool follow from the cores (GOMAXPROCS) and the
mode; 'worker serve' logs the values it runs with, and where each came from.
  Postgres: extract 16 per core (32 to 512), or at least 256 with an LLM
            (calls wait, they do not compute); default 2 per core (at least
            4); batch 1; fetch cooldown 20ms; poll 1s (LISTEN/NOTIFY wakes
            fetches);
            pool 4 connections per core, from 8 to 64
  SQLite:   extract 2 per core (at least 4), or 128 with an LLM (one writer:
            more jobs only queue); default 2 per core (at least 4); batch 1;
            fetch cooldown 10ms; poll 100ms; one connection
A queue works at most concurrency ÷ fetch cooldown short jobs a second.

Settings (flag, environment variable, default):
`)
	names := make([]string, 0, len(settings))
	byName := map[string]setting{}
	for _, s := range settings {
		names = append(names, s.flag)
		byName[s.flag] = s
	}
	sort.Strings(names)
	for _, n := range names {
		s := byName[n]
		def := s.def
		if def == "" {
			def = `""`
		}
		fmt.Fprintf(out, "  --%s / %s (default %s)\n      %s\n", s.flag, s.env, def, s.help)
	}
}

// parseExportTTL reads the export TTL: a Go duration from one minute to 30
// days (an export is a copy of the user's data; it is not kept for long).
func parseExportTTL(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Minute || d > 30*24*time.Hour {
		return 0, fmt.Errorf("%q is not a duration from 1m to 720h", s)
	}
	return d, nil
}

// bodyTokens is how many of toks may send request bodies (service and admin
// tokens; a caregiver token reads pages only).
func bodyTokens(toks []api.Token) int {
	n := 0
	for _, t := range toks {
		if t.Scope != api.ScopeCaregiver {
			n++
		}
	}
	return n
}
