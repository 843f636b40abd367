#!/usr/bin/env python3
"""Crash-kill trials: is every file AVAudioFile writes readable, with every frame written, at any
moment a writer dies?

For each container and sample format, a child process (`avaudio _crash-writer write`) writes a
deterministic stereo signal with AVAudioFile, one write(from:) of --chunk frames at a time, and
prints "W <frames>" after each write returns. The parent kills it with SIGKILL at a random moment
(uniform in 0 .. --max-ms, so also before the first write and in the middle of one), then checks
what was left behind:
  * our reader: `avaudio _crash-writer verify` opens it with AVAudioFile(forReading:) and checks
    it holds at least the frames of the last completed write, with the signal's samples;
  * libsndfile (python soundfile) opens it and finds the same frames and samples; for the
    compressed files (Apple Lossless and FLAC packets in M4A, native FLAC, Apple Lossless in CAF,
    FLAC in Ogg) ffmpeg decodes it instead (libsndfile reads only some of them).
For the packet formats the frames that must be there are those of every 4,096-frame packet the
last completed write finished (frames buffered for an unfinished packet are not on disk yet).
A file the kill prevented from being created at all is counted apart ("not created"), and so is a
compressed file killed before its first packet ("empty": AVAudioFile opens it with 0 frames;
ffmpeg refuses every empty ALAC CAF or audio-less Ogg FLAC, those it writes itself included).

    python3 Scripts/crashkill.py [--trials 200] [--max-ms 400] [--chunk 4096] [--avaudio .build/debug/avaudio]
                                 [--formats wav16,wav24,wav32,aiff16,...] [--json OUT]
Exit status 0 when every trial passed.
"""
import argparse, json, os, random, select, shutil, signal, subprocess, sys, tempfile, time

import numpy as np
import soundfile as sf

FORMATS = {  # name: (container, bits)
    "wav16": ("wav", 16), "wav24": ("wav", 24), "wav32f": ("wav", 32),
    "aiff16": ("aiff", 16), "aiff24": ("aiff", 24),
    "aifc16": ("aifc", 16), "aifc32f": ("aifc", 32),
    "caf16": ("caf", 16), "caf24": ("caf", 24), "caf32f": ("caf", 32),
    "au16": ("au", 16), "au24": ("au", 24), "au32f": ("au", 32),
    "m4a16": ("m4a", 16), "m4a24": ("m4a", 24), "m4aflac16": ("m4a-flac", 16),
    "flac16": ("flac", 16), "flac24": ("flac", 24), "cafalac16": ("caf-alac", 16), "cafalac24": ("caf-alac", 24),
    "ogaflac16": ("oga-flac", 16),
}
# Compressed containers: 4,096-frame packets, checked with ffmpeg; the file name's extension.
PACKETS = {"m4a": "m4a", "m4a-flac": "m4a", "flac": "flac", "caf-alac": "caf", "oga-flac": "oga"}
PACKET_FRAMES = 4096   # ALAC's and FLAC's (level 5) frames per packet
HAS_FFMPEG = shutil.which("ffmpeg") is not None


def ffmpeg_frames(path):
    """ffmpeg's decoding of `path` as float64 frames × 2."""
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "f64le", "-ac", "2", "-"], capture_output=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.decode().strip() or "ffmpeg failed")
    return np.frombuffer(r.stdout, dtype="<f8").reshape(-1, 2)


def expected(frames):
    i = np.arange(frames)[:, None]
    c = np.arange(2)[None, :]
    # (the writer computes each sample in Float32)
    return ((((i * 7 + c * 13) % 2000) - 1000) / 2000.0).astype(np.float32).astype(np.float64)


def packets_format(fmt):
    return FORMATS[fmt][0] in PACKETS


