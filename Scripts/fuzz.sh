#!/usr/bin/env bash
# The fuzzing harness (issue 14): libFuzzer + AddressSanitizer + LeakSanitizer over every entry
# point that takes outside bytes. The harness is its own package (Fuzz/Harness), built into
# .build-fuzz, so the library's `swift build` and `swift test` never compile it.
#
#   Scripts/fuzz.sh build                  build the harness (release, -sanitize=fuzzer,address)
#   Scripts/fuzz.sh list                   the targets
#   Scripts/fuzz.sh seeds                  (re)write the seed corpora (Fuzz/make_seeds.py)
#   Scripts/fuzz.sh run TARGET [SECONDS] [libFuzzer flags...]
#                                          fuzz one target (default 60 s); findings → .build-fuzz/findings/TARGET
#   Scripts/fuzz.sh replay TARGET FILE...  run saved inputs (a finding, a regression input) once each
#   Scripts/fuzz.sh ci [SECONDS]           build, seed, every target for SECONDS (default 30); fails on a finding
#   Scripts/fuzz.sh long [SECONDS] [RUNS]  every target until RUNS inputs (default 10 million) or SECONDS
#                                          (default 3600), whichever comes first; summary → Fuzz/results/
#                                          (FUZZ_TARGETS="vorbis mp4" limits it to those targets: a
#                                          release's long run can be spread over several sittings)
#
# Goals each run enforces: no crash or broken invariant (a trap), no hang (one input may take at
# most 1 s of CPU time, checked by the harness; -timeout=10 catches inputs that never return — a
# wall-clock 1 s would flag a niced process merely waiting for the CPU), no leak (LeakSanitizer, on with ASan), no allocation beyond what the
# input justifies (-malloc_limit_mb: one malloc above the limit is a finding; inputs are at most
# 64 KiB, so the file targets allow 64 MB, the converter and settings targets 512 MB), and RSS
# under -rss_limit_mb=2048 (ASan's quarantine alone holds 256 MB).
# Every run is `nice -n 19`: other work on the machine (benchmarks) keeps priority.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SCRATCH=$ROOT/.build-fuzz
BIN=$SCRATCH/release/avaudio-fuzz
CORPUS=$SCRATCH/corpus
FINDINGS=$SCRATCH/findings
TARGETS=(wav aiff caf au flac alac settings converter codecconv smf sf2 dls aupreset plist mp4 ogg mpeg vorbis)   # the order of FuzzTarget.all (Registry.swift)

malloc_limit() {
  case "$1" in settings|converter) echo 512 ;; *) echo 64 ;; esac
}

# CPU seconds one input may take: 1 s, 10 s for the converter. The converter designs a resampler
# for every input and flushes its filter tail (a fixed number of output samples, ~130 at the
# default quality, so its length in input frames grows with the ratio), and the coverage
# instrumentation in the resampler's inner loops multiplies that work (one input inside 100:1,
# Fuzz/findings/converter-fixed-slow-1.5s-cpu-in-ci, took 1.5 s in CI and 5 s here under load). The wall-clock timeout (inputs that never return) is 10 s, 30 s for
# the converter.
cpu_limit() {
  case "$1" in converter) echo 10 ;; *) echo 1 ;; esac
}
wall_timeout() {
  case "$1" in converter) echo 30 ;; *) echo 10 ;; esac
}

build() {
  local start=$SECONDS
  # SwiftPM does not always notice source files added to or removed from a path dependency (the
  # library, seen from the harness package): drop the build plan so it is recomputed each time
  # (compilation stays incremental).
  rm -f "$SCRATCH/release.yaml"
  (cd Fuzz/Harness && nice -n 19 swift build -c release --scratch-path "$SCRATCH" \
      -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address 2>&1 \
    | grep -v -e 'ld.gold: warning: Cannot export local symbol' -e '^\[[0-9]*/[0-9]*\]') || return 1
  echo "[fuzz] harness built in $((SECONDS - start)) s"
}

seeds() {
  python3 Fuzz/make_seeds.py "$CORPUS/seeds"
}

# run TARGET SECONDS [flags...]: fuzz with the seeds (read-only) and the working corpus (grows).
run_target() {
  local target=$1 seconds=$2; shift 2
  [ -x "$BIN" ] || build
  [ -d "$CORPUS/seeds/$target" ] || seeds
  mkdir -p "$CORPUS/work/$target" "$FINDINGS/$target"
  # A crash leaves the target's scratch directory on /dev/shm behind; clean those of dead processes.
  for d in /dev/shm/avaudio-fuzz-*; do
    [ -d "$d" ] && ! kill -0 "${d##*-}" 2>/dev/null && rm -rf "$d"
  done
  # SWIFT_BACKTRACE: the Swift runtime's crash handler fights ASan's and can hang; ASan reports alone.
  AVFUZZ_TARGET=$target AVFUZZ_CPU_LIMIT="$(cpu_limit "$target")" SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0} \
    LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/Fuzz/lsan-suppressions.txt} \
    nice -n 19 "$BIN" -max_total_time="$seconds" -timeout="$(wall_timeout "$target")" -rss_limit_mb=2048 \
      -malloc_limit_mb="$(malloc_limit "$target")" -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$FINDINGS/$target/" "$@" "$CORPUS/work/$target" "$CORPUS/seeds/$target"
}

