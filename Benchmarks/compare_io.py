#!/usr/bin/env python3
"""File I/O: OpenAVFAudio (AVAudioFile) side by side with libsndfile and JUCE, in ONE run.

    python3 Benchmarks/compare_io.py [--seconds 600] [--runs 3] [--warmup 1] [--dir /tmp/avaudio-bench/compare]
                                     [--only wav16,wav24,...] [--no-build] [--profile]

What it does
  1. builds the release `avaudio-bench` (swift build -c release --scratch-path .build-bench), unless
     --no-build, and starts it as a server (`avaudio-bench io --serve`, one JSON line per command);
  2. makes the inputs: our binary generates the deterministic program material (LCG, -3 dBFS peak)
     as raw float32, and soundfile (libsndfile) writes every input file from it, so every decoder
     reads the very same bytes (WAV 16/24/float32 at 48 kHz; CAF and AIFF 16-bit at 44.1 kHz);
  3. times, per workload, interleaved: ours, libsndfile, JUCE, ours, libsndfile, JUCE, ... (one
     warm-up each first), because this shared 2-core VM drifts by up to 2x between runs (see the
     peers' RESULTS.md, "Timing noise"); ratios from one run are what to compare;
  4. checks quality: our decode against libsndfile's decode of the same file (max abs diff), and
     our encode read back by libsndfile against the source (max abs diff, in LSBs);
  5. prints a Markdown table and writes it to Benchmarks/results/io-latest.md (+ .json);
     with --profile, adds a table of where our decode/encode time goes (avaudio-bench io-profile).

How each contender is timed (wall clock, median of --runs)
  ours        decode: AVAudioFile(forReading:) + AVAudioPCMBuffer(frameCapacity: length) + read(into:),
              timed inside the Swift process (the allocation is inside, as numpy's is in sf.read);
              "ours prealloc" reads into a buffer allocated beforehand.
              encode: AVAudioFile(forWriting:settings:) + write(from:) of the deinterleaved Float32
              source buffer + close().
  libsndfile  soundfile.read(path, dtype="float32") / soundfile.write(path, x(frames, 2), sr, subtype)
  JUCE        pedalboard.io.AudioFile(path).read(frames) / AudioFile(path, "w", sr, 2, bit_depth).write(x(2, frames))
  As in /work/shared/peers/bench_io.py, except: releasing the decoded array is kept outside the
  timed region for everyone, and each encoder gets its source in its own native layout beforehand
  (soundfile interleaved, JUCE channels-first, ours deinterleaved), so no transpose is timed.
  Files live in --dir (page cache after the warm-up): this measures codec and conversion cost, not the disk.

Needs numpy; soundfile and pedalboard are optional (their columns say "n/a" when missing; without
soundfile the inputs are written by our own encoder and the libsndfile cross-check is skipped).
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

try:
    import soundfile as sf
except Exception as e:  # pragma: no cover - depends on the machine
    sf = None
    print(f"[compare_io] soundfile (libsndfile) not available ({e!r}): libsndfile columns skipped", file=sys.stderr)
try:
    from pedalboard.io import AudioFile as PBAudioFile
except Exception as e:  # pragma: no cover
    PBAudioFile = None
    print(f"[compare_io] pedalboard not available ({e!r}): JUCE columns skipped", file=sys.stderr)

# key: (label, extension, soundfile format, subtype, endian, bits, is_float, rate)
FORMATS = {
    "wav16": ("WAV 16-bit", "wav", "WAV", "PCM_16", "LITTLE", 16, False, 48000),
    "wav24": ("WAV 24-bit", "wav", "WAV", "PCM_24", "LITTLE", 24, False, 48000),
    "wavf32": ("WAV float32", "wav", "WAV", "FLOAT", "LITTLE", 32, True, 48000),
    "caf16": ("CAF 16-bit 44.1k", "caf", "CAF", "PCM_16", "BIG", 16, False, 44100),
    "aiff16": ("AIFF 16-bit 44.1k", "aiff", "AIFF", "PCM_16", "BIG", 16, False, 44100),
    "flac16": ("FLAC 16-bit", "flac", "FLAC", "PCM_16", "FILE", 16, False, 48000),
    "flac24": ("FLAC 24-bit", "flac", "FLAC", "PCM_24", "FILE", 24, False, 48000),
}
INPUT_VERSION = 1  # bump when the material or the input files change


def log(msg: str) -> None:
    print(f"[compare_io] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- our binary

def build(no_build: bool) -> Path:
    return build_bench("compare_io", ".build-bench", no_build)


def Ours(binary: Path) -> BenchServer:
    """The `avaudio-bench io --serve` process."""
    return BenchServer(binary, "io", quit_timeout=10)


# --------------------------------------------------------------------------- inputs

def make_inputs(ours: BenchServer, d: Path, seconds: float, keys: list[str]) -> dict:
    """Writes (or reuses) the input files; returns {rate: (float32 source array (n, 2), source float WAV path)}."""
    d.mkdir(parents=True, exist_ok=True)
    stamp = d / "inputs.json"
    want = {"version": INPUT_VERSION, "seconds": seconds, "soundfile": sf is not None}
    fresh = not (stamp.exists() and json.loads(stamp.read_text()) == want)
    sources = {}
    for rate in sorted({FORMATS[k][7] for k in keys}, reverse=True):
        raw = d / f"src_{rate}.f32"
        src_wav = d / f"src_f32_{rate}.wav"
        if fresh or not raw.exists():
            t = time.perf_counter()
            ours("generate", raw, seconds, rate)
            log(f"generated {seconds:g} s of material at {rate} Hz in {time.perf_counter() - t:.1f} s")
        x = np.ascontiguousarray(np.fromfile(raw, dtype=np.float32).reshape(2, -1).T)
        if fresh or not src_wav.exists():
            if sf is not None:
                sf.write(str(src_wav), x, rate, subtype="FLOAT")
            else:
                ours("source", raw_wav_fallback(ours, raw, x, rate, d))
        sources[rate] = (x, src_wav)
        for k in keys:
            label, ext, fmt, sub, endian, bits, is_float, r = FORMATS[k]
            if r != rate:
                continue
            p = d / f"in_{k}.{ext}"
            if fresh or not p.exists():
                if sf is not None:
                    sf.write(str(p), x, rate, format=fmt, subtype=sub, endian=endian)
                else:
                    ours("source", src_wav)
                    ours("encode", p, k)
    stamp.write_text(json.dumps(want))
    return sources


def raw_wav_fallback(ours: BenchServer, raw: Path, x, rate, d: Path) -> Path:  # pragma: no cover - no soundfile
    """Without soundfile: a float WAV written by hand (44-byte header) from the raw material."""
    p = d / f"src_f32_{rate}.wav"
    data = np.ascontiguousarray(x).astype("<f4").tobytes()
    import struct
    hdr = b"RIFF" + struct.pack("<I", 36 + len(data)) + b"WAVEfmt " + struct.pack("<IHHIIHH", 16, 3, 2, rate, rate * 8, 8, 32)
    p.write_bytes(hdr + b"data" + struct.pack("<I", len(data)) + data)
    return p


# --------------------------------------------------------------------------- peers (as in bench_io.py)

def dec_soundfile(p):
    return sf.read(str(p), dtype="float32")[0]


def dec_soundfile_planar(p):
    """libsndfile, then what its user does to get AVAudioFile's layout (one contiguous array per channel)."""
    return np.ascontiguousarray(sf.read(str(p), dtype="float32")[0].T)


