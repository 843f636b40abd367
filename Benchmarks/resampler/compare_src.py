#!/usr/bin/env python3
"""Side-by-side comparison of OpenAVFAudio's SampleRateConverter with libsoxr (python-soxr).

For each conversion (default 44.1k->48k and 96k->44.1k) and each quality level it measures
  * speed: 60 s of stereo Float32 program material, times realtime. Ours: the conversion loop
    inside `resampler-bench` (deinterleaved buffers already in memory, file I/O excluded);
    soxr: `soxr.resample` on the in-memory (frames, 2) array (its own interleaved I/O
    included), timed in this process. Runs alternate between the two; the table shows the
    median wall-clock figure (and the best thread-CPU figure in brackets, which is less
    sensitive to other load on the machine).
  * quality: audiometrics.src_quality (the peers' method: sweep, 1 kHz tone and multitone of
    make_src_test) on the converted test signal: alias <=20k, alias full band, stop band,
    THD+N 1 kHz, pass-band ripple <=20 kHz, response at 20 kHz, delay.

Usage:
  python3 Benchmarks/resampler/compare_src.py [--bin PATH] [--cases 44100:48000,96000:44100]
                                              [--levels min,low,medium,high,max] [--runs 5]
The binary is built (release, scratch path .build-src-rel) if --bin is not given.
Needs numpy, soxr; the quality columns need /work/shared/peers (../shared/peers from the
repository root) for audiometrics.py and peerlib.py.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
PEERS = (ROOT / ".." / "shared" / "peers").resolve()
if not (PEERS / "audiometrics.py").exists():  # a worktree under /work/wt: the peers live in /work/shared
    PEERS = Path("/work/shared/peers")
HAVE_PEERS = (PEERS / "audiometrics.py").exists()
if HAVE_PEERS:
    sys.path.insert(0, str(PEERS))
    import audiometrics as am  # noqa: E402
    import peerlib  # noqa: E402

try:
    import soxr
except ImportError:  # still useful for our own numbers
    soxr = None

SOXR_OF = {"min": "QQ", "low": "LQ", "medium": "MQ", "high": "HQ", "max": "VHQ"}
SECONDS = 60.0


def program(sr):
    if HAVE_PEERS:
        return peerlib.program_material(SECONDS, sr).astype(np.float32)
    # fallback: harmonic notes + noise, -3 dBFS
    rng = np.random.default_rng(1234)
    n = int(SECONDS * sr)
    t = np.arange(n) / sr
    x = np.zeros((n, 2))
    for ch in range(2):
        for h in range(1, 7):
            x[:, ch] += (0.5 / h) * np.sin(2 * np.pi * 220 * (1 + ch) * h * t + rng.uniform(0, 6))
        x[:, ch] += 0.01 * rng.standard_normal(n)
    return (x / np.abs(x).max() * 0.7).astype(np.float32)


def build():
    subprocess.run(["swift", "build", "-c", "release", "--scratch-path", ".build-src-rel", "--product", "resampler-bench"],
                   cwd=ROOT, check=True)
    return str(ROOT / ".build-src-rel" / "release" / "resampler-bench")


def run_ours(binary, x, a, b, level, repeat=1, workdir=None):
    """Returns (output array, wall median s, cpu min s, info dict)."""
    ch = 1 if x.ndim == 1 else x.shape[1]
    src = os.path.join(workdir, f"in_{a}_{ch}.f32")
    dst = os.path.join(workdir, "out.f32")
    if not os.path.exists(src):
        np.ascontiguousarray(x, dtype="<f4").tofile(src)
    r = subprocess.run([binary, src, dst, "--in-rate", str(a), "--out-rate", str(b), "--channels", str(ch),
                        "--quality", level, "--repeat", str(repeat)], capture_output=True, text=True, check=True)
    info = dict(kv.split("=") for kv in r.stdout.split())
    y = np.fromfile(dst, dtype="<f4")
    if ch > 1:
        y = y.reshape(-1, ch)
    return y, float(info["time_s"]), float(info["cpu_min_s"]), info


def time_soxr(x, a, b, q, repeat):
    walls, cpus = [], []
    for _ in range(repeat):
        c0 = time.thread_time()
        t0 = time.perf_counter()
        soxr.resample(x, a, b, quality=q)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.thread_time() - c0)
    return float(np.median(walls)), float(min(cpus))


def fmt(v, nd=1):
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin")
    ap.add_argument("--cases", default="44100:48000,96000:44100")
    ap.add_argument("--levels", default="min,low,medium,high,max")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per converter and round (3 rounds)")
    ap.add_argument("--json", help="also write the rows as JSON here")
    ap.add_argument("--out", default=str(ROOT / "Benchmarks" / "results" / "src-latest.md"),
                    help="write the table as Markdown here (and the rows as JSON beside it); '' for none")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless .high meets soxr HQ's figures and .max soxr VHQ's (quality and speed)")
    args = ap.parse_args()
    binary = args.bin or build()
    t_start = time.time()
    load0 = os.getloadavg()[0]
    cases = [tuple(int(v) for v in c.split(":")) for c in args.cases.split(",")]
    levels = args.levels.split(",")
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for a, b in cases:
            x = program(a)
            xt = am.make_src_test(a) if HAVE_PEERS else None
            timings = {}
            # alternate ours / soxr over three rounds so both see the same machine load
            for _ in range(3):
                for lv in levels:
                    _, wall, cpu, _ = run_ours(binary, x, a, b, lv, repeat=args.runs, workdir=work)
                    timings.setdefault(("ours", lv), []).append((wall, cpu))
                    if soxr is not None:
                        wall, cpu = time_soxr(x, a, b, SOXR_OF[lv], args.runs)
                        timings.setdefault(("soxr", lv), []).append((wall, cpu))
            for lv in levels:
                for who in ("ours", "soxr"):
                    if (who, lv) not in timings:
                        continue
                    t = timings[(who, lv)]
                    wall = float(np.median([w for w, _ in t]))
                    cpu = min(c for _, c in t)
                    q = {}
                    if HAVE_PEERS:
                        if who == "ours":
                            yt = run_ours(binary, xt, a, b, lv, workdir=work)[0]
                        else:
                            yt = soxr.resample(xt, a, b, quality=SOXR_OF[lv])
                        q = am.src_quality(xt, a, yt, b)
                    name = f"ours .{lv}" if who == "ours" else f"soxr {SOXR_OF[lv]}"
                    rows.append(dict(case=f"{a / 1000:g}k->{b / 1000:g}k", converter=name,
                                     xrt=SECONDS / wall, xrt_cpu=SECONDS / cpu, cpu_rounds=[c for _, c in t], **q))
    hdr = ["case", "converter", "x realtime (cpu)", "alias <=20k", "alias full", "stopband", "THD+N 1k",
           "ripple <=20k", "resp @20k", "delay ms"]
    table = ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for r in rows:
        table.append("| " + " | ".join([
            r["case"], r["converter"], f"{r['xrt']:.0f} ({r['xrt_cpu']:.0f})",
            fmt(r.get("alias_db")), fmt(r.get("alias_full_db")), fmt(r.get("stopband_db")),
            fmt(r.get("thdn_1k_db"), 2), fmt(r.get("passband_ripple_db"), 4), fmt(r.get("resp_20k_db"), 4),
            fmt(r.get("delay_ms"), 3)]) + " |")
    print("\n".join(table))
    # per-round CPU-time ratios against the soxr level each of ours is compared with
    ratio_lines = []
    for lv in levels:
        for a, b in cases:
            case = f"{a / 1000:g}k->{b / 1000:g}k"
            r_ours = next((r for r in rows if r["case"] == case and r["converter"] == f"ours .{lv}"), None)
            r_soxr = next((r for r in rows if r["case"] == case and r["converter"] == f"soxr {SOXR_OF[lv]}"), None)
            if r_ours and r_soxr:
                per = [s / o for o, s in zip(r_ours["cpu_rounds"], r_soxr["cpu_rounds"])]
                ratio_lines.append(f"| {case} | ours .{lv} / soxr {SOXR_OF[lv]} | {r_ours['xrt_cpu'] / r_soxr['xrt_cpu']:.2f} | "
                                   + ", ".join(f"{v:.2f}" for v in per) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    failed = check(rows) if args.check else None
    if args.out:
        import platform
        swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
        md = [
            "# Sample-rate conversion: OpenAVFAudio's SampleRateConverter vs libsoxr",
            "",
            f"Run {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(t_start))} on {os.cpu_count()} cores "
            f"(Linux {platform.release()}); {swift[0] if swift else 'swift ?'}; python-soxr "
            f"{getattr(soxr, '__version__', 'n/a') if soxr else 'n/a'}, numpy {np.__version__}.",
            f"`python3 Benchmarks/resampler/compare_src.py {' '.join(sys.argv[1:])}` ({time.time() - t_start:.0f} s; "
            f"1-min load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end). 60 s stereo float32 "
            "program material; three rounds, ours and soxr alternating, each round --runs timed conversions. "
            "x realtime: median wall-clock figure, and in brackets the best thread-CPU figure (the one --check "
            "compares; steadier when other work shares the machine). Quality columns: audiometrics.src_quality "
            "(dB; the peers' method).",
            "",
        ] + table + [
            "",
            "CPU-time speed ratios (ours / soxr, > 1: we are faster), overall and per round:",
            "",
            "| case | pair | best CPU ratio | per round (best CPU of the round) |",
            "|---|---|---|---|",
        ] + ratio_lines
        if failed is not None:
            md += ["", f"`--check`: {'PASS' if failed == 0 else 'FAIL'} (targets: .high meets soxr HQ's quality figures "
                   "and speed, .max soxr VHQ's; see TARGETS in the script)."]
        Path(args.out).write_text("\n".join(md) + "\n")
        if not args.json:
            Path(args.out).with_suffix(".json").write_text(json.dumps(rows, indent=1))
    if args.check:
        return failed


# Targets: .high at least soxr HQ, .max at least soxr VHQ (dB; speed: CPU-time x realtime).
TARGETS = {
    "high": dict(peer="soxr HQ", alias_db=-134, alias_full_db=-134, thdn_1k_db=-134, stopband_db=-138,
                 passband_ripple_db=0.001, resp_20k_db=-0.001),
    "max": dict(peer="soxr VHQ", alias_db=-163, alias_full_db=-163, thdn_1k_db=-151, stopband_db=-171),
}


def check(rows):
    failed = 0
    for lv, t in TARGETS.items():
        for r in rows:
            if r["converter"] != f"ours .{lv}":
                continue
            peer = next((p for p in rows if p["case"] == r["case"] and p["converter"] == t["peer"]), None)
            for key, bound in t.items():
                if key == "peer" or r.get(key) is None:
                    continue
                ok = r[key] >= bound if key == "resp_20k_db" else r[key] <= bound
                if not ok:
                    failed += 1
                print(f"{'PASS' if ok else 'FAIL'} {r['case']} .{lv} {key} {r[key]} (bound {bound})")
            if peer is not None:
                ok = r["xrt_cpu"] >= peer["xrt_cpu"]
                failed += 0 if ok else 1
                print(f"{'PASS' if ok else 'FAIL'} {r['case']} .{lv} speed {r['xrt_cpu']:.0f}x vs {t['peer']} {peer['xrt_cpu']:.0f}x")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
