// AVAudioConnectionPoint: a node and one of its buses, naming one end of a connection.

/// A node and a bus: one end of a connection.
open class AVAudioConnectionPoint: NSObject {
    /// The node (weak: a connection point does not keep a node alive).
    open private(set) weak var node: AVAudioNode?
    /// The bus on that node.
    public let bus: AVAudioNodeBus

    /// Creates a connection point for `node`'s bus `bus`.
    public init(node: AVAudioNode, bus: AVAudioNodeBus) {
        self.node = node
        self.bus = bus
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioConnectionPoint else { return false }
        return other.node === node && other.bus == bus
    }

    open override var hash: Int {
        var h = Hasher()
        h.combine(node.map(ObjectIdentifier.init))
        h.combine(bus)
        return h.finalize()
    }

    open override var description: String {
        "<AVAudioConnectionPoint: \(node.map { String(describing: type(of: $0)) } ?? "nil") bus \(bus)>"
    }
}
