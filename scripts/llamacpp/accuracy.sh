#!/usr/bin/env bash
# accuracy.sh STEP OUTDIR: the real-llama.cpp campaign of
# docs/llamacpp-accuracy.md, one step a call so that each fits in one quiet
# window of a shared machine (run each as `/work/tools/quiet accuracy.sh
# STEP OUTDIR`, or alone on an idle machine):
#   prior  blsim calibrate --quick --cluster big=0-1 (the README's step): OUTDIR/prior.yaml
#   fit    llama-bench pp512 x -t 1,2 x -ub 64,512 x --poll 0,50, 3 shuffled rounds
#   pp     llama-bench -p 64,128,256,1024,2048 x -t 1,2 (ub 512, poll 50), 1 round
#   tg     llama-bench -n 32,128 x -t 1,2 x --poll 0,50, 1 round
# Each step's runs go to OUTDIR/STEP.jsonl (llama-bench -r 3, -o jsonl);
# `cat OUTDIR/{fit,pp,tg}.jsonl > OUTDIR/runs.jsonl` joins them.
# The fits and their held-out errors are offline and quick (blsim validate
# --holdout on that file); docs/llamacpp-accuracy.md gives the commands.
# BLSIM (default: blsim on PATH), GGUF (default
# /work/llama-data/moe-q8.gguf) and LLAMA_BENCH (default
# /work/llama.cpp/build/bin/llama-bench) name the programs and the model.
set -euo pipefail
step=${1:?usage: accuracy.sh prior|fit|pp|tg OUTDIR}
out=${2:?usage: accuracy.sh prior|fit|pp|tg OUTDIR}
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
*)
	echo "accuracy.sh: unknown step $step (prior, fit, pp or tg)" >&2
	exit 2
	;;
esac
