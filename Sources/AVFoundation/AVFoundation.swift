@_exported import AVFAudio
