#!/usr/bin/env bash
# The long soak (issue 14): SoakTests with 24 hours of audio (AVAUDIO_SOAK_SECONDS, default 86400),
# rendered twice offline through a graph that changes every half second; checks impulse timing to
# the sample, identical renders whatever the chunk sizes, and flat memory (checked only here: in
# `swift test` other suites share the process). `swift test` runs the same test with 10 minutes of
# audio.
set -euo pipefail
cd "$(dirname "$0")/.."
export AVAUDIO_SOAK_SECONDS=${AVAUDIO_SOAK_SECONDS:-86400}
export AVAUDIO_BACKEND=${AVAUDIO_BACKEND:-null}
# -enable-testing: the test targets use @testable imports; AVAUDIO_TESTABLE_RELEASE leaves out the
# real-time proofs, which need the devirtualisation that -enable-testing prevents (see
# Sources/AudioKernels/RealTimeSafety.swift; .ci/run checks them in the plain release build).
FLAGS=(-Xswiftc -enable-testing -Xswiftc -DAVAUDIO_TESTABLE_RELEASE)
swift build -c release --build-tests "${FLAGS[@]}"
swift test -c release "${FLAGS[@]}" --skip-build --filter SoakTests 2>&1 | tee /tmp/avaudio-soak.log | grep -E "soak:|✘|✔ Test run"
