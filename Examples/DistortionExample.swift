// AVAudioUnitDistortion: a 1 kHz sine through three factory presets. Each adds harmonics (total
// harmonic distortion well above the clean tone's), each sounds different, and rendering twice
// gives the same samples.
import AVFoundation

enum DistortionExample {
    static func run() throws -> [Check] {
        let input = Support.tone(1000, seconds: 1, amplitude: 0.5)
        var checks: [Check] = []
        var spectra: [[Double]] = []
        for preset in [AVAudioUnitDistortionPreset.multiDistortedCubed, .multiBrokenSpeaker, .drumsLoFi] {
            func render() throws -> AVAudioPCMBuffer {
                let unit = AVAudioUnitDistortion()
                return try Support.process(input, through: unit, seconds: 1) { unit.loadFactoryPreset(preset) }
            }
            let output = try render(), again = try render()
            try Support.save(output, "distortion-\(preset.rawValue)")
            let window = 12_000..<36_000
            let harmonics = (1...8).map { Support.amplitude(output, 0, 1000 * Double($0), window) }
            spectra.append(harmonics)
            let thd = Support.dB((harmonics.dropFirst().map { $0 * $0 }.reduce(0, +)).squareRoot() / max(harmonics[0], 1e-12))
            let same = (0..<Int(output.frameLength)).allSatisfy { output.floatChannelData![0][$0] == again.floatChannelData![0][$0] }
            checks.append(Check("preset \(preset.rawValue): harmonics 2–8 at \(Support.fmt(thd, 1)) dB re the fundamental", thd > -40))
            checks.append(Check("preset \(preset.rawValue): deterministic", same))
        }
        let distinct = spectra.indices.allSatisfy { a in
            spectra.indices.allSatisfy { b in a == b || zip(spectra[a], spectra[b]).contains { abs(Support.dB($0) - Support.dB($1)) > 3 } }
        }
        checks.append(Check("the three presets' harmonic spectra differ (by > 3 dB somewhere)", distinct))
        return checks
    }
}
