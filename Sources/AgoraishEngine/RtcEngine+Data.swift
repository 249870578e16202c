import AgoraishIO
import AgoraishWire

extension EncryptionMode {
    /// The mode Agora's setEncryptionMode names ("aes-128-xts", ..., "aes-256-gcm-2"); nil for another name.
    public init?(name: String) {
        guard let m = EncryptionMode.allCases.first(where: { $0.name == name }) else { return nil }
        self = m
    }
}

/// Data streams, media metadata, encryption and the packet observer
/// (docs/data-streams.md, docs/encryption.md).
extension RtcEngine {
    // MARK: - Data streams

    /// Creates a data stream (createDataStream): reliable streams deliver
    /// every message once (in order when ordered) or report what was lost
    /// after 5 s; unreliable ones deliver what arrives. `syncWithAudio`
    /// delivers each message when the sender's audio of the same moment plays.
    /// At most 5 streams exist at once; they end when the call ends.
    ///
    /// - Throws: `.tooManyDataStreams` with five streams.
    public func createDataStream(reliable: Bool, ordered: Bool, syncWithAudio: Bool = false) throws(AgoraError) -> Int32 {
        let id = try data.create(reliable: reliable, ordered: ordered, syncWithAudio: syncWithAudio)
        log.log(.info, "api createDataStream \(id) reliable \(reliable) ordered \(ordered) sync \(syncWithAudio)")
        return id
    }

    /// Sends a message on a data stream (sendStreamMessage) to every other
    /// user of the channel.
    ///
    /// - Throws: `.notInChannel` outside a call; `.refused` for an audience
    ///   member of a live broadcast; `.invalidArgument` for an unknown stream
    ///   or an empty message; `.sizeTooLarge` above 1024 bytes;
    ///   `.bitrateLimit` when the last second already holds 30 messages or
    ///   the message would take it past 6 KB.
    public func sendStreamMessage(streamId: Int32, _ message: [UInt8]) throws(AgoraError) {
        guard !message.isEmpty else { throw .invalidArgument }
        try requireSender()
        try data.sendMessage(streamId: streamId, message)
    }

    /// Sends audio metadata (4.x sendAudioMetadata) to every other user of the
    /// channel, reliably: `onAudioMetadataReceived` there.
    ///
    /// - Throws: `.invalidArgument` for empty metadata or more than 1024 bytes;
    ///   `.notInChannel` outside a call; `.refused` for an audience member.
    public func sendAudioMetadata(_ metadata: [UInt8]) throws(AgoraError) {
        guard !metadata.isEmpty, metadata.count <= MetadataObserver.maxMetadataSize else { throw .invalidArgument }
        try requireSender()
        guard data.sendMetadata(.audioMetadata, metadata, timestampMs: DataPipeline.wallClockMs()) else { throw .failed }
    }

    /// Data may be sent: in a call, and not as an audience member of a live broadcast.
    private func requireSender() throws(AgoraError) {
        let (inCall, audience) = link.read { ($0.isInCall, $0.profile == 1 && $0.role == 2) }
        guard inCall else { throw .notInChannel }
        guard !audience else { throw .refused }
    }

    /// Sets (nil: removes) the video metadata source and sink
    /// (registerMediaMetadataObserver / setMediaMetadataDataSource and
    /// setMediaMetadataDelegate).
    ///
    /// - Throws: `.invalidArgument` for a maximum size outside 1...1024.
    public func setMetadataObserver(_ observer: MetadataObserver?) throws(AgoraError) {
        if let observer { guard (1...MetadataObserver.maxMetadataSize).contains(observer.maxSize) else { throw .invalidArgument } }
        data.metadataObserver = observer
    }

    // MARK: - Encryption

    /// Turns the built-in end-to-end encryption on or off (enableEncryption).
    /// Takes effect for the next packets; every user of a channel must use
    /// the same mode, key and salt.
    ///
    /// - Throws: `.invalidArgument` for an empty key or a GCM2 mode without a
    ///   32-byte, non-zero salt; `.notSupported` for a mode this OpenSSL lacks.
    public func enableEncryption(_ enabled: Bool, config: EncryptionConfig) throws(AgoraError) {
        if enabled { try Self.check(config) }
        state.withLock { $0.encryptionFromSecret = false }
        protection.config = enabled ? config : nil
        log.log(.info, "api enableEncryption \(enabled) mode \(config.mode.name)")
    }

    /// The deprecated setEncryptionSecret: a non-empty secret turns encryption
    /// on with the mode of setEncryptionMode (default "aes-128-xts"); an empty
    /// one turns it off. Leaving the channel clears it.
    public func setEncryptionSecret(_ secret: String) throws(AgoraError) {
        let mode = state.withLock { $0.legacyMode }
        if secret.isEmpty {
            state.withLock { $0.encryptionFromSecret = false }
            protection.config = nil
        } else {
            let config = EncryptionConfig(mode: mode, key: secret)
            try Self.check(config)
            state.withLock { $0.encryptionFromSecret = true }
            protection.config = config
        }
        log.log(.info, "api setEncryptionSecret (\(secret.isEmpty ? "off" : "set"))")
    }

    /// The deprecated setEncryptionMode: the mode the secret uses, by Agora's
    /// name ("aes-128-xts", "aes-128-ecb", "aes-256-xts", "sm4-128-ecb",
    /// "aes-128-gcm", "aes-256-gcm"; "" selects "aes-128-xts"). The GCM2 modes
    /// need a salt and are available through enableEncryption only.
    ///
    /// - Throws: `.invalidArgument` for another name; `.notSupported` for a mode this OpenSSL lacks.
    public func setEncryptionMode(_ name: String) throws(AgoraError) {
        guard let mode = name.isEmpty ? .aes128Xts : EncryptionMode(name: name), !mode.needsSalt else { throw .invalidArgument }
        try Self.check(EncryptionConfig(mode: mode, key: "probe"))
        let secret = state.withLock { s -> String? in
            s.legacyMode = mode
            return s.encryptionFromSecret ? protection.config?.key : nil
        }
        if let secret { protection.config = EncryptionConfig(mode: mode, key: secret) }
        log.log(.info, "api setEncryptionMode \(mode.name)")
    }

    /// Leaving a channel clears a secret set with setEncryptionSecret.
    func clearLegacySecret() {
        let was = state.withLock { s -> Bool in
            defer { s.encryptionFromSecret = false }
            return s.encryptionFromSecret
        }
        if was { protection.config = nil }
    }

    private static func check(_ config: EncryptionConfig) throws(AgoraError) {
        do {
            _ = try MediaCipher(mode: config.mode, key: Array(config.key.utf8), salt: config.salt)
        } catch {
            throw error == .notSupported ? .notSupported : .invalidArgument
        }
    }

    /// Sets (nil: removes) the host's packet observer (registerPacketObserver).
    /// When the call returns, new packets see the new observer.
    public func registerPacketObserver(_ observer: PacketObserver?) {
        protection.observer = observer
        log.log(.info, "api registerPacketObserver \(observer == nil ? "off" : "on")")
    }
}