def dec_pedalboard(p):
    with PBAudioFile(str(p)) as f:
        return f.read(f.frames)


def enc_soundfile(x_interleaved, p, k):
    label, ext, fmt, sub, endian, bits, is_float, rate = FORMATS[k]
    sf.write(str(p), x_interleaved, rate, format=fmt, subtype=sub, endian=endian)


def enc_pedalboard(x_planar, p, k):
    label, ext, fmt, sub, endian, bits, is_float, rate = FORMATS[k]
    with PBAudioFile(str(p), "w", rate, 2, bit_depth=bits) as f:
        f.write(x_planar)


def timed_py(fn):
    """(wall, cpu, result) of one call; the result is released by the caller, outside the timing."""
    c0 = time.process_time()
    t0 = time.perf_counter()
    y = fn()
    t1 = time.perf_counter()
    c1 = time.process_time()
    return t1 - t0, c1 - c0, y


# --------------------------------------------------------------------------- the run

def fmt_x(v):
    return "n/a" if v is None else f"{v:,.0f}"


def fmt_ratio(a, b):
    return "n/a" if a is None or b is None else f"{a / b:.2f}"


def g3(v):
    return "0" if v == 0 else f"{v:.3g}"


def run(args):
    keys = args.only.split(",") if args.only else list(FORMATS)
    for k in keys:
        if k not in FORMATS:
            sys.exit(f"[compare_io] unknown format {k}; known: {', '.join(FORMATS)}")
    binary = build(args.no_build)
    d = Path(args.dir)
    ours = Ours(binary)
    rows = []
    raw = {}
    t_start = time.perf_counter()
    args.load_start = os.getloadavg()[0]
    try:
        sources = make_inputs(ours, d, args.seconds, keys)
        seconds = args.seconds
        os.sync()  # no writeback of freshly written inputs during the timings
        # ------------------------------------------------------------ decode
        for k in keys:
            label = FORMATS[k][0]
            p = d / f"in_{k}.{FORMATS[k][1]}"
            contenders = {"ours": lambda: ours("decode", p), "ours prealloc": lambda: ours("decode-prealloc", p)}
            if k == "wavf32":  # libsndfile returns interleaved frames: the same work for us is an interleaved buffer
                contenders["ours interleaved"] = lambda: ours("decode-interleaved", p)
            if sf is not None:
                contenders["libsndfile"] = lambda: dec_soundfile(p)
                if k == "wavf32":  # and the other way round: libsndfile brought to our layout
                    contenders["libsndfile planar"] = lambda: dec_soundfile_planar(p)
            if PBAudioFile is not None and k != "caf16":  # JUCE reads CAF only on Apple platforms
                contenders["JUCE"] = lambda: dec_pedalboard(p)
            os.sync()
            walls = timing_rounds(contenders, args)
            ours("release", )
            quality = decode_quality(ours, p, d, k)
            rows.append(make_row(f"Decode {label} {minutes(seconds)}", "decode", k, walls, seconds, quality))
            raw[rows[-1]["workload"]] = walls
            log(row_line(rows[-1]))
            if "ours interleaved" in walls:
                same = {"ours": walls["ours interleaved"], **{n: walls[n] for n in ("libsndfile",) if n in walls}}
                q2 = {n: v for n, v in quality.items() if n != "juce_vs_libsndfile"}
                rows.append(make_row(f"Decode {label} {minutes(seconds)}, interleaved Float32 buffer (libsndfile's layout)",
                                     "decode", k, same, seconds, q2))
                log(row_line(rows[-1]))
            if "libsndfile planar" in walls:
                same = {"ours": walls["ours"], "libsndfile": walls["libsndfile planar"]}
                q3 = {n: v for n, v in quality.items() if n != "juce_vs_libsndfile"}
                rows.append(make_row(f"Decode {label} {minutes(seconds)}, one array per channel (AVAudioFile's layout; "
                                     "libsndfile + numpy deinterleave)", "decode", k, same, seconds, q3))
                log(row_line(rows[-1]))
        # ------------------------------------------------------------ encode
        current_rate = None
        for k in sorted(keys, key=lambda k: -FORMATS[k][7]):
            label, ext, fmt, sub, endian, bits, is_float, rate = FORMATS[k]
            x, src_wav = sources[rate]
            if current_rate != rate:
                r = ours("source", src_wav)
                assert r["frames"] == len(x), (r, len(x))
                current_rate = rate
            x_planar = np.ascontiguousarray(x.T)
            outs = {"ours": d / f"out_ours_{k}.{ext}", "libsndfile": d / f"out_sf_{k}.{ext}", "JUCE": d / f"out_juce_{k}.{ext}"}
            contenders = {"ours": lambda: ours("encode", outs["ours"], k)}
            if sf is not None:
                contenders["libsndfile"] = lambda: enc_soundfile(x, outs["libsndfile"], k)
            if PBAudioFile is not None and k != "caf16":
                contenders["JUCE"] = lambda: enc_pedalboard(x_planar, outs["JUCE"], k)
            os.sync()
            walls = timing_rounds(contenders, args)
            del x_planar
            quality = encode_quality(x, outs, k, contenders)
            rows.append(make_row(f"Encode {label} {minutes(seconds)}", "encode", k, walls, seconds, quality))
            raw[rows[-1]["workload"]] = walls
            log(row_line(rows[-1]))
            for p in outs.values():
                if p.exists():
                    p.unlink()
    finally:
        ours.close()
    profile = run_profile(binary, d, keys, args) if args.profile else None
    elapsed = time.perf_counter() - t_start
    write_report(rows, raw, args, elapsed, profile)


