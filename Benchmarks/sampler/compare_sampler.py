#!/usr/bin/env python3
"""AVAudioUnitSampler against FluidSynth, same SoundFont, same events, one run.

Quality (sample-accurate on both sides): single notes of several GM programs and drums, and the
~60 s GM song of ../shared/peers/make_song.py, rendered by our sampler (avaudio-bench sampler,
release build, through AVAudioEngine offline) and by FluidSynth (libfluidsynth through pyfluidsynth, float output, events dispatched
between fluid_synth_write_float() calls), reverb and chorus off on FluidSynth (our sampler has no effect
sends yet). Event frames are rounded to multiples of 64: FluidSynth applies an event at its next
64-frame block, so on that grid both sides start notes on the same frame.

Gain calibration (fixed, stated): FluidSynth synth.gain 0.2 (its default) <-> our overallGain
20*log10(0.2) = -13.98 dB. No other correction.

Metrics: per note, onset difference (first frame above -60 dB re the note's peak), integrated
loudness difference (BS.1770, audiometrics.lufs), third-octave band levels of the sustained part
(25 Hz - 10 kHz, bands within 40 dB of the loudest band) - max |difference|; for the song,
integrated loudness, lag by cross-correlation, short-term (3 s) loudness differences.
Speed: the song rendered by the fluidsynth CLI (-F, reverb/chorus off and on) and by our
avaudio-bench process, interleaved, --runs rounds, median wall time; plus our in-process render time.

usage: compare_sampler.py [--sf2 PATH] [--runs 5] [--out Benchmarks/results/sampler-latest]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mido
import numpy as np
import soundfile as sf

PEERS = Path(__file__).resolve().parents[3] / "shared" / "peers"
if not PEERS.exists():
    PEERS = Path("/work/shared/peers")
sys.path.insert(0, str(PEERS))
import audiometrics as am  # noqa: E402
import make_song  # noqa: E402

SR = 48000
ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / ".build" / "release" / "avaudio-bench"
GAIN = 0.2
GAIN_DB = 20 * np.log10(GAIN)
WORK = Path(tempfile.gettempdir()) / "sampler-compare"


def quantize(frame):
    return int(round(frame / 64.0)) * 64


def song_events(path):
    t, ev = 0.0, []
    for msg in mido.MidiFile(str(path)):
        t += msg.time
        if msg.is_meta or msg.type == "sysex":
            continue
        ev.append((quantize(t * SR), list(msg.bytes())))
    return ev


def write_events(ev, path):
    with open(path, "w") as f:
        for frame, b in ev:
            f.write(" ".join(str(x) for x in [frame] + b) + "\n")


def setup_events():
    """Program 0 everywhere, drums (bank select MSB 0x78) on channel 10, as FluidSynth's program_select."""
    ev = []
    for ch in range(16):
        if ch == 9:
            ev.append((0, [0xB0 | ch, 0, 0x78]))
        ev.append((0, [0xC0 | ch, 0]))
    return ev


def render_ours(ev, sf2, total, name):
    WORK.mkdir(parents=True, exist_ok=True)
    evp, out = WORK / f"{name}.events", WORK / f"{name}-ours.wav"
    write_events(ev, evp)
    tail = max(0.0, (total - ev[-1][0]) / SR)
    # (--no-effects: our reverb and chorus off, as FluidSynth's are for these renders)
    cmd = [str(BENCH), "sampler", f"--input={evp}", f"--soundfont={sf2}", f"--out={out}", f"--gain={GAIN_DB}", f"--tail={tail}", "--no-effects"]
    r = subprocess.run(cmd, check=True, capture_output=True, text=True)
    y, sr = sf.read(str(out), dtype="float32")
    assert sr == SR
    return y[:total], json.loads(r.stdout.strip().splitlines()[-1])


def _write_float(fs, n):
    """n frames from fluid_synth_write_float (float output: no 16-bit dither in the measurements)."""
    import ctypes
    import fluidsynth
    f = fluidsynth._fl.fluid_synth_write_float
    f.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    buf = np.zeros(2 * n, dtype=np.float32)
    p = buf.ctypes.data
    f(fs.synth, n, p, 0, 2, p, 1, 2)
    return buf


