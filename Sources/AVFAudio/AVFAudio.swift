// OpenAVFAudio: the public API façade. `import AVFAudio` gives, as on Apple platforms,
// Foundation and the Core Audio and AudioToolbox types the API names.
@_exported import Foundation
@_exported import CoreAudioTypes
@_exported import AudioToolbox
