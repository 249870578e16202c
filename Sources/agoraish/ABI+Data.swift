import AgoraishEngine
import AgoraishWire
import CAgoraishABI

// The data-stream, metadata, encryption and packet-observer functions of include/agoraish.h.

extension CEventHandler {
    /// Calls the C callback of a data event, if the host set one.
    func deliverData(_ event: DataEvent, _ engine: OpaquePointer?) {
        let ud = table.user_data
        switch event {
        case .streamMessage(let uid, let streamId, let data, let sentTs):
            guard let cb = table.on_stream_message else { return }
            data.withUnsafeBufferPointer { cb(engine, ud, uid, streamId, $0.baseAddress, $0.count, sentTs) }
        case .streamMessageError(let uid, let streamId, let code, let missed, let cached):
            table.on_stream_message_error?(engine, ud, uid, streamId, code, missed, cached)
        case .audioMetadata(let uid, let data):
            guard let cb = table.on_audio_metadata_received else { return }
            data.withUnsafeBufferPointer { cb(engine, ud, uid, $0.baseAddress, $0.count) }
        case .encryptionError(let type):
            table.on_encryption_error?(engine, ud, type.rawValue)
        }
    }
}

/// An engine handle and a host's user data, carried into callbacks that may run on any thread.
private struct HostContext: @unchecked Sendable {
    let handle: OpaquePointer?
    let ud: UnsafeMutableRawPointer?
}

@_cdecl("agoraish_engine_create_data_stream")
public func abi_engine_create_data_stream(_ p: OpaquePointer?, _ streamId: UnsafeMutablePointer<Int32>?,
                                          _ reliable: Int32, _ ordered: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let streamId else { throw .invalidArgument }
        streamId.pointee = try engine.createDataStream(reliable: reliable != 0, ordered: ordered != 0)
    }
}

@_cdecl("agoraish_engine_create_data_stream_with_config")
public func abi_engine_create_data_stream_with_config(_ p: OpaquePointer?, _ streamId: UnsafeMutablePointer<Int32>?,
                                                      _ config: UnsafePointer<agoraish_data_stream_config>?) -> Int32 {
    createDataStream(p, streamId, config, .own)
}

func createDataStream(_ p: OpaquePointer?, _ streamId: UnsafeMutablePointer<Int32>?,
                      _ config: UnsafePointer<agoraish_data_stream_config>?, _ target: Target,
                      function: String = #function) -> Int32 {
    withEngine(p, target, function: function) { engine throws(AgoraError) in
        guard let streamId, let c = readVersioned(config, knownSizes: StructSizes.dataStreamConfig)
        else { throw .invalidArgument }
        streamId.pointee = try engine.createDataStream(reliable: false, ordered: c.ordered != 0,
                                                       syncWithAudio: c.sync_with_audio != 0)
    }
}

@_cdecl("agoraish_engine_send_stream_message")
public func abi_engine_send_stream_message(_ p: OpaquePointer?, _ streamId: Int32, _ data: UnsafeRawPointer?,
                                           _ length: Int) -> Int32 {
    sendStreamMessage(p, streamId, data, length, .own)
}

func sendStreamMessage(_ p: OpaquePointer?, _ streamId: Int32, _ data: UnsafeRawPointer?, _ length: Int,
                       _ target: Target, function: String = #function) -> Int32 {
    withEngine(p, target, function: function) { engine throws(AgoraError) in
        guard let data, length != 0 else { throw .invalidArgument }
        // Checked before copying (as size_t: any length above the limit): a huge length never allocates.
        guard UInt(bitPattern: length) <= UInt(DataStreamSender.maxMessageSize) else { throw .sizeTooLarge }
        try engine.sendStreamMessage(streamId: streamId, Array(UnsafeRawBufferPointer(start: data, count: length)))
    }
}

@_cdecl("agoraish_engine_send_audio_metadata")
public func abi_engine_send_audio_metadata(_ p: OpaquePointer?, _ data: UnsafeRawPointer?, _ length: Int) -> Int32 {
    sendAudioMetadata(p, data, length, .own)
}

func sendAudioMetadata(_ p: OpaquePointer?, _ data: UnsafeRawPointer?, _ length: Int, _ target: Target,
                       function: String = #function) -> Int32 {
    withEngine(p, target, function: function) { engine throws(AgoraError) in
        guard let data, length != 0, UInt(bitPattern: length) <= UInt(MetadataObserver.maxMetadataSize) else {
            throw .invalidArgument
        }
        try engine.sendAudioMetadata(Array(UnsafeRawBufferPointer(start: data, count: length)))
    }
}