def render_fluid(ev, sf2, total):
    import fluidsynth
    fs = fluidsynth.Synth(gain=GAIN, samplerate=float(SR), **{"synth.reverb.active": 0, "synth.chorus.active": 0})
    fs.get_samples = lambda n: _write_float(fs, n)
    sfid = fs.sfload(sf2)
    for ch in range(16):
        fs.program_select(ch, sfid, 128 if ch == 9 else 0, 0)
    chunks, rendered = [], 0
    for frame, b in ev:
        if frame > rendered:
            chunks.append(fs.get_samples(frame - rendered))
            rendered = frame
        st, ch = b[0] & 0xF0, b[0] & 0x0F
        if st == 0x90:
            (fs.noteon(ch, b[1], b[2]) if b[2] else fs.noteoff(ch, b[1]))
        elif st == 0x80:
            fs.noteoff(ch, b[1])
        elif st == 0xB0:
            fs.cc(ch, b[1], b[2])
        elif st == 0xC0:
            fs.program_change(ch, b[1])
        elif st == 0xE0:
            fs.pitch_bend(ch, (b[1] | b[2] << 7) - 8192)
    if total > rendered:
        chunks.append(fs.get_samples(total - rendered))
    fs.delete()
    return np.concatenate(chunks).reshape(-1, 2)[:total]


def onset(y, rel_db=-60.0):
    m = np.abs(y).max(axis=1)
    peak = m.max()
    if peak <= 0:
        return None
    idx = np.nonzero(m > peak * 10 ** (rel_db / 20))[0]
    return int(idx[0]) if len(idx) else None


def third_octave_levels(y, lo=25.0, hi=10000.0):
    x = am.mono(y) if y.ndim > 1 else y
    n = len(x)
    w = np.hanning(n)
    p = np.abs(np.fft.rfft(x * w)) ** 2
    f = np.fft.rfftfreq(n, 1.0 / SR)
    centres = [1000 * 2 ** (k / 3) for k in range(-16, 11)]
    out = []
    for c in centres:
        if c < lo or c > hi:
            continue
        a, b = c / 2 ** (1 / 6), c * 2 ** (1 / 6)
        sel = (f >= a) & (f < b)
        out.append((c, 10 * np.log10(p[sel].sum() + 1e-30)))
    return out


def band_difference(a, b, within_db=40.0):
    la, lb = third_octave_levels(a), third_octave_levels(b)
    top = max(max(v for _, v in la), max(v for _, v in lb))
    diffs = [(c, va - vb) for (c, va), (_, vb) in zip(la, lb) if max(va, vb) > top - within_db]
    worst = max(diffs, key=lambda d: abs(d[1])) if diffs else (0, 0.0)
    return worst, diffs


NOTES = [  # (label, channel, program, key, velocity)
    ("piano C4 v100", 0, 0, 60, 100),
    ("piano C6 v70", 0, 0, 84, 70),
    ("piano A1 v120", 0, 0, 33, 120),
    ("organ C4", 0, 19, 60, 100),
    ("bass E1", 1, 33, 28, 110),
    ("strings G4", 2, 48, 67, 90),
    ("trumpet F4", 3, 56, 65, 110),
    ("flute G5", 4, 73, 79, 100),
    ("sax D4", 5, 65, 62, 100),
    ("drums kick 36", 9, 0, 36, 115),
    ("drums snare 38", 9, 0, 38, 105),
    ("drums closed hat 42", 9, 0, 42, 85),
]


def compare_notes(sf2):
    rows = []
    start, dur, tail = 6400, 96000, 72000
    for label, ch, prog, key, vel in NOTES:
        ev = setup_events() + [(0, [0xC0 | ch, prog]), (start, [0x90 | ch, key, vel]), (start + dur, [0x80 | ch, key, 0])]
        total = start + dur + tail
        ours, _ = render_ours(ev, sf2, total, "note")
        fl = render_fluid(ev, sf2, total)
        oa, ob = onset(ours), onset(fl)
        la, lb = am.lufs(ours.astype(np.float64), SR), am.lufs(fl.astype(np.float64), SR)
        sustained = slice(start + 14400, start + dur) if ch != 9 else slice(start, start + dur)
        (bc, bd), _ = band_difference(ours[sustained], fl[sustained])
        rows.append({"note": label, "onset_ours": oa, "onset_fluid": ob,
                     "onset_diff_ms": None if oa is None or ob is None else round(1000 * (oa - ob) / SR, 3),
                     "lufs_ours": round(la, 2), "lufs_fluid": round(lb, 2), "lu_diff": round(la - lb, 2),
                     "worst_band_hz": round(bc), "worst_band_diff_db": round(bd, 2)})
        print(f"  {label:22s} onset {rows[-1]['onset_diff_ms']} ms  loudness {la - lb:+.2f} LU  worst band {bc:.0f} Hz {bd:+.2f} dB", flush=True)
    return rows


