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
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10m}
maxrss=${MAXRSS_KB:-1048576}
minimize=${MINIMIZE:-100x}
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
status=0
for t in "${targets[@]}"; do
	[[ -n "${ONLY:-}" && "$t" != *"$ONLY"* ]] && continue
	pkg=${t% *} name=${t#* }
	log=$(mktemp)
	if /usr/bin/time -v go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" -parallel 1 "$pkg" >"$log" 2>&1; then
		res=ok
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
	if [ "$res" != ok ]; then
		grep -E -- '--- FAIL|panic|Failing input|testdata/fuzz' "$log" | head -20 || true
	fi
	rm -f "$log"
done
exit $status
