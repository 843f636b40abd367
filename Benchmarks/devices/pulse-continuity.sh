#!/usr/bin/env bash
# Long-run PulseAudio continuity check (the test suite runs 6 s; this runs as long as you like):
# a private PulseAudio server with a float32 null sink, `avaudio play` playing a counter signal
# (every frame names its index) through the engine, `parec` recording the sink's monitor, and a
# check that the recording continues the counter frame after frame (gaps of silence are
# underruns; frames skipped on resuming after one are reported).
#
#   Benchmarks/devices/pulse-continuity.sh [SECONDS=60] [PERIOD=1024]
#
# Needs: pulseaudio, parec (pulseaudio-utils), python3, a built avaudio (swift build).
# Starts and stops only its own server (its PID), in its own temporary directory.
set -euo pipefail
SECONDS_TO_PLAY=${1:-60}
PERIOD=${2:-1024}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
AVAUDIO=${AVAUDIO:-$ROOT/.build/debug/avaudio}
DIR=$(mktemp -d /tmp/avaudio-continuity.XXXXXX)
SOCK=$DIR/native
mkdir -p "$DIR/config/pulse" "$DIR/runtime" "$DIR/state"; chmod 700 "$DIR" "$DIR/runtime"
cat > "$DIR/config/pulse/daemon.conf" <<CONF
default-sample-rate = 48000
default-sample-format = float32le
realtime-scheduling = no
exit-idle-time = -1
flat-volumes = no
CONF
PULSE_CONFIG=$DIR/config/pulse/daemon.conf XDG_CONFIG_HOME=$DIR/config XDG_RUNTIME_DIR=$DIR/runtime \
PULSE_RUNTIME_PATH=$DIR/runtime PULSE_STATE_PATH=$DIR/state HOME=$DIR \
  pulseaudio -n --daemonize=no --use-pid-file=no --exit-idle-time=-1 --realtime=no --high-priority=no \
    --log-target=file:"$DIR/server.log" \
    -L "module-native-protocol-unix socket=$SOCK auth-anonymous=1" \
    -L "module-null-sink sink_name=nullsink rate=48000 channels=2 format=float32le" >/dev/null 2>&1 </dev/null &
SERVER=$!
PAREC=
cleanup() { [ -n "$PAREC" ] && kill "$PAREC" 2>/dev/null; kill "$SERVER" 2>/dev/null; wait 2>/dev/null; rm -rf "$DIR"; }
trap cleanup EXIT
for _ in $(seq 50); do [ -S "$SOCK" ] && PULSE_SERVER=unix:$SOCK pactl info >/dev/null 2>&1 && break; sleep 0.2; done

python3 - "$DIR/counter.wav" "$SECONDS_TO_PLAY" <<'PY'
import struct, sys
path, seconds = sys.argv[1], float(sys.argv[2])
n = int(seconds * 48000); P = 1 << 22
with open(path, "wb") as f:
    data = bytearray()
    for i in range(n):
        v = (i % P) / P - 0.5
        data += struct.pack("<ff", v, -v)
    f.write(b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 3, 2, 48000, 48000 * 8, 8, 32)
            + b"data" + struct.pack("<I", len(data)) + data)
PY

PULSE_SERVER=unix:$SOCK HOME=$DIR parec -d nullsink.monitor --format=float32le --rate=48000 --channels=2 --raw \
  --latency-msec=200 > "$DIR/monitor.raw" 2>/dev/null &
PAREC=$!
sleep 0.5
"$AVAUDIO" play "$DIR/counter.wav" --device "pulse:nullsink@unix:$SOCK" --period "$PERIOD"
sleep 0.5
kill "$PAREC"; wait "$PAREC" 2>/dev/null || true; PAREC=

python3 - "$DIR/monitor.raw" "$SECONDS_TO_PLAY" <<'PY'
import array, sys
a = array.array("f"); a.frombytes(open(sys.argv[1], "rb").read()); P = 1 << 22
L, R = a[0::2], a[1::2]
idx = lambda v: round((v + 0.5) * P)
nz = [k for k in range(len(L)) if L[k] != 0 or R[k] != 0]
if not nz: sys.exit("nothing recorded")
expected = idx(L[nz[0]]); frames = gaps = skipped = breaks = 0; prev = nz[0] - 1
for k in range(nz[0], nz[-1] + 1):
    if L[k] == 0 and R[k] == 0:
        if prev == k - 1: gaps += 1
        continue
    found = idx(L[k])
    if found != expected or R[k] != -L[k]:
        if prev != k - 1: skipped += (found - expected) % P
        else: breaks += 1
        expected = found
    expected = (expected + 1) % P; frames += 1; prev = k
print(f"{frames} counter frames ({frames/48000:.1f} s of {sys.argv[2]} s), {gaps} underrun gaps, "
      f"{skipped} frames skipped on resuming, {breaks} breaks (dropped/repeated frames outside gaps)")
sys.exit(1 if breaks else 0)
PY
