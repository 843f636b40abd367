// AVAudioUnitSampler.loadInstrument(at:) on the bytes as a SoundFont bank, then a few cycles of
// notes through the unit's own render block: the parser (chunk walk, pdta records, zone
// resolution, the region cap, the modulator records: their checks, links and the identity rule)
// and the voice engine on whatever zones the bank describes (loop points, tunings, envelope
// times, filter settings at their extremes, custom modulators at note-on and on controller changes).
//
// Checks beyond "no crash, no hang, no leak, no huge allocation": a load either succeeds or throws
// a readable AVFAudio error; rendering returns noErr and finite samples.
import AVFoundation

extension FuzzTarget {
    static let sf2 = FuzzTarget(name: "sf2", structure: .riff) { loadSoundBank($0, fileExtension: "sf2") }
}

/// Loads the bytes as a bank file (`fileExtension`: "sf2" or "dls"), then plays and renders it.
func loadSoundBank(_ bytes: [UInt8], fileExtension: String) {
    let url = scratchFile(bytes, fileExtension: fileExtension)
    let sampler = AVAudioUnitSampler()
    do {
        if bytes.count & 1 == 0 {
            try sampler.loadInstrument(at: url)
        } else {
            try sampler.loadSoundBankInstrument(at: url, program: bytes.count > 20 ? bytes[20] & 0x7F : 0,
                                                bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB), bankLSB: 0)
        }
    } catch {
        expectReadableError(error, "AVAudioUnitSampler.loadInstrument(at:)")
        return
    }
    // notes across the keyboard and velocities, a bend and a release, then render
    // (controllers, pressure and poly pressure after the notes: custom modulators re-evaluate on them)
    playAndRender(sampler, [[0x90, 60, 100], [0x90, 36, 127], [0x91, 84, 20], [0xE0, 0, 0x7F], [0xB0, 1, 127], [0x99, 42, 90],
                            [0xB0, 74, 3], [0xD0, 90], [0xA0, 60, 70]])
}

/// Renders six 512-frame cycles of `sampler` after scheduling `notes` (37 frames apart) and a
/// note-off of key 60 in the fourth cycle; every sample must be finite. Shared by the sf2, dls
/// and aupreset targets.
func playAndRender(_ sampler: AVAudioUnitSampler, _ notes: [[UInt8]]) {
    let unit = sampler.auAudioUnit
    unit.maximumFramesToRender = 512
    do { try unit.allocateRenderResources() } catch { fuzzFailure("allocateRenderResources: \(error)") }
    guard let schedule = unit.scheduleMIDIEventBlock else { fuzzFailure("the sampler takes no MIDI") }
    let format = unit.outputBusses[0].format
    let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
    buffer.frameLength = 512
    let render = unit.renderBlock
    var flags = AudioUnitRenderActionFlags(rawValue: 0)
    var stamp = AudioTimeStamp()
    stamp.mFlags = .sampleTimeValid
    for (i, n) in notes.enumerated() { n.withUnsafeBufferPointer { schedule(AUEventSampleTime(i * 37), 0, n.count, $0.baseAddress!) } }
    for cycle in 0..<6 {
        if cycle == 3 { [UInt8](arrayLiteral: 0x80, 60, 0).withUnsafeBufferPointer { schedule(AUEventSampleTime(cycle * 512 + 5), 0, 3, $0.baseAddress!) } }
        stamp.mSampleTime = Double(cycle * 512)
        let status = render(&flags, &stamp, 512, 0, buffer.mutableAudioBufferList, nil)
        guard status == noErr else { fuzzFailure("render returned \(status)") }
        for c in 0..<Int(format.channelCount) {
            let p = buffer.floatChannelData![c]
            for i in 0..<512 where !p[i].isFinite { fuzzFailure("non-finite sample \(p[i]) at cycle \(cycle) frame \(i)") }
        }
    }
    unit.deallocateRenderResources()
}
