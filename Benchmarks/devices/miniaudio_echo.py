#!/usr/bin/env python3
"""The peer for Benchmarks/devices/roundtrip_jack.py: miniaudio (the `miniaudio` pip package,
pyminiaudio, which bundles miniaudio's C library) as a live monitor on a JACK server: a duplex
stream whose callback returns the captured frames as the frames to play, the same job our
engine does as inputNode → mainMixerNode → outputNode.

    JACK_DEFAULT_SERVER=NAME python3 miniaudio_echo.py SECONDS

miniaudio's JACK backend takes the server's rate and period; it names its client after the
process and registers two capture and two playback ports (the server's physical port count).
The callback runs in Python (pyminiaudio's generator protocol), once per period.
"""
import sys
import time

import miniaudio


def echo():
    frames = yield b""
    while True:
        frames = yield frames


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
    stream = miniaudio.DuplexStream(
        playback_format=miniaudio.SampleFormat.FLOAT32, playback_channels=2,
        capture_format=miniaudio.SampleFormat.FLOAT32, capture_channels=2,
        sample_rate=48000, buffersize_msec=0, backends=[miniaudio.Backend.JACK],
        thread_prio=miniaudio.ThreadPriority.REALTIME, app_name="miniaudio-echo")
    generator = echo()
    next(generator)
    stream.start(generator)
    print("miniaudio-echo: running", stream.backend, flush=True)
    time.sleep(seconds)
    stream.stop()
    stream.close()


if __name__ == "__main__":
    main()
