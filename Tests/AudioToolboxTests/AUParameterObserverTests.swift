// AUParameterNode's observers and implementor hooks, AUParameterTree's factory and look-ups, as
// AUParameters.h and AUAudioUnitImplementation.h document them: observers hear changes of the
// parameter or of every parameter below a group except the originator's; implementor hooks set
// on a group reach every node below; render-side changes reach observers asynchronously.
// Anything that waits for another thread has a watchdog.
import AudioToolbox
import Foundation
import Testing

@Suite struct AUParameterObserverTests {
    static func makeParameter(_ identifier: String, address: AUParameterAddress, min: AUValue = 0, max: AUValue = 1,
                              valueStrings: [String]? = nil) -> AUParameter {
        AUParameterTree.createParameter(withIdentifier: identifier, name: identifier.capitalized, address: address,
                                        min: min, max: max, unit: valueStrings == nil ? .generic : .indexed, unitName: nil,
                                        flags: [.flag_IsReadable, .flag_IsWritable], valueStrings: valueStrings,
                                        dependentParameters: nil)
    }

    /// A tree with a group: lfo.rate (address 10), lfo.depth (11), and gain (0) at the top.
    static func makeTree() -> (tree: AUParameterTree, gain: AUParameter, rate: AUParameter, depth: AUParameter) {
        let gain = makeParameter("gain", address: 0)
        let rate = makeParameter("rate", address: 10, max: 20)
        let depth = makeParameter("depth", address: 11)
        let lfo = AUParameterTree.createGroup(withIdentifier: "lfo", name: "LFO", children: [rate, depth])
        return (AUParameterTree.createTree(withChildren: [gain, lfo]), gain, rate, depth)
    }

    @Test func keyPathsJoinIdentifiersBelowTheTree() throws {
        let (tree, gain, rate, _) = Self.makeTree()
        #expect(gain.keyPath == "gain")
        #expect(rate.keyPath == "lfo.rate")
        #expect(tree.value(forKeyPath: rate.keyPath) as? AUParameter === rate)
        #expect(tree.value(forKeyPath: "lfo.nothing") == nil)
        let lfo = try #require(tree.value(forKey: "lfo") as? AUParameterGroup)
        #expect(lfo.keyPath == "lfo")
        #expect(lfo.allParameters.map(\.address) == [10, 11])
        #expect(tree.allParameters.map(\.address) == [0, 10, 11])
    }

    @Test func observersHearEveryoneButTheOriginator() {
        let (tree, _, rate, _) = Self.makeTree()
        let heard = Locked<[String]>([])
        let onParameter = rate.token(byAddingParameterObserver: { address, value in heard.withLock { $0.append("param \(address) \(value)") } })
        let onTree = tree.token(byAddingParameterObserver: { address, value in heard.withLock { $0.append("tree \(address) \(value)") } })
        #expect(onParameter != onTree)

        rate.value = 4
        #expect(heard.withLock { $0 } == ["param 10 4.0", "tree 10 4.0"])

        // the UI that owns `onParameter` set it: only the tree's observer hears
        heard.withLock { $0 = [] }
        rate.setValue(5, originator: onParameter)
        #expect(heard.withLock { $0 } == ["tree 10 5.0"])

        // a tree observer's token suppresses that observer only (tokens are unique across nodes)
        heard.withLock { $0 = [] }
        rate.setValue(6, originator: onTree)
        #expect(heard.withLock { $0 } == ["param 10 6.0"])

        heard.withLock { $0 = [] }
        rate.removeParameterObserver(onParameter)
        tree.removeParameterObserver(onTree)
        rate.value = 7
        #expect(heard.withLock { $0 }.isEmpty)
        #expect(rate.value == 7)
    }

    @Test func recordingObserversGetTheGesturesHostTime() {
        let (tree, gain, _, _) = Self.makeTree()
        let recorded = Locked<[AURecordedParameterEvent]>([])
        let token = tree.token(byAddingParameterRecordingObserver: { n, events in
            recorded.withLock { $0.append(contentsOf: UnsafeBufferPointer(start: events, count: n)) }
        })
        gain.setValue(0.25, originator: nil, atHostTime: 123_456_789)
        tree.removeParameterObserver(token)
        let events = recorded.withLock { $0 }
        #expect(events.count == 1)
        #expect(events.first?.hostTime == 123_456_789)
        #expect(events.first?.address == 0)
        #expect(events.first?.value == 0.25)
    }

