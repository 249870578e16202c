import AgoraishEngine
import CAgoraishABI
import CAgoraishShim
import Synchronization

// The engine functions of include/agoraish.h: validate, convert, call, map.

/// Delivers engine events to a C event handler table.
struct CEventHandler: @unchecked Sendable {
    let table: agoraish_event_handler
    let handle: HandleSlot

    func deliver(_ event: EngineEvent) {
        let engine = OpaquePointer(bitPattern: UInt(handle.value.load(ordering: .acquiring)))
        switch event {
        case .apiCallExecuted(let error, let api, let result):
            guard let callback = table.on_api_call_executed else { return }
            api.withCString { a in
                result.withCString { r in callback(engine, table.user_data, error, a, r) }
            }
        case .channel(let e):
            deliverChannel(e, engine)
        case .audio(let e):
            deliverAudio(e, engine)
        case .video(let e):
            deliverVideo(e, engine)
        case .data(let e):
            deliverData(e, engine)
        case .media(.audioMixingStateChanged(let state, let reason)):
            table.on_audio_mixing_state_changed?(engine, table.user_data, state, reason)
        case .media(.audioEffectFinished(let soundId)):
            table.on_audio_effect_finished?(engine, table.user_data, soundId)
        case .network(.lastmileQuality(let q)):
            table.on_lastmile_quality?(engine, table.user_data, q)
        case .network(.lastmileProbeResult(let r)):
            guard let cb = table.on_lastmile_probe_result else { return }
            var out = agoraish_lastmile_probe_result()
            out.struct_size = UInt32(MemoryLayout<agoraish_lastmile_probe_result>.size)
            out.state = r.state
            func oneWay(_ o: LastmileProbeOneWayResult) -> agoraish_lastmile_probe_one_way_result {
                agoraish_lastmile_probe_one_way_result(packet_loss_rate: UInt32(max(0, o.packetLossRate)),
                                                       jitter: UInt32(max(0, o.jitter)),
                                                       available_bandwidth: UInt32(max(0, o.availableBandwidth)))
            }
            out.uplink_report = oneWay(r.uplinkReport)
            out.downlink_report = oneWay(r.downlinkReport)
            out.rtt = UInt32(max(0, r.rtt))
            cb(engine, table.user_data, &out)
        }
    }
}

/// The handle of an engine, known only after the engine is in the table.
final class HandleSlot: Sendable {
    let value = Atomic<UInt64>(0)
}

func engineHandle(_ p: OpaquePointer?) -> UInt64 {
    UInt64(UInt(bitPattern: p))
}

/// Runs `body` with the engine behind `p`, mapping handle and engine errors to C codes.
func withEngine(_ p: OpaquePointer?, function: String = #function,
                _ body: (RtcEngine) throws(AgoraError) -> Void) -> Int32 {
    ErrorDetail.clear()
    switch handles.lookup(engineHandle(p), as: .engine, RtcEngine.self) {
    case .failure(let error):
        explain(function, error.detail("engine"))
        return error.code
    case .success(let engine):
        do {
            try body(engine)
            return 0
        } catch {
            explain(function, ErrorDetail.current)
            return error.returnCode
        }
    }
}

