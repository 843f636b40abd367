#!/usr/bin/env python3
"""Round-trip latency through a private PulseAudio server: our engine, miniaudio, and
`parec | pacat` at --latency-msec, side by side in one run.

A user-mode PulseAudio server of this script's own (its own directory and socket; never a user's
server) with two null sinks: `probe_out` and `target_out`, 48 kHz float32 stereo. The client under
test records `probe_out.monitor` and plays into `target_out` (a live monitor: what comes in goes
out), as the server's default source and sink. The probe (avaudio-bench pulse-probe, the same for
every client) plays a click every 4,800 frames into `probe_out` and records `target_out.monitor`
with one duplex client of the project's backend; the arrival minus the emission is the round trip
through the client under test plus the probe's own streams (the same for all).

Clients measured, each for SECONDS:
  ours       avaudio-bench pulse-monitor (inputNode → mainMixerNode → outputNode), --period frames
  miniaudio  miniaudio_pulse_echo (pyminiaudio DuplexStream, buffersize_msec = period in ms)
  pacat      parec --latency-msec=MS | pacat --latency-msec=MS (the issue's yardstick)

    python3 Benchmarks/devices/roundtrip_pulse.py [--seconds 60] [--period 240]
        [--bench .build/release/avaudio-bench] [--probe-bench BIN] [--clients ours,miniaudio,pacat] [--out FILE]
"""
import argparse
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

ECHO = r'''
import sys, time, miniaudio
ms = int(sys.argv[2])
def echo():
    f = yield b""
    while True:
        f = yield f
s = miniaudio.DuplexStream(playback_format=miniaudio.SampleFormat.FLOAT32, playback_channels=2,
    capture_format=miniaudio.SampleFormat.FLOAT32, capture_channels=2, sample_rate=48000,
    buffersize_msec=ms, backends=[miniaudio.Backend.PULSEAUDIO], app_name="miniaudio-echo")
g = echo(); next(g); s.start(g)
print("miniaudio-echo running", flush=True)
time.sleep(float(sys.argv[1]))
s.stop(); s.close()
'''