def compare_song(sf2, song):
    ev = setup_events() + song_events(song)
    ev.sort(key=lambda e: e[0])
    total = ev[-1][0] + SR
    ours, _ = render_ours(ev, sf2, total, "song")
    fl = render_fluid(ev, sf2, total)
    la, lb = am.lufs(ours.astype(np.float64), SR), am.lufs(fl.astype(np.float64), SR)
    lag = am.estimate_delay(fl[: 20 * SR], ours[: 20 * SR], max_lag=SR // 10)
    st = []
    w = 3 * SR
    for i in range(0, total - w, w):
        a, b = am.lufs(ours[i:i + w].astype(np.float64), SR), am.lufs(fl[i:i + w].astype(np.float64), SR)
        if np.isfinite(a) and np.isfinite(b) and b > -50:
            st.append(a - b)
    (bc, bd), _ = band_difference(ours, fl)
    sf.write(str(WORK / "song-fluid.wav"), fl, SR, subtype="FLOAT")
    return {"seconds": round(total / SR, 2), "lufs_ours": round(la, 2), "lufs_fluid": round(lb, 2), "lu_diff": round(la - lb, 2),
            "lag_frames": int(lag), "short_term_lu_diff_median": round(float(np.median(st)), 2),
            "short_term_lu_diff_max_abs": round(float(np.max(np.abs(st))), 2),
            "long_term_worst_band_hz": round(bc), "long_term_worst_band_diff_db": round(bd, 2)}


def time_cmd(cmd):
    t0 = time.monotonic()
    r0 = os.times()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    r1 = os.times()
    return time.monotonic() - t0, (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system), out.stdout


def speed(sf2, song, runs):
    ev = setup_events() + song_events(song)
    ev.sort(key=lambda e: e[0])
    evp = WORK / "song-speed.events"
    write_events(ev, evp)
    seconds = (ev[-1][0] + SR) / SR
    fl_base = ["fluidsynth", "-ni", "-q", "-F", str(WORK / "fl.wav"), "-r", str(SR), "-T", "wav", "-O", "float", "-g", str(GAIN)]
    # like for like: ours without its reverb and chorus against FluidSynth with them off, and with
    # them against FluidSynth with them on (different algorithms, so only the cost compares)
    ours_fx_cmd = [str(BENCH), "sampler", f"--input={evp}", f"--soundfont={sf2}", f"--gain={GAIN_DB}"]
    ours_cmd = ours_fx_cmd + ["--no-effects"]
    res = {"ours_process": [], "ours_render": [], "ours_render_cpu": [], "ours_process_fx": [], "fluid_off": [], "fluid_on": []}
    for _ in range(runs):
        w, c, out = time_cmd(ours_cmd)
        j = json.loads(out.strip().splitlines()[-1])
        res["ours_process"].append(w)
        res["ours_render"].append(j["render_wall_s"])
        res["ours_render_cpu"].append(j["render_cpu_s"])
        w, c, _ = time_cmd(ours_fx_cmd)
        res["ours_process_fx"].append(w)
        w, c, _ = time_cmd(fl_base + ["-R", "0", "-C", "0", sf2, str(song)])
        res["fluid_off"].append(w)
        w, c, _ = time_cmd(fl_base + ["-R", "1", "-C", "1", sf2, str(song)])
        res["fluid_on"].append(w)
    med = {k: statistics.median(v) for k, v in res.items()}
    xrt = {k: seconds / v for k, v in med.items()}
    ratios = [f / o for o, f in zip(res["ours_process"], res["fluid_off"])]
    return {"audio_seconds": round(seconds, 2), "runs": runs, "median_s": {k: round(v, 4) for k, v in med.items()},
            "x_realtime": {k: round(v, 1) for k, v in xrt.items()},
            "ours_process_over_fluid_off_per_round": [round(r, 2) for r in ratios],
            "ours_render_over_fluid_off": round(med["fluid_off"] / med["ours_render"], 2),
            "ours_fx_over_fluid_on_per_round": [round(f / o, 2) for o, f in zip(res["ours_process_fx"], res["fluid_on"])]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf2", default="/usr/share/sounds/sf2/TimGM6mb.sf2")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "Benchmarks" / "results" / "sampler-latest"))
    ap.add_argument("--skip-speed", action="store_true")
    a = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    song = WORK / "song.mid"
    make_song.make(str(song))
    load0 = os.getloadavg()
    print(f"# {a.sf2}; load average {load0[0]:.2f}", flush=True)
    print("single notes:", flush=True)
    notes = compare_notes(a.sf2)
    print("song:", flush=True)
    s = compare_song(a.sf2, song)
    print("  ", s, flush=True)
    sp = None if a.skip_speed else speed(a.sf2, song, a.runs)
    if sp:
        print("speed:", sp, flush=True)
    result = {"soundfont": a.sf2, "load_average_before": load0, "load_average_after": os.getloadavg(),
              "gain_calibration": f"FluidSynth synth.gain {GAIN} <-> overallGain {GAIN_DB:.2f} dB", "notes": notes, "song": s, "speed": sp}
    Path(a.out + ".json").write_text(json.dumps(result, indent=1, default=float))
    Path(a.out + ".md").write_text(markdown(result))
    print(f"wrote {a.out}.json and .md")


def markdown(r):
    t = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [f"# AVAudioUnitSampler vs FluidSynth ({t})", "",
             f"`python3 Benchmarks/sampler/compare_sampler.py` — SoundFont `{r['soundfont']}`, 48 kHz stereo, FluidSynth "
             f"{subprocess.run(['fluidsynth', '--version'], capture_output=True, text=True).stdout.splitlines()[0].split()[-1]} "
             "(libfluidsynth through pyfluidsynth for quality, float output; the `fluidsynth` CLI for speed), reverb and chorus off on "
             "both sides (FluidSynth: synth.reverb.active = 0, -R 0 -C 0; ours: avaudio-bench sampler --no-effects) except the "
             "last speed row and ratio. Load average before/after: "
             f"{r['load_average_before'][0]:.2f} / {r['load_average_after'][0]:.2f} (2 cores shared with other work).", "",
             f"Gain calibration (fixed): {r['gain_calibration']}; nothing else. Event frames on a 64-frame grid (FluidSynth applies events "
             "at its 64-frame block boundaries; ours on their exact frame).", "",
             "## Single notes", "",
             "| note | onset ours − FluidSynth (ms) | loudness ours − FluidSynth (LU) | worst third-octave band ≤ 10 kHz (Hz: dB) |",
             "|---|---|---|---|"]
    for n in r["notes"]:
        lines.append(f"| {n['note']} | {n['onset_diff_ms']} | {n['lu_diff']:+.2f} | {n['worst_band_hz']}: {n['worst_band_diff_db']:+.2f} |")
    s = r["song"]
    lines += ["", "## GM song (make_song.py)", "",
              f"{s['seconds']} s: integrated loudness ours {s['lufs_ours']} LUFS, FluidSynth {s['lufs_fluid']} LUFS "
              f"(difference {s['lu_diff']:+.2f} LU); short-term (3 s windows) differences median {s['short_term_lu_diff_median']:+.2f}, "
              f"largest {s['short_term_lu_diff_max_abs']:.2f} LU; cross-correlation lag {s['lag_frames']} frames; long-term spectrum: "
              f"worst third-octave band ≤ 10 kHz {s['long_term_worst_band_hz']} Hz at {s['long_term_worst_band_diff_db']:+.2f} dB.", ""]
    sp = r.get("speed")
    if sp:
        x = sp["x_realtime"]
        lines += ["## Speed (the same song, interleaved rounds, median of %d)" % sp["runs"], "",
                  "| contender | times realtime (wall) |", "|---|---|",
                  f"| ours, whole process (avaudio-bench sampler --no-effects: load bank, engine, render) | {x['ours_process']} |",
                  f"| ours, render only (in-process wall) | {x['ours_render']} |",
                  f"| ours, render only (in-process CPU) | {x['ours_render_cpu']} |",
                  f"| fluidsynth CLI -F, reverb/chorus off | {x['fluid_off']} |",
                  f"| fluidsynth CLI -F, reverb/chorus on | {x['fluid_on']} |",
                  f"| ours, whole process, reverb/chorus on | {x['ours_process_fx']} |", "",
                  f"Whole process ours/FluidSynth per round: {', '.join(str(v) for v in sp['ours_process_over_fluid_off_per_round'])}; "
                  f"render-only ours vs FluidSynth's whole process: {sp['ours_render_over_fluid_off']}x; "
                  f"with reverb and chorus on both sides, per round: {', '.join(str(v) for v in sp['ours_fx_over_fluid_on_per_round'])}.", ""]
    lines += ["## Notes", "",
              "* The constant +0.3 to +0.45 LU on every note is FluidSynth's, not a model difference we know of: on a bank holding "
              "one pure sine (Fuzz/make_seeds.py's `sf2_bank`), our level is the SoundFont/FluidSynth model's to 0.01 dB (sample "
              "amplitude × pan sin(π/4) × the low-pass's DC gain 1/√q × attenuation), and FluidSynth renders 0.41 dB below it "
              "whatever the filter cutoff, resonance, pan, velocity or attenuation. It is left uncorrected (no hidden calibration).",
              "* FluidSynth 2.3 applies no velocity → filter-cutoff modulator (measured); neither do we.",
              "* Onsets: ours start on the event's frame; the differences are where each attack first crosses −60 dB re its peak.", ""]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