    @Test func implementorHooksSetOnAGroupReachItsParametersOnly() throws {
        let (tree, gain, rate, depth) = Self.makeTree()
        let lfo = try #require(tree.value(forKey: "lfo") as? AUParameterGroup)
        let told = Locked<[AUParameterAddress]>([])
        lfo.implementorValueObserver = { parameter, _ in told.withLock { $0.append(parameter.address) } }
        rate.value = 3
        depth.value = 0.5
        gain.value = 0.5
        #expect(told.withLock { $0 } == [10, 11])

        // a hook set on a parameter afterwards replaces the group's for that parameter
        depth.implementorValueObserver = { _, _ in told.withLock { $0.append(999) } }
        depth.value = 0.75
        #expect(told.withLock { $0 }.last == 999)
    }

    @Test func implementorValueObserverIsNotAnObserver() {
        // The unit's hook hears a host's change even when the host passes its own token as
        // originator; observers other than the originator hear it too.
        let (tree, gain, _, _) = Self.makeTree()
        let implementor = Locked<[AUValue]>([])
        tree.implementorValueObserver = { _, value in implementor.withLock { $0.append(value) } }
        let host = tree.token(byAddingParameterObserver: { _, _ in Issue.record("the originator heard its own change") })
        gain.setValue(0.125, originator: host)
        tree.removeParameterObserver(host)
        #expect(implementor.withLock { $0 } == [0.125])
    }

    @Test func defaultsWithoutHooks() {
        let mode = Self.makeParameter("mode", address: 5, max: 2, valueStrings: ["Low", "Mid", "High"])
        var one: AUValue = 1
        #expect(mode.string(fromValue: &one) == "Mid")
        mode.value = 2
        #expect(mode.string(fromValue: nil) == "High")
        #expect(mode.value(from: "Low") == 0)
        // strings name the values from minValue up
        let octave = AUParameterTree.createParameter(withIdentifier: "octave", name: "Octave", address: 6, min: -1, max: 1,
                                                     unit: .indexed, unitName: nil, valueStrings: ["Down", "Same", "Up"],
                                                     dependentParameters: nil)
        var up: AUValue = 1
        #expect(octave.string(fromValue: &up) == "Up")
        #expect(octave.value(from: "Down") == -1)
        let gain = Self.makeParameter("gain", address: 0)
        #expect(gain.value(from: "0.5") == 0.5)
        // "If value is nil, ... the current value": the implementation's, when it supplies values
        gain.implementorValueProvider = { _ in 0.375 }
        #expect(gain.string(fromValue: nil) == "0.375")
        // Apple: "The default implementation simply returns displayName."
        let long = AUParameterTree.createParameter(withIdentifier: "cutoff", name: "Cutoff Frequency", address: 1, min: 0, max: 1,
                                                   unit: .hertz, unitName: nil, valueStrings: nil, dependentParameters: nil)
        #expect(long.flags == [])
        #expect(long.displayName(withLength: 6) == "Cutoff Frequency")
        long.implementorDisplayNameWithLengthCallback = { node, length in String(node.displayName.prefix(length)) }
        #expect(long.displayName(withLength: 6) == "Cutoff")
        long.implementorValueFromStringCallback = { _, string in string == "max" ? 1 : 0 }
        #expect(long.value(from: "max") == 1)
    }

    @Test func groupsFromATemplateCopyItsParametersAtAnOffset() throws {
        let template = AUParameterTree.createGroupTemplate([
            Self.makeParameter("frequency", address: 0, max: 20_000),
            Self.makeParameter("level", address: 1),
        ])
        let osc1 = AUParameterTree.createGroup(fromTemplate: template, identifier: "osc1", name: "Oscillator 1", addressOffset: 100)
        let osc2 = AUParameterTree.createGroup(fromTemplate: template, identifier: "osc2", name: "Oscillator 2", addressOffset: 200)
        let tree = AUParameterTree.createTree(withChildren: [osc1, osc2])
        #expect(tree.allParameters.map(\.address) == [100, 101, 200, 201])
        #expect(tree.allParameters.map(\.keyPath) == ["osc1.frequency", "osc1.level", "osc2.frequency", "osc2.level"])
        #expect(osc2.displayName == "Oscillator 2")
        let f1 = try #require(tree.parameter(withAddress: 100))
        let f2 = try #require(tree.parameter(withAddress: 200))
        #expect(f1 !== f2)
        #expect(f1.maxValue == 20_000 && f2.unit == .generic)
        f1.value = 440
        #expect(f2.value == 0)
        #expect(template.allParameters.allSatisfy { $0.value == 0 })
    }

    @Test func v2LookUpIsGlobalScopeElementZero() {
        let (tree, gain, rate, _) = Self.makeTree()
        #expect(tree.parameter(withID: 0, scope: kAudioUnitScope_Global, element: 0) === gain)
        #expect(tree.parameter(withID: 10, scope: kAudioUnitScope_Global, element: 0) === rate)
        #expect(tree.parameter(withID: 10, scope: kAudioUnitScope_Input, element: 0) == nil)
        #expect(tree.parameter(withID: 10, scope: kAudioUnitScope_Global, element: 1) == nil)
        #expect(tree.parameter(withID: 42, scope: kAudioUnitScope_Global, element: 0) == nil)
    }

