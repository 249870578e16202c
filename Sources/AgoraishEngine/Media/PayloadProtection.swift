import AgoraishIO
import AgoraishWire
import Synchronization

/// The built-in encryption's settings (Agora's EncryptionConfig).
public struct EncryptionConfig: Sendable, Equatable {
    public var mode: EncryptionMode
    /// The key string (its UTF-8 bytes feed the key derivation).
    public var key: String
    /// The 32-byte KDF salt of the GCM2 modes (ignored by the others).
    public var salt: [UInt8]

    public init(mode: EncryptionMode, key: String, salt: [UInt8] = []) {
        self.mode = mode
        self.key = key
        self.salt = salt
    }
}

/// Agora's ENCRYPTION_ERROR_TYPE (onEncryptionError).
public enum EncryptionErrorType: Int32, Sendable {
    case internalFailure = 0
    case decryptionFailure = 1
    case encryptionFailure = 2
    case datastreamDecryptionFailure = 3
    case datastreamEncryptionFailure = 4
}

/// A host's packet observer (Agora's IPacketObserver), for its own
/// encryption. Each callback gets the payload of one packet (audio: the Opus
/// packet; video: what follows the payload descriptor) and may rewrite it,
/// growing it by at most `PacketObserver.maxGrowth` bytes; false drops the
/// packet. Send callbacks run on the thread that encodes (audio device or
/// push thread, video thread), receive callbacks on the engine's network
/// thread; callbacks of one kind never overlap.
public struct PacketObserver: Sendable {
    public typealias Callback = @Sendable (inout [UInt8]) -> Bool
    public var onSendAudio: Callback?
    public var onSendVideo: Callback?
    public var onReceiveAudio: Callback?
    public var onReceiveVideo: Callback?
    /// How many bytes a callback may add to a payload; a payload grown more is dropped.
    public static let maxGrowth = 64

    public init(onSendAudio: Callback? = nil, onSendVideo: Callback? = nil, onReceiveAudio: Callback? = nil,
                onReceiveVideo: Callback? = nil) {
        self.onSendAudio = onSendAudio
        self.onSendVideo = onSendVideo
        self.onReceiveAudio = onReceiveAudio
        self.onReceiveVideo = onReceiveVideo
    }
}

/// End-to-end protection of payloads for one engine (docs/encryption.md):
/// the host's packet observer, then the built-in cipher, on the way out; the
/// cipher, then the observer, on the way in. The RTP header stays readable;
/// an encrypted payload is marked with header extension 4 (the mode), so a
/// receiver without the key, or with another mode, drops what it cannot
/// read and reports it instead of decoding noise.
final class PayloadProtection: Sendable {
    enum Kind: Sendable { case audio, video, data }

    private struct Settings {
        var config: EncryptionConfig? = nil
        var observer: PacketObserver? = nil
        var generation = 0
    }
    private let settings = Locked(Settings())
    /// The settings' generation, read without the lock on every packet: the lock is taken only after a change.
    private let published = Atomic<Int>(0)
    /// When each error type was last reported: at most one report a second per type.
    private let reported = Locked<[Int32: Instant]>([:])
    private let report: @Sendable (EncryptionErrorType) -> Void

    init(report: @escaping @Sendable (EncryptionErrorType) -> Void) {
        self.report = report
    }

    /// The built-in encryption in force (nil: off).
    var config: EncryptionConfig? {
        get { settings.withLock { $0.config } }
        set { publish { $0.config = newValue } }
    }

    /// The host's packet observer (nil: none).
    var observer: PacketObserver? {
        get { settings.withLock { $0.observer } }
        set { publish { $0.observer = newValue } }
    }

    private func publish(_ change: (inout Settings) -> Void) {
        settings.withLock { s in
            change(&s)
            s.generation += 1
            published.store(s.generation, ordering: .releasing)
        }
    }

    /// One thread's view of the settings and its own cipher (a cipher keeps
    /// a nonce counter and OpenSSL state: it is never shared between threads).
    struct Context {
        fileprivate var generation = -1
        fileprivate(set) var cipher: MediaCipher? = nil
        fileprivate(set) var mode: EncryptionMode? = nil
        fileprivate(set) var observer: PacketObserver? = nil
        /// Whether payloads are changed at all (encryption or an observer).
        var active: Bool { mode != nil || observer != nil }
        init() {}
    }

    /// Brings a context up to date with the settings (an atomic load when unchanged).
    func refresh(_ c: inout Context) {
        guard published.load(ordering: .acquiring) != c.generation else { return }
        let (generation, config, observer) = settings.withLock { ($0.generation, $0.config, $0.observer) }
        guard generation != c.generation else { return }
        c.generation = generation
        c.observer = observer
        c.mode = config?.mode
        c.cipher = config.flatMap { try? MediaCipher(mode: $0.mode, key: Array($0.key.utf8), salt: $0.salt) }
        if config != nil && c.cipher == nil { raise(.internalFailure) }
    }

    /// Reports an error on the event thread, at most once a second per type.
    func raise(_ type: EncryptionErrorType) {
        let now = Instant.now()
        let due = reported.withLock { r -> Bool in
            if let last = r[type.rawValue], now - last < .seconds(1) { return false }
            r[type.rawValue] = now
            return true
        }
        if due { report(type) }
    }

    /// The payload to send in place of `payload`, or nil to drop the packet.
    /// `context` must be refreshed first.
    func outgoing(_ payload: [UInt8], _ kind: Kind, _ c: inout Context) -> [UInt8]? {
        var p = payload
        if let o = c.observer, let cb = kind == .audio ? o.onSendAudio : kind == .video ? o.onSendVideo : nil {
            guard cb(&p), p.count <= payload.count + PacketObserver.maxGrowth else { return nil }
        }
        guard c.mode != nil else { return p }
        guard let cipher = c.cipher, let sealed = try? cipher.encrypt(p) else {
            raise(kind == .data ? .datastreamEncryptionFailure : .encryptionFailure)
            return nil
        }
        return sealed
    }

    /// The payload a received packet carries, or nil when it cannot be read
    /// (reported) or the observer drops it. `marked` is the mode its
    /// extension 4 names (nil: sent unencrypted).
    func incoming(_ payload: [UInt8], marked: EncryptionMode?, _ kind: Kind, _ c: inout Context) -> [UInt8]? {
        var p = payload
        if c.mode != nil || marked != nil {
            guard marked == c.mode, let cipher = c.cipher, let plain = try? cipher.decrypt(p) else {
                raise(kind == .data ? .datastreamDecryptionFailure : .decryptionFailure)
                return nil
            }
            p = plain
        }
        if let o = c.observer, let cb = kind == .audio ? o.onReceiveAudio : kind == .video ? o.onReceiveVideo : nil {
            guard cb(&p) else { return nil }
        }
        return p
    }

    /// The mode a received packet's extension 4 names (nil: none or unknown).
    static func mark(in packet: UnsafeRawBufferPointer) -> EncryptionMode?? {
        guard let (offset, length) = RtpHeaderExtension.element(RtpHeaderExtension.payloadProtectionId, in: packet) else {
            return .some(nil)
        }
        guard length == 1, let mode = EncryptionMode(rawValue: Int32(packet[offset])) else { return nil }
        return .some(mode)
    }
}