@_cdecl("agoraish_engine_register_media_metadata_observer")
public func abi_engine_register_media_metadata_observer(_ p: OpaquePointer?,
                                                        _ observer: UnsafePointer<agoraish_metadata_observer>?,
                                                        _ type: Int32) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard type == 0 else { throw .invalidArgument }
        guard let observer else {
            try engine.setMetadataObserver(nil)
            return
        }
        guard let o = readVersioned(observer, knownSizes: StructSizes.metadataObserver) else {
            throw .invalidArgument
        }
        let host = HostContext(handle: p, ud: o.user_data)
        let maxSize = o.get_max_metadata_size.map { Int($0(host.handle, host.ud)) } ?? MetadataObserver.maxMetadataSize
        guard (1...MetadataObserver.maxMetadataSize).contains(maxSize) else { throw .invalidArgument }
        var readyToSend: (@Sendable (Int64) -> [UInt8]?)? = nil
        if let cb = o.on_ready_to_send_metadata {
            readyToSend = { ts in
                var buffer = [UInt8](repeating: 0, count: maxSize)
                return buffer.withUnsafeMutableBufferPointer { b -> [UInt8]? in
                    var md = agoraish_metadata(uid: 0, size: UInt32(maxSize), buffer: b.baseAddress, timestamp_ms: ts)
                    guard cb(host.handle, host.ud, &md) != 0, md.size > 0, Int(md.size) <= maxSize else { return nil }
                    // The host may have pointed the buffer elsewhere: read what it names.
                    guard let out = md.buffer else { return nil }
                    return Array(UnsafeBufferPointer(start: out, count: Int(md.size)))
                }
            }
        }
        var received: (@Sendable (UInt32, [UInt8], Int64) -> Void)? = nil
        if let cb = o.on_metadata_received {
            received = { uid, data, ts in
                var copy = data
                copy.withUnsafeMutableBufferPointer { b in
                    var md = agoraish_metadata(uid: uid, size: UInt32(b.count), buffer: b.baseAddress, timestamp_ms: ts)
                    cb(host.handle, host.ud, &md)
                }
            }
        }
        try engine.setMetadataObserver(MetadataObserver(maxSize: maxSize, readyToSend: readyToSend, received: received))
    }
}

@_cdecl("agoraish_engine_enable_encryption")
public func abi_engine_enable_encryption(_ p: OpaquePointer?, _ enabled: Int32,
                                         _ config: UnsafePointer<agoraish_encryption_config>?) -> Int32 {
    enableEncryption(p, enabled, config, .own)
}

func enableEncryption(_ p: OpaquePointer?, _ enabled: Int32, _ config: UnsafePointer<agoraish_encryption_config>?,
                      _ target: Target, function: String = #function) -> Int32 {
    withEngine(p, target, function: function) { engine throws(AgoraError) in
        guard enabled != 0 else {
            try engine.enableEncryption(false, config: EncryptionConfig(mode: .aes128Gcm2, key: ""))
            return
        }
        guard let c = readVersioned(config, knownSizes: StructSizes.encryptionConfig),
              let mode = EncryptionMode(rawValue: c.encryption_mode),
              let key = readCString(c.encryption_key), !key.isEmpty, key.utf8.count <= 128 else { throw .invalidArgument }
        let salt = withUnsafeBytes(of: c.encryption_kdf_salt) { Array($0) }
        try engine.enableEncryption(true, config: EncryptionConfig(mode: mode, key: key, salt: salt))
    }
}

@_cdecl("agoraish_engine_set_encryption_secret")
public func abi_engine_set_encryption_secret(_ p: OpaquePointer?, _ secret: UnsafePointer<CChar>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let secret else {
            try engine.setEncryptionSecret("")
            return
        }
        guard let s = readCString(secret), s.utf8.count <= 128 else { throw .invalidArgument }
        try engine.setEncryptionSecret(s)
    }
}

@_cdecl("agoraish_engine_set_encryption_mode")
public func abi_engine_set_encryption_mode(_ p: OpaquePointer?, _ mode: UnsafePointer<CChar>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let mode else {
            try engine.setEncryptionMode("")
            return
        }
        guard let name = readCString(mode) else { throw .invalidArgument }
        try engine.setEncryptionMode(name)
    }
}

@_cdecl("agoraish_engine_register_packet_observer")
public func abi_engine_register_packet_observer(_ p: OpaquePointer?,
                                                _ observer: UnsafePointer<agoraish_packet_observer>?) -> Int32 {
    withEngine(p) { engine throws(AgoraError) in
        guard let observer else {
            engine.registerPacketObserver(nil)
            return
        }
        guard let o = readVersioned(observer, knownSizes: StructSizes.packetObserver) else {
            throw .invalidArgument
        }
        let host = HostContext(handle: p, ud: o.user_data)
        typealias CCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeMutablePointer<agoraish_packet>?) -> Int32
        func wrap(_ cb: CCallback?) -> PacketObserver.Callback? {
            guard let cb else { return nil }
            return { payload in
                payload.withUnsafeBufferPointer { b -> [UInt8]? in
                    var packet = agoraish_packet(buffer: b.baseAddress, size: UInt32(b.count))
                    guard cb(host.handle, host.ud, &packet) != 0 else { return nil }
                    guard Int(packet.size) <= b.count + PacketObserver.maxGrowth else { return nil }
                    guard packet.size > 0, let out = packet.buffer else { return packet.size == 0 ? [] : nil }
                    return Array(UnsafeBufferPointer(start: out, count: Int(packet.size)))
                }.map { payload = $0; return true } ?? false
            }
        }
        engine.registerPacketObserver(PacketObserver(onSendAudio: wrap(o.on_send_audio_packet),
                                                     onSendVideo: wrap(o.on_send_video_packet),
                                                     onReceiveAudio: wrap(o.on_receive_audio_packet),
                                                     onReceiveVideo: wrap(o.on_receive_video_packet)))
    }
}
