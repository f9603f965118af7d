#!/usr/bin/env bash
# libFuzzer on opbench's readers of outside input (issues #14, #47): the CSV config loader, the
# JSON config loader, the result-file reader (JSON files and journals), merge over two result
# files, and the command line's numeric options. Builds build-fuzz/ with
# clang (AddressSanitizer with LeakSanitizer, UndefinedBehaviorSanitizer; only opbench_base and
# fuzz/, no LibTorch), seeds each corpus from tests/data and configs/ops, runs each harness for
# SECONDS and prints one line each. Exit 1 on a crash, a leak, a sanitizer report or a hang
# (over 10 s on one input); the input that did it is kept in results/fuzz/<harness>/.
#   bench/fuzz.sh [SECONDS=600] [HARNESS...]      (scripts/ci.sh runs a 30 s smoke of each)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
[ $# -gt 0 ] && shift
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(fuzz_csv_loader fuzz_json_loader fuzz_result_reader fuzz_merge fuzz_numeric_options)
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ is needed (apt-get install clang)" >&2; exit 2; }
mkdir -p results/fuzz
cmake -S . -B build-fuzz -DOPBENCH_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  >results/fuzz/configure.log 2>&1 || { tail -20 results/fuzz/configure.log; exit 2; }
cmake --build build-fuzz -j"$(nproc)" >results/fuzz/build.log 2>&1 || { grep -A5 error results/fuzz/build.log | head -40; exit 2; }

seed() {  # harness corpus
  case "$1" in
    fuzz_csv_loader) cp tests/data/*.csv configs/ops/*.csv "$2"/ ;;
    fuzz_json_loader) cp tests/data/tiny.json configs/ops/nn.json configs/ops/indexing.json examples/*/*.json "$2"/ ;;
    fuzz_result_reader)
      cp tests/data/compare/*.json "$2"/
      # A leading 'J' makes the harness read the rest as a journal: the same results as journal
      # lines (header, finished cases, then a repetition of a case that never finished).
      for j in tests/data/compare/*.json; do
        python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))
lines = [{"schema_version": r.get("schema_version", 1), "context": r.get("context", {})}]
cases = r.get("cases", [])
lines += cases[1:]
if cases:
    lines.append(dict(cases[0], repetition=1, repetitions_planned=3))
sys.stdout.write("J" + "".join(json.dumps(l) + "\n" for l in lines))' "$j" > "$2/journal-$(basename "$j" .json)"
      done ;;
    fuzz_merge)
      # Two result files a 0 byte apart: each compare fixture with the next one (shards of one
      # setup, of two setups, with a case in both).
      files=(tests/data/compare/*.json)
      for i in "${!files[@]}"; do
        { cat "${files[$i]}"; printf '\0'; cat "${files[$(((i + 1) % ${#files[@]}))]}"; } >"$2/pair-$i"
      done ;;
    fuzz_numeric_options)
      for v in 0 1 3 0.01 1e-3 1e23 -1 nan inf 18446744073709551615 18446744073709551616 ' 2 ' 0x10 1,5; do
        printf '%s' "$v" >"$2/value-$(printf '%s' "$v" | md5sum | cut -c1-8)"
      done ;;
  esac
}

status=0
for h in "${harnesses[@]}"; do
  dir="results/fuzz/$h"
  mkdir -p "$dir/corpus"
  seed "$h" "$dir/corpus"
  set +e
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "build-fuzz/fuzz/$h" "$dir/corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
    -max_len=65536 -artifact_prefix="$dir/" -print_final_stats=1 >"$dir/log" 2>&1
  rc=$?
  set -e
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log" | grep -o '[0-9]*$' || echo "?")
  size=$(ls "$dir/corpus" | wc -l)
  if [ $rc -eq 0 ]; then
    echo "$h: ${seconds} s, $runs inputs, corpus $size: no crash, leak or hang"
  else
    status=1
    echo "$h: FINDING after $runs inputs (exit $rc): $(grep -m1 -E 'ERROR|SUMMARY|timeout|leak' "$dir/log")"
    ls "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* 2>/dev/null | head -3
  fi
done
exit $status