@_cdecl("agoraish_engine_create")
public func abi_engine_create(_ config: UnsafePointer<agoraish_engine_config>?) -> OpaquePointer? {
    agsh_set_last_error(0)
    ErrorDetail.clear()
    func fail(_ code: Int32, _ why: String? = nil) -> OpaquePointer? {
        if let why { ErrorDetail.set(why) }
        explain("agoraish_engine_create", ErrorDetail.current)
        agsh_set_last_error(code)
        return nil
    }
    guard let c = readVersioned(config, knownSizes: StructSizes.engineConfig) else {
        return fail(-2)
    }
    guard let appId = readCString(c.app_id) else { return fail(-101, "app_id is NULL or not UTF-8") }
    var table = agoraish_event_handler()
    if let handler = c.event_handler {
        // ABI 0.1 hosts pass the smaller table; the callbacks added since read as NULL.
        guard let h = readVersioned(handler, knownSizes: StructSizes.eventHandler) else {
            return fail(-2)
        }
        table = h
    }
    var serverURL: String? = nil
    if let p = c.server_url {
        guard let s = readCString(p) else { return fail(-2, "server_url is not UTF-8") }
        serverURL = s.isEmpty ? nil : s
    }
    var logFile: String? = nil
    if let p = c.log_file {
        guard let s = readCString(p) else { return fail(-2, "log_file is not UTF-8") }
        logFile = s.isEmpty ? nil : s
    }
    let configuration = EngineConfiguration(
        appId: appId,
        serverURL: serverURL,
        logFile: logFile,
        logFileSizeKB: c.log_file_size_kb == 0 ? -1 : Int(c.log_file_size_kb),
        logLevel: c.log_level == 0 ? 1 : c.log_level,
        areaCode: c.area_code == 0 ? EngineConfiguration.areaGlobal : c.area_code
    )
    let slot = HandleSlot()
    let sink = CEventHandler(table: table, handle: slot)
    let engine: RtcEngine
    do {
        engine = try RtcEngine(configuration: configuration) { sink.deliver($0) }
    } catch {
        return fail(error.returnCode)
    }
    let handle = handles.insert(engine, kind: .engine)
    slot.value.store(handle, ordering: .releasing)
    return OpaquePointer(bitPattern: UInt(handle))
}

@_cdecl("agoraish_engine_release")
public func abi_engine_release(_ p: OpaquePointer?, _ sync: Int32) -> Int32 {
    let handle = engineHandle(p)
    switch handles.lookup(handle, as: .engine, RtcEngine.self) {
    case .failure(.stale):
        return 0  // already released: release is idempotent
    case .failure(let error):
        return error.code
    case .success(let engine):
        if engine.isOnEventThread || engine.isInAudioCallback || engine.isInOwnRenderSink {
            return AgoraError.refused.returnCode
        }
        guard case .success = handles.remove(handle, as: .engine, RtcEngine.self) else {
            return 0  // another thread released it first
        }
        do {
            try engine.release(sync: sync != 0)
        } catch {
            return error.returnCode
        }
        return 0
    }
}

@_cdecl("agoraish_engine_set_parameters")
public func abi_engine_set_parameters(_ p: OpaquePointer?, _ json: UnsafePointer<CChar>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let text = readCString(json) else { throw .invalidArgument }
        try engine.setParameters(text)
    }
}

@_cdecl("agoraish_engine_get_parameter")
public func abi_engine_get_parameter(_ p: OpaquePointer?, _ key: UnsafePointer<CChar>?,
                              _ buf: UnsafeMutablePointer<CChar>?, _ len: UnsafeMutablePointer<Int>?) -> Int32 {
    var code: Int32 = 0
    let rc = withEngine(p) { engine throws(AgoraError) in
        guard let name = readCString(key), let len else { throw .invalidArgument }
        code = writeCString(try engine.parameter(name), buf, len)
    }
    return rc != 0 ? rc : code
}

@_cdecl("agoraish_engine_set_log_file")
public func abi_engine_set_log_file(_ p: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let s = readCString(path) else { throw .invalidArgument }
        try engine.setLogFile(s)
    }
}

@_cdecl("agoraish_engine_set_log_filter")
public func abi_engine_set_log_filter(_ p: OpaquePointer?, _ filter: UInt32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setLogFilter(filter) }
}

@_cdecl("agoraish_engine_set_log_level")
public func abi_engine_set_log_level(_ p: OpaquePointer?, _ level: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in try engine.setLogLevel(level) }
}

@_cdecl("agoraish_engine_set_log_file_size")
public func abi_engine_set_log_file_size(_ p: OpaquePointer?, _ sizeKB: UInt32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard sizeKB <= UInt32(Int32.max) else { throw .invalidArgument }
        try engine.setLogFileSize(Int(sizeKB))
    }
}
