#!/usr/bin/env bash
# The test suite against a second LibTorch (issue #14): the PyPI wheel torch==2.11.0, the one the
# GPU machine has, beside the default 2.15. It is installed without its dependencies into
# .torch-VERSION/ (ignored by git): its CUDA libraries are the main .venv's (the same CUDA major,
# 13, so the same library names; the wheel finds them through its RPATH, $ORIGIN/../../nvidia,
# a link to the .venv's). Built in build-torch-VERSION/ (tests only), then ctest.
# Run by scripts/ci.sh after the main suite and the fuzz smoke; alone: scripts/test-second-libtorch.sh [VERSION]
# (default: $OPBENCH_SECOND_TORCH, else 2.11.0).
set -euo pipefail
cd "$(dirname "$0")/.."
version="${1:-${OPBENCH_SECOND_TORCH:-2.11.0}}"
[ "$version" = "off" ] && version=2.11.0
dir=".torch-$version"
[ -x .venv/bin/python ] || ./scripts/setup.sh
if [ ! -f "$dir/torch/share/cmake/Torch/TorchConfig.cmake" ]; then
  echo "second LibTorch: installing the torch==$version wheel (no dependencies) into $dir/"
  .venv/bin/pip install --quiet --no-deps --no-cache-dir --target "$dir" "torch==$version"
fi
site="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
ln -sfn "$site/nvidia" "$dir/nvidia"
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
build="build-torch-$version"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PWD/$dir/torch/share/cmake" \
  -DOPBENCH_BUILD_BENCH=OFF -DOPBENCH_WARNINGS_AS_ERRORS="$werror" -DOPBENCH_REQUIRE_CUDA=ON \
  >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
grep -m1 "opbench: LibTorch" "$build.configure.log" || true
cmake --build "$build" -j"$(nproc)"
# The inductor stage compiles with Python's torch, which must be this LibTorch's version: the
# .venv's Python finds the wheel in $dir first.
pythonpath="$PWD/$dir${PYTHONPATH:+:$PYTHONPATH}"
(cd "$build" && PYTHONPATH="$pythonpath" ctest --output-on-failure -j"$(nproc)")
