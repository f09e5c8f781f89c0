#!/usr/bin/env bash
# docs-figures.sh: draws every figure in docs/ again, each with the one
# command recorded for it below, from the repository's root:
#
#	bash scripts/docs-figures.sh
#
# The "blsim ..." lines are the record: one a figure, with its output under
# docs/, and nothing a shell would expand (no quotes, variables or globs).
# cmd/blsim's TestDocsFigures runs the same lines into a temporary folder
# and holds each figure to the file in docs/, byte for byte (go test
# ./cmd/blsim -run DocsFigures -update rewrites them as this script does),
# and each page that shows a figure names its line.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/blsim" ./cmd/blsim
blsim() { "$bin/blsim" "$@"; }

# docs/seed.md (split.png also in README.md)
blsim plot split -o docs/split.png
blsim plot timeline -o docs/timeline.png
blsim plot heatmap -o docs/heatmap.png
blsim plot heatmap --soc rk3588-npu --engines big,npu -o docs/heatmap-npu.png
blsim plot timeline --soc cix-p1 --engines big,mid,little -o docs/timeline-cix-p1.png
blsim plot parity -o docs/parity.png
blsim plot roofline -o docs/roofline.png
# docs/threads-decode.md
blsim plot threads -o docs/threads.png
# docs/calibration.md (its profile, an input here, is refitted by
# blsim fit --measurements calibrate/fit/testdata/vm-bench-grid.jsonl --soc calibrate/fit/testdata/vm-prior.yaml --stat best --holdout f=0.15,f=0.25,f=0.35,f=0.45 -o docs/vm-bench-fitted.yaml)
blsim plot split --soc docs/vm-bench-fitted.yaml --workload synthetic-moe --measurements calibrate/fit/testdata/vm-bench-grid.jsonl --stat best -o docs/split-vm.png
