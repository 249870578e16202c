import AgoraishWire
import Testing

/// The typed signaling messages (docs/protocol.md): every type written and
/// read back unchanged, a few exact texts, and the server's failures for bad fields.
@Suite struct SignalingMessageTests {
    static let offer = MediaOffer(host: "198.51.100.7", port: 4443, iceUfrag: "XMOeC3hm", icePassword: "28hG58Mxul4DZmw/NEo1tDde",
                                  srtpProfile: .aeadAes128Gcm, uplinkKeying: Array(0..<28), downlinkKeying: Array(28..<56))
    static let users = [Signaling.UserEntry(uid: 11, audioMuted: true, videoMuted: true,
                                            video: VideoFlags(enabled: true, localEnabled: false, streamMuted: false)),
                        Signaling.UserEntry(uid: 22, account: "bob")]
    static let streams = [Signaling.StreamEntry(uid: 11, ssrc: 900, payloadType: 111, rtx: 901),
                          Signaling.StreamEntry(uid: 11, ssrc: 902, payloadType: 96, low: true, rtx: 903),
                          Signaling.StreamEntry(uid: 22, ssrc: 904, payloadType: 102)]

    static var videoPolicy: SubscriptionPolicy {
        var p = SubscriptionPolicy()
        p.mute(3, true)
        p.setDefaultMuted(true, present: [4, 5])
        p.setStreamType(of: 4, low: true)
        p.setStreamType(of: 5, low: false)
        p.defaultLow = true
        p.fallback = 2
        p.setPriority(of: 4, high: true)
        return p
    }

    static let requests: [SignalingRequest] = [
        .join(.init(appId: "0123456789abcdef0123456789abcdef", channel: "room", token: "007x", uid: 11,
                    profile: .liveBroadcasting, role: .audience, areaCode: 0xFFFF_FFFF)),
        .join(.init(appId: "app", channel: "room", account: "bob", areaCode: 1)),
        .join(.init(appId: "app", channel: "echo", echoMs: 3000)),
        .join(.init(appId: "app", channel: "probe", probe: true)),
        .join(.init(appId: "app", channel: "next", uid: 7, fastStart: true)),
        .preload(.init(appId: "app", channel: "next", token: "007p", uid: 7)),
        .webrtcOffer(.init(sdp: "v=0\r\n", receive: [.init(mid: "1", ssrc: 5000, rtxSsrc: 5001)])),
        .leave(.init()),
        .setRole(.init(role: .broadcaster)),
        .renewToken(.init(token: "007y")),
        .resume(.init(session: 7, resumeToken: "secret", token: "007z")),
        .registerAccount(.init(appId: "app", account: "carol")),
        .ping(.init()),
        .setAudioState(.init(muted: true)),
        .setAudioState(.init(muted: false, ssrc: 1, rtxSsrc: 2, dataSsrc: 3, dataRtxSsrc: 4)),
        .setAudioSubscription(.init({ var p = SubscriptionPolicy(); p.mute(9, true); p.mute(8, false); return p }())),
        .setVideoState(.init(muted: true)),
        .setVideoState(.init(muted: false, switches: VideoFlags(enabled: true, localEnabled: true, streamMuted: true),
                             ssrc: 5, lowSsrc: 6, rtxSsrc: 7, lowRtxSsrc: 8)),
        .setVideoSubscription(.init(videoPolicy)),
        .setVideoSubscription(.init(SubscriptionPolicy())),
        .probeDownlink(.init(bitrate: 800_000, durationMs: 1500)),
    ]

