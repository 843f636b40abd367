// Ogg Vorbis files through AVAudioFile(forReading:): the Ogg demuxer, the Vorbis mapping
// (header packets, granule positions) and the Vorbis decoder (AudioCodecs/Vorbis: codebooks,
// floors, residues, coupling, IMDCT), with the checks every file target makes
// (AudioFileTargets.swift): an NSError with a sentence or a readable file, a length the bytes
// justify, reads that deliver exactly `length` frames, seeks.
//
// Frames per byte: a Vorbis packet outputs at most half a long block (4,096 frames) and takes
// at least two bytes in an Ogg page (its data byte and its lacing value), so 4,096 per byte is
// a safe bound. Reads stop after a million frames; a torn page may make a read throw.
import AVFoundation

extension FuzzTarget {
    static let vorbis = FuzzTarget(name: "vorbis", structure: nil) {
        readAudioFile($0, fileExtension: "ogg", framesPerByte: 4_096, readLimit: 1 << 20, damagedFramesThrow: true)
    }
}
