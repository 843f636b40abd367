#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora to DIR/<target>/ (Scripts/fuzz.sh calls it; nothing is committed).

Seeds come from:
- files the harness builds here byte by byte (every encoding and layout variant each reader
  accepts: WAVE_FORMAT_EXTENSIBLE, RIFX, RF64/BW64 with ds64, odd-sized chunks, AIFF-C compression
  types, CAF with 'chan' and streaming sizes, AU and its little-endian DEC variant);
- files on the machine that the corpus tests also read, when present: CPython's test audiodata and
  sndhdrdata, SciPy's WAV edge cases, the ALSA sample sounds, and files libsndfile (Python
  soundfile) writes. Large ones are cut to their first 16 KiB (the header survives; the data size
  then overstates the bytes present, itself a case worth having).
- structured byte strings for the settings and converter targets, and random ones (fixed seed).
Standard library only, except the optional soundfile/numpy seeds.
"""
import glob, math, os, random, struct, sys

out = sys.argv[1] if len(sys.argv) > 1 else '.build-fuzz/corpus'
MAX = 16384
counts = {}

def put(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data[:MAX])
    counts[target] = counts.get(target, 0) + 1

def samples(n, ch, width, rng=random.Random(1)):
    return bytes(rng.randrange(256) for _ in range(n * ch * width))

# ---- WAV family ----
def chunk(cid, payload, big=False):
    pad = b'\0' if len(payload) & 1 else b''
    return cid + struct.pack('>I' if big else '<I', len(payload)) + payload + pad

def wav(tag, ch, rate, bits, data, extensible=None, big=False, extra=b'', before=b'', magic=b'RIFF'):
    e = '>' if big else '<'
    block = ch * ((bits + 7) // 8)
    fmt = struct.pack(e + 'HHIIHH', 0xFFFE if extensible else tag, ch, rate, rate * block, block, bits)
    if extensible:
        valid, mask = extensible
        guid = struct.pack(e + 'IHH', tag, 0, 0x10) + bytes([0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71])
        fmt += struct.pack(e + 'HHI', 22, valid, mask) + guid
    elif tag != 1:
        fmt += struct.pack(e + 'H', 0)
    body = b'WAVE' + before + chunk(b'fmt ', fmt, big) + extra + chunk(b'data', data, big)
    return magic + struct.pack(e + 'I', len(body)) + body

for bits, tag in [(8, 1), (16, 1), (24, 1), (32, 1), (32, 3), (64, 3), (8, 6), (8, 7)]:
    for ch in (1, 2):
        put('wav', 'gen-%d-%d-%dch.wav' % (tag, bits, ch), wav(tag, ch, 44100, bits, samples(37, ch, (bits + 7) // 8)))
put('wav', 'gen-ext-6ch.wav', wav(1, 6, 48000, 24, samples(20, 6, 3), extensible=(24, 0x3F)))
put('wav', 'gen-ext-20in24.wav', wav(1, 2, 96000, 24, samples(20, 2, 3), extensible=(20, 0x3)))
put('wav', 'gen-ext-float.wav', wav(3, 2, 48000, 32, samples(20, 2, 4), extensible=(32, 0x3)))
put('wav', 'gen-rifx.wav', wav(1, 2, 22050, 16, samples(30, 2, 2), big=True, magic=b'RIFX'))
put('wav', 'gen-odd.wav', wav(1, 1, 8000, 8, samples(33, 1, 1), extra=chunk(b'LIST', b'INFOISFT\x03\0\0abc'), before=chunk(b'JUNK', b'\0' * 5)))
put('wav', 'gen-fact.wav', wav(7, 1, 8000, 8, samples(40, 1, 1), extra=chunk(b'fact', struct.pack('<I', 40))))
# smpl (sampler chunk: unity note 69, a quarter-semitone fraction, one forward loop over frames 4…30)
smpl = struct.pack('<9I', 0, 0, 22675, 69, 0x40000000, 0, 0, 1, 0) + struct.pack('<6I', 0, 0, 4, 30, 0, 0)
put('wav', 'gen-smpl-loop.wav', wav(1, 1, 44100, 16, samples(40, 1, 2), extra=chunk(b'smpl', smpl)))
for magic in (b'RF64', b'BW64'):
    data = samples(25, 2, 2)
    fmt = struct.pack('<HHIIHH', 1, 2, 44100, 44100 * 4, 4, 16)
    ds64 = struct.pack('<QQQI', 0, len(data), 25, 0)
    body = b'WAVE' + chunk(b'ds64', ds64) + chunk(b'fmt ', fmt) + b'data' + struct.pack('<I', 0xFFFFFFFF) + data
    body = body[:12] + struct.pack('<Q', len(body) + 4) + body[20:]
    put('wav', 'gen-%s.wav' % magic.decode().lower(), magic + struct.pack('<I', 0xFFFFFFFF) + body)
put('wav', 'gen-unfinished.wav', wav(1, 1, 44100, 16, b'')[:-0 or None] + samples(10, 1, 2))

# ---- AIFF / AIFF-C ----
def ext80(rate):
    import math
    if rate == 0:
        return b'\0' * 10
    m, e = math.frexp(rate)
    return struct.pack('>HQ', e + 16382, int(m * (1 << 64)))

def aiff(ch, frames, bits, rate, data, comp=None, name=b''):
    comm = struct.pack('>hIh', ch, frames, bits) + ext80(rate)
    form = b'AIFF'
    extra = b''
    if comp is not None:
        form = b'AIFC'
        comm += comp + bytes([len(name)]) + name + (b'' if len(name) & 1 else b'\0')
        extra = chunk(b'FVER', struct.pack('>I', 0xA2805140), True)
    body = form + extra + chunk(b'COMM', comm, True) + chunk(b'SSND', struct.pack('>II', 0, 0) + data, True)
    return b'FORM' + struct.pack('>I', len(body)) + body

for bits in (8, 12, 16, 24, 32):
    for ch in (1, 2):
        put('aiff', 'gen-%dbit-%dch.aiff' % (bits, ch), aiff(ch, 31, bits, 44100, samples(31, ch, (bits + 7) // 8)))
for comp, bits, width in [(b'NONE', 16, 2), (b'twos', 16, 2), (b'sowt', 16, 2), (b'in24', 24, 3), (b'in32', 32, 4),
                          (b'42ni', 24, 3), (b'23ni', 32, 4), (b'fl32', 32, 4), (b'fl64', 64, 8), (b'ulaw', 16, 1),
                          (b'alaw', 16, 1), (b'raw ', 8, 1)]:
    put('aiff', 'gen-aifc-%s.aifc' % comp.decode().strip(), aiff(2, 21, bits, 48000, samples(21, 2, width), comp, b'x'))
# INST (base note 60, detune −10, keys 48–72, velocities 1–127, sustain loop between markers 1 and 2) with its MARK chunk
mark = struct.pack('>H', 2) + struct.pack('>HI', 1, 3) + b'\x01a' + struct.pack('>HI', 2, 25) + b'\x01b'
inst = bytes([60, 256 - 10, 48, 72, 1, 127]) + struct.pack('>h', -3) + struct.pack('>HHH', 1, 1, 2) + struct.pack('>HHH', 0, 0, 0)
aiff_inst = aiff(1, 31, 16, 44100, samples(31, 1, 2))
aiff_inst = b'FORM' + struct.pack('>I', len(aiff_inst) - 8 + 8 + len(mark) + 8 + len(inst)) + aiff_inst[8:] + chunk(b'MARK', mark, True) + chunk(b'INST', inst, True)
put('aiff', 'gen-inst-mark.aiff', aiff_inst)

# ---- CAF ----
def caf(fmt_id, flags, bpp, ch, bits, data, layout=None, streaming=False, rate=44100.0):
    desc = struct.pack('>d4sIIIII', rate, fmt_id, flags, bpp, 1, ch, bits)
    out_ = b'caff' + struct.pack('>HH', 1, 0) + b'desc' + struct.pack('>q', 32) + desc
    if layout is not None:
        out_ += b'chan' + struct.pack('>q', len(layout)) + layout
    out_ += b'free' + struct.pack('>q', 3) + b'\0\0\0'
    out_ += b'data' + struct.pack('>q', -1 if streaming else len(data) + 4) + struct.pack('>I', 0) + data
    return out_

for fid, flags, width, bits in [(b'lpcm', 0, 2, 16), (b'lpcm', 2, 2, 16), (b'lpcm', 0, 3, 24), (b'lpcm', 2, 4, 32),
                                (b'lpcm', 3, 4, 32), (b'lpcm', 1, 8, 64), (b'lpcm', 0, 1, 8), (b'ulaw', 0, 1, 8), (b'alaw', 0, 1, 8)]:
    put('caf', 'gen-%s-%d-%d.caf' % (fid.decode(), flags, bits), caf(fid, flags, 2 * width, 2, bits, samples(19, 2, width)))
descs = b''.join(struct.pack('>IIfff', label, 0, 0, 0, 0) for label in (1, 2, 3, 4, 5, 6))
put('caf', 'gen-chan-descriptions.caf', caf(b'lpcm', 2, 12, 6, 16, samples(9, 6, 2), layout=struct.pack('>III', 0, 0, 6) + descs))
put('caf', 'gen-chan-bitmap.caf', caf(b'lpcm', 2, 4, 2, 16, samples(9, 2, 2), layout=struct.pack('>III', 0x10000, 3, 0)))
put('caf', 'gen-chan-tag.caf', caf(b'lpcm', 2, 12, 6, 16, samples(9, 6, 2), layout=struct.pack('>III', (121 << 16) | 6, 0, 0)))
put('caf', 'gen-streaming.caf', caf(b'lpcm', 3, 8, 2, 32, samples(15, 2, 4), streaming=True))
# inst (CAFInstrumentChunk: base note 62.5, keys 40–80, velocities 1–127, gain −6 dB, region IDs) before the data
caf_inst = caf(b'lpcm', 0, 2, 1, 16, samples(19, 1, 2))
at = caf_inst.index(b'free')
put('caf', 'gen-inst.caf', caf_inst[:at] + b'inst' + struct.pack('>q', 28) + struct.pack('>f4BfIIII', 62.5, 40, 80, 1, 127, -6.0, 0, 1, 2, 3) + caf_inst[at:])

# ---- AU ----
for code, width in [(1, 1), (2, 1), (3, 2), (4, 3), (5, 4), (6, 4), (7, 8), (27, 1)]:
    data = samples(23, 2, width)
    put('au', 'gen-%d.au' % code, b'.snd' + struct.pack('>IIIII', 28, len(data), code, 8000, 2) + b'abcd' + data)
data = samples(23, 1, 2)
put('au', 'gen-dec.au', b'dns.' + struct.pack('<IIIII', 24, len(data), 3, 44100, 1) + data)
put('au', 'gen-unknown-size.au', b'.snd' + struct.pack('>IIIII', 24, 0xFFFFFFFF, 3, 44100, 1) + data)

# ---- FLAC: small streams written by libFLAC through libsndfile (when soundfile is installed) ----
try:
    import soundfile as _sf, io as _io
    for ch, sub, n in [(1, 'PCM_16', 300), (2, 'PCM_16', 5000), (2, 'PCM_24', 700), (1, 'PCM_S8', 100), (3, 'PCM_16', 64)]:
        _buf = _io.BytesIO()
        _rng = random.Random(ch * 31 + n)
        _data = [[(_rng.random() - 0.5) * (0.9 if i % 50 else 0.0) for _ in range(ch)] for i in range(n)]
        _sf.write(_buf, _data, 44100, subtype=sub, format='FLAC')
        put('flac', 'gen-%dch-%s-%d.flac' % (ch, sub, n), _buf.getvalue())
except Exception as e:
    print('no FLAC seeds (%s)' % e)

# ---- ALAC in CAF: small files from ffmpeg's encoder (when ffmpeg is installed) ----
try:
    import subprocess as _sp, tempfile as _tf
    with _tf.TemporaryDirectory() as _d:
        for ch, fmt, n in [(1, 's16p', 300), (2, 's16p', 5000), (2, 's32p', 700), (6, 's16p', 100), (8, 's32p', 64)]:
            _out = os.path.join(_d, 'a.caf')
            _expr = '|'.join('0.4*sin(%d*t)+0.05*(random(%d)-0.5)' % (300 + 50 * c, c) for c in range(ch))
            _sp.run(['ffmpeg', '-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i',
                     'aevalsrc=%s:s=44100:d=%f' % (_expr, n / 44100.0), '-c:a', 'alac', '-sample_fmt', fmt, _out], check=True)
            with open(_out, 'rb') as f:
                put('alac', 'gen-%dch-%s-%d.caf' % (ch, fmt, n), f.read())
except Exception as e:
    print('no ALAC seeds (%s)' % e)
# ---- MP4/M4A/MOV: short files ffmpeg writes (when installed) for the mp4 target ----
try:
    import subprocess as _sp, tempfile as _tf
    with _tf.TemporaryDirectory() as _tmp:
        for _name, _args in [('alac.m4a', ['-c:a', 'alac']), ('aac.m4a', ['-c:a', 'aac']),
                             ('flac.mp4', ['-c:a', 'flac', '-strict', '-2']), ('alac.mov', ['-c:a', 'alac']),
                             ('frag-aac.mp4', ['-c:a', 'aac', '-movflags', 'frag_keyframe+empty_moov']),
                             ('frag-flac.mp4', ['-c:a', 'flac', '-strict', '-2', '-movflags', 'frag_keyframe+empty_moov+default_base_moof']),
                             ('faststart-aac.m4a', ['-c:a', 'aac', '-movflags', '+faststart'])]:
            _p = os.path.join(_tmp, _name)
            _sp.run(['ffmpeg', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.12:sample_rate=8000',
                     '-ac', '2'] + _args + [_p], check=True, stdout=_sp.DEVNULL, stderr=_sp.DEVNULL)
            with open(_p, 'rb') as _f:
                put('mp4', 'ffmpeg-' + _name, _f.read()[:MAX])
except Exception as e:
    print('no MP4 seeds (%s)' % e)
# ---- Ogg: short FLAC-in-Ogg files ffmpeg writes (when installed) for the ogg target ----
try:
    import subprocess as _sp, tempfile as _tf
    with _tf.TemporaryDirectory() as _tmp:
        for _name, _args in [('flac-s16.oga', ['-ac', '2', '-sample_fmt', 's16']), ('flac-s32-mono.oga', ['-ac', '1', '-sample_fmt', 's32']),
                             ('flac-small-pages.oga', ['-ac', '2', '-page_duration', '20000'])]:
            _p = os.path.join(_tmp, _name)
            _sp.run(['ffmpeg', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.3:sample_rate=8000']
                    + _args + ['-c:a', 'flac', '-f', 'ogg', _p], check=True, stdout=_sp.DEVNULL, stderr=_sp.DEVNULL)
            with open(_p, 'rb') as _f:
                put('ogg', 'ffmpeg-' + _name, _f.read()[:MAX])
        # A chain (RFC 3533 §4): two links one after the other, as `cat a.oga b.oga` makes.
        _chain = b''
        for _name in ['flac-s16.oga', 'flac-small-pages.oga']:
            with open(os.path.join(_tmp, _name), 'rb') as _f:
                _chain += _f.read()
        put('ogg', 'ffmpeg-flac-chain.oga', _chain[:MAX])
except Exception as e:
    print('no Ogg seeds (%s)' % e)
# ---- Ogg Vorbis: short files oggenc (vorbis-tools) or ffmpeg's libvorbis writes, for the vorbis target ----
try:
    import subprocess as _sp, tempfile as _tf, shutil as _sh
    with _tf.TemporaryDirectory() as _tmp:
        for _name, _rate, _ch, _dur, _q in [('mono-8k-q0.ogg', 8000, 1, 0.3, '0'), ('stereo-22k-q5.ogg', 22050, 2, 0.25, '5'),
                                            ('6ch-8k-q-1.ogg', 8000, 6, 0.2, '-1'), ('stereo-44k-q10-short.ogg', 44100, 2, 0.02, '10')]:
            _wav = os.path.join(_tmp, _name + '.wav')
            _p = os.path.join(_tmp, _name)
            _sp.run(['ffmpeg', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=%g:sample_rate=%d' % (_dur, _rate),
                     '-ac', str(_ch), _wav], check=True, stdout=_sp.DEVNULL, stderr=_sp.DEVNULL)
            if _sh.which('oggenc'):
                _sp.run(['oggenc', '-Q', '-q', _q, '-o', _p, _wav], check=True)
            else:
                _sp.run(['ffmpeg', '-v', 'error', '-y', '-i', _wav, '-c:a', 'libvorbis', '-q:a', _q, _p], check=True)
            with open(_p, 'rb') as _f:
                put('vorbis', 'vorbis-' + _name, _f.read()[:MAX])
except Exception as e:
    print('no Vorbis seeds (%s)' % e)
# ---- MPEG audio and ADTS: short streams ffmpeg writes (when installed) for the mpeg target ----
try:
    import subprocess as _sp, tempfile as _tf
    with _tf.TemporaryDirectory() as _tmp:
        for _name, _args in [('lame.mp3', ['-c:a', 'libmp3lame', '-q:a', '5']), ('layer2.mp2', ['-c:a', 'mp2']),
                             ('adts.aac', ['-c:a', 'aac', '-f', 'adts'])]:
            _p = os.path.join(_tmp, _name)
            if _sp.run(['ffmpeg', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.2:sample_rate=22050']
                       + _args + [_p], stdout=_sp.DEVNULL, stderr=_sp.DEVNULL).returncode == 0:
                with open(_p, 'rb') as _f:
                    put('mpeg', 'ffmpeg-' + _name, _f.read()[:MAX])
except Exception as e:
    print('no MPEG seeds (%s)' % e)

# ---- Files on the machine (the corpus tests' sources) ----
def target_for(head):
    magic = head[:4]
    if magic == b'RIFF' and head[8:12] == b'sfbk': return 'sf2'
    if magic == b'RIFF' and head[8:12] == b'DLS ': return 'dls'
    if magic in (b'RIFF', b'RIFX', b'RF64', b'BW64'): return 'wav'
    if magic == b'FORM': return 'aiff'
    if magic == b'caff': return 'caf'
    if magic in (b'.snd', b'dns.'): return 'au'
    if magic == b'fLaC': return 'flac'
    if head[4:8] == b'ftyp': return 'mp4'
    if magic == b'OggS': return 'ogg'
    return None

found = set()
for pattern in ['/root/.pyenv/versions/*/lib/python3*/test/audiodata/*', '/root/.pyenv/versions/*/lib/python3*/test/sndhdrdata/*',
                os.path.join(sys.prefix, 'lib/python3*/test/audiodata/*'), '/usr/lib/python3*/test/audiodata/*',
                '/usr/share/sounds/alsa/*.wav']:
    found.update(glob.glob(pattern))
try:
    import scipy
    found.update(glob.glob(os.path.join(os.path.dirname(scipy.__file__), 'io/tests/data/*.wav')))
except Exception:
    pass
seen = set()
for path in sorted(found):
    with open(path, 'rb') as f:
        data = f.read(MAX)
    t = target_for(data)
    if t and (os.path.basename(path), len(data)) not in seen:
        seen.add((os.path.basename(path), len(data)))
        put(t, 'ext-' + os.path.basename(path), data)
try:
    import numpy as np, soundfile as sf, tempfile
    x = np.stack([0.5 * np.sin(np.arange(64) / 3.0), 0.25 * np.cos(np.arange(64) / 5.0)], axis=1)
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, sub in [('WAV', 'PCM_U8'), ('WAV', 'PCM_16'), ('WAV', 'PCM_24'), ('WAV', 'FLOAT'), ('WAV', 'ULAW'),
                         ('WAVEX', 'PCM_16'), ('RF64', 'PCM_16'), ('AIFF', 'PCM_16'), ('AIFF', 'FLOAT'), ('AIFF', 'PCM_S8'),
                         ('CAF', 'PCM_16'), ('CAF', 'DOUBLE'), ('CAF', 'ALAW'), ('AU', 'PCM_16'), ('AU', 'FLOAT')]:
            p = os.path.join(tmp, 'x')
            try:
                sf.write(p, x, 22050, format=fmt, subtype=sub)
            except Exception:
                continue
            data = open(p, 'rb').read()
            t = target_for(data)
            if t:
                put(t, 'sndfile-%s-%s' % (fmt, sub), data)
except Exception:
    pass


# ---- SoundFont 2 banks (sf2): built field by field: one or two samples, instruments with global
# and local zones, key/velocity splits, loops, sm24, every generator at a few values ----
def sf2_bank(n_samples=1, gens=(), pgens=(), sm24=False, version=(2, 1), zones=1, presets=1, loop_mode=1, rng=random.Random(7),
             imods=(), pmods=(), ogg=None):
    def ck(cid, payload):
        return cid + struct.pack('<I', len(payload)) + payload + (b'\0' if len(payload) % 2 else b'')
    def lst(kind, chunks):
        return ck(b'LIST', kind + b''.join(chunks))
    def name(s):
        return (s.encode() + b'\0' * 20)[:20]
    info = lst(b'INFO', [ck(b'ifil', struct.pack('<HH', *version)), ck(b'isng', b'EMU8000\0'), ck(b'INAM', b'Seed\0\0')])
    pcm, headers, pos = b'', b'', 0
    for i in range(n_samples):
        n = 200 + 50 * i
        pts = [int(12000 * math.sin(2 * math.pi * k / (20 + 7 * i))) for k in range(n)]
        pcm += struct.pack('<%dh' % n, *pts) + b'\0' * 92
        headers += name('S%d' % i) + struct.pack('<IIIIIBbHH', pos, pos + n, pos + 20, pos + n - 20, 22050 + 11025 * i, 60 + i, i - 1, 0, 1)
        pos += n + 46
    if ogg is not None:
        # SF3: the sample is an Ogg Vorbis stream, its header's start/end byte offsets, type 0x11.
        pcm = ogg
        headers = name('S0') + struct.pack('<IIIIIBbHH', 0, len(ogg), 20, 2000, 22050, 60, 0, 0, 0x11)
        n_samples = 1
    headers += name('EOS') + b'\0' * 26
    sd = [ck(b'smpl', pcm)]
    if sm24:
        sd.append(ck(b'sm24', bytes(rng.randrange(256) for _ in range(len(pcm) // 2))))
    sdta = lst(b'sdta', sd)
    igen, ibag = b'', b''
    # global zone, then `zones` local zones with key splits
    ibag += struct.pack('<HH', 0, 0)
    igen += struct.pack('<HH', 54, loop_mode) + b''.join(struct.pack('<Hh', g, v) for g, v in gens)
    # (imods: (source, destination, amount, amount source, transform) records on the global zone)
    for z in range(zones):
        ibag += struct.pack('<HH', len(igen) // 4, len(imods))
        lo, hi = z * 128 // zones, (z + 1) * 128 // zones - 1
        igen += struct.pack('<HBB', 43, lo, hi) + struct.pack('<HBB', 44, 0, 127) + struct.pack('<HH', 53, z % n_samples)
    ibag += struct.pack('<HH', len(igen) // 4, len(imods))
    igen += b'\0' * 4
    inst = name('I') + struct.pack('<H', 0) + name('EOI') + struct.pack('<H', zones + 1)
    pgen, pbag, phdr = b'', b'', b''
    for p in range(presets):
        phdr += name('P%d' % p) + struct.pack('<HHHIII', p, 128 if p == presets - 1 and presets > 1 else 0, len(pbag) // 4, 0, 0, 0)
        pbag += struct.pack('<HH', len(pgen) // 4, 0 if p == 0 else len(pmods))
        pgen += b''.join(struct.pack('<Hh', g, v) for g, v in pgens) + struct.pack('<HH', 41, 0)
    phdr += name('EOP') + struct.pack('<HHHIII', 0, 0, len(pbag) // 4, 0, 0, 0)
    pbag += struct.pack('<HH', len(pgen) // 4, len(pmods))
    pgen += b'\0' * 4
    def mods(records):
        return b''.join(struct.pack('<HHhHH', *r) for r in records) + b'\0' * 10
    pdta = lst(b'pdta', [ck(b'phdr', phdr), ck(b'pbag', pbag), ck(b'pmod', mods(pmods)), ck(b'pgen', pgen), ck(b'inst', inst),
                         ck(b'ibag', ibag), ck(b'imod', mods(imods)), ck(b'igen', igen), ck(b'shdr', headers)])
    body = b'sfbk' + info + sdta + pdta
    return b'RIFF' + struct.pack('<I', len(body)) + body

put('sf2', 'gen-minimal.sf2', sf2_bank())
# SF3 (an Ogg Vorbis sample; SoundFont+SF3.swift), when oggenc or ffmpeg's libvorbis can make one.
try:
    import subprocess as _sp, tempfile as _tf, shutil as _sh
    with _tf.TemporaryDirectory() as _tmp:
        _wav, _ogg = os.path.join(_tmp, 's.wav'), os.path.join(_tmp, 's.ogg')
        _sp.run(['ffmpeg', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=0.1:sample_rate=22050', _wav], check=True)
        if _sh.which('oggenc'):
            _sp.run(['oggenc', '-Q', '-q', '0', '-o', _ogg, _wav], check=True)
        else:
            _sp.run(['ffmpeg', '-v', 'error', '-y', '-i', _wav, '-c:a', 'libvorbis', _ogg], check=True)
        with open(_ogg, 'rb') as _f:
            put('sf2', 'gen-sf3.sf3', sf2_bank(version=(3, 1), ogg=_f.read()))
except Exception as e:
    print('no SF3 seed (%s)' % e)
put('sf2', 'gen-sm24.sf2', sf2_bank(sm24=True, version=(2, 4)))
put('sf2', 'gen-split.sf2', sf2_bank(n_samples=2, zones=4, presets=3))
put('sf2', 'gen-unlooped.sf2', sf2_bank(loop_mode=0))
put('sf2', 'gen-release-loop.sf2', sf2_bank(loop_mode=3))
for gi, (g, values) in enumerate([(8, (1500, 13500)), (9, (0, 960)), (5, (-12000, 12000)), (6, (100,)), (7, (1200,)),
                                  (13, (960,)), (17, (-500, 500)), (22, (-16000, 4500)), (24, (0,)), (26, (-12000, 8000)),
                                  (34, (-12000, 8000)), (36, (5000,)), (37, (1440,)), (38, (-12000, 8000)), (39, (1200,)),
                                  (48, (1440,)), (51, (-120, 120)), (52, (-99, 99)), (56, (0, 1200)), (57, (1,)), (58, (0, 127)),
                                  (0, (150, -150)), (2, (-30, 30)), (3, (50,)), (46, (60,)), (47, (10,))]):
    put('sf2', 'gen-g%d.sf2' % g, sf2_bank(gens=[(g, v) for v in values[:1]], pgens=[(g, values[-1])] if g not in (0, 2, 3, 46, 47, 54, 57, 58) else []))

# custom modulators (SoundFont 2.04 §8.2): CC1 → cutoff, convex velocity → attenuation, CC74 → Q,
# pressure → vibrato, the default velocity curve replaced, a linked chain, a cycle, hostile records
put('sf2', 'gen-modulators.sf2', sf2_bank(
    gens=[(8, 9000)],
    imods=[(0x0081, 8, -2400, 0, 0), (0x0902, 48, 480, 0, 0), (0x00CA, 9, 200, 0, 0), (0x000D, 6, 100, 0, 0),
           (0x0502, 48, 480, 0, 0), (0x0081, 0x8006, 2, 0, 0), (0x007F, 48, 100, 0x00CA, 2)],
    pmods=[(0x0502, 48, 100, 0, 0), (0x020E, 52, 50, 0x0010, 0), (0x000A, 17, 300, 0, 0)]))
put('sf2', 'gen-modulators-hostile.sf2', sf2_bank(
    imods=[(0x0081, 0x8001, 100, 0, 0), (0x007F, 0x8002, 100, 0, 0), (0x007F, 0x8001, 100, 0, 0), (0x0081, 60, 100, 0, 0),
           (0x0086, 8, 100, 0, 0), (0x0000, 8, 100, 0, 0), (0x0002, 0xFFFF, 100, 0, 0), (0x2402, 9, 300, 0x7FFF, 9)],
    pmods=[(0x007F, 0x8000, 5, 0, 0), (0xFFFF, 0xFFFF, -32768, 0xFFFF, 0xFFFF)]))

# ---- DLS banks (dls): built field by field (DLS Level 1 and 2): waves of 8- and 16-bit PCM with
# and without their own wsmp, instruments (melodic and drum) with key-split regions ('rgn ' and
# 'rgn2'), wsmp loops (forward and release), wave links through the pool table, and articulation
# lists ('lart'/'art1', 'lar2'/'art2') with connection blocks onto every destination ----
def dls_bank(waves=((16, 0), (8, 0)), regions=2, level2=False, loop_type=0, conns=(), region_conns=(), drum=False, key_group=0):
    def ck(cid, payload):
        return cid + struct.pack('<I', len(payload)) + payload + (b'\0' if len(payload) % 2 else b'')
    def lst(kind, chunks):
        return ck(b'LIST', kind + b''.join(chunks))
    def info(name):
        return lst(b'INFO', [ck(b'INAM', name.encode() + b'\0')])
    def wsmp(unity, loops):
        return ck(b'wsmp', struct.pack('<IHhiII', 20, unity, 3, -65536 * 10, 0, len(loops))
                  + b''.join(struct.pack('<IIII', 16, t, a, n) for t, a, n in loops))
    def art(blocks, l2):
        payload = struct.pack('<II', 8, len(blocks)) + b''.join(struct.pack('<HHHHi', *b) for b in blocks)
        return lst(b'lar2' if l2 else b'lart', [ck(b'art2' if l2 else b'art1', payload)])
    pool, offsets = b'', []
    for i, (bits, own_wsmp) in enumerate(waves):
        offsets.append(len(pool))
        period, n = 20 + 7 * i, 200 + 50 * i
        if bits == 8:
            data = bytes(128 + int(100 * math.sin(2 * math.pi * k / period)) for k in range(n))
        else:
            data = struct.pack('<%dh' % n, *[int(12000 * math.sin(2 * math.pi * k / period)) for k in range(n)])
        fmt = struct.pack('<HHIIHH', 1, 1, 22050 + 11025 * i, (22050 + 11025 * i) * bits // 8, bits // 8, bits)
        parts = [ck(b'fmt ', fmt)] + ([wsmp(60 + i, [(loop_type, 20, n - 40)])] if own_wsmp else []) + [ck(b'data', data), info('W%d' % i)]
        pool += lst(b'wave', parts)
    ptbl = ck(b'ptbl', struct.pack('<II', 8, len(offsets)) + b''.join(struct.pack('<I', o) for o in offsets))
    rgns = []
    for r in range(regions):
        lo, hi = r * 128 // regions, (r + 1) * 128 // regions - 1
        rgnh = struct.pack('<HHHHHH', lo, hi, 0, 127, 1 if r == 0 else 0, key_group) + (struct.pack('<H', r) if level2 else b'')
        parts = [ck(b'rgnh', rgnh)]
        if r % 2 == 0:
            parts.append(wsmp(60 + r, [(loop_type, 10, 100)]))
        parts.append(ck(b'wlnk', struct.pack('<HHII', 0, 0, 1, r % len(waves))))
        if region_conns:
            parts.append(art(region_conns, level2))
        rgns.append(lst(b'rgn2' if level2 else b'rgn ', parts))
    ins_parts = [ck(b'insh', struct.pack('<III', regions, 0x80000000 if drum else 0, 0)), lst(b'lrgn', rgns)]
    if conns:
        ins_parts.append(art(conns, level2))
    ins_parts.append(info('Seed'))
    body = (b'DLS ' + ck(b'colh', struct.pack('<I', 1)) + ck(b'vers', struct.pack('<II', 0x10000, 1))
            + lst(b'lins', [lst(b'ins ', ins_parts)]) + ptbl + lst(b'wvpl', [pool]) + info('Seed bank'))
    return b'RIFF' + struct.pack('<I', len(body)) + body

def tc(seconds):
    return int(round(1200 * math.log2(seconds) * 65536))
put('dls', 'gen-minimal.dls', dls_bank(waves=((16, 1),), regions=1))
put('dls', 'gen-split.dls', dls_bank(regions=4))
put('dls', 'gen-8bit.dls', dls_bank(waves=((8, 1),), regions=1))
put('dls', 'gen-drum.dls', dls_bank(drum=True, key_group=1))
put('dls', 'gen-level2-release-loop.dls', dls_bank(level2=True, loop_type=1))
put('dls', 'gen-eg1.dls', dls_bank(conns=[(0, 0, 0x206, 0, tc(0.05)), (0, 0, 0x207, 0, tc(0.8)), (0, 0, 0x20A, 0, 750 * 65536),
                                          (0, 0, 0x209, 0, tc(0.3)), (0, 0, 0x20B, 0, tc(0.01)), (0, 0, 0x20C, 0, tc(0.02))]))
put('dls', 'gen-modulation.dls', dls_bank(level2=True, conns=[
    (1, 0, 3, 0, 50 * 65536), (1, 0, 1, 0, -30 * 65536), (1, 0, 0x500, 0, 1200 * 65536), (0, 0, 0x104, 0, -800 * 65536),
    (0, 0, 0x105, 0, tc(0.2)), (9, 0, 3, 0, 20 * 65536), (0, 0, 0x114, 0, 100 * 65536), (5, 0, 3, 0, 1200 * 65536),
    (5, 0, 0x500, 0, -2400 * 65536), (0, 0, 0x30A, 0, tc(0.1)), (0, 0, 0x30E, 0, 500 * 65536), (0, 0, 0x500, 0, 9000 * 65536),
    (0, 0, 0x501, 0, 60 * 65536), (0, 0, 4, 0, -300 * 65536), (0, 0, 0x80, 0, 200 * 65536), (0, 0, 0x81, 0, 400 * 65536)]))
put('dls', 'gen-midi-sources.dls', dls_bank(conns=[
    (2, 0, 1, 0x0400, -480 * 65536), (2, 0, 0x206, 0, -1200 * 65536), (3, 0, 0x207, 0, -1280 * 65536), (3, 0, 3, 0, 6400 * 65536),
    (0x81, 0, 0x500, 0, -2400 * 65536), (0x4A, 0x81, 3, 0, 30 * 65536), (1, 0x81, 3, 0, 80 * 65536), (8, 0, 0x114, 0, 100 * 65536),
    (7, 0, 1, 0, -100 * 65536), (6, 0x100, 3, 0, 12700 * 65536)], region_conns=[(0, 0, 0x206, 0, -2147483648)]))
# ---- AUSampler presets (aupreset): property lists in AU Lab's layout, XML and binary. Zones name
# `tone.wav`, which the target writes next to the input; one names a SoundFont bank (missing:
# the error path), some carry hostile values ----
import plistlib
def aupreset(zones, refs=None, envelope=True, top=None, instrument=None):
    stages = [{'curve': 20, 'stage': 0, 'time': 0.0}, {'curve': 22, 'stage': 1, 'time': 0.01}, {'curve': 20, 'stage': 2, 'time': 0.0},
              {'curve': 20, 'stage': 3, 'time': 0.2}, {'stage': 4, 'level': 0.5}, {'curve': 20, 'stage': 5, 'time': 0.3},
              {'curve': 20, 'stage': 6, 'time': 0.005}]
    layer = {'ID': 0, 'Zones': zones, 'Amplifier': {'ID': 0, 'enabled': True}, 'Oscillator': {'ID': 0, 'enabled': True},
             'Connections': [{'ID': 5, 'control': 0, 'destination': 0x50100000, 'enabled': True, 'inverse': True, 'scale': -96.0,
                              'source': 0x20000000, 'transform': 1}],
             'Filters': {'ID': 0, 'cutoff': 20000.0, 'enabled': False, 'resonance': 0.0, 'type': 40},
             'LFOs': [{'ID': 0, 'enabled': True, 'rate': 3.0}]}
    if envelope:
        layer['Envelopes'] = [{'ID': 0, 'enabled': True, 'Stages': stages}]
    inst = {'name': 'Seed', 'Layers': [layer]}
    inst.update(instrument or {})
    p = {'AU version': 1.0, 'Instrument': inst, 'name': 'Seed', 'type': 1635085685, 'subtype': 1935764848, 'manufacturer': 1634758764,
         'version': 0, 'coarse tune': 0, 'fine tune': 0.0, 'gain': 0.0, 'pan': 0.0, 'voice count': 64, 'data': b'\0' * 8,
         'file-references': refs if refs is not None else {'Sample:268435457': '/stale/path/Sounds/tone.wav'}}
    p.update(top or {})
    return p
def azone(wid=268435457, lo=0, hi=127, root=69, **extra):
    z = {'ID': 1, 'enabled': True, 'waveform': wid, 'min key': lo, 'max key': hi, 'root key': root, 'loop enabled': False}
    z.update({k.replace('_', ' '): v for k, v in extra.items()})
    return z
presets = {
    'minimal': aupreset([azone()], refs={'Sample:268435457': 'tone.wav'}),
    'stale-absolute': aupreset([azone()]),
    'split-looped': aupreset([azone(lo=0, hi=63, root=60, loop_enabled=True, loop_start=1000, loop_end=4000),
                              azone(lo=64, hi=127, root=72, min_vel=1, max_vel=90, coarse_tune=-2, fine_tune=30.0, gain=-6.0, pan=-0.5),
                              azone(lo=64, hi=127, root=72, min_vel=91, max_vel=127, start=100, end=3000, loop_enabled=True)]),
    'global-keys': aupreset([azone(loop_enabled=True)], top={'gain': -12.0, 'coarse tune': 2, 'fine tune': -50.0, 'pan': 1.0}),
    'no-envelope': aupreset([azone(root=0)], envelope=False),
    'sf2-reference': aupreset([], refs={'Sample:1': '/missing/bank.sf2'}, instrument={'bank MSB': 121, 'bank LSB': 0, 'program': 3}),
    'extremes': aupreset([azone(loop_enabled=True, loop_start=0, loop_end=1, start=4410, end=0, coarse_tune=127, fine_tune=-1200.0,
                                gain=48.0, pan=1.0, root=127, lo=127, hi=127)]),
    'unknown-waveform': aupreset([azone(wid=7)]),
    'wrong-types': aupreset([azone(root='sixty', loop_enabled='yes')]),
}
for n, p in presets.items():
    put('aupreset', 'gen-%s.aupreset' % n, plistlib.dumps(p, fmt=plistlib.FMT_XML))
    put('aupreset', 'gen-%s-binary.aupreset' % n, plistlib.dumps(p, fmt=plistlib.FMT_BINARY))

# ---- property lists alone (plist): the presets above, every value type (plistlib writes UIDs and
# 16-byte integers), and the XML forms Foundation's writer never produces (entities, CDATA,
# comments, hex integers, nan/inf reals, unpadded base64 with whitespace) ----
import datetime
every = {'s': 'Grüße 🎹 <&>', 'i': [0, -1, 255, 65536, -2**63, 2**63 - 1, 2**64 - 1], 'r': [1.5, -0.0, 1e300, float('inf')],
         'b': [True, False], 'd': datetime.datetime(2024, 2, 29, 12, 30, 15), 'data': bytes(range(64)),
         'nested': {'x': [[1, 2], {}], 'y': []}}
for n, p in list(presets.items())[:3] + [('every', every)]:
    put('plist', 'gen-%s.plist' % n, plistlib.dumps(p, fmt=plistlib.FMT_XML))
    put('plist', 'gen-%s-binary.plist' % n, plistlib.dumps(p, fmt=plistlib.FMT_BINARY))
put('plist', 'gen-uid-binary.plist', plistlib.dumps({'u': plistlib.UID(300), 'v': [plistlib.UID(1)]}, fmt=plistlib.FMT_BINARY))
put('plist', 'gen-hand.plist', b'<?xml version="1.0"?><!DOCTYPE plist><plist><!-- c --><dict><key>a&amp;&#65;&#x1F3B9;</key>'
    b'<string>x<![CDATA[<y>]]></string><key>n</key><array><integer> -0x1F </integer><real>nan</real><real>-infinity</real>'
    b'<data> AAEC\n Aw </data><date>1900-01-01T00:00:00Z</date><true/><false></false><dict/><array/></array></dict></plist>')

# ---- settings and converter ----
rng = random.Random(7)
# settings: extension byte, then (key index, value type, value) entries (see SettingsTarget.swift).
def num_entry(key, value):        # type 0: Int from 8 big-endian bytes
    return bytes([key, 0]) + struct.pack('>q', value)
def dbl_entry(key, value):        # type 2: Double from its bit pattern
    return bytes([key, 2]) + struct.pack('>d', value)
def bool_entry(key, value):       # type 6: Bool
    return bytes([key, 6, 1 if value else 0])
def fourcc_entry(key, index):     # type 14: a four-character code from the table
    return bytes([key, 14, index])
for ext in range(7):
    for rate, ch, bits, is_float, comp in [(44100.0, 2, 16, False, 0), (48000.0, 1, 24, False, 0), (96000.0, 6, 32, True, 0),
                                           (8000.0, 1, 8, False, 1), (22050.0, 2, 64, True, 0), (44100.0, 2, 0, False, 3)]:
        s = bytes([ext]) + fourcc_entry(0, comp) + dbl_entry(1, rate) + num_entry(2, ch) + num_entry(3, bits) + bool_entry(4, is_float)
        if ext & 1:
            s += bool_entry(5, True) + bool_entry(6, ext & 2 == 2)
        put('settings', 'gen-%d-%d-%d-%d' % (ext, rate, ch, bits), s)
for i in range(20):
    put('settings', 'random-%02d' % i, bytes(rng.randrange(256) for _ in range(rng.randrange(8, 120))))
# converter: two formats (common, interleaved, rate u32, channels, layout byte), settings, frames, samples.
def conv_format(common, inter, rate_index, ch, layout=1):
    return bytes([common, inter]) + struct.pack('>I', rate_index) + bytes([ch - 1, layout])
for a, b in [((0, 0, 5, 2), (0, 0, 6, 2)), ((2, 1, 5, 2), (0, 0, 5, 2)), ((0, 0, 5, 6), (0, 0, 5, 2)),
             ((1, 1, 6, 1), (3, 1, 5, 2)), ((0, 0, 0, 1), (0, 0, 10, 1)), ((0, 0, 11, 2), (0, 0, 3, 2))]:
    for flags in (0, 1, 6, 8):
        s = conv_format(*a) + conv_format(*b) + bytes([3, 0, 1, flags]) + b'\0' * (a[3] if flags & 4 else 0)
        s += struct.pack('>HHH', 600, 512, 300) + bytes(rng.randrange(256) for _ in range(64))
        put('converter', 'gen-%d-%d-%d' % (a[2], b[2], flags), s)
for i in range(20):
    put('converter', 'random-%02d' % i, bytes(rng.randrange(256) for _ in range(rng.randrange(20, 120))))

# codecconv: codec (1 ALAC, 0 FLAC), channels-1, depth index (16/20/24/32), rate index, PCM common
# format index (Int32, Int16, Float32, Int32), interleaved, frames (u16), 64 sample bytes, packet
# capacity, mutation count and mutations (kind byte, then its arguments), then the decode:
# Float32 or Int32 output, packets per buffer, output capacity (u16). See CodecConverterTarget.swift.
def codec_seed(codec, ch, depth, rate, common, inter, frames, mutations=b'', nmut=0, out_float=1, group=2, cap=4096):
    s = bytes([codec, ch - 1, depth, rate, common, inter]) + struct.pack('>H', frames)
    s += bytes(rng.randrange(256) for _ in range(64))
    s += bytes([1, nmut]) + mutations + bytes([out_float, group - 1]) + struct.pack('>H', cap)
    return s
for codec in (1, 0):
    for ch, depth, rate, common, inter, frames in [(2, 0, 0, 1, 1, 5000), (1, 2, 1, 0, 0, 4096), (6, 2, 1, 0, 1, 8191),
                                                   (2, 3, 0, 3, 1, 300), (8, 1, 5, 0, 0, 1), (2, 0, 0, 2, 0, 4500)]:
        put('codecconv', 'clean-%s-%dch-d%d-f%d' % ('alac' if codec else 'flac', ch, depth, frames),
            codec_seed(codec, ch, depth, rate, common, inter, frames))
    # one seed per mutation kind: packet byte, cookie byte, raw cookie, start offset, size, frames, truncation
    kinds = [(0, struct.pack('>HHB', 0, 40, 0x5A)), (2, bytes([5, 0xFF])), (3, bytes([24]) + bytes(range(24))),
             (4, struct.pack('>HQ', 0, 0x7FFF_FFFF_FFFF_FFF0)), (5, struct.pack('>HBI', 1, 1, 0xFFFF_FFF0)),
             (6, struct.pack('>HBH', 0, 0, 100)), (7, struct.pack('>HHB', 0, 7, 1))]
    for kind, args in kinds:
        put('codecconv', 'mut%d-%s' % (kind, 'alac' if codec else 'flac'),
            codec_seed(codec, 2, 0, 0, 1, 1, 9000, bytes([kind]) + args, 1))
for i in range(10):
    put('codecconv', 'random-%02d' % i, bytes(rng.randrange(256) for _ in range(rng.randrange(20, 140))))

# ---- Standard MIDI Files (smf target): built byte by byte, and the Debian game music if installed ----
def vlq(v):
    out = [v & 0x7F]
    v >>= 7
    while v:
        out.insert(0, (v & 0x7F) | 0x80)
        v >>= 7
    return bytes(out)
def smf(fmt, division, tracks, ntracks=None):
    out = b'MThd' + struct.pack('>IHHH', 6, fmt, len(tracks) if ntracks is None else ntracks, division)
    for t in tracks:
        body = b''.join(vlq(d) + e for d, e in t) + b'\0\xff\x2f\0'
        out += b'MTrk' + struct.pack('>I', len(body)) + body
    return out
tempo = [(0, b'\xff\x51\x03\x07\xa1\x20'), (0, b'\xff\x58\x04\x04\x02\x18\x08'), (0, b'\xff\x59\x02\xfd\x00'),
         (0, b'\xff\x54\x05\x60\x00\x03\x00\x00'), (0, b'\xff\x02\x03(c)'), (384, b'\xff\x51\x03\x0f\x42\x40')]
notes = [(0, b'\xff\x03\x04Lead'), (0, b'\x90\x3c\x64'), (96, b'\x3e\x64'), (0, b'\xff\x06\x01A'), (16, b'\x3c\x00'),
         (16384, b'\x80\x3e\x40'), (0, b'\xf0\x05\x7e\x7f\x09\x01\xf7'), (0, b'\xf7\x02\xf3\x01'), (0, b'\xc1\x05'),
         (0, b'\xd1\x40'), (0, b'\xe1\x00\x40'), (0, b'\xa1\x3c\x10'), (0, b'\xb1\x07\x64'), (5, b'\xff\x7f\x03\x00\x00\x41')]
put('smf', 'gen-format1.mid', smf(1, 480, [tempo, notes]))
put('smf', 'gen-format0.mid', smf(0, 96, [tempo + notes]))
put('smf', 'gen-format2.mid', smf(2, 192, [notes, notes, tempo]))
put('smf', 'gen-smpte25.mid', smf(0, 0xE728, [tempo + notes]))
put('smf', 'gen-smpte2997.mid', smf(1, 0xE350, [tempo, notes]))
channels = smf(0, 96, [[(0, bytes([0x90 | c, 60 + c, 100])) for c in range(16)] + [(96, bytes([0x80 | c, 60 + c, 0])) for c in range(16)]])
put('smf', 'gen-channels.mid', channels)
put('smf', 'gen-channels-odd.mid', channels + b'\0' * (1 - len(channels) % 2 + 0 if len(channels) % 2 == 0 else 2))   # the other length parity: the other load option
put('smf', 'gen-unknown-chunk.mid', smf(1, 480, [tempo]) + b'XFIH\0\0\0\3abc' + smf(1, 480, [notes])[14:])
put('smf', 'gen-overlapping.mid', smf(0, 1, [[(0, b'\x90\x3c\x64')] * 200 + [(1, b'\x80\x3c\x00')] * 200]))
put('smf', 'gen-long-delta.mid', smf(0, 1, [[(0x0FFFFFFF, b'\x90\x3c\x64'), (0x0FFFFFFF, b'\x80\x3c\x00')]]))
put('smf', 'gen-too-many-tracks.mid', smf(1, 96, [notes], ntracks=5))
put('smf', 'gen-empty.mid', smf(1, 96, []))
for path in sorted(glob.glob('/usr/share/games/openttd/baseset/openmsx/*.mid') + glob.glob('/usr/share/games/dink/dink/Sound/*.mid'))[:20]:
    with open(path, 'rb') as f:
        put('smf', 'debian-' + os.path.basename(path), f.read())
for i in range(10):
    put('smf', 'random-%02d' % i, b'MThd\0\0\0\6' + bytes(rng.randrange(256) for _ in range(rng.randrange(6, 200))))

print(' '.join('%s:%d' % kv for kv in sorted(counts.items())))
