#!/bin/sh
# Before `make lab GPU=...` installs a few GB of CUDA wheels: does this machine's NVIDIA driver
# run them? Reads the "CUDA Version" that nvidia-smi prints (the newest CUDA the driver runs).
#
#   sh tools/check_driver.sh 12    # the jax[cuda12] wheels (GPU=1), driver >= 525
#   sh tools/check_driver.sh 13    # the jax[cuda13] wheels (GPU=cuda13), driver >= 580
#
# jax 0.10.2's docs/installation.md: "the driver version must be >= 525 for CUDA 12 on Linux,
# and >= 580 for CUDA 13 on Linux"; on CUDA 13 it supports GPUs of SM 7.5 or newer (CUDA 13
# dropped the older ones). Prints one line; exits 1 only when the wheels cannot run.
want=$1
case $want in
12) driver=525 ;;
13) driver=580 ;;
*) echo "usage: sh tools/check_driver.sh 12|13" >&2; exit 2 ;;
esac

if ! command -v nvidia-smi >/dev/null 2>&1; then
	echo "No nvidia-smi here, so the driver is not checked: the CUDA $want wheels need NVIDIA driver >= $driver."
	exit 0
fi
header=$(nvidia-smi 2>/dev/null | grep -m 1 'CUDA Version')
cuda=$(echo "$header" | sed -n 's/.*CUDA Version: *\([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
version=$(echo "$header" | sed -n 's/.*Driver Version: *\([0-9][0-9.]*\).*/\1/p')
if [ -z "$cuda" ]; then
	echo "nvidia-smi shows no CUDA Version (is the driver loaded?), so it is not checked: the CUDA $want wheels need NVIDIA driver >= $driver."
	exit 0
fi
major=${cuda%%.*}
# The oldest GPU's compute capability ("7.0" on a V100); empty where nvidia-smi cannot say.
sm=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | sort -n | head -n 1)
sm_before_75=$(echo "$sm" | awk '/^[0-9]+\.[0-9]+$/ { print ($1 < 7.5) ? "yes" : "no" }')
if [ "$major" -lt 12 ]; then
	echo "NVIDIA driver ${version:-?} runs CUDA $cuda at most; JAX's CUDA 12 wheels need driver >= 525 and the CUDA 13 ones >= 580: update the driver."
	exit 1
elif [ "$major" -lt "$want" ]; then
	echo "NVIDIA driver ${version:-?} runs CUDA $cuda at most; the CUDA $want wheels need driver >= $driver: use GPU=1 (the CUDA 12 wheels) or update the driver."
	exit 1
elif [ "$want" = 13 ] && [ "$sm_before_75" = yes ]; then
	echo "This GPU has compute capability $sm; JAX's CUDA 13 wheels need 7.5 or newer: use GPU=1 (the CUDA 12 wheels)."
	exit 1
elif [ "$want" = 12 ] && [ "$major" -ge 13 ] && [ "$sm_before_75" != yes ]; then
	echo "NVIDIA driver ${version:-?} runs CUDA $cuda: the CUDA 12 wheels (GPU=1) run on it; GPU=cuda13 installs the CUDA 13 wheels JAX recommends for this driver instead."
else
	echo "NVIDIA driver ${version:-?} runs CUDA $cuda: the CUDA $want wheels run on it."
fi