    /// The render side (a DSP applying automation) changes a value: `value` has it at once,
    /// observers hear it later on another thread, the implementor (whose change it is) does not.
    @Test func renderSideChangesReachObserversAsynchronously() async throws {
        let (tree, _, rate, _) = Self.makeTree()
        let implementorCalls = Locked(0)
        tree.implementorValueObserver = { _, _ in implementorCalls.withLock { $0 += 1 } }
        let heard = Locked<[(AUParameterAddress, AUValue, Bool)]>([])
        let token = tree.token(byAddingParameterObserver: { address, value in
            let onMain = Thread.isMainThread
            heard.withLock { $0.append((address, value, onMain)) }
        })
        let renderThreadDone = DispatchSemaphore(value: 0)
        let render = Thread {
            rate.noteRenderValue(12)
            rate.noteRenderValue(13)       // coalesced with the first: observers hear the latest value
            renderThreadDone.signal()
        }
        render.start()
        #expect(renderThreadDone.wait(timeout: .now() + 5) == .success)
        #expect(rate.value == 13)
        let deadline = Date().addingTimeInterval(5)
        while heard.withLock({ $0.isEmpty }) && Date() < deadline { try await Task.sleep(nanoseconds: 2_000_000) }
        try await Task.sleep(nanoseconds: 50_000_000)    // nothing else arrives
        tree.removeParameterObserver(token)
        let events = heard.withLock { $0 }
        #expect(events.count == 1)
        #expect(events.first?.0 == 10)
        #expect(events.first?.1 == 13)
        #expect(events.first?.2 == false)   // the notifier's thread, not the main thread
        #expect(implementorCalls.withLock { $0 } == 0)
    }

    /// AUParameters.h: removing an observer "will block until any callbacks currently in flight
    /// have completed" — so what the observer captured may be torn down right after.
    @Test func removingWaitsForACallInProgress() throws {
        let gain = Self.makeParameter("gain", address: 0)
        let entered = DispatchSemaphore(value: 0)
        let finished = Locked(false)
        let token = gain.token(byAddingParameterObserver: { _, _ in
            entered.signal()
            usleep(100_000)
            finished.withLock { $0 = true }
        })
        Thread { gain.value = 0.5 }.start()
        #expect(entered.wait(timeout: .now() + 5) == .success)
        gain.removeParameterObserver(token)
        #expect(finished.withLock { $0 })
        gain.value = 0.25     // removed: not called again (it would signal `entered`)
        #expect(entered.wait(timeout: .now() + 0.05) == .timedOut)
    }

    /// An observer that removes itself from inside its call does not deadlock (Apple's does).
    @Test func anObserverMayRemoveItself() {
        let gain = Self.makeParameter("gain", address: 0)
        let calls = Locked(0)
        let token = Locked<AUParameterObserverToken?>(nil)
        let finished = DispatchSemaphore(value: 0)
        token.withLock { $0 = gain.token(byAddingParameterObserver: { _, _ in
            calls.withLock { $0 += 1 }
            if let t = token.withLock({ $0 }) { gain.removeParameterObserver(t) }
        }) }
        Thread {
            gain.value = 0.5
            gain.value = 0.75
            finished.signal()
        }.start()
        #expect(finished.wait(timeout: .now() + 5) == .success)
        #expect(calls.withLock { $0 } == 1)
    }

    /// Observers added and removed while other threads set values: no crash, no deadlock, every
    /// value set is the value read back by its own thread's parameter.
    @Test func concurrentSettersAndObservers() async throws {
        let parameters = (0 ..< 4).map { Self.makeParameter("p\($0)", address: AUParameterAddress($0), max: 1000) }
        let tree = AUParameterTree.createTree(withChildren: parameters)
        let count = Locked(0)
        let done = DispatchGroup()
        for (i, p) in parameters.enumerated() {
            done.enter()
            Thread {
                for n in 0 ..< 500 {
                    p.setValue(AUValue(n), originator: nil)
                    if n % 50 == 0 {
                        let t = tree.token(byAddingParameterObserver: { _, _ in count.withLock { $0 += 1 } })
                        p.value = AUValue(n)
                        tree.removeParameterObserver(t)
                    }
                }
                #expect(p.value == 499, "thread \(i)")
                done.leave()
            }.start()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(count.withLock { $0 } >= 40)   // each thread's own observer heard its own set, at least
    }
}