PROFILE_ROWS = [  # (io-profile workload suffix, label in the report)
    ("decode: full (open+alloc+read)", "decode as benchmarked: open + AVAudioPCMBuffer alloc + read(into:)"),
    ("decode: buffer alloc (memset)", "  AVAudioPCMBuffer(pcmFormat:frameCapacity:) alone, as Sources implement it"),
    ("decode: read(into:) prealloc", "  read(into:) a touched buffer (pread + kernel + overhead)"),
    ("decode: pread 1 MiB chunks", "    pread of the data, 1 MiB at a time"),
    ("decode: kernel (L2 staging → buffer)", "    SampleConversion.decode, L2 staging → buffer"),
    ("decode: what-if 24-bit kernel, 8-byte loads", "    what-if: 24-bit kernel with 8-byte loads (Int24Prototype)"),
    ("decode: what-if mmap the file + kernel from the mapping", "    what-if: kernel straight from an mmap of the file (no pread copy)"),
    ("decode: alloc+memset THP", "what-if: alloc with MADV_HUGEPAGE + memset"),
    ("decode: read(into:) THP + memset", "what-if: decode with buffer = MADV_HUGEPAGE + memset (zero-fill kept)"),
    ("decode: read(into:) untouched THP", "what-if: decode with buffer = MADV_HUGEPAGE, no memset (kernel-zeroed mmap)"),
    ("decode: read(into:) mmap THP", "what-if: decode with buffer = anonymous mmap + MADV_HUGEPAGE (kernel-zeroed)"),
    ("decode: read(into:) mmap THP + POPULATE_WRITE", "what-if: the same, prefaulted with MADV_POPULATE_WRITE"),
    ("decode: read(into:) untouched, no memset", "what-if: decode with buffer = 4 KiB pages, no memset"),
    ("decode: what-if direct interleaved, 1 MiB preads", "what-if: raw pread into a fresh mmap THP buffer, 1 MiB per call"),
    ("decode: what-if direct interleaved, one pread", "what-if: the same in one pread (libsndfile's float → float path)"),
    ("decode: interleaved read(into:) mmap THP", "what-if: mmap THP buffer, interleaved Float32 (libsndfile's layout)"),
    ("encode: full (create+write+close)", "encode as benchmarked: create + write(from:) + close"),
    ("encode: kernel (buffer → L2 staging)", "  SampleConversion.encode, buffer → L2 staging"),
    ("encode: what-if 24-bit kernel, 8-byte stores", "    what-if: 24-bit kernel, quantise block + 8-byte stores (Int24Prototype)"),
    ("encode: create+pwrite 1 MiB chunks+close", "  create + pwrite of the data, 1 MiB at a time + close"),
    ("encode: + 1 header pwrite per chunk", "  the same + one header pwrite per chunk (what AudioFileWriter does)"),
]


