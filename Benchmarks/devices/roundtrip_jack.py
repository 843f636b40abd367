#!/usr/bin/env python3
"""Round-trip latency and xruns on a JACK dummy server: our engine against miniaudio, side by side.

For each period (default 64, 128, 256 frames at 48 kHz) this starts a private server
(`jackd -n NAME -R -d dummy`: real-time when the process may use SCHED_FIFO, as root here;
`--no-rt` runs it with -r), loads the second core with a busy loop (`--no-load` to skip), and runs
three windows of SECONDS each:

  1. the server alone (its own xruns: the dummy driver is clocked by a timer, so on a VM it
     misses deadlines without any client — the floor every client is measured against);
  2. our engine as a live monitor (avaudio-bench jack-monitor: inputNode → mainMixerNode →
     outputNode), measured by the probe client (avaudio-bench jack-probe);
  3. miniaudio's duplex stream echoing capture to playback (miniaudio_echo.py), same probe.

The probe plays a click every 4,800 frames into the client's first input port and records its
first output port; the round trip is the click's arrival minus its emission in the probe's frames
(it includes what the JACK graph adds for the probe's own connections, the same for both clients).
Xruns come from the server's log (lines "XRun") in each window, the probe's xrun callback and,
for ours, the engine's own counter.

    python3 Benchmarks/devices/roundtrip_jack.py [--seconds 60] [--periods 64,128,256]
        [--bench .build/release/avaudio-bench] [--out Benchmarks/results/devices-jack-DATE.md]
"""
import argparse
import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def jack_ports(server):
    env = dict(os.environ, JACK_DEFAULT_SERVER=server)
    out = subprocess.run(["jack_lsp"], env=env, capture_output=True, text=True, timeout=10).stdout
    return out.split()


def wait_for_client(server, prefix, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline:
        ports = [p for p in jack_ports(server) if p.startswith(prefix)]
        if ports:
            return ports
        time.sleep(0.2)
    return []


def xrun_lines(log_path):
    try:
        with open(log_path, errors="replace") as f:
            return sum(1 for line in f if "XRun" in line)
    except OSError:
        return 0


def start_server(name, period, rate, realtime, log_path):
    env = dict(os.environ, JACK_NO_AUDIO_RESERVATION="1")
    args = ["jackd", "-n", name, "-R" if realtime else "-r"]
    if realtime:
        args += ["-P", "70"]
    args += ["-d", "dummy", "-r", str(rate), "-p", str(period)]
    log = open(log_path, "w")
    proc = subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT)
    if not wait_for_client(name, "system:", timeout=10):
        proc.kill()
        raise SystemExit(f"jackd did not start; see {log_path}")
    return proc


def stop(proc, timeout=5):
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def probe(bench, server, target, seconds):
    out = subprocess.run([bench, "jack-probe", f"--server={server}", f"--target={target}", f"--seconds={seconds}"],
                         env=dict(os.environ, JACK_DEFAULT_SERVER=server), capture_output=True, text=True,
                         timeout=seconds + 60)
    lines = [l for l in out.stdout.splitlines() if l.startswith("{")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"probe failed: {out.stderr.strip()[-500:]}")
    return json.loads(lines[-1])


