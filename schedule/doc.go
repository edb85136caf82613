// Package schedule decides which periods of a cron-scheduled batch are due.
//
// It is pure: it parses a batch's cron spec, steps through its scheduled
// instants and applies the batch's catch-up policy to what the durable ledger
// says has already run. It reads no clock, no environment and no database;
// the caller passes now, the newest period in the ledger and the time the
// scheduler first ran for the batch.
//
// # Specs
//
// A spec is a robfig/cron/v3 standard five-field spec (minute, hour, day of
// month, month, day of week) or a descriptor (@hourly, @daily, @midnight,
// @weekly, @monthly, @yearly, @annually), optionally preceded by
// CRON_TZ=Area/City (or TZ=Area/City). Without a zone the spec runs in UTC,
// never in the machine's local zone. @every is refused: its instants depend
// on when a process started, so they cannot name a period.
//
// # Period identity
//
// A period is identified by its scheduled instant. Its name is that instant
// in RFC 3339 in the batch's zone, with the zone's offset at that instant,
// for example "2026-10-25T02:00:00+02:00". Because the offset is part of the
// name, the two instants that share the local wall-clock time 02:00 when
// Europe/Berlin falls back are two different names, and a local time that a
// spring-forward skipped can never appear in a name: names are only ever made
// from real instants. A batch whose spec fires exactly once a week (a single
// weekday, hour and minute, every day of month and every month) is weekly;
// its periods are named by their week_ending date instead: the Sunday that
// ends the latest Monday-to-Sunday week, in the batch's zone, that was
// complete at the scheduled instant. A weekly batch at Monday 00:00
// ("0 0 * * 1") therefore covers the week that ended just before it runs;
// one at Sunday 00:00 ("0 0 * * 0") covers the week that ended six days
// earlier, because the Sunday it starts on is not over yet.
//
// # Daylight saving time
//
// robfig/cron/v3 matches local wall-clock time, which on its own loses a run
// when a fixed local time is skipped (a daily 02:30 job in Europe/Berlin does
// not run at all on 2026-03-29) and doubles one when a local time repeats (it
// runs at 02:30+02:00 and again at 02:30+01:00 on 2026-10-25). This package
// follows the rule of Vixie cron instead:
//
//   - A fixed-time spec, one with no * or ? in its minute and hour fields
//     (@daily, @weekly, "30 2 * * *"), runs a local time that a spring-forward
//     skipped once, at the instant the clocks jumped (03:00+02:00 on
//     2026-03-29 in Europe/Berlin), and runs a local time that a fall-back
//     repeated once, at its first occurrence (02:30+02:00 on 2026-10-25).
//   - A wildcard spec (@hourly, "0 * * * *", "*/15 * * * *") follows elapsed
//     time: a local hour that does not exist has no runs, and a local hour
//     that happens twice has runs in both, as distinct periods.
//
// Either way a skipped or repeated local hour neither loses nor doubles a
// run of a daily or weekly batch, and no period is ever invented for a local
// time that did not exist.
package schedule