class Server:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="avaudio-rtpulse-")
        for sub in ("config/pulse", "runtime", "state"):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        os.chmod(self.dir, 0o700)
        os.chmod(os.path.join(self.dir, "runtime"), 0o700)
        self.socket = os.path.join(self.dir, "native")
        conf = os.path.join(self.dir, "config/pulse/daemon.conf")
        with open(conf, "w") as f:
            f.write("default-sample-rate = 48000\nalternate-sample-rate = 48000\ndefault-sample-format = float32le\n"
                    "default-sample-channels = 2\ndefault-fragments = 2\ndefault-fragment-size-msec = 5\n"
                    "realtime-scheduling = no\nexit-idle-time = -1\nflat-volumes = no\n")
        env = dict(os.environ, PULSE_CONFIG=conf, XDG_CONFIG_HOME=os.path.join(self.dir, "config"),
                   XDG_RUNTIME_DIR=os.path.join(self.dir, "runtime"), PULSE_RUNTIME_PATH=os.path.join(self.dir, "runtime"),
                   PULSE_STATE_PATH=os.path.join(self.dir, "state"), HOME=self.dir)
        sink = "rate=48000 channels=2 format=float32le"
        self.proc = subprocess.Popen([
            "pulseaudio", "-n", "--daemonize=no", "--use-pid-file=no", "--exit-idle-time=-1", "--realtime=no",
            "--high-priority=no", "--disallow-exit=no", f"--log-target=file:{self.dir}/server.log",
            "-L", f"module-native-protocol-unix socket={self.socket} auth-anonymous=1",
            "-L", f"module-null-sink sink_name=probe_out {sink}",
            "-L", f"module-null-sink sink_name=target_out {sink}"], env=env)
        self.env = dict(os.environ, PULSE_SERVER=f"unix:{self.socket}", HOME=self.dir,
                        XDG_RUNTIME_DIR=os.path.join(self.dir, "runtime"))
        for _ in range(100):
            if os.path.exists(self.socket) and subprocess.run(["pactl", "info"], env=self.env, capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        else:
            self.stop()
            raise SystemExit("the private PulseAudio server did not start")
        subprocess.run(["pactl", "set-default-sink", "target_out"], env=self.env, check=True)
        subprocess.run(["pactl", "set-default-source", "probe_out.monitor"], env=self.env, check=True)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def measure(kind, args, server):
    ms = max(1, round(args.period / 48))
    env = server.env
    server_addr = f"unix:{server.socket}"
    procs = []
    if kind == "ours":
        procs.append(subprocess.Popen([args.bench, "pulse-monitor", "--sink=target_out", "--source=probe_out.monitor",
                                       f"--server={server_addr}", f"--period={args.period}", f"--seconds={args.seconds + 6}"],
                                      env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    elif kind == "miniaudio":
        procs.append(subprocess.Popen([sys.executable, "-c", ECHO, str(args.seconds + 6), str(ms)], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    else:
        fmt = ["--format=float32le", "--rate=48000", "--channels=2", f"--latency-msec={ms}"]
        rec = subprocess.Popen(["parec", "-d", "probe_out.monitor"] + fmt, env=env, stdout=subprocess.PIPE)
        play = subprocess.Popen(["pacat", "-d", "target_out"] + fmt, env=env, stdin=rec.stdout)
        rec.stdout.close()
        procs += [play, rec]
    time.sleep(2.0)
    out = subprocess.run([args.probe_bench or args.bench, "pulse-probe", "--sink=probe_out", "--source=target_out.monitor",
                          f"--server={server_addr}", f"--period={args.period}", f"--seconds={args.seconds}"],
                         env=env, capture_output=True, text=True, timeout=args.seconds + 60)
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    result = json.loads(lines[-1]) if lines else {"error": out.stderr[-400:]}
    result["load"] = os.getloadavg()[0]
    if kind == "ours":
        o, e = procs[0].communicate(timeout=args.seconds + 60)
        ol = [l for l in o.splitlines() if l.startswith("{")]
        if ol:
            result["engine"] = json.loads(ol[-1])
        else:
            result["engine_error"] = e[-400:]
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--period", type=int, default=240, help="frames per period for ours and the probe (240 = 5 ms)")
    ap.add_argument("--bench", default=os.path.join(ROOT, ".build/release/avaudio-bench"))
    ap.add_argument("--probe-bench", help="the probe's avaudio-bench (default: --bench), to keep the probe fixed while ours changes")
    ap.add_argument("--clients", default="ours,miniaudio,pacat", help="comma-separated subset of ours,miniaudio,pacat")
    ap.add_argument("--out")
    args = ap.parse_args()
    for tool in ("pulseaudio", "pactl", "parec", "pacat"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is missing: apt-get install pulseaudio pulseaudio-utils")
    server = Server()
    rows = {}
    try:
        for kind in args.clients.split(","):
            rows[kind] = measure(kind, args, server)
            print(kind, json.dumps(rows[kind]), flush=True)
    finally:
        server.stop()
    ms = max(1, round(args.period / 48))
    date = datetime.date.today().isoformat()
    lines = [f"# Round trip through a private PulseAudio server: ours vs miniaudio vs parec|pacat ({date})", "",
             f"`python3 Benchmarks/devices/roundtrip_pulse.py --seconds {args.seconds:g} --period {args.period}` — null sinks at 48 kHz "
             f"(server fragments 2 × 5 ms, not real-time); ours at {args.period}-frame periods, miniaudio buffersize_msec={ms}, "
             f"parec/pacat --latency-msec={ms}; the probe's own streams ({args.period}-frame periods) are in every figure.", "",
             "| client | load avg | round trip (ms, median) | min … max (ms) | clicks received / emitted | missing | repeated | shifted | probe xruns | engine xruns |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for kind, r in rows.items():
        if "error" in r:
            lines.append(f"| {kind} | – | failed: {r['error'][:120]} | | | | | | | |")
            continue
        f = lambda v: f"{v / 48:.1f}"
        lines.append(f"| {kind} | {r['load']:.1f} | {f(r['latency_frames_median'])} | {f(r['latency_frames_min'])} … {f(r['latency_frames_max'])} | "
                     f"{r['clicks_received']} / {r['clicks_emitted']} | {r['missing']} | {r['repeated']} | {r['shifted']} | {r['probe_xruns']} | "
                     f"{r.get('engine', {}).get('xruns', '–')} |")
    lines += ["", "Raw rows (JSON):", ""] + ["    " + kind + " " + json.dumps(r) for kind, r in rows.items()]
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
