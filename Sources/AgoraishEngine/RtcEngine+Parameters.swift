import AgoraishIO
import AgoraishWire

/// Private parameters (Agora's setParameters): a closed set of keys, each
/// with a type, a range, and whether it can be written.
extension RtcEngine {
    /// The largest JSON text `setParameters` accepts, in bytes.
    public static let maxParametersLength = 65536

    /// Keys `setParameters` accepts, with their meaning. `parameter(_:)` reads these and `readOnlyParameterKeys`.
    public static let writableParameterKeys: [String] = [
        "rtc.log_file", "rtc.log_filter", "rtc.log_level", "rtc.log_size", "rtc.server_url", "rtc.tls_ca_file",
        "rtc.network_simulation", "rtc.network_simulation_send", "rtc.audio_loss_recovery",
        "rtc.allow_insecure_signaling", "che.audio.aec.enable", "che.audio.ans.enable", "che.audio.agc.enable",
    ]
    /// Keys that can be read but not written.
    public static let readOnlyParameterKeys: [String] = ["rtc.app_id", "rtc.area_code", "rtc.bandwidth_estimate"]

    /// One validated change, ready to apply.
    private enum Change {
        case logFile(String)
        case logFilter(UInt32)
        case logSize(Int)
        case serverURL(String)
        case caFile(String)
        case networkSimulation(NetworkSimulation.Settings?)
        case sendSimulation(NetworkSimulation.Settings?)
        case audioLossRecovery(Bool)
        case allowInsecureSignaling(Bool)
        /// "che.audio.aec.enable" (1), "che.audio.ans.enable" (2), "che.audio.agc.enable" (3): nil follows the scenario.
        case processingStep(Int, Bool?)
    }

    /// Applies a JSON object of parameters. Every key is validated before any is
    /// applied; a failure applies nothing.
    ///
    /// - Throws: `.invalidArgument` for text that is not a JSON object, an
    ///   unknown or read-only key, or a value of the wrong type or range;
    ///   `.refused` for a ws:// "rtc.server_url" whose host is not loopback
    ///   while "rtc.allow_insecure_signaling" is off.
    public func setParameters(_ json: String) throws(AgoraError) {
        ErrorDetail.clear()
        guard json.utf8.count <= Self.maxParametersLength else {
            ErrorDetail.set("parameters of \(json.utf8.count) bytes; at most \(Self.maxParametersLength)")
            throw .invalidArgument
        }
        guard case .object(let members)? = try? JSONValue.parse(json) else {
            ErrorDetail.set("parameters are not a JSON object")
            throw .invalidArgument
        }
        var changes: [Change] = []
        for key in members.keys.sorted() {
            do {
                changes.append(try Self.validate(key: key, value: members[key]!))
            } catch {
                // validate names an unknown key itself; anything else is the value.
                if ErrorDetail.current.isEmpty {
                    ErrorDetail.set("parameter \"\(key)\": \(members[key]!.serialized.prefix(64)) is not a valid value")
                }
                throw error
            }
        }
        // A new server URL is used by reconnects too: ws:// to a host other
        // than loopback needs rtc.allow_insecure_signaling, on already or in this call.
        for case .serverURL(let url) in changes {
            var allowed = state.withLock { $0.allowInsecureSignaling }
            for case .allowInsecureSignaling(let on) in changes { allowed = on }
            if let parsed = ServerURL(url), !parsed.secure, !parsed.isLoopback, !allowed {
                log.log(.error, "rtc.server_url ws://\(parsed.host) refused: it is not loopback; use wss://, "
                        + "or set rtc.allow_insecure_signaling to true")
                throw .refused
            }
        }
        // The log file is the only change that can fail (open); do it first so
        // that a failure leaves everything as it was.
        for case .logFile(let path) in changes {
            try applyLogFile(path)
        }
        for change in changes {
            switch change {
            case .logFile: break
            case .logFilter(let filter): log.filter = filter
            case .logSize(let kb): log.rotationSize = kb * 1024
            case .serverURL(let url): serverURL = url
            case .caFile(let path):
                state.withLock { $0.caFile = path }
                link.setCAFile(path.isEmpty ? nil : path)
            case .networkSimulation(let settings):
                link.simulation.withLock { sim in
                    if let settings, sim != nil { sim!.settings = settings } else { sim = settings.map { NetworkSimulation(settings: $0) } }
                }
            case .sendSimulation(let settings):
                // A change of settings keeps the link's queue and random state (a cap that changes mid-call).
                link.sendSimulation.withLock { sim in
                    if let settings, sim != nil { sim!.settings = settings } else { sim = settings.map { NetworkSimulation(settings: $0) } }
                }
            case .audioLossRecovery(let on):
                audio.settings.withLock {
                    $0.lossRecovery = on
                    $0.sendGeneration += 1
                }
            case .allowInsecureSignaling(let on):
                state.withLock { $0.allowInsecureSignaling = on }
            case .processingStep(let step, let on):
                audio.voice.processing.withLock {
                    switch step {
                    case 1: $0.aec = on
                    case 2: $0.ans = on
                    default: $0.agc = on
                    }
                }
            }
        }
        let applied = JSONValue.object(members).serialized
        log.log(.info, "api setParameters \(applied)")
        emit(.apiCallExecuted(error: 0, api: "setParameters", result: applied))
    }

