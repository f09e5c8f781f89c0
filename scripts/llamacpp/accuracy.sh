#!/usr/bin/env bash
# accuracy.sh STEP OUTDIR: the real-llama.cpp campaign of
# docs/llamacpp-accuracy.md, one step a call so that each fits in one quiet
# window of a shared machine (run each as `/work/tools/quiet accuracy.sh
# STEP OUTDIR`, or alone on an idle machine):
#   prior  blsim calibrate --quick --cluster big=0-1 (the README's step): OUTDIR/prior.yaml
#   fit    llama-bench pp512 x -t 1,2 x -ub 64,512 x --poll 0,50, 3 shuffled rounds
#   pp     llama-bench -p 64,128,256,1024,2048 x -t 1,2 (ub 512, poll 50), 1 round
#   tg     llama-bench -n 32,128 x -t 1,2 x --poll 0,50, 1 round
#   round N  every configuration of fit, pp and tg once, in an order of
#          round N's own (22 runs), all to OUTDIR/rounds.jsonl: three such
#          rounds, each in its own window, put the fitted and the held-out
#          configurations in the same moments of the machine
# Each step's runs go to OUTDIR/STEP.jsonl (round's to OUTDIR/rounds.jsonl) (llama-bench -r 3, -o jsonl);
# `cat OUTDIR/{fit,pp,tg}.jsonl > OUTDIR/runs.jsonl` joins them.
# The fits and their held-out errors are offline and quick (blsim validate
# --holdout on that file); docs/llamacpp-accuracy.md gives the commands.
# BLSIM (default: blsim on PATH), GGUF (default
# /work/llama-data/moe-q8.gguf) and LLAMA_BENCH (default
# /work/llama.cpp/build/bin/llama-bench) name the programs and the model.
set -euo pipefail
usage="usage: accuracy.sh prior|fit|pp|tg OUTDIR, or accuracy.sh round N OUTDIR"
step=${1:?$usage}
if [ "$step" = round ]; then
	n=${2:?$usage}
	shift
fi
out=${2:?$usage}
blsim=${BLSIM:-blsim}
gguf=${GGUF:-/work/llama-data/moe-q8.gguf}
lb=${LLAMA_BENCH:-/work/llama.cpp/build/bin/llama-bench}
mkdir -p "$out"
runs=$out/$step.jsonl
bench() { # bench 'EXTRA LLAMA-BENCH ARGS' BLSIM-ARGS...
	local extra=$1
	shift
	"$blsim" calibrate --bench "$lb -m $gguf -r 3 -o jsonl $extra" --gguf "$gguf" --soc "$out/prior.yaml" \
		--measurements "$runs" --no-fit "$@"
}
case $step in
prior)
	"$blsim" calibrate --quick --cluster big=0-1 -o "$out/prior.yaml" --measurements "$out/prior-runs.jsonl" --name prior
	;;
fit)
	bench "-n 0" --arg -p=512 --arg -t=1,2 --arg -ub=64,512 --arg --poll=0,50 --rounds 3 --shuffle
	;;
pp)
	bench "-n 0" --arg -p=64,128,256,1024,2048 --arg -t=1,2
	;;
tg)
	bench "-p 0" --arg -n=32,128 --arg -t=1,2 --arg --poll=0,50
	;;
round)
	{
		for t in 1 2; do
			for ub in 64 512; do
				for poll in 0 50; do
					[ "$t" = 1 ] && [ "$poll" = 0 ] && continue # one thread never waits at a barrier
					echo "-n 0|-p=512 -t=$t -ub=$ub --poll=$poll"
				done
			done
			for p in 64 128 256 1024 2048; do echo "-n 0|-p=$p -t=$t"; done
			for g in 32 128; do
				for poll in 0 50; do
					[ "$t" = 1 ] && [ "$poll" = 0 ] && continue
					echo "-p 0|-n=$g -t=$t --poll=$poll"
				done
			done
		done
	} | shuf --random-source=<(yes "$n") | while IFS='|' read -r extra args; do
		set --
		for a in $args; do set -- "$@" --arg "$a"; done
		echo "round $n: $extra $args" >&2
		# One file a run (calibrate refuses to extend a file without
		# --resume, which would skip what an earlier round measured),
		# its records' IDs tagged with the round, then appended.
		one=$(mktemp "$out/run.XXXXXX.jsonl")
		rm -f "$one"
		runs=$one bench "$extra" "$@" </dev/null
		python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    r["id"] += "/round=" + sys.argv[2]
    print(json.dumps(r, separators=(",", ":")))' "$one" "$n" >>"$out/rounds.jsonl"
		rm -f "$one"
	done
	;;
*)
	echo "accuracy.sh: unknown step $step (prior, fit, pp, tg or round)" >&2
	exit 2
	;;
esac
