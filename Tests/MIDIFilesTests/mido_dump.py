#!/usr/bin/env python3
"""How `mido` reads Standard MIDI Files, as JSON, for MIDIFilesTests.

Usage: mido_dump.py OUTDIR        writes generated files (generate mode) into OUTDIR and prints
                                  nothing else;
       mido_dump.py --dump FILE…  prints one JSON object per file: format, division, and per track
                                  the events as [absolute tick, kind, hex bytes]:
                                  kind "c" channel message (status and data bytes), "s" sysex
                                  (the bytes between F0 and a final F7), "m" meta (type byte then data).
Generated files use mido's writer (running status, sysex, every meta type, tempo changes).
"""
import json
import random
import sys

import mido


def dump(path):
    f = mido.MidiFile(path, clip=False)
    tracks = []
    for t in f.tracks:
        tick = 0
        events = []
        for msg in t:
            tick += msg.time
            if msg.is_meta:
                raw = msg.bytes()  # FF type varlen data
                typ = raw[1]
                i = 2
                while raw[i] & 0x80:
                    i += 1
                data = raw[i + 1:]
                events.append([tick, "m", "%02x" % typ + bytes(data).hex()])
            elif msg.type == "sysex":
                events.append([tick, "s", bytes(msg.data).hex()])
            else:
                events.append([tick, "c", bytes(msg.bytes()).hex()])
        tracks.append(events)
    return {"path": path, "format": f.type, "division": f.ticks_per_beat, "tracks": tracks}


def generate(outdir, count=24, seed=1234):
    rng = random.Random(seed)
    paths = []
    for n in range(count):
        fmt = [0, 1, 2][n % 3]
        f = mido.MidiFile(type=fmt, ticks_per_beat=rng.choice([96, 120, 192, 480, 960]))
        ntracks = 1 if fmt == 0 else rng.randint(2, 5)
        for ti in range(ntracks):
            t = mido.MidiTrack()
            f.tracks.append(t)
            t.append(mido.MetaMessage("track_name", name="track %d" % ti, time=0))
            if ti == 0:
                t.append(mido.MetaMessage("set_tempo", tempo=rng.choice([500000, 400000, 652174]), time=0))
                t.append(mido.MetaMessage("time_signature", numerator=3, denominator=4, time=0))
                t.append(mido.MetaMessage("key_signature", key=rng.choice(["C", "Eb", "F#m"]), time=0))
                t.append(mido.MetaMessage("smpte_offset", frame_rate=25, hours=1, minutes=2, seconds=3, frames=4, sub_frames=5, time=0))
                t.append(mido.MetaMessage("copyright", text="(c) test", time=0))
            for _ in range(rng.randint(20, 200)):
                dt = rng.choice([0, 0, 1, 12, 96, 1000, 20000])
                ch = rng.randrange(16)
                kind = rng.random()
                if kind < 0.45:
                    t.append(mido.Message("note_on", channel=ch, note=rng.randrange(128), velocity=rng.randrange(128), time=dt))
                elif kind < 0.6:
                    t.append(mido.Message("note_off", channel=ch, note=rng.randrange(128), velocity=rng.randrange(128), time=dt))
                elif kind < 0.68:
                    t.append(mido.Message("control_change", channel=ch, control=rng.randrange(128), value=rng.randrange(128), time=dt))
                elif kind < 0.72:
                    t.append(mido.Message("program_change", channel=ch, program=rng.randrange(128), time=dt))
                elif kind < 0.76:
                    t.append(mido.Message("pitchwheel", channel=ch, pitch=rng.randrange(-8192, 8192), time=dt))
                elif kind < 0.8:
                    t.append(mido.Message("aftertouch", channel=ch, value=rng.randrange(128), time=dt))
                elif kind < 0.84:
                    t.append(mido.Message("polytouch", channel=ch, note=rng.randrange(128), value=rng.randrange(128), time=dt))
                elif kind < 0.88:
                    t.append(mido.Message("sysex", data=[rng.randrange(128) for _ in range(rng.randint(0, 300))], time=dt))
                elif kind < 0.92:
                    t.append(mido.MetaMessage("set_tempo", tempo=rng.randrange(200000, 1500000), time=dt))
                elif kind < 0.95:
                    kind_name, field = rng.choice([("text", "text"), ("lyrics", "text"), ("marker", "text"), ("cue_marker", "text"), ("instrument_name", "name")])
                    t.append(mido.MetaMessage(kind_name, time=dt, **{field: "x" * rng.randint(0, 40)}))
                elif kind < 0.97:
                    t.append(mido.MetaMessage("sequencer_specific", data=[1, 2, 3], time=dt))
                else:
                    t.append(mido.MetaMessage("channel_prefix", channel=ch, time=dt))
            t.append(mido.MetaMessage("end_of_track", time=rng.choice([0, 5])))
        p = "%s/gen%02d.mid" % (outdir, n)
        f.save(p)
        paths.append(p)
    return paths


if __name__ == "__main__":
    if sys.argv[1] == "--dump":
        out = []
        for p in sys.argv[2:]:
            try:
                out.append(dump(p))
            except Exception as e:  # mido refuses the file: say so
                out.append({"path": p, "error": "%s: %s" % (type(e).__name__, e)})
        print(json.dumps(out))
    else:
        for p in generate(sys.argv[1]):
            print(p)