def run_profile(binary: Path, d: Path, keys: list[str], args) -> dict:
    """ms per piece of one decode / encode, from `avaudio-bench io-profile` on the same input files."""
    out = {}
    for k in keys:
        p = d / f"in_{k}.{FORMATS[k][1]}"
        log(f"profiling {k} ...")
        r = subprocess.run([str(binary), "io-profile", "--only", k, "--input", str(p), "--dir", str(d), "--json",
                            "--runs", str(max(3, args.runs)), "--warmup", "1"], capture_output=True, text=True)
        if r.returncode != 0:
            log(f"io-profile {k} failed: {r.stderr[-1000:]}")
            continue
        for line in r.stdout.splitlines():
            rec = json.loads(line)
            out.setdefault(k, {})[rec["workload"].split(" ", 1)[1]] = (rec["median_s"] * 1000, rec["cpu_median_s"] * 1000)
    return out


def timing_rounds(contenders: dict, args) -> dict:
    """warm-up rounds, then timed rounds; within a round every contender runs once, in order."""
    walls = {name: [] for name in contenders}
    cpus = {name: [] for name in contenders}
    for rnd in range(args.warmup + args.runs):
        for name, fn in contenders.items():
            if name.startswith("ours"):
                r = fn()
                w, c = r["wall"], r["cpu"]
            else:
                w, c, y = timed_py(fn)
                del y
            if rnd >= args.warmup:
                walls[name].append(w)
                cpus[name].append(c)
    return {name: {"walls": walls[name], "cpus": cpus[name]} for name in contenders}


