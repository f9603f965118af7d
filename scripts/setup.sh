#!/usr/bin/env bash
# Installs whatever is missing for building opbench on Debian: the Debian packages, and LibTorch
# from the PyPI `torch` wheel in a project-local virtual environment (.venv, ignored by git).
# Set OPBENCH_TORCH_PREFIX (a directory holding share/cmake/Torch) to use another LibTorch instead.
set -euo pipefail
cd "$(dirname "$0")/.."

TORCH_VERSION="${OPBENCH_TORCH_VERSION:-2.15.0}"
# clang: libFuzzer for bench/fuzz.sh (CI runs a short smoke of it); clang-format: lint.format; chromium: the
# HTML report's browser test; slurmctld, slurmd, slurm-client, munge: the test slurm.nightly's single-host
# cluster (tests/slurm/cluster.sh); libjemalloc2: the measuring processes' malloc (docs/measuring.md).
packages=(cmake g++ make libcli11-dev nlohmann-json3-dev libfmt-dev libspdlog-dev libgtest-dev libcsv-dev libsqlite3-dev libjemalloc2 clang clang-format chromium slurmctld slurmd slurm-client munge)

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! python3 -c "import venv, ensurepip" >/dev/null 2>&1; then missing+=(python3 python3-venv); fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -z "${OPBENCH_TORCH_PREFIX:-}" ]; then
  if ! .venv/bin/python -c "import torch" >/dev/null 2>&1; then
    echo "setup: installing LibTorch (PyPI torch==${TORCH_VERSION}) into .venv"
    # The wheel and its CUDA libraries take about 5.5 GiB in .venv, and pip unpacks them in the
    # temporary directory first (not kept in a pip cache after: --no-cache-dir): say so up front
    # when the disk is short, and after a failure.
    free_gib() { df -Pk "$1" 2>/dev/null | awk 'NR == 2 { printf "%.1f", $4 / 1048576 }'; }
    tmp="${TMPDIR:-/tmp}"
    here_free="$(free_gib .)"
    tmp_free="$(free_gib "$tmp")"
    if awk -v a="$here_free" 'BEGIN { exit !(a < 10) }'; then
      echo "setup: warning: ${here_free} GiB free here; LibTorch needs about 10 GiB while it installs"
    fi
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check --no-cache-dir "torch==${TORCH_VERSION}" || {
      echo "setup: pip could not install torch==${TORCH_VERSION} into $PWD/.venv" \
           "(free now: $(free_gib .) GiB here, $(free_gib "$tmp") GiB in $tmp; before: ${here_free} and ${tmp_free})." \
           "It needs about 10 GiB while it installs." >&2
      exit 1
    }
  fi
  # NVML's header (150 KB), for the device state opbench reads through the driver's library at
  # run time (machine/device_state.hpp): the CUDA toolkit has it where the full toolkit is
  # installed, the torch wheel does not.
  if ! ls .venv/lib/python3*/site-packages/nvidia/cu13/include/nvml.h >/dev/null 2>&1; then
    .venv/bin/pip install --quiet --disable-pip-version-check --no-cache-dir "nvidia-nvml-dev==13.5.37" || {
      echo "setup: pip could not install nvidia-nvml-dev (NVML's header) into $PWD/.venv" >&2
      exit 1
    }
  fi
fi