    static let events: [SignalingEvent] = [
        .joined(.init(uid: 11, session: 1, resumeToken: "secret", callId: "app-1-1718000000000", profile: 0, role: 2,
                      users: users, keepaliveMs: 2000, dropTimeoutMs: 20_000, serverTimeMs: 1_718_000_000_000,
                      account: "alice", tokenExpireTs: 1_718_000_060, media: offer, streams: streams)),
        .joined(.init(uid: 12, users: [], streams: [])),
        .resumed(.init(uid: 11, session: 1, role: 1, users: users, serverTimeMs: 5, tokenExpireTs: 6, streams: streams,
                       media: offer)),
        .left(.init()),
        .roleChanged(.init(old: .audience, new: .broadcaster)),
        .tokenRenewed(.init(tokenExpireTs: 1_718_000_900)),
        .tokenRenewed(.init()),
        .accountRegistered(.init(uid: 1_703_865_447, account: "carol")),
        .pong(.init(serverTimeMs: 1_718_000_002_000)),
        .preloaded(.init(tokenExpireTs: 1_718_000_600)),
        .preloaded(.init()),
        .error(.init(code: -113, reason: "not_in_channel")),
        .userJoined(.init(users[0])),
        .userJoined(.init(users[1])),
        .userOffline(.init(uid: 22, reason: .becomeAudience)),
        .userInfo(.init(uid: 22, account: "bob")),
        .userMuteAudio(.init(uid: 11, muted: true)),
        .userMuteVideo(.init(uid: 11, muted: false)),
        .userMuteVideo(.init(uid: 11, muted: true, switches: VideoFlags(enabled: false))),
        .streamAdded(.init(streams[1])),
        .subscribeFallback(.init(uid: 11, audioOnly: true)),
        .tokenWillExpire(.init(tokenExpireTs: 1_718_000_060)),
        .tokenExpired(.init()),
        .kicked(.init()),
    ]

    static func fields(_ text: String) throws -> MessageFields { try #require(MessageFields(text: text)) }

    @Test func everyRequestReadsBackAsWritten() throws {
        #expect(Set(Self.requests.map { type(of: $0.message).type }) == Set(SignalingRequest.Kind.allCases.map(\.rawValue)))
        for request in Self.requests {
            let text = request.text(id: 42)
            let f = try Self.fields(text)
            #expect(f.id == 42)
            #expect(try SignalingRequest(f) == request, "\(text)")
            #expect(try SignalingRequest(Self.fields(request.text())) == request)
        }
    }

    @Test func everyReplyAndNoticeReadsBackAsWritten() throws {
        for event in Self.events {
            let text = try #require(event.message).text(id: 3)
            #expect(try SignalingEvent(Self.fields(text)) == event, "\(text)")
        }
        #expect(try SignalingEvent(Self.fields(#"{"type":"dance","v":1}"#)) == .unknown("dance"))
    }

    @Test func messagesAreWrittenAsTheProtocolShowsThem() {
        #expect(Signaling.UserMuteVideo(uid: 1001, muted: true, switches: VideoFlags(streamMuted: true)).text()
                == #"{"enabled":true,"local_enabled":true,"muted":true,"stream_muted":true,"type":"user_mute_video","uid":1001,"v":1}"#)
        #expect(Signaling.SubscribeFallback(uid: 1001, audioOnly: false).text()
                == #"{"audio_only":false,"type":"subscribe_fallback","uid":1001,"v":1}"#)
        #expect(Signaling.SetAudioState(muted: true, ssrc: 1111, rtxSsrc: 1112, dataSsrc: 2221, dataRtxSsrc: 2222).text()
                == #"{"data_rtx_ssrc":2222,"data_ssrc":2221,"muted":true,"rtx_ssrc":1112,"ssrc":1111,"type":"set_audio_state","v":1}"#)
        #expect(Signaling.SetAudioSubscription(SubscriptionPolicy()).text()
                == #"{"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_audio_subscription","unmuted":[],"v":1}"#)
        #expect(Signaling.Join(appId: "app", channel: "probe", token: "", uid: 0, profile: .liveBroadcasting,
                               role: .broadcaster, areaCode: 4_294_967_295, probe: true).text(id: 4)
                == #"{"app_id":"app","area_code":4294967295,"channel":"probe","id":4,"probe":true,"profile":1,"role":1,"token":"","type":"join","uid":0,"v":1}"#)
        #expect(Signaling.ErrorReply(.unknownType(String(repeating: "x", count: 40))).text(id: 1)
                == #"{"code":-2,"id":1,"reason":"unknown_type:\#(String(repeating: "x", count: 32))","type":"error","v":1}"#)
        #expect(Signaling.Kicked().text() == #"{"code":-17,"connection_reason":19,"reason":"same_uid_login","type":"kicked","v":1}"#)
    }

