/// Where and how a participant sends media: the `media` object of `joined`
/// and `resumed` (docs/protocol.md). The server makes one per admission; the
/// client starts (or restarts) its media transport with it.
public struct MediaOffer: Equatable, Sendable {
    /// The server's UDP media address.
    public var host: String
    public var port: UInt16
    /// The server's ICE ufrag for this participant (the part of USERNAME before the colon).
    public var iceUfrag: String
    /// The key of STUN MESSAGE-INTEGRITY in both directions.
    public var icePassword: String
    public var srtpProfile: SrtpProfile
    /// SRTP keying (master key || salt) of what the client sends.
    public var uplinkKeying: [UInt8]
    /// SRTP keying of what the server sends to the client.
    public var downlinkKeying: [UInt8]

    public init(host: String, port: UInt16, iceUfrag: String, icePassword: String, srtpProfile: SrtpProfile,
                uplinkKeying: [UInt8], downlinkKeying: [UInt8]) {
        self.host = host
        self.port = port
        self.iceUfrag = iceUfrag
        self.icePassword = icePassword
        self.srtpProfile = srtpProfile
        self.uplinkKeying = uplinkKeying
        self.downlinkKeying = downlinkKeying
    }

    /// Reads a "media" object; nil when a field is missing or malformed, or a
    /// key's length is not the profile's.
    public init?(_ value: JSONValue?) {
        guard case .object(let m)? = value, let host = m["host"]?.stringValue,
              let port = m["port"]?.integerValue, (1...65535).contains(port),
              let ufrag = m["ice_ufrag"]?.stringValue, let pwd = m["ice_pwd"]?.stringValue,
              let profile = m["srtp_profile"]?.stringValue.flatMap(SrtpProfile.init(rawValue:)),
              let up = m["uplink_key"]?.stringValue.flatMap({ try? TokenCrypto.base64Decode(Substring($0)) }),
              let down = m["downlink_key"]?.stringValue.flatMap({ try? TokenCrypto.base64Decode(Substring($0)) }),
              up.count == profile.keyingLength, down.count == profile.keyingLength
        else { return nil }
        self.init(host: host, port: UInt16(port), iceUfrag: ufrag, icePassword: pwd, srtpProfile: profile,
                  uplinkKeying: up, downlinkKeying: down)
    }

    /// The "media" object.
    public var json: JSONValue {
        .object([
            "host": .string(host), "port": .integer(Int64(port)),
            "ice_ufrag": .string(iceUfrag), "ice_pwd": .string(icePassword),
            "srtp_profile": .string(srtpProfile.rawValue),
            "uplink_key": .string(TokenCrypto.base64Encode(uplinkKeying)),
            "downlink_key": .string(TokenCrypto.base64Encode(downlinkKeying)),
        ])
    }
}
