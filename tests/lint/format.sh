#!/usr/bin/env bash
# lint.format: every C++ source git tracks is formatted as .clang-format says. Uses clang-format 14
# (Debian 12's, which scripts/setup.sh installs); with another major version the layout rules
# differ, so the test is skipped (exit 77) saying so. Fix a failure with:
#   clang-format -i $(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu')
set -euo pipefail
cd "$(dirname "$0")/../.."
tool=""
for candidate in clang-format-14 clang-format; do
  if command -v "$candidate" >/dev/null; then tool="$candidate"; break; fi
done
[ -n "$tool" ] || { echo "lint.format: no clang-format (scripts/setup.sh installs it)"; exit 1; }
major="$("$tool" --version | sed -E 's/.*version ([0-9]+).*/\1/')"
if [ "$major" != "14" ]; then
  echo "lint.format: skipped: $tool is version $major, the layout is checked with 14"
  exit 77
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu')
if "$tool" --dry-run --Werror "${files[@]}" 2>/tmp/lint-format.$$; then
  echo "lint.format: ${#files[@]} files formatted as .clang-format says"
  rm -f /tmp/lint-format.$$
else
  grep -E "error:" /tmp/lint-format.$$ | sed -E 's/:[0-9]+: error:.*//' | sort | uniq -c | sed 's/^/lint.format: lines to reformat: /' | head -40
  rm -f /tmp/lint-format.$$
  echo "lint.format: run clang-format -i on them (see tests/lint/format.sh)"
  exit 1
fi
