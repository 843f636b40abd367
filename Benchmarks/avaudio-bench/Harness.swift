// The timing harness shared by every suite: monotonic wall clock, process CPU clock, warm-up +
// N timed runs + median, a tiny argument parser, and text / JSON output.
//
// No benchmark framework: each suite calls `measure` with a closure doing one complete run of
// the workload and reports times-realtime (audio seconds / median wall seconds).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// MARK: clocks

enum Clock {
    @inline(__always)
    static func read(_ id: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }

    /// Seconds on CLOCK_MONOTONIC.
    static func wall() -> Double { read(CLOCK_MONOTONIC) }
    /// CPU seconds of this process (all threads).
    static func cpu() -> Double { read(CLOCK_PROCESS_CPUTIME_ID) }
}

/// Wall and CPU seconds of one run.
struct Sample {
    var wall: Double
    var cpu: Double
}

/// Times `body` once.
@inline(never)
func timeOnce(_ body: () throws -> Void) rethrows -> Sample {
    let c0 = Clock.cpu(), t0 = Clock.wall()
    try body()
    let t1 = Clock.wall(), c1 = Clock.cpu()
    return Sample(wall: t1 - t0, cpu: c1 - c0)
}

/// Runs `body` `warmup` times untimed, then `runs` times timed.
func measure(warmup: Int, runs: Int, _ body: () throws -> Void) rethrows -> [Sample] {
    for _ in 0 ..< warmup { try body() }
    var samples: [Sample] = []
    for _ in 0 ..< max(1, runs) { samples.append(try timeOnce(body)) }
    return samples
}

func median(_ values: [Double]) -> Double {
    precondition(!values.isEmpty, "median of no values")
    let s = values.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

// MARK: results

/// One row of a suite's report.
struct BenchResult {
    var suite: String
    var workload: String
    /// Seconds of audio the workload processes (for times-realtime).
    var audioSeconds: Double
    var samples: [Sample]
    /// Extra numbers (file size, quality checks, ...), printed in order.
    var metrics: [(String, JSONValue)] = []

    var medianWall: Double { median(samples.map(\.wall)) }
    var medianCPU: Double { median(samples.map(\.cpu)) }
    var timesRealtime: Double { audioSeconds / medianWall }
}

/// Just enough JSON for the reports (no Foundation in the hot paths, stable key order).
indirect enum JSONValue {
    case number(Double)
    case int(Int)
    case string(String)
    case bool(Bool)
    case array([JSONValue])
    case object([(String, JSONValue)])

    var text: String {
        switch self {
        case .number(let x): return x.isFinite ? formatNumber(x) : "null"
        case .int(let i): return String(i)
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return jsonQuote(s)
        case .array(let a): return "[" + a.map(\.text).joined(separator: ", ") + "]"
        case .object(let o): return "{" + o.map { jsonQuote($0.0) + ": " + $0.1.text }.joined(separator: ", ") + "}"
        }
    }
}

func formatNumber(_ x: Double) -> String {
    if x == x.rounded() && abs(x) < 1e15 { return String(Int(x)) }
    return String(x)
}

func jsonQuote(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        default:
            if u.value < 0x20 {
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out + "\""
}

extension BenchResult {
    var json: JSONValue {
        .object([
            ("suite", .string(suite)),
            ("workload", .string(workload)),
            ("audio_s", .number(audioSeconds)),
            ("runs_s", .array(samples.map { .number(round6($0.wall)) })),
            ("cpu_s", .array(samples.map { .number(round6($0.cpu)) })),
            ("median_s", .number(round6(medianWall))),
            ("cpu_median_s", .number(round6(medianCPU))),
            ("x_realtime", .number((timesRealtime * 10).rounded() / 10)),
            ("metrics", .object(metrics)),
        ])
    }
}

func round6(_ x: Double) -> Double { (x * 1e6).rounded() / 1e6 }

/// Prints results as a fixed-width table, or one JSON object per line with `--json`.
func report(_ results: [BenchResult], json: Bool) {
    if json {
        for r in results { print(r.json.text) }
        return
    }
    func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
    func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
    print(pad("workload", 50) + lpad("median s", 10) + lpad("x realtime", 12) + lpad("cpu s", 9) + "  checks")
    for r in results {
        let m = r.metrics.map { "\($0.0)=\($0.1.text)" }.joined(separator: ", ")
        print(pad(r.workload, 50) + lpad(fixed(r.medianWall, 4), 10) + lpad(fixed(r.timesRealtime, 1), 12)
              + lpad(fixed(r.medianCPU, 3), 9) + "  " + m)
    }
}

/// `x` with `digits` decimals (no Foundation String(format:)).
func fixed(_ x: Double, _ digits: Int) -> String {
    guard x.isFinite else { return "nan" }
    var scale = 1.0
    for _ in 0 ..< digits { scale *= 10 }
    let v = (abs(x) * scale).rounded()
    let whole = Int(v / scale)
    var frac = String(Int(v - Double(whole) * scale))
    while frac.count < digits { frac = "0" + frac }
    return (x < 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + frac : "")
}

// MARK: arguments

/// `--name value` options, `--flag` switches and positional words.
struct Arguments {
    private(set) var positional: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// Option names that take a value (everything else starting with `--` is a flag).
    static let valued: Set<String> = ["--seconds", "--runs", "--warmup", "--dir", "--input", "--only", "--rate"]

    init(_ args: [String]) throws {
        var i = 0
        while i < args.count {
            let a = args[i]
            if a.hasPrefix("--") {
                if let eq = a.firstIndex(of: "=") {
                    options[String(a[..<eq]), default: []].append(String(a[a.index(after: eq)...]))
                } else if Arguments.valued.contains(a) {
                    guard i + 1 < args.count else { throw BenchError("option \(a) needs a value") }
                    options[a, default: []].append(args[i + 1])
                    i += 1
                } else {
                    flags.insert(a)
                }
            } else {
                positional.append(a)
            }
            i += 1
        }
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func values(_ name: String) -> [String] { options[name] ?? [] }
    func string(_ name: String) -> String? { options[name]?.last }

    func int(_ name: String, default value: Int) throws -> Int {
        guard let s = string(name) else { return value }
        guard let v = Int(s), v >= 0 else { throw BenchError("\(name) expects a non-negative integer, got '\(s)'") }
        return v
    }

    func double(_ name: String, default value: Double) throws -> Double {
        guard let s = string(name) else { return value }
        guard let v = Double(s), v > 0 else { throw BenchError("\(name) expects a positive number, got '\(s)'") }
        return v
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// Common settings of a suite run.
struct SuiteOptions {
    var seconds: Double
    var runs: Int
    var warmup: Int
    var json: Bool
    var dir: String

    init(_ args: Arguments) throws {
        seconds = try args.double("--seconds", default: 600)
        runs = max(1, try args.int("--runs", default: 3))
        warmup = try args.int("--warmup", default: 1)
        json = args.flag("--json")
        dir = args.string("--dir") ?? "/tmp/avaudio-bench"
    }
}

/// Messages that must not mix with `--json` output go to standard error.
func note(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { _ = fwrite($0.baseAddress, 1, $0.count, stderr) }
}
