// Package memory holds the domain rules of what Mnemo keeps about a user,
// shared by the job workers (package jobs), the HTTP API and the views: a
// profile write and the profile as of a time (profile.go), the cues a
// profile change records (cues.go), forgetting (forget.go) and the export
// archive (archive.go). It runs no job: jobs keeps the River workers.
package memory
