#!/usr/bin/env bash
# Tests internal/quant for arm64 under qemu user-mode emulation, on CPU
# models with the dot-product extension (neon-dotprod kernels) and without
# (neon kernels), and with BLSIM_KERNELS=generic. Installs qemu-user-static
# with apt-get if qemu-aarch64-static is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

qemu=qemu-aarch64-static
if ! command -v "$qemu" >/dev/null 2>&1; then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static
fi

GOARCH=arm64 go vet ./...
GOARCH=arm64 CGO_ENABLED=0 go build ./...

models=$("$qemu" -cpu help || true) # exits 1 after listing
ran=0
# model:kernels expected (QUANT_TEST_IMPL is checked by TestImpl)
for case in max:neon-dotprod cortex-a76:neon-dotprod cortex-a53:neon cortex-a72:neon; do
	model=${case%%:*} want=${case#*:}
	if ! grep -qw -- "$model" <<<"$models"; then
		echo "== qemu -cpu $model: not in this qemu, skipped"
		continue
	fi
	echo "== qemu -cpu $model: want $want"
	QUANT_TEST_IMPL=$want GOARCH=arm64 go test -count=1 -exec "$qemu -cpu $model" ./internal/quant/
	ran=$((ran + 1))
done
echo "== qemu -cpu max, BLSIM_KERNELS=generic"
BLSIM_KERNELS=generic QUANT_TEST_IMPL=generic GOARCH=arm64 go test -count=1 -exec "$qemu -cpu max" ./internal/quant/
[ "$ran" -ge 2 ] || { echo "fewer than two CPU models ran" >&2; exit 1; }
