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
swift build -c release --build-tests -Xswiftc -enable-testing   # (@testable imports in the test targets)
swift test -c release -Xswiftc -enable-testing --skip-build --filter SoakTests 2>&1 | tee /tmp/avaudio-soak.log | grep -E "soak:|✘|✔ Test run"