def run_client(kind, bench, server, period, seconds, log_path):
    before = xrun_lines(log_path)
    env = dict(os.environ, JACK_DEFAULT_SERVER=server)
    if kind == "ours":
        cmd = [bench, "jack-monitor", f"--server={server}", "--client=avaudio-monitor", f"--seconds={seconds + 8}"]
        prefix = "avaudio-monitor:"
    else:
        cmd = [sys.executable, os.path.join(HERE, "miniaudio_echo.py"), str(seconds + 8)]
        prefix = None
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if prefix is None:
            # miniaudio names its client itself: the new client that is not the server's.
            deadline = time.time() + 15
            target = None
            while time.time() < deadline and target is None:
                for p in jack_ports(server):
                    if not p.startswith("system:") and not p.startswith("avaudio-probe"):
                        target = p.split(":")[0]
                        break
                time.sleep(0.2)
            if target is None:
                raise RuntimeError("miniaudio's client did not appear: " + (proc.stderr.read() if proc.poll() is not None else ""))
        else:
            if not wait_for_client(server, prefix):
                raise RuntimeError("our client did not appear: " + (proc.stderr.read() if proc.poll() is not None else ""))
            target = prefix[:-1]
        time.sleep(1.0)
        window_start = xrun_lines(log_path)
        result = probe(bench, server, target, seconds)
        result["server_xruns_in_window"] = xrun_lines(log_path) - window_start
        result["target"] = target
    finally:
        if kind == "ours":
            out, err = proc.communicate(timeout=seconds + 60)
            lines = [l for l in out.splitlines() if l.startswith("{")]
            if lines:
                result["engine"] = json.loads(lines[-1])
        else:
            stop(proc)
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--periods", default="64,128,256")
    ap.add_argument("--rate", type=int, default=48000)
    ap.add_argument("--bench", default=os.path.join(ROOT, ".build/release/avaudio-bench"))
    ap.add_argument("--no-load", action="store_true")
    ap.add_argument("--no-rt", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()
    for tool in ("jackd", "jack_lsp"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is missing: apt-get install jackd2")
    realtime = not args.no_rt and os.geteuid() == 0
    rows = []
    load = None
    if not args.no_load:
        load = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        for period in [int(p) for p in args.periods.split(",")]:
            name = f"avaudio-rt-{os.getpid()}-{period}"
            log_path = f"/tmp/jackd-{name}.log"
            server = start_server(name, period, args.rate, realtime, log_path)
            try:
                time.sleep(1.0)
                start = xrun_lines(log_path)
                t0 = time.time()
                time.sleep(args.seconds)
                alone = xrun_lines(log_path) - start
                loadavg = os.getloadavg()[0]
                ours = run_client("ours", args.bench, name, period, args.seconds, log_path)
                peer = run_client("miniaudio", args.bench, name, period, args.seconds, log_path)
                rows.append({"period": period, "server_alone_xruns": alone, "load": loadavg, "ours": ours, "miniaudio": peer})
                print(json.dumps(rows[-1]), flush=True)
            finally:
                stop(server)
    finally:
        stop(load)
    date = datetime.date.today().isoformat()
    lines = [f"# Round trip through a JACK dummy server: ours vs miniaudio ({date})", "",
             f"`python3 Benchmarks/devices/roundtrip_jack.py --seconds {args.seconds:g} --periods {args.periods}`"
             f" — server {'real-time (SCHED_FIFO 70)' if realtime else 'not real-time (-r)'}, "
             f"{'a busy loop on the second core' if load else 'no extra load'}, release build; "
             f"{args.seconds:g} s per window; load average at each period's start in the table.", "",
             "| period | load avg | server alone: xruns | client | round trip (frames) | round trip (ms) | clicks received / emitted | missing | repeated | shifted | xruns in window (server log) | probe xruns | engine xruns |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        for kind in ("ours", "miniaudio"):
            c = r[kind]
            lat = c["latency_frames_median"]
            lines.append(f"| {r['period']} | {r['load']:.1f} | {r['server_alone_xruns']} | {kind} | {lat} (min {c['latency_frames_min']}, max {c['latency_frames_max']}) | "
                         f"{lat / args.rate * 1000:.2f} | {c['clicks_received']} / {c['clicks_emitted']} | {c['missing']} | {c['repeated']} | {c['shifted']} | "
                         f"{c['server_xruns_in_window']} | {c['probe_xruns']} | {c.get('engine', {}).get('xruns', '–')} |")
    lines.append("")
    lines.append("Raw rows (JSON):")
    lines.append("")
    lines += ["    " + json.dumps(r) for r in rows]
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text)


if __name__ == "__main__":
    main()