    /// Reads one parameter as JSON text.
    ///
    /// - Throws: `.invalidArgument` for an unknown key.
    public func parameter(_ key: String) throws(AgoraError) -> String {
        let value: JSONValue
        switch key {
        case "rtc.log_file": value = .string(log.currentPath)
        case "rtc.log_filter": value = .integer(Int64(log.filter))
        case "rtc.log_level":
            let filter = log.filter
            let level = [Int32(0), 1, 2, 4, 8].first { LogFilter.forLevel($0) == filter }
            value = level.map { .integer(Int64($0)) } ?? .null
        case "rtc.log_size": value = .integer(Int64(log.rotationSize / 1024))
        case "rtc.server_url": value = .string(serverURL)
        case "rtc.tls_ca_file": value = .string(state.withLock { $0.caFile })
        case "rtc.network_simulation": value = link.simulation.withLock { $0?.settings.json } ?? .null
        case "rtc.network_simulation_send": value = link.sendSimulation.withLock { $0?.settings.json } ?? .null
        case "rtc.audio_loss_recovery": value = .bool(audio.settings.withLock { $0.lossRecovery })
        case "rtc.allow_insecure_signaling": value = .bool(state.withLock { $0.allowInsecureSignaling })
        case "che.audio.aec.enable": value = audio.voice.processing.withLock { $0.aec }.map { .bool($0) } ?? .null
        case "che.audio.ans.enable": value = audio.voice.processing.withLock { $0.ans }.map { .bool($0) } ?? .null
        case "che.audio.agc.enable": value = audio.voice.processing.withLock { $0.agc }.map { .bool($0) } ?? .null
        case "rtc.app_id": value = .string(configuration.appId)
        case "rtc.area_code": value = .integer(Int64(configuration.areaCode))
        case "rtc.bandwidth_estimate":
            // The uplink's congestion control in a call (docs/network.md); null outside one.
            if let s = video.transport.withLock({ $0?.congestionState }) {
                value = .object(["target_bps": .integer(Int64(s.target)), "loss": .number(s.loss),
                                 "queueing_ms": .number(Double(s.queueing.nanosecondsClamped) / 1e6)])
            } else {
                value = .null
            }
        default: throw .invalidArgument
        }
        return value.serialized
    }

    private static func validate(key: String, value: JSONValue) throws(AgoraError) -> Change {
        switch key {
        case "rtc.log_file":
            guard let path = value.stringValue, !path.isEmpty, path.utf8.count <= 4095 else { throw .invalidArgument }
            return .logFile(path)
        case "rtc.log_filter":
            guard let raw = value.integerValue, raw >= 0, raw <= Int64(UInt32.max),
                  LogFilter.isValid(UInt32(raw)) else { throw .invalidArgument }
            return .logFilter(UInt32(raw))
        case "rtc.log_level":
            guard let raw = value.integerValue, raw >= 0, raw <= 8,
                  let filter = LogFilter.forLevel(Int32(raw)) else { throw .invalidArgument }
            return .logFilter(filter)
        case "rtc.log_size":
            guard let raw = value.integerValue, raw >= 1, raw <= Int64(LogFileSize.maximumKB),
                  let kb = LogFileSize.normalize(Int(raw)) else { throw .invalidArgument }
            return .logSize(kb)
        case "rtc.server_url":
            guard let url = value.stringValue, EngineConfiguration.isValidServerURL(url) else { throw .invalidArgument }
            return .serverURL(url)
        case "rtc.tls_ca_file":
            guard let path = value.stringValue, path.utf8.count <= 4095 else { throw .invalidArgument }
            return .caFile(path)
        case "rtc.audio_loss_recovery":
            // Opus in-band FEC and PLC on (default) or off: off is the baseline loss benchmarks compare with.
            guard let on = value.boolValue else { throw .invalidArgument }
            return .audioLossRecovery(on)
        case "rtc.allow_insecure_signaling":
            // ws:// (no TLS) to a host other than loopback: tokens, keys and resume tokens travel readable.
            guard let on = value.boolValue else { throw .invalidArgument }
            return .allowInsecureSignaling(on)
        case "che.audio.aec.enable", "che.audio.ans.enable", "che.audio.agc.enable":
            // Audio processing steps of captured audio (docs/voice.md); null returns to the scenario's choice.
            let step = key == "che.audio.aec.enable" ? 1 : key == "che.audio.ans.enable" ? 2 : 3
            if value == .null { return .processingStep(step, nil) }
            guard let on = value.boolValue else { throw .invalidArgument }
            return .processingStep(step, on)
        case "rtc.network_simulation_send":
            // The same settings, applied to the media this engine sends (its uplink).
            if value == .null { return .sendSimulation(nil) }
            guard let settings = NetworkSimulation.Settings(value) else { throw .invalidArgument }
            return .sendSimulation(settings)
        case "rtc.network_simulation":
            // null turns it off; otherwise {"loss_percent", "delay_ms", "jitter_ms", "seed"} for received media.
            if value == .null { return .networkSimulation(nil) }
            guard let settings = NetworkSimulation.Settings(value) else { throw .invalidArgument }
            return .networkSimulation(settings)
        default:
            ErrorDetail.set("unknown parameter \"\(key.prefix(64))\"")
            throw .invalidArgument
        }
    }
}