# summarize TARGET LOG: one Markdown table row from libFuzzer's final statistics.
summarize() {
  local target=$1 log=$2 status=$3 elapsed=${4:-?}
  local runs rate cov ft corp rss findings
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | awk '{print $2}')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | tail -1 | awk '{print $2}')
  rss=$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$log" | tail -1 | awk '{print $2}')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  corp=$(grep -o 'corp: [0-9]*/[0-9a-zA-Z]*' "$log" | tail -1 | awk '{print $2}')
  findings=$(ls "$FINDINGS/$target" 2>/dev/null | wc -l)
  echo "| $target | $elapsed | ${runs:-?} | ${rate:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | ${rss:-?} | $findings | $status |"
}

every_target() {
  local seconds=$1 runs=$2 report=$3
  local failed=0 logs=$SCRATCH/logs
  mkdir -p "$logs"
  {
    echo "| target | seconds | inputs | inputs/s | coverage (edges) | features | corpus (files/size) | peak RSS MB | findings | result |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
  } > "$report"
  for target in "${TARGETS[@]}"; do
    local log=$logs/$target.log status=ok extra=() started=$SECONDS
    [ "$runs" != 0 ] && extra=(-runs="$runs")
    if [ "$runs" != 0 ]; then echo "[fuzz] $target: ${seconds}s or $runs inputs"; else echo "[fuzz] $target: ${seconds}s"; fi
    if ! run_target "$target" "$seconds" "${extra[@]}" > "$log" 2>&1; then
      status="FINDING (see $log)"
      failed=1
      grep -E '^(==[0-9]+==ERROR|SUMMARY|avaudio-fuzz \[|Fatal error|artifact_prefix|Test unit written)' "$log" | head -20 || true
    fi
    summarize "$target" "$log" "$status" "$((SECONDS - started))" | tee -a "$report"
  done
  return $failed
}

cmd=${1:-}
shift || true
case "$cmd" in
  build) build ;;
  list) printf '%s\n' "${TARGETS[@]}" ;;
  seeds) seeds ;;
  run)
    target=${1:?usage: fuzz.sh run TARGET [SECONDS] [flags...]}; shift
    seconds=${1:-60}; [ $# -gt 0 ] && shift
    run_target "$target" "$seconds" "$@" ;;
  replay)
    target=${1:?usage: fuzz.sh replay TARGET FILE...}; shift
    [ -x "$BIN" ] || build
    AVFUZZ_TARGET=$target AVFUZZ_CPU_LIMIT="$(cpu_limit "$target")" SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/Fuzz/lsan-suppressions.txt} nice -n 19 "$BIN" -timeout="$(wall_timeout "$target")" -malloc_limit_mb="$(malloc_limit "$target")" "$@" ;;
  ci)
    seconds=${1:-30}
    build
    seeds
    every_target "$seconds" 0 "$SCRATCH/ci-summary.md"
    ;;
  long)
    seconds=${1:-3600}; runs=${2:-10000000}
    build
    seeds
    mkdir -p Fuzz/results
    if [ -n "${FUZZ_TARGETS:-}" ]; then
      read -r -a TARGETS <<< "$FUZZ_TARGETS"
      report=Fuzz/results/long-$(date -u +%Y-%m-%d)-$(IFS=+; echo "${TARGETS[*]}").md
    else
      report=Fuzz/results/long-$(date -u +%Y-%m-%d).md
    fi
    tmp=$SCRATCH/long-table-$$.md   # (per run: two long runs may share the scratch path)
    load_before=$(cut -d' ' -f1-3 /proc/loadavg)
    set +e
    every_target "$seconds" "$runs" "$tmp"
    result=$?
    set -e
    {
      echo "# Fuzzing: long run of $(date -u '+%Y-%m-%d %H:%M UTC')"
      echo
      echo "Each target ran until $runs inputs or $seconds s (nice 19, 1 s of CPU per input, ASan + LeakSanitizer,"
      echo "-malloc_limit_mb 64 for the file targets and 512 for settings/converter), from the seeds of"
      echo "Fuzz/make_seeds.py plus the working corpus of earlier runs. Machine: $(nproc) cores, load average"
      echo "before the run $load_before (other work shared the machine; inputs/s are indicative)."
      echo "Coverage is libFuzzer's count of instrumented edges reached (library and harness)."
      echo
      cat "$tmp"
    } > "$report"
    echo "[fuzz] summary written to $report"
    exit $result
    ;;
  *)
    sed -n '2,30p' "$0"; exit 2 ;;
esac
