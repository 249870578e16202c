@testable import AgoraishEngine
import AgoraishIO
import Glibc
import Synchronization
import AgoraishTesting
import Testing

private func tempLog(_ name: String) -> String {
    makeTemporaryDirectory("engine-\(name)") + "/engine.log"
}

/// Collects events; `release(sync: true)` makes the collection complete.
private final class EventLog: Sendable {
    let events = Locked<[EngineEvent]>([])
    let arrived: Latch
    init(expecting count: Int = 1) { arrived = Latch(count: count) }
    func record(_ e: EngineEvent) {
        events.withLock { $0.append(e) }
        arrived.open()
    }
    var all: [EngineEvent] { events.withLock { $0 } }
}

@Suite struct EngineTests {
    @Test func invalidAppIdsAreRejectedWithInvalidAppId() {
        for appId in ["", "has space", String(repeating: "a", count: 129), "tab\t"] {
            #expect(throws: AgoraError.invalidAppId) {
                _ = try RtcEngine(configuration: .init(appId: appId, logFile: tempLog("appid"))) { _ in }
            }
        }
    }

    @Test func badConfigurationFieldsAreInvalidArguments() {
        let cases: [EngineConfiguration] = [
            .init(appId: "app", serverURL: "http://x", logFile: tempLog("cfg")),
            .init(appId: "app", logFile: tempLog("cfg"), logFileSizeKB: 0),
            .init(appId: "app", logFile: tempLog("cfg"), logFileSizeKB: 20481),
            .init(appId: "app", logFile: tempLog("cfg"), logLevel: 3),
            .init(appId: "app", logFile: tempLog("cfg"), areaCode: 0x40),
        ]
        for configuration in cases {
            #expect(throws: AgoraError.invalidArgument) {
                _ = try RtcEngine(configuration: configuration) { _ in }
            }
        }
        #expect(throws: AgoraError.failed) {
            _ = try RtcEngine(configuration: .init(appId: "app", logFile: "/nonexistent/dir/x.log")) { _ in }
        }
    }

    @Test func setParametersAppliesEveryKeyOrNone() throws {
        let events = EventLog()
        let engine = try RtcEngine(configuration: .init(appId: "app", logFile: tempLog("params"))) { events.record($0) }
        try engine.setParameters(#"{"rtc.log_filter": 2063, "rtc.server_url": "wss://10.0.0.1:9000"}"#)
        #expect(try engine.parameter("rtc.log_filter") == "2063")
        #expect(try engine.parameter("rtc.server_url") == #""wss://10.0.0.1:9000""#)
        // One unknown key rejects the whole object: the valid key is not applied.
        #expect(throws: AgoraError.invalidArgument) {
            try engine.setParameters(#"{"rtc.log_filter": 12, "rtc.no_such_key": 1}"#)
        }
        #expect(try engine.parameter("rtc.log_filter") == "2063")
        for bad in ["", "[]", "42", "{", #"{"rtc.log_filter": "x"}"#, #"{"rtc.log_filter": 65536}"#,
                    #"{"rtc.log_size": 0}"#, #"{"rtc.server_url": "tcp://h"}"#, #"{"rtc.app_id": "x"}"#,
                    #"{"rtc.log_file": "/nonexistent/dir/x.log", "rtc.log_filter": 12}"#] {
            #expect(throws: AgoraError.invalidArgument, "accepted \(bad)") { try engine.setParameters(bad) }
        }
        #expect(try engine.parameter("rtc.log_filter") == "2063")
        #expect(throws: AgoraError.invalidArgument) { _ = try engine.parameter("rtc.nope") }
        #expect(events.arrived.wait())
        try engine.release(sync: true)
        #expect(events.all == [.apiCallExecuted(
            error: 0, api: "setParameters",
            result: #"{"rtc.log_filter":2063,"rtc.server_url":"wss://10.0.0.1:9000"}"#)])
    }

    @Test func wsToAHostThatIsNotLoopbackNeedsThePermission() throws {
        let engine = try RtcEngine(configuration: .init(appId: "app", logFile: tempLog("insecure"))) { _ in }
        defer { try? engine.release(sync: true) }
        // Refused whole, before or without rtc.allow_insecure_signaling.
        #expect(throws: AgoraError.refused) {
            try engine.setParameters(#"{"rtc.log_filter": 12, "rtc.server_url": "ws://10.0.0.1:9000"}"#)
        }
        #expect(throws: AgoraError.refused) {
            try engine.setParameters(#"{"rtc.server_url": "ws://127.example.test:9000"}"#)
        }
        #expect(try engine.parameter("rtc.log_filter") != "12")
        // Loopback needs nothing; the permission may come in the same call.
        for url in ["ws://127.0.0.1:9000", "ws://127.1.2.3:9000", "ws://localhost:9000", "ws://[::1]:9000"] {
            try engine.setParameters(#"{"rtc.server_url": "\#(url)"}"#)
        }
        try engine.setParameters(#"{"rtc.allow_insecure_signaling": true, "rtc.server_url": "ws://10.0.0.1:9000"}"#)
        #expect(try engine.parameter("rtc.server_url") == #""ws://10.0.0.1:9000""#)
        #expect(try engine.parameter("rtc.allow_insecure_signaling") == "true")
        // A join to it is refused once the permission is taken back.
        try engine.setParameters(#"{"rtc.allow_insecure_signaling": false}"#)
        #expect(throws: AgoraError.refused) { try engine.joinChannel(token: "", channel: "c", info: "", uid: 1) }
    }

    @Test func logLevelFilterAndSizeAreReadBack() throws {
        let path = tempLog("levels")
        let engine = try RtcEngine(configuration: .init(appId: "app", logFile: path, logFileSizeKB: 10)) { _ in }
        defer { try? engine.release(sync: true) }
        #expect(try engine.parameter("rtc.log_size") == "128")  // raised to the minimum
        try engine.setLogLevel(2)
        #expect(try engine.parameter("rtc.log_filter") == String(LogFilter.warn))
        #expect(try engine.parameter("rtc.log_level") == "2")
        try engine.setLogFilter(LogFilter.debug)
        #expect(try engine.parameter("rtc.log_level") == "null")
        #expect(throws: AgoraError.invalidArgument) { try engine.setLogFilter(0x10) }
        #expect(throws: AgoraError.invalidArgument) { try engine.setLogLevel(3) }
        #expect(throws: AgoraError.invalidArgument) { try engine.setLogFileSize(0) }
        try engine.setLogFileSize(4096)
        #expect(try engine.parameter("rtc.log_size") == "4096")
        #expect(readTextFile(path).contains("engine \(engine.serial) created"))
    }

    @Test func releaseIsIdempotentAndStopsEvents() throws {
        let events = EventLog()
        let engine = try RtcEngine(configuration: .init(appId: "app", logFile: tempLog("release"))) { events.record($0) }
        try engine.setLogFilter(LogFilter.info)
        #expect(events.arrived.wait())
        try engine.release(sync: true)
        try engine.release(sync: true)
        try engine.release(sync: false)
        #expect(engine.isReleased)
        // Events queued after release are never delivered.
        engine.emit(.apiCallExecuted(error: 0, api: "late", result: ""))
        #expect(events.all.count == 1)
    }

    @Test func releaseFromTheEventThreadIsRefused() throws {
        let outcome = Locked<AgoraError?>(nil)
        let box = Locked<RtcEngine?>(nil)
        let done = Latch()
        let engine = try RtcEngine(configuration: .init(appId: "app", logFile: tempLog("refuse"))) { _ in
            guard let me = box.withLock({ $0 }) else { return }
            do { try me.release(sync: true) } catch { outcome.withLock { $0 = error as? AgoraError } }
            done.open()
        }
        box.withLock { $0 = engine }
        try engine.setLogFilter(LogFilter.info)
        #expect(done.wait())
        box.withLock { $0 = nil }
        #expect(!engine.isReleased)
        try engine.release(sync: true)
        #expect(outcome.withLock { $0 } == .refused)
    }

    @Test func serverURLDefaultsComeFromTheEnvironment() {
        // The configuration wins over the environment, which wins over the default.
        let env: [String: String] = ["AGORAISH_SERVER": "ws://192.0.2.1:1234"]
        let explicit = EngineConfiguration(appId: "a", serverURL: "wss://example.org:443")
        #expect(explicit.resolvedServerURL { env[$0] } == "wss://example.org:443")
        #expect(EngineConfiguration(appId: "a").resolvedServerURL { env[$0] } == "ws://192.0.2.1:1234")
        #expect(EngineConfiguration(appId: "a").resolvedServerURL { _ in nil } == "ws://127.0.0.1:7450")
    }

    @Test func defaultLogPathsDifferPerEngineAndProcessAndFollowTheEnvironment() {
        let dirs: [String: String] = ["AGORAISH_LOG_DIR": "/tmp/agoraish-logs", "HOME": "/home/u"]
        #expect(defaultLogPath(engineSerial: 1, env: { dirs[$0] }, pid: 42) == "/tmp/agoraish-logs/agoraish-42-1.log")
        #expect(defaultLogPath(engineSerial: 3, env: { dirs[$0] }, pid: 42) == "/tmp/agoraish-logs/agoraish-42-3.log")
        #expect(defaultLogPath(engineSerial: 1, env: { dirs[$0] }, pid: 43) == "/tmp/agoraish-logs/agoraish-43-1.log")
        #expect(defaultLogPath(engineSerial: 1, env: { $0 == "HOME" ? "/home/u" : nil }, pid: 7)
                == "/home/u/.local/state/agoraish/agoraish-7-1.log")
        #expect(defaultLogPath(engineSerial: 1, env: { $0 == "XDG_STATE_HOME" ? "/s" : nil }, pid: 7)
                == "/s/agoraish/agoraish-7-1.log")
        #expect(defaultLogPath(engineSerial: 1, env: { _ in nil }, pid: 7) == "/tmp/agoraish/agoraish-7-1.log")
    }

    @Test func defaultLogsOfEndedProcessesAreBounded() throws {
        var template = Array("/tmp/agoraish-prune-XXXXXX".utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, let p = mkdtemp(base) else { return nil }
            return String(cString: p)
        }
        let dir = try #require(made)
        defer {
            if let d = opendir(dir) {
                while let e = readdir(d) {
                    let n = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                    if n != "." && n != ".." { unlink(dir + "/" + n) }
                }
                closedir(d)
            }
            rmdir(dir)
        }
        func touch(_ name: String, age: Int) {
            let path = dir + "/" + name
            let fd = open(path, O_CREAT | O_WRONLY, 0o644)
            close(fd)
            var times = [timespec(tv_sec: time(nil) - age, tv_nsec: 0), timespec(tv_sec: time(nil) - age, tv_nsec: 0)]
            utimensat(AT_FDCWD, path, &times, 0)
        }
        // Ten ended engines (pids 100...109, the older the smaller), one with rotations;
        // a running process's old log; files that are not default logs.
        for i in 0..<10 { touch("agoraish-\(100 + i)-1.log", age: 1000 - i) }
        touch("agoraish-100-1_1.log", age: 2000)
        touch("agoraish-500-1.log", age: 5000)
        touch("notes.txt", age: 9000)
        touch("agoraish-host.log", age: 9000)
        let removed = pruneDefaultLogs(in: dir, keep: 4) { $0 == 500 }
        #expect(removed == 7)  // six sets, one of them with a rotation
        var left: [String] = []
        if let d = opendir(dir) {
            while let e = readdir(d) {
                let n = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if n != "." && n != ".." { left.append(n) }
            }
            closedir(d)
        }
        #expect(Set(left) == ["agoraish-106-1.log", "agoraish-107-1.log", "agoraish-108-1.log", "agoraish-109-1.log",
                              "agoraish-500-1.log", "notes.txt", "agoraish-host.log"])
    }

    @Test func everyErrorHasADescription() {
        for error in AgoraError.allCases {
            #expect(AgoraError.describe(error.returnCode) == error.text)
            #expect(AgoraError.describe(error.rawValue) == error.text)
        }
        #expect(AgoraError.describe(0) == "no error")
        #expect(AgoraError.describe(-99999) == "unknown error")
        #expect(AgoraError.describe(Int32.min) == "unknown error")
    }
}
