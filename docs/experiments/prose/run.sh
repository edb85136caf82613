#!/usr/bin/env bash
# The prose experiment of docs/nlp-decision.md, in one command (from anywhere):
#   bash docs/experiments/prose/run.sh [CORPORA_DIR]
# CORPORA_DIR holds synthetic-persona-chat/ and memorybank/ (default: the shared
# corpora beside the checkout, else /work/shared/corpora). Needs the Go module proxy
# the first time (prose v2.0.0 and its four dependencies, into this module only).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
corpora=${1:-$root/../shared/corpora}
[ -d "$corpora" ] || corpora=/work/shared/corpora
cd "$here"
export GOFLAGS=-mod=mod
echo "== checks: gofmt, go vet, go test (this module) =="
test -z "$(gofmt -l .)" || { gofmt -l .; exit 1; }
go vet ./...
go test -count=1 ./...
go build -o bin/exp .
go build -o bin/sizebase ./cmd/sizebase
go build -o bin/sizeprose ./cmd/sizeprose
go build -ldflags='-s -w' -o bin/sizebase.stripped ./cmd/sizebase
go build -ldflags='-s -w' -o bin/sizeprose.stripped ./cmd/sizeprose
echo
echo "machine: $(nproc) cores, $(go version), load: $(cut -d' ' -f1-3 /proc/loadavg)"
./bin/exp -corpora "$corpora" -out out
echo
echo "== binary size (rules alone vs rules + prose tagger and NER) =="
for b in sizebase sizeprose sizebase.stripped sizeprose.stripped; do
	printf '%-20s %10d bytes\n' "$b" "$(stat -c %s "bin/$b")"
done
echo
echo "== baseline: go test ./extract -run '^\$' -bench 'BenchmarkRules\$' (main module, sample Mona session) =="
(cd "$root" && go test ./extract -run '^$' -bench 'BenchmarkRules$' -benchmem -count 3 | grep -E '^Benchmark')
