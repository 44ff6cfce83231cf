#!/usr/bin/env bash
# Builds the libFuzzer targets (clang++, address + undefined-behaviour sanitizers) into
# build-sanitize/ (scripts/sanitize_build.sh) and runs each for SECONDS. Exits non-zero if any
# target finds a crash, leak, timeout or out-of-memory; the input is saved under
# build-sanitize/artifacts/TARGET/. See docs/fuzzing.md.
# Usage: bash scripts/fuzz.sh SECONDS [TARGET...]      (default: every target)
# Seeds are read in place (fuzz/seeds, the repository's models and profiles, ../shared/onnx-tests
# when present); what a run learns is kept in build-sanitize/corpus/TARGET for the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_load_model fuzz_tensor_files fuzz_profile_json fuzz_graph)
onnx_tests=${STRATA_ONNX_TESTS:-../shared/onnx-tests}

bash scripts/sanitize_build.sh "${targets[@]}"

# Seeds: symbolic links to the files, rebuilt each run (nothing is copied into the repository).
# link_seeds TARGET MAX_BYTES DIR... ( FIND_TEST... ): files under each DIR in turn, so that the
# hand-made seeds come first and ../shared's thousands of files cannot crowd them out of the 3,000.
link_seeds() {
  local dir=build-sanitize/seeds/$1 max=$2 dirs=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != "(" ]; do dirs+=("$1") && shift; done
  rm -rf "$dir" && mkdir -p "$dir"
  local i=0
  while IFS= read -r f; do
    ln -s "$(realpath "$f")" "$dir/$i-$(basename "$f")"
    i=$((i + 1))
  done < <(for d in "${dirs[@]}"; do find "$d" "$@" -type f -size -"$max"c 2>/dev/null | sort; done |
    head -n 3000)
}
seed_args() {
  case $1 in
    fuzz_load_model)
      link_seeds "$1" 65536 fuzz/seeds/load_model examples tests/models "$onnx_tests" \
        \( -name '*.onnx' \) ;;
    fuzz_tensor_files)
      link_seeds "$1" 16384 fuzz/seeds/tensor_files examples tests/io/data tests/models \
        "$onnx_tests/node" \( -name '*.pb' -o -name '*.np[yz]' -o -name '*.json' \
        -o -name '*.p[gp]m' -o -name '*.png' -o -name '*.bmp' -o -name '*.jpg' \) ;;
    fuzz_profile_json)
      link_seeds "$1" 262144 tests/report/data docs \( -name '*.json' \) ;;
    fuzz_graph)
      rm -rf "build-sanitize/seeds/$1" && mkdir -p "build-sanitize/seeds/$1" ;;
  esac
}
max_len() {
  case $1 in
    fuzz_graph) echo 4096 ;;
    fuzz_tensor_files) echo 16384 ;;
    *) echo 65536 ;;
  esac
}

# The targets run side by side, STRATA_FUZZ_JOBS at a time (default: one per core), each on one
# thread, so that every target still gets SECONDS of a core. (Counted before OMP_NUM_THREADS is
# set: nproc obeys it.)
jobs=${STRATA_FUZZ_JOBS:-$(nproc)}
export OMP_NUM_THREADS=1  # one thread: reproducible runs, and the machine is shared
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# run_target TARGET: one fuzzing run; its exit status is libFuzzer's.
run_target() {
  local t=$1
  mkdir -p "build-sanitize/corpus/$t" "build-sanitize/artifacts/$t" "build-sanitize/tmp/$t"
  # -timeout: one input running over 30 s is a hang; -rss_limit_mb: over 2.5 GB is a leak or a
  # limit strata failed to apply (the graph fuzzer runs with a 64 MiB --max-memory).
  local status=0
  TMPDIR=$PWD/build-sanitize/tmp/$t "./build-sanitize/fuzz/$t" -max_total_time="$seconds" \
    -timeout=30 -rss_limit_mb=2560 -max_len="$(max_len "$t")" -print_final_stats=1 \
    -artifact_prefix="build-sanitize/artifacts/$t/" "build-sanitize/corpus/$t" "build-sanitize/seeds/$t" \
    >"build-sanitize/$t.log" 2>&1 || status=$?
  rm -rf "build-sanitize/tmp/$t"
  return "$status"
}

for t in "${targets[@]}"; do seed_args "$t"; done
echo "== ${targets[*]}: ${seconds}s each, $jobs at a time"
declare -A pids=()
failed=()
wait_one() {  # waits for the target that started first and records its outcome
  local first
  for first in "${targets[@]}"; do [ -n "${pids[$first]:-}" ] && break; done
  wait "${pids[$first]}" || failed+=("$first")
  unset "pids[$first]"
}
for t in "${targets[@]}"; do
  while [ ${#pids[@]} -ge "$jobs" ]; do wait_one; done
  run_target "$t" &
  pids[$t]=$!
done
while [ ${#pids[@]} -gt 0 ]; do wait_one; done

for t in "${targets[@]}"; do
  echo "-- $t: $(grep -E '^stat::number_of_executed_units' "build-sanitize/$t.log" || echo 'no stats')"
done
if [ ${#failed[@]} -gt 0 ]; then
  for t in "${failed[@]}"; do
    echo "== $t failed:"
    tail -n 40 "build-sanitize/$t.log"
  done
  echo "fuzzing found problems in: ${failed[*]} (inputs in build-sanitize/artifacts/, logs in build-sanitize/*.log)"
  exit 1
fi
echo "fuzzing: no crash, leak or timeout in ${targets[*]} (${seconds}s each)"
