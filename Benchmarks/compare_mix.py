#!/usr/bin/env python3
"""Offline mixing: OpenAVFAudio (AVAudioEngine) side by side with numpy (BLAS) and dawdreamer, in ONE run.

    python3 Benchmarks/compare_mix.py [--seconds 60] [--runs 5] [--warmup 1] [--no-build] [--no-scenarios]
                                      [--dir /tmp/avaudio-bench/mix] [--binary PATH] [--alt-binary PATH] [--out mix-latest]

The workload is the issue's headline and /work/shared/peers/bench_mix.py's: 64 mono sources of 60 s
at 48 kHz, each with its own gain and pan, mixed to stereo.

What it does
  1. builds the release `avaudio-bench` (swift build -c release --scratch-path .build-enginebench),
     unless --no-build, and starts it as a server (`avaudio-bench engine --serve`);
  2. makes the sources with bench_mix.py's own `sources()` and `gains_pans()` (imported from
     /work/shared/peers), writes them as raw planar float32 and has our server load that file, so
     every contender mixes the very same samples;
  3. times, interleaved per round: ours (maximumFrameCount 512), ours (4096), [--alt-binary 512,
     4096], numpy matmul, numpy 512-frame block loop, numpy matmul on one thread, dawdreamer
     (block 512), dawdreamer (block 4096) — one warm-up round first — because this shared 2-core VM
     drifts by up to 2x between runs; ratios from one run are what to compare. The numpy target
     uses the better of its 2-thread and 1-thread timings (OpenBLAS's two threads collapse to
     ~130x whenever another process holds a core);
  4. checks quality: our output against a float64 reference computed in Swift (Σ volume ×
     equal-power pan gain × source), the peers' against bench_mix.py's float64 reference (S.T @ G);
     both as RMS difference in dB re signal RMS;
  5. prints a Markdown table and writes it to Benchmarks/results/mix-latest.md (+ .json); unless
     --no-scenarios, appends our other engine scenarios (`avaudio-bench engine --json`).

How each contender is timed (wall clock, median of --runs; peers exactly as in bench_mix.py)
  ours        64 AVAudioPlayerNodes (one 60 s mono buffer each, volume g[i], pan p[i]) → main mixer →
              offline manual rendering, stereo 48 kHz; the graph is built, started and the buffers
              scheduled before the timed region (afresh for every run); timed: the renderOffline
              loop (maximumFrameCount 512 or 4096) copying each call's output into a preallocated
              60 s stereo buffer. Public API only.
  numpy       `S.T @ G32` (float32 BLAS matmul, (n, 64) x (64, 2); OpenBLAS may use both cores) and
              the 512-frame block loop `o[:, s:e] = G32.T @ S[:, s:e]`; "numpy matmul, 1 thread" is the
              same matmul in a child process with OPENBLAS_NUM_THREADS=1 (ours renders on one thread).
  dawdreamer  64 PlaybackProcessor (the source as two identical channels) → 64 PannerProcessor("sin3dB")
              → AddProcessor(gains / sqrt 2); graph built beforehand; timed: render(60 s) + get_audio().
  Both pan mono sources with constant power (ours: AVAudioMixerNode's law for mono inputs, left
  cos((1 + pan)·π/4), right cos((1 − pan)·π/4), as Apple's mixer; peers: constant power) — same
  sources, volumes and pan positions, same amount of work.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchserver import BenchServer, build_bench

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"
PEERS = Path(os.environ.get("PEERS_DIR", "/work/shared/peers"))
SCRATCH = ".build-enginebench"
# Targets from the issue: the 64-player graph at least as fast as numpy's BLAS matmul of the same
# mix, and at least 4x dawdreamer's graph.
TARGET_VS_NUMPY = 1.0
TARGET_VS_DAWDREAMER = 4.0
# The same targets in absolute terms, from the peers' RESULTS.md (section b) on this machine:
# numpy matmul f32 616.8x, dawdreamer graph 111.3x (block 512) / 155.4x (block 4096).
ISSUE_NUMPY_X = 616.8
ISSUE_DAWDREAMER_X = {512: 111.3, 4096: 155.4}

sys.path.insert(0, str(PEERS))
import bench_mix  # noqa: E402  (the peers' workload: sources(), gains_pans(), SR, N_SRC)

try:
    import dawdreamer as daw
except Exception as e:  # pragma: no cover - depends on the machine
    daw = None
    print(f"[compare_mix] dawdreamer not available ({e!r}): its columns are skipped", file=sys.stderr)


def log(msg: str) -> None:
    print(f"[compare_mix] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- our binary

def build(no_build: bool) -> Path:
    return build_bench("compare_mix", SCRATCH, no_build)


def Ours(binary: Path) -> BenchServer:
    """The `avaudio-bench engine --serve` process."""
    return BenchServer(binary, "engine", quit_timeout=30)


# --------------------------------------------------------------------------- peers (as in bench_mix.py)

def null_db(ref, out) -> float:
    """RMS of (out − ref) in dB re RMS of ref (audiometrics.null_test's diff_re_signal_db)."""
    d = np.asarray(out, np.float64) - ref
    e = float(np.mean(d * d))
    s = float(np.mean(ref * ref))
    return float("-inf") if e == 0 else 10 * np.log10(e / s)


def dawdreamer_engine(S, p, g, block, seconds):
    """bench_mix.py's build(block), verbatim apart from the names."""
    sr, n_src = bench_mix.SR, S.shape[0]
    eng = daw.RenderEngine(sr, block)
    graph = []
    names = []
    for i in range(n_src):
        # a mono PlaybackProcessor feeds only the panner's left input, so the
        # source is given as two identical channels
        pb = eng.make_playback_processor(f"src{i}", np.repeat(S[i:i + 1], 2, axis=0))
        pn = eng.make_panner_processor(f"pan{i}", "sin3dB", float(p[i]))
        pn.pan = float(p[i])  # 0.9.0: the constructor's pan argument is not applied
        graph.append((pb, []))
        graph.append((pn, [f"src{i}"]))
        names.append(f"pan{i}")
    # JUCE's sin3dB rule includes a +3 dB boost (centre gain 1.0): compensate
    add = eng.make_add_processor("mix", [float(x) / np.sqrt(2) for x in g])
    graph.append((add, names))
    eng.load_graph(graph)

    def render():
        eng.render(seconds)
        return eng.get_audio()
    return render


NUMPY_1T_CHILD = r"""
import json, sys, time
import numpy as np
raw, n_src, G = sys.argv[1], int(sys.argv[2]), np.array(json.loads(sys.argv[3]), np.float32)
S = np.fromfile(raw, dtype=np.float32).reshape(n_src, -1)
S.T @ G                                          # warm-up
c0 = time.process_time(); t0 = time.perf_counter()
out = S.T @ G
t1 = time.perf_counter(); c1 = time.process_time()
print(json.dumps({"wall": t1 - t0, "cpu": c1 - c0}))
"""


def numpy_one_thread(raw: Path, G32):
    """numpy matmul with OpenBLAS limited to one thread (a child process: the thread count is fixed
    when OpenBLAS loads). Each call loads the sources, warms up once and times one matmul."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")

    def run_child():
        p = subprocess.run([sys.executable, "-c", NUMPY_1T_CHILD, str(raw), str(G32.shape[0]), json.dumps(G32.tolist())],
                           env=env, capture_output=True, text=True, check=True)
        return json.loads(p.stdout)
    return run_child


def timed(fn):
    c0 = time.process_time()
    t0 = time.perf_counter()
    out = fn()
    t1 = time.perf_counter()
    c1 = time.process_time()
    return out, t1 - t0, c1 - c0


# --------------------------------------------------------------------------- the run

def run(args) -> dict:
    binary = Path(args.binary) if args.binary else build(args.no_build)
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    bench_mix.SECONDS = args.seconds
    t = time.perf_counter()
    S = bench_mix.sources()                      # (64, n) float32
    g, p, G = bench_mix.gains_pans()
    G32 = G.astype(np.float32)
    n = S.shape[1]
    log(f"made {S.shape[0]} sources of {n} frames in {time.perf_counter() - t:.1f} s")
    raw = d / "mix_sources.f32"
    S.tofile(raw)                                # planar: source 0, then 1, ...
    ref = S.astype(np.float64).T @ G             # bench_mix.py's float64 reference (constant-power pan)

    ours = Ours(binary)
    alt = Ours(Path(args.alt_binary)) if args.alt_binary else None
    try:
        t = time.perf_counter()
        ours("sources", raw)
        if alt is not None:
            alt("sources", raw)
        log(f"our server loaded the sources and its float64 reference in {time.perf_counter() - t:.1f} s")

        def numpy_matmul():
            return S.T @ G32

        def numpy_blocks(block=512):
            o = np.zeros((2, n), np.float32)
            for s in range(0, n, block):
                e = min(n, s + block)
                o[:, s:e] = G32.T @ S[:, s:e]
            return o.T

        contenders = {
            "ours 512": lambda: ours("mix", 512),
            "ours 4096": lambda: ours("mix", 4096),
            **({"alt 512": lambda: alt("mix", 512), "alt 4096": lambda: alt("mix", 4096)} if alt is not None else {}),
            "numpy matmul": numpy_matmul,
            "numpy 512-block loop": numpy_blocks,
            "numpy matmul 1 thread": numpy_one_thread(raw, G32),
        }
        if daw is not None:
            t = time.perf_counter()
            for block in (512, 4096):
                contenders[f"dawdreamer {block}"] = dawdreamer_engine(S, p, g, block, args.seconds)
            log(f"built the dawdreamer graphs in {time.perf_counter() - t:.1f} s")

        walls = {k: [] for k in contenders}
        cpus = {k: [] for k in contenders}
        quality = {}
        for r in range(args.warmup + args.runs):
            for name, fn in contenders.items():
                if name == "numpy matmul 1 thread":
                    a = fn()
                    wall, cpu = a["wall"], a["cpu"]
                elif name.startswith("ours") or name.startswith("alt"):
                    a = fn()
                    wall, cpu = a["wall"], a["cpu"]
                    quality[name] = {"null_db": a["null_vs_f64_db"], "max_abs_diff": a["max_abs_diff"], "frames": a["frames"]}
                else:
                    out, wall, cpu = timed(fn)
                    if r == args.warmup + args.runs - 1:
                        out = np.asarray(out, np.float64)
                        if out.shape[0] == 2 and out.shape[1] != 2:
                            out = out.T
                        quality[name] = {"null_db": null_db(ref[:len(out)], out[:len(ref)]),
                                         "max_abs_diff": float(np.max(np.abs(out[:len(ref)] - ref[:len(out)])))}
                    del out
                if r >= args.warmup:
                    walls[name].append(wall)
                    cpus[name].append(cpu)
            log(f"round {r + 1}/{args.warmup + args.runs}" + (" (warm-up)" if r < args.warmup else "") + ": "
                + ", ".join(f"{k} {args.seconds / (walls[k][-1] if r >= args.warmup else 1):.0f}x"
                            for k in contenders if r >= args.warmup))
    finally:
        ours.close()
        if alt is not None:
            alt.close()
    med = {k: statistics.median(v) for k, v in walls.items()}
    return {"seconds": args.seconds, "walls": walls, "cpus": cpus, "median_s": med,
            "x": {k: args.seconds / v for k, v in med.items()},
            "cpu_median_s": {k: statistics.median(v) for k, v in cpus.items()}, "quality": quality}


def run_scenarios(binary: Path, args) -> list[dict]:
    keys = ["simple-mono", "simple-stereo", "resample-mono", "resample-stereo", "upmix", "downmix",
            "mix100-same", "mix100-different", "mix100-gains", "pan100-stereo"]
    cmd = [str(binary), "engine", "--json", "--seconds", f"{args.seconds:g}", "--runs", str(args.runs),
           "--warmup", str(args.warmup), "--only", ",".join(keys)]
    log("running our other engine scenarios: " + " ".join(cmd[1:]))
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        log(f"scenarios FAILED:\n{p.stderr[-2000:]}")
        return []
    return [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]


# --------------------------------------------------------------------------- report

def fmt_x(v):
    return "n/a" if v is None else f"{v:,.0f}"


def fmt_ratio(a, b):
    return "n/a" if a is None or b is None else f"{a / b:.2f}"


def machine():
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    try:
        versions["openblas"] = np.show_config(mode="dicts")["Build Dependencies"]["blas"]["version"]
    except Exception:
        pass
    if daw is not None:
        versions["dawdreamer"] = getattr(daw, "__version__", "?")
    try:
        swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except Exception:
        swift = "?"
    return {"nproc": os.cpu_count(), "cpu": cpu, "kernel": platform.release(), "swift": swift, **versions,
            "date_utc": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}


def write_report(res, scenarios, args, elapsed):
    m = machine()
    x, q, cpu = res["x"], res["quality"], res["cpu_median_s"]
    lines = [
        "# Offline mixing: OpenAVFAudio (AVAudioEngine) vs numpy (BLAS) vs dawdreamer",
        "",
        f"Run {m['date_utc']} on {m['nproc']} × {m['cpu']} (Linux {m['kernel']}); {m['swift']}; "
        + ", ".join(f"{k} {m[k]}" for k in ("numpy", "openblas", "dawdreamer", "python") if k in m) + ".",
        f"`python3 Benchmarks/compare_mix.py --seconds {args.seconds:g} --runs {args.runs} --warmup {args.warmup}"
        + (f" --binary {args.binary}" if args.binary else "") + "`"
        f" ({elapsed:.0f} s). 64 mono sources ({args.seconds:g} s, 48 kHz, bench_mix.py's `sources()`), per-source"
        " gain and pan → stereo; median of"
        f" {args.runs} interleaved rounds after {args.warmup} warm-up; × realtime = audio seconds / median wall"
        " seconds; ratios > 1 mean we are faster.",
        "",
        "| workload | ours × realtime | numpy matmul × realtime | numpy matmul, 1 thread | dawdreamer × realtime (same block) | ours / numpy "
        "| ours / dawdreamer | targets (≥ 1× best numpy, ≥ 4× dawdreamer) | by CPU time: ours / numpy, ours / dawdreamer "
        "| numpy 512-block loop × rt | null vs f64: ours / numpy / dawdreamer |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    def cpu_ratio(a, b):
        return "n/a" if a not in cpu or b not in cpu or cpu[a] <= 0 else f"{cpu[b] / cpu[a]:.2f}"

    for block in (512, 4096):
        o, nm, dd = x.get(f"ours {block}"), x.get("numpy matmul"), x.get(f"dawdreamer {block}")
        # The numpy bar is the better of its two timings: OpenBLAS's two threads suffer most when other
        # work shares the VM, and a crippled peer must not turn the target green.
        nm_best = max(v for v in (nm, x.get("numpy matmul 1 thread"), 0.0) if v is not None)
        ok_np = o is not None and nm_best > 0 and o / nm_best >= TARGET_VS_NUMPY
        ok_dd = o is not None and dd is not None and o / dd >= TARGET_VS_DAWDREAMER
        targets = f"{'✓' if ok_np else '✗'} numpy, {'✓' if ok_dd else '✗' if dd is not None else 'n/a'} dawdreamer"

        def nd(k):
            return f"{q[k]['null_db']:.1f} dB" if k in q else "n/a"
        lines.append(
            f"| 64 mono → stereo gain+pan, block {block} | {fmt_x(o)} | {fmt_x(nm)} | {fmt_x(x.get('numpy matmul 1 thread'))} "
            f"| {fmt_x(dd)} "
            f"| {fmt_ratio(o, nm)} | {fmt_ratio(o, dd)} | {targets} "
            f"| {cpu_ratio(f'ours {block}', 'numpy matmul')}, {cpu_ratio(f'ours {block}', f'dawdreamer {block}')} "
            f"| {fmt_x(x.get('numpy 512-block loop'))} "
            f"| {nd(f'ours {block}')} / {nd('numpy matmul')} / {nd(f'dawdreamer {block}')} |")
    if "alt 512" in x:
        for block in (512, 4096):
            o, nm, dd = x.get(f"alt {block}"), x.get("numpy matmul"), x.get(f"dawdreamer {block}")
            lines.append(
                f"| alt binary ({args.alt_binary}), block {block} | {fmt_x(o)} | {fmt_x(nm)} "
                f"| {fmt_x(x.get('numpy matmul 1 thread'))} | {fmt_x(dd)} | {fmt_ratio(o, nm)} | {fmt_ratio(o, dd)} | - "
                f"| {cpu_ratio(f'alt {block}', 'numpy matmul')}, {cpu_ratio(f'alt {block}', f'dawdreamer {block}')} "
                f"| {fmt_x(x.get('numpy 512-block loop'))} | {q[f'alt {block}']['null_db']:.1f} dB / - / - |")
    absolute = []
    for block in (512, 4096):
        o = x.get(f"ours {block}")
        need = max(ISSUE_NUMPY_X * TARGET_VS_NUMPY, ISSUE_DAWDREAMER_X[block] * TARGET_VS_DAWDREAMER)
        absolute.append(f"block {block}: {fmt_x(o)}× vs ≥ {need:.0f}× {'✓' if o is not None and o >= need else '✗'}")
    lines += [
        "",
        f"The issue's targets in absolute terms (peers' RESULTS.md, same machine, another day: numpy matmul"
        f" {ISSUE_NUMPY_X:g}×, dawdreamer {ISSUE_DAWDREAMER_X[512]:g}× / {ISSUE_DAWDREAMER_X[4096]:g}×, so ours ≥"
        f" max(1 × numpy, 4 × dawdreamer)): " + "; ".join(absolute) + ". The columns above are the same-run"
        " figures, which are what to compare (the VM drifts).",
    ]
    lines += [
        "",
        "Median CPU seconds per run: " + ", ".join(f"{k} {v:.3f}" for k, v in cpu.items())
        + f" (wall: " + ", ".join(f"{k} {v:.3f}" for k, v in res["median_s"].items()) + "). "
        "Ours and dawdreamer render on one thread; OpenBLAS may use both cores for the matmul. The \"by CPU"
        " time\" ratios (peer CPU s / our CPU s) are steadier than wall-clock ones when other work shares the VM.",
        "",
        "Timing: ours = 64 AVAudioPlayerNodes → main mixer → offline manual rendering (public API only); graph"
        " built, started and scheduled before the timed region, afresh every run; timed = the renderOffline loop"
        " (maximumFrameCount = block) copying each call into a preallocated whole-length stereo buffer. numpy ="
        " `S.T @ G32` (float32); dawdreamer = bench_mix.py's graph (64 PlaybackProcessor → 64 PannerProcessor"
        " sin3dB → AddProcessor), render() + get_audio() timed, graph built beforehand. Quality: RMS of (output −"
        " float64 reference) in dB re the reference RMS; ours against a reference computed in Swift with the"
        " mixer's equal-power pan law for mono inputs (left cos((1 + pan)·π/4), right cos((1 − pan)·π/4)), the peers against bench_mix.py's"
        " constant-power reference.",
        "",
    ]
    if scenarios:
        lines += [
            "## Our other engine scenarios (webaudio-benchmark ports; `avaudio-bench engine`, run after the table)",
            "",
            f"{args.seconds:g} s of 48 kHz output per run, renderOffline with maximumFrameCount 4096, median of"
            f" {args.runs} runs after {args.warmup} warm-up; loop buffers are 5 s of program material.",
            "",
            "| scenario | key | median s | × realtime | checks |",
            "|---|---|---|---|---|",
        ]
        for r in scenarios:
            metrics = {k: v for k, v in r["metrics"].items() if k != "key"}
            checks = ", ".join(f"{k}={v}" for k, v in metrics.items()) or "-"
            lines.append(f"| {r['workload']} | {r['metrics'].get('key', '')} | {r['median_s']:.4f} "
                         f"| {r['x_realtime']:,.0f} | {checks} |")
        lines.append("")
    text = "\n".join(lines)
    print(text)
    base = Path(args.out) if "/" in args.out else RESULTS / args.out
    base.parent.mkdir(parents=True, exist_ok=True)
    base.with_suffix(".md").write_text(text)
    base.with_suffix(".json").write_text(json.dumps({"machine": m, "args": vars(args), "result": res,
                                                         "scenarios": scenarios}, indent=1, default=str))
    log(f"wrote {base.with_suffix('.md')} and {base.with_suffix('.json')}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60.0, help="audio length (default 60, as bench_mix.py)")
    ap.add_argument("--runs", type=int, default=5, help="timed rounds (default 5)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed warm-up rounds (default 1)")
    ap.add_argument("--dir", default="/tmp/avaudio-bench/mix", help="where the raw sources file lives")
    ap.add_argument("--no-build", action="store_true", help="use the existing release binary")
    ap.add_argument("--no-scenarios", action="store_true", help="skip our other engine scenarios")
    ap.add_argument("--binary", help="an avaudio-bench binary to use instead of building (e.g. a prototype build)")
    ap.add_argument("--alt-binary", help="a second avaudio-bench (e.g. a prototype of an engine change), timed in the same"
                                         " rounds and reported as extra 'alt binary' rows")
    ap.add_argument("--out", default="mix-latest", help="report name under Benchmarks/results, or a path prefix (default mix-latest)")
    args = ap.parse_args()
    t = time.perf_counter()
    res = run(args)
    scenarios = [] if args.no_scenarios else run_scenarios(Path(args.binary) if args.binary else build(True), args)
    write_report(res, scenarios, args, time.perf_counter() - t)


if __name__ == "__main__":
    sys.exit(main())