def decode_quality(ours: BenchServer, p: Path, d: Path, k: str) -> dict:
    q = {}
    dump = d / "ours_decode.f32"
    r = ours("dump", p, dump)
    mine = np.fromfile(dump, dtype=np.float32).reshape(2, -1).T
    dump.unlink()
    q["frames"] = int(r["frames"])
    if sf is not None:
        ref = dec_soundfile(p)
        q["frames_ok"] = len(ref) == len(mine)
        n = min(len(ref), len(mine))
        q["ours_vs_libsndfile"] = float(np.max(np.abs(mine[:n] - ref[:n])))
        if PBAudioFile is not None and k != "caf16":
            y = dec_pedalboard(p).T
            q["juce_vs_libsndfile"] = float(np.max(np.abs(y[:n] - ref[:n])))
    return q


def encode_quality(x, outs: dict, k: str, contenders: dict) -> dict:
    label, ext, fmt, sub, endian, bits, is_float, rate = FORMATS[k]
    lsb = 0.0 if is_float else 1.0 / (1 << (bits - 1))
    q = {"file_MB": round(os.path.getsize(outs["ours"]) / 1e6, 1)}
    if sf is None:
        return q
    for name in contenders:
        back, r = sf.read(str(outs[name]), dtype="float32")
        n = min(len(back), len(x))
        diff = float(np.max(np.abs(back[:n] - x[:n])))
        q[f"{name}_roundtrip"] = diff
        q[f"{name}_roundtrip_lsb"] = diff / lsb if lsb else None
        q[f"{name}_frames_ok"] = len(back) == len(x) and r == rate
    mine = q["ours_roundtrip"]
    q["ours_roundtrip_ok"] = q["ours_frames_ok"] and (mine == 0 if is_float else mine <= lsb * 1.0000001)
    return q


def minutes(seconds):
    return f"{seconds / 60:g}min" if seconds % 60 == 0 else f"{seconds:g}s"


def make_row(workload, kind, k, walls, seconds, quality):
    xr = {}
    xc = {}
    med = {}
    for name, v in walls.items():
        m = statistics.median(v["walls"])
        med[name] = m
        xr[name] = seconds / m if m > 0 else None
        c = statistics.median(v["cpus"])
        xc[name] = seconds / c if c > 0 else None
    return {"workload": workload, "kind": kind, "key": k, "x": xr, "x_cpu": xc, "median_s": med, "quality": quality}


def quality_text(row):
    q = row["quality"]
    if row["kind"] == "decode":
        if "ours_vs_libsndfile" not in q:
            return f"frames={q['frames']}", ""
        ours = f"max diff vs libsndfile = {g3(q['ours_vs_libsndfile'])}, frames {'ok' if q['frames_ok'] else 'MISMATCH'}"
        peer = f"JUCE vs libsndfile {g3(q['juce_vs_libsndfile'])}" if "juce_vs_libsndfile" in q else ""
        return ours, peer
    if "ours_roundtrip" not in q:
        return f"file {q['file_MB']} MB", ""

    def rt(name):
        v, lsb = q[f"{name}_roundtrip"], q.get(f"{name}_roundtrip_lsb")
        return f"{g3(v)}" + (f" ({lsb:.2f} LSB)" if lsb is not None else "")
    ours = f"round trip {rt('ours')} {'✓' if q['ours_roundtrip_ok'] else '✗ FAILED'}"
    peer = "; ".join(f"{n} {rt(n)}" for n in ("libsndfile", "JUCE") if f"{n}_roundtrip" in q)
    return ours, peer


def row_line(row):
    x = row["x"]
    return (f"{row['workload']:<32} ours {fmt_x(x.get('ours')):>7}x  libsndfile {fmt_x(x.get('libsndfile')):>7}x  "
            f"JUCE {fmt_x(x.get('JUCE')):>7}x  " + " | ".join(t for t in quality_text(row) if t))


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
    if sf is not None:
        versions["libsndfile"] = sf.__libsndfile_version__
        versions["soundfile"] = sf.__version__
    try:
        import pedalboard
        versions["pedalboard"] = pedalboard.__version__
    except Exception:
        pass
    try:
        swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except Exception:
        swift = "?"
    return {"nproc": os.cpu_count(), "cpu": cpu, "kernel": platform.release(), "swift": swift, **versions,
            "date_utc": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}