    @Test(arguments: [
        (#"{"v":2,"type":"ping"}"#, SignalingFailure.unsupportedVersion),
        (#"{"type":"ping"}"#, .unsupportedVersion),
        (#"{"v":1}"#, .badField("type")),
        (#"{"v":1,"type":["join"]}"#, .badField("type")),
        (#"{"v":1,"type":"dance"}"#, .unknownType("dance")),
        (#"{"v":1,"type":"join","channel":"room"}"#, .badField("app_id")),
        (#"{"v":1,"type":"join","app_id":"a","channel":"room","uid":4294967296}"#, .badField("uid")),
        (#"{"v":1,"type":"join","app_id":"a","channel":"room","role":"1"}"#, .badField("role")),
        (#"{"v":1,"type":"join","app_id":"a","channel":"room","echo_ms":3000,"probe":true}"#, .badField("probe")),
        (#"{"v":1,"type":"set_role","role":1.5}"#, .badField("role")),
        (#"{"v":1,"type":"resume","session":1,"resume_token":null}"#, .badField("resume_token")),
        (#"{"v":1,"type":"set_audio_state","muted":"no"}"#, .badField("muted")),
        (#"{"v":1,"type":"set_video_state","muted":true,"low_ssrc":-1}"#, .badField("low_ssrc")),
        (#"{"v":1,"type":"set_video_subscription","low":[0]}"#, .badField("low")),
        (#"{"v":1,"type":"probe_downlink","duration_ms":99}"#, .badField("duration_ms")),
    ])
    func badRequestsFailAsTheServerReportsThem(text: String, failure: SignalingFailure) throws {
        #expect(throws: failure) { try SignalingRequest(Self.fields(text)) }
    }

    @Test func aLongSubscriptionListIsRefusedAndAudioIgnoresVideoFields() throws {
        let long = "[" + (1...4097).map(String.init).joined(separator: ",") + "]"
        #expect(throws: SignalingFailure.badField("muted")) {
            try SignalingRequest(Self.fields(#"{"v":1,"type":"set_audio_subscription","muted":\#(long)}"#))
        }
        let audio = try SignalingRequest(Self.fields(#"{"v":1,"type":"set_audio_subscription","low":"x","fallback":9}"#))
        #expect(audio == .setAudioSubscription(.init(SubscriptionPolicy())))
    }

    @Test func aClientReadsWhatItNeedsAndIgnoresTheRest() throws {
        // A joined reply with only a uid; entries without a uid are skipped; a bad media object is none.
        let joined = try SignalingEvent(Self.fields(#"{"type":"joined","uid":5,"users":[{"uid":0},{"uid":6}],"media":{"host":1}}"#))
        #expect(joined == .joined(.init(uid: 5, users: [.init(uid: 6)])))
        #expect(throws: SignalingFailure.badField("uid")) { try SignalingEvent(Self.fields(#"{"type":"user_joined"}"#)) }
        // An error's code out of range reads as -1, a missing reason as "".
        #expect(try SignalingEvent(Self.fields(#"{"type":"error","code":7}"#)) == .error(.init(code: -1, reason: "")))
        // Two of the three video switches are none.
        let mute = try SignalingEvent(Self.fields(#"{"type":"user_mute_video","uid":3,"muted":true,"enabled":true,"local_enabled":true}"#))
        #expect(mute == .userMuteVideo(.init(uid: 3, muted: true)))
    }

    @Test func thePolicyFollowsAgorasCalls() {
        var p = SubscriptionPolicy()
        #expect(p.blocksNothing)
        p.mute(2, true)
        #expect(p.blocks(2) && !p.blocks(3))
        p.setDefaultMuted(true, present: [3])
        #expect(!p.blocks(3) && p.blocks(4) && p.unmuted == [3])
        p.muteAll(false)
        #expect(p == SubscriptionPolicy())
        p.setStreamType(of: 7, low: true)
        p.defaultLow = true
        p.setStreamType(of: 8, low: false)
        #expect(p.wantsLow(7) && !p.wantsLow(8) && p.wantsLow(9))
        p.setPriority(of: 7, high: true)
        p.setPriority(of: 8, high: false)
        #expect(p.priorityUid == 7)
        p.setPriority(of: 7, high: false)
        #expect(p.priorityUid == nil)
    }
}
