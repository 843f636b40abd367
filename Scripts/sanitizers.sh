#!/usr/bin/env bash
# Sanitizer runs (issue 14): Thread Sanitizer over the threading tests, Address Sanitizer over the
# suite. Each builds in its own scratch path (.build-tsan, .build-asan; ignored by git).
#
#   Scripts/sanitizers.sh tsan          the concurrency suites under TSan (run by .ci/run); fails on
#                                       any report (TSan exits 66)
#   Scripts/sanitizers.sh asan [FILTER] the whole suite (or FILTER) under ASan, once per release
#   Scripts/sanitizers.sh asan-ci       the fast subset under ASan (run by .ci/run): the suites over
#                                       parsers, files, codecs, buffers, formats, the converter,
#                                       parameters and bad input (216 tests, ~3 min on 2 cores)
#
# In sanitizer builds the allocation counter (Sources/AllocationCounter) does not interpose the
# allocator (the sanitizer's runtime does), so the allocation tests are left out of these runs.
set -euo pipefail
cd "$(dirname "$0")/.."
export AVAUDIO_BACKEND=${AVAUDIO_BACKEND:-null}
mode=${1:-tsan}
case "$mode" in
  tsan)
    swift build --build-tests --sanitize=thread --scratch-path .build-tsan
    # Graph edits, scheduling, taps, stop/start/reset and parameter changes from several threads
    # while the engine renders in real time on the null device; custom units prepared outside the
    # lock; MIDI from any thread; the sequencer driving an instrument on the real-time null
    # device (its position published to the control side under a sequence lock).
    filter=${2:-"EngineThreadingTests|AUAudioUnitPreparationTests|AUAudioUnitSysExTests|AUAudioUnitMIDITests|AVAudioSequencerPlaybackTests"}
    TSAN_OPTIONS="halt_on_error=0 exitcode=66 ${TSAN_OPTIONS:-}" \
      .build-tsan/x86_64-unknown-linux-gnu/debug/OpenAVFAudioPackageTests.xctest --testing-library swift-testing --filter "$filter"
    ;;
  asan)
    swift build --build-tests --sanitize=address --scratch-path .build-asan
    filter=${2:-"^(?!AllocationCounterTests)"}
    ASAN_OPTIONS="detect_leaks=0 ${ASAN_OPTIONS:-}" \
      .build-asan/x86_64-unknown-linux-gnu/debug/OpenAVFAudioPackageTests.xctest --testing-library swift-testing --filter "$filter"
    ;;
  asan-ci)
    exec "$0" asan 'AVAudioFile|FLAC|MD5|AVAudioPCMBuffer|AVAudioFormat|StreamDescription|AVAudioConverter|BadInput|AUParameter|AudioToolboxTests|MIDIFilesTests|CorpusTests|FileTruncation|AudioFileFormatsTests|AudioCodecsTests|CoreAudioTypesTests'
    ;;
  *) echo "usage: $0 tsan|asan [FILTER]|asan-ci" >&2; exit 2 ;;
esac
