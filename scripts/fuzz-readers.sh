#!/usr/bin/env bash
# Fuzzes every reader of user input for FUZZTIME each (default 10m), one
# worker at a time, and prints per target the executions, new corpus
# entries and the largest resident set of any process (GNU time's
# "Maximum resident set size", which covers the fuzz workers). Fails on a
# crash or when a target's peak RSS passes MAXRSS_KB (default 1 GiB).
#
#   scripts/fuzz-readers.sh            # 10 minutes each
#   FUZZTIME=30s scripts/fuzz-readers.sh
#   ONLY=gguf scripts/fuzz-readers.sh  # the targets whose line matches
#
# Each input that reaches new code is minimized before fuzzing goes on,
# for at most MINIMIZE tries (default 100x; go test's own default is 60s).
# Executions while minimizing are not counted in "execs": with ten seconds
# of them per input, the GGUF reader (whose every run maps a model, and
# which finds new code every few seconds) spent its minute minimizing,
# with 55 executions counted (issue 31).
#
# A target that fails only with go test's "context deadline exceeded" at
# the end of FUZZTIME, having written no failing input, is reported
# "ok (deadline race)": that is a race in Go's fuzzing coordinator
# (golang/go#75804, fixed in Go 1.27), not a finding. On go1.26.8 it
# failed 1 of 6 two-minute runs of FuzzParseMapping (issue 31).
#
# A failed target's whole go test output is kept (LOGDIR, default a new
# folder under /tmp) and its last lines printed: a failure go test reports
# without a failing input (a worker killed by a signal, an error talking
# to it) is otherwise lost with the log.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10m}
maxrss=${MAXRSS_KB:-1048576}
minimize=${MINIMIZE:-100x}
logdir=${LOGDIR:-}
targets=(
	"./model FuzzParseSoC"
	"./model FuzzParseWorkload"
	"./calibrate/runner FuzzParseGridFile"
	"./calibrate/runner FuzzParseMapping"
	"./calibrate/topology FuzzParseCPUList"
	"./calibrate/llamabench FuzzParse"
	"./measure FuzzRead"
	"./measure FuzzFastDecode"
	"./gguf FuzzRead"
	"./hfconfig FuzzParse"
)
# deadline_race LOG CORPUS_BEFORE CORPUS_AFTER: whether go test's only
# complaint in LOG is the coordinator's deadline (golang/go#75804), with
# no failing input written.
deadline_race() {
	grep -q 'Failing input written' "$1" && return 1
	[ "$2" = "$3" ] || return 1
	local msgs
	msgs=$(awk '/^--- FAIL: /{f=1; next} /^(FAIL|PASS)$/{f=0} f' "$1" | sed 's/^ *//' | sort -u)
	[ "$msgs" = "context deadline exceeded" ]
}
status=0
for t in "${targets[@]}"; do
	[[ -n "${ONLY:-}" && "$t" != *"$ONLY"* ]] && continue
	pkg=${t% *} name=${t#* }
	log=$(mktemp)
	corpus="$pkg/testdata/fuzz/$name"
	before=$(ls "$corpus" 2>/dev/null || true)
	if /usr/bin/time -v go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" -parallel 1 "$pkg" >"$log" 2>&1; then
		res=ok
	elif deadline_race "$log" "$before" "$(ls "$corpus" 2>/dev/null || true)"; then
		res="ok (deadline race, golang/go#75804)"
	else
		res=FAIL status=1
	fi
	rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
	execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | awk '{print $2}')
	new=$(grep -o 'new interesting: [0-9]*' "$log" | tail -1 | awk '{print $3}')
	if [ "${rss:-0}" -gt "$maxrss" ]; then
		res="FAIL (peak RSS over ${maxrss} kB)" status=1
	fi
	printf '%-40s %-6s execs %-10s new %-5s peak RSS %s kB\n' "$pkg $name" "$res" "${execs:-?}" "${new:-?}" "${rss:-?}"
	if [ "${res#FAIL}" != "$res" ]; then
		if [ -n "$logdir" ]; then mkdir -p "$logdir"; else logdir=$(mktemp -d /tmp/fuzz-readers.XXXXXX); fi
		p=${pkg#./} kept="$logdir/${p//\//_}-$name.log"
		cp "$log" "$kept"
		grep -v -e '^fuzz: elapsed' -e "^$(printf '\t')" "$log" | tail -20 || true
		echo "  whole log: $kept"
	fi
	rm -f "$log"
done
exit $status
