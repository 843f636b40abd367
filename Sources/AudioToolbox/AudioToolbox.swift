// OpenAVFAudio's AudioToolbox: the AudioToolbox declarations that AVFAudio's API names and that
// clients such as AudioKit use with `import AudioToolbox` — component descriptions, parameter
// units and options, the built-in units' parameter IDs, and the v3 parameter objects
// (AUParameterNode, AUParameter, AUParameterGroup, AUParameterTree).
//
// As on Apple platforms, `import AudioToolbox` also gives the Core Audio types (AudioToolbox's
// headers include CoreAudioTypes.h) and Foundation (its Objective-C headers import Foundation, and
// Apple's framework modules re-export what they import). AVFAudio re-exports this module, so
// `import AVFoundation` sees the same names.
@_exported import Foundation
@_exported import CoreAudioTypes
