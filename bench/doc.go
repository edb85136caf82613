// Package bench holds Mnemo's end-to-end benchmarks: session handoff over
// HTTP and in-process on both databases, latency under an open-loop load at
// 80 % of peak, extraction throughput and worker CPU against a fake LLM of
// fixed latency, and the scheduled batches on a million rows. It has no code
// of its own; the benchmarks are in its test files and their measured
// results in docs/benchmarks.md.
//
//	TEST_DATABASE_URL='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' \
//	    go test ./bench -run '^$' -bench 'Handoff|Extraction' -benchtime 5s -count 3
package bench
