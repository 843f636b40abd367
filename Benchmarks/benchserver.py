"""What the comparison scripts share about our side: building the release `avaudio-bench` and
talking to it as a server (`avaudio-bench SUITE --serve`: one command line in, one JSON line out).
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def build_bench(tag: str, scratch: str, no_build: bool) -> Path:
    """Builds avaudio-bench in release into `scratch` (unless `no_build`) and returns the binary;
    falls back to an existing build (scratch, .build-bench, .build) when building fails."""
    def log(msg: str) -> None:
        print(f"[{tag}] {msg}", file=sys.stderr, flush=True)

    dirs = list(dict.fromkeys([scratch, ".build-bench", ".build"]))
    candidates = [REPO / d / "release" / "avaudio-bench" for d in dirs]
    existing = next((c for c in candidates if c.exists()), None)
    if no_build:
        if existing is None:
            sys.exit(f"[{tag}] no release avaudio-bench found and --no-build given")
        return existing
    log(f"building avaudio-bench (release, --scratch-path {scratch}) ...")
    t = time.perf_counter()
    p = subprocess.run(["swift", "build", "-c", "release", "--scratch-path", scratch, "--product", "avaudio-bench"],
                       cwd=REPO, capture_output=True, text=True)
    if p.returncode != 0:
        tail = (p.stdout + p.stderr)[-3000:]
        if existing is None:
            sys.exit(f"[{tag}] build failed and no binary exists:\n{tail}")
        log(f"build FAILED, using the existing binary {existing} (may be stale):\n{tail}")
        return existing
    log(f"built in {time.perf_counter() - t:.1f} s")
    return candidates[0]


class BenchServer:
    """The `avaudio-bench SUITE --serve` process: one command line in, one JSON line out."""

    def __init__(self, binary: Path, suite: str, quit_timeout: float = 30):
        self.quit_timeout = quit_timeout
        self.p = subprocess.Popen([str(binary), suite, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)

    def __call__(self, *words) -> dict:
        line = " ".join(str(w) for w in words)
        if any(" " in str(w) for w in words):
            raise ValueError(f"arguments must not contain spaces: {line}")
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        out = self.p.stdout.readline()
        if not out:
            raise RuntimeError(f"avaudio-bench server exited (rc={self.p.poll()}) on: {line}")
        r = json.loads(out)
        if not r.get("ok"):
            raise RuntimeError(f"avaudio-bench: {line}: {r.get('error')}")
        return r

    def close(self):
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.flush()
            self.p.wait(timeout=self.quit_timeout)
        except Exception:
            self.p.kill()