def trial(avaudio, fmt, chunk, max_ms, directory, rng):
    container, bits = FORMATS[fmt]
    packets = container in PACKETS
    path = os.path.join(directory, f"{fmt}-{rng.randrange(1 << 30)}.{PACKETS.get(container, container)}")
    child = subprocess.Popen([avaudio, "_crash-writer", "write", path, "--container", container, "--bits", str(bits),
                              "--chunk", str(chunk)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    early = rng.random() < 0.1
    head = b""
    if early:
        time.sleep(rng.uniform(0, 20) / 1000)
    else:
        # wait (at most 10 s) for "R": the file exists; then a random moment of the writing
        deadline = time.time() + 10
        while time.time() < deadline and b"R\n" not in head:
            ready, _, _ = select.select([child.stdout], [], [], 0.05)
            if ready:
                head += os.read(child.stdout.fileno(), 65536)
        time.sleep(rng.uniform(0, max_ms) / 1000)
    child.send_signal(signal.SIGKILL)
    out, _ = child.communicate()
    out = head + out
    written = 0
    for line in out.decode().splitlines():
        if line.startswith("W "):
            written = int(line[2:])
    if not os.path.exists(path):
        return {"result": "not created", "written": written}
    if packets:
        written = written // PACKET_FRAMES * PACKET_FRAMES
    ours = subprocess.run([avaudio, "_crash-writer", "verify", path, "--frames", str(written), "--bits", str(bits)],
                          capture_output=True, text=True)
    problem = None
    checker = "ffmpeg" if packets else "libsndfile"
    if ours.returncode != 0:
        problem = "ours: " + (ours.stdout.strip() or ours.stderr.strip())
    else:
        try:
            if packets:
                data = ffmpeg_frames(path)
            else:
                data, rate = sf.read(path, dtype="float64", always_2d=True)
            tolerance = 0 if bits == 32 else 2.0 ** -(bits - 1)
            if data.shape[0] < written:
                problem = f"{checker}: {data.shape[0]} frames, {written} written"
            elif written and np.max(np.abs(data[:written] - expected(written))) > tolerance:
                problem = f"{checker}: samples differ"
        except Exception as e:  # noqa: BLE001 - report what libsndfile or ffmpeg says
            problem = f"{checker}: {e}"
    if problem and packets and written == 0 and ours.returncode == 0:
        # Killed before its first packet: the file holds no audio, and opens with AVAudioFile (0
        # frames). ffmpeg refuses every empty file of these codecs, its own included (an empty
        # ALAC CAF: "Missing packet table"; an Ogg FLAC with no audio page: "End of file"), so
        # these are counted apart rather than as failures.
        size = os.path.getsize(path)
        os.remove(path)
        return {"result": "empty", "written": 0, "size": size, "problem": None}
    if problem:
        problem += f" ({written} frames written)"
    size = os.path.getsize(path)
    os.remove(path)
    return {"result": "fail" if problem else "ok", "written": written, "size": size, "problem": problem}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--max-ms", type=float, default=400)
    ap.add_argument("--chunk", type=int, default=4096)
    ap.add_argument("--avaudio", default=".build/debug/avaudio")
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--json")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    summary = {}
    failed = False
    with tempfile.TemporaryDirectory(prefix="crashkill-") as directory:
        for fmt in args.formats.split(","):
            if FORMATS[fmt][0] in PACKETS and not HAS_FFMPEG:
                print(f"{fmt:8s} skipped: ffmpeg is not installed (it checks the compressed files)", flush=True)
                continue
            counts = {"ok": 0, "fail": 0, "not created": 0, "empty": 0}
            frames = []
            problems = []
            for _ in range(args.trials):
                r = trial(args.avaudio, fmt, args.chunk, args.max_ms, directory, rng)
                counts[r["result"]] += 1
                frames.append(r["written"])
                if r.get("problem"):
                    problems.append(r["problem"])
            failed |= counts["fail"] > 0
            summary[fmt] = {**counts, "max frames written": max(frames), "median frames written": int(np.median(frames)),
                            "problems": problems[:5]}
            print(f"{fmt:8s} ok {counts['ok']:4d}  fail {counts['fail']:3d}  not created {counts['not created']:3d}"
                  + (f"  empty {counts['empty']:3d}" if packets_format(fmt) else "")
                  + f"  frames written up to {max(frames)}" + (f"  e.g. {problems[0]}" if problems else ""), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"trials per format": args.trials, "max ms": args.max_ms, "chunk": args.chunk, "formats": summary}, f, indent=1)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