def write_report(rows, raw, args, elapsed, profile=None):
    m = machine()
    lines = [
        "# File I/O: OpenAVFAudio vs libsndfile vs JUCE",
        "",
        f"Run {m['date_utc']} on {m['nproc']} × {m['cpu']} (Linux {m['kernel']}); {m['swift']}; "
        + ", ".join(f"{k} {m[k]}" for k in ("libsndfile", "pedalboard", "numpy", "python") if k in m) + ".",
        f"`python3 Benchmarks/compare_io.py --seconds {args.seconds:g} --runs {args.runs} --warmup {args.warmup}`"
        f" ({elapsed:.0f} s; 1-min load average {args.load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)."
        f" Stereo program material, median of {args.runs} interleaved runs after {args.warmup} warm-up;"
        " x realtime = audio seconds / median wall seconds; ratios > 1 mean we are faster. The CPU ratio"
        " compares median process CPU time (user + system, page faults included), steadier than wall time"
        " when other work shares the VM.",
        "",
        "| workload | ours x realtime | libsndfile x realtime | JUCE x realtime | ours/libsndfile | ours/libsndfile CPU | ours/JUCE "
        "| ours, buffer preallocated x rt | quality: ours | quality: peers |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        x = r["x"]
        xc = r.get("x_cpu", {})
        q_ours, q_peer = quality_text(r)
        lines.append(f"| {r['workload']} | {fmt_x(x.get('ours'))} | {fmt_x(x.get('libsndfile'))} | {fmt_x(x.get('JUCE'))} "
                     f"| {fmt_ratio(x.get('ours'), x.get('libsndfile'))} | {fmt_ratio(xc.get('ours'), xc.get('libsndfile'))} "
                     f"| {fmt_ratio(x.get('ours'), x.get('JUCE'))} "
                     f"| {fmt_x(x.get('ours prealloc')) if 'ours prealloc' in x else '-'} | {q_ours} | {q_peer or '-'} |")
    lines += [
        "",
        "Timing: ours = AVAudioFile(forReading:) + AVAudioPCMBuffer(frameCapacity: whole file) + read(into:) "
        "(decode), AVAudioFile(forWriting:settings:) + write(from:) of one deinterleaved Float32 buffer + close() "
        "(encode), timed inside the Swift process; libsndfile = soundfile.read(dtype=float32) / soundfile.write; "
        "JUCE = pedalboard.io.AudioFile read / write. Releasing decoded data is outside every timed region; each "
        "encoder gets its source in its native layout beforehand. CAF: JUCE reads and writes CAF only on Apple "
        "platforms (n/a). Quality: max |ours − libsndfile| over the whole decode of the same file; round trip = "
        "max |decode(encode(x)) − x| read back by libsndfile (1 LSB = 2^-(bits-1); libsndfile scales float → "
        "int by 2^(bits-1) − 1 on write, hence its 1 LSB).",
        "",
    ]
    if profile:
        ks = [k for k in FORMATS if k in profile]
        lines += [
            "## Where the time goes (ours; `avaudio-bench io-profile` on the same files, run after the table)",
            "",
            "Milliseconds per whole file, median wall / median process CPU (CPU time is the steadier one when"
            " other work shares the VM). Indented rows are pieces of the row above; what-if rows read through"
            " the real AVAudioFile.read(into:) into a buffer wrapped with bufferListNoCopy around memory"
            " allocated the way the row says.",
            "",
            "| piece | " + " | ".join(FORMATS[k][0] for k in ks) + " |",
            "|---|" + "---|" * len(ks),
        ]
        for key, label in PROFILE_ROWS:
            cells = [f"{profile[k][key][0]:.1f} / {profile[k][key][1]:.1f}" if key in profile[k] else "-" for k in ks]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        lines.append("")
    text = "\n".join(lines)
    print(text)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "io-latest.md").write_text(text)
    (RESULTS / "io-latest.json").write_text(json.dumps({"machine": m, "args": vars(args), "rows": rows, "runs": raw},
                                                       indent=1, default=str))
    log(f"wrote {RESULTS / 'io-latest.md'} and io-latest.json")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=600.0, help="audio length (default 600 = 10 min)")
    ap.add_argument("--runs", type=int, default=3, help="timed runs per contender (default 3)")
    ap.add_argument("--warmup", type=int, default=1, help="untimed warm-up runs per contender (default 1)")
    ap.add_argument("--dir", default="/tmp/avaudio-bench/compare", help="where inputs and outputs live")
    ap.add_argument("--only", default="", help="comma-separated subset of " + ",".join(FORMATS))
    ap.add_argument("--no-build", action="store_true", help="use the existing release binary")
    ap.add_argument("--profile", action="store_true", help="also time the pieces of our decode/encode (io-profile)")
    args = ap.parse_args()
    if args.runs < 1 or args.warmup < 0:
        sys.exit("--runs must be >= 1 and --warmup >= 0")
    run(args)


if __name__ == "__main__":
    main()
