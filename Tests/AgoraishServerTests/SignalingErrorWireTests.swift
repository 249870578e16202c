@testable import AgoraishServer
import AgoraishWire
import Testing

/// Bad requests and the exact error replies the core writes (docs/protocol.md, Errors).
@Suite struct SignalingErrorWireTests {
    /// (request text, whether the connection holds a session first, the reply text).
    static let cases: [(String, Bool, String)] = [
        (#"not json"#, false, #"{"code":-2,"reason":"malformed","type":"error","v":1}"#),
        (#"[1,2]"#, false, #"{"code":-2,"reason":"malformed","type":"error","v":1}"#),
        (#"{"type":"join","id":3}"#, false, #"{"code":-4,"id":3,"reason":"unsupported_version","type":"error","v":1}"#),
        (#"{"v":2,"type":"join","id":3}"#, false, #"{"code":-4,"id":3,"reason":"unsupported_version","type":"error","v":1}"#),
        (#"{"v":1,"id":3}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:type","type":"error","v":1}"#),
        (#"{"v":1,"type":7,"id":3}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:type","type":"error","v":1}"#),
        (#"{"v":1,"type":"dance_dance_dance_dance_dance_dance_dance","id":"x"}"#, false, #"{"code":-2,"reason":"unknown_type:dance_dance_dance_dance_dance_da","type":"error","v":1}"#),
        (#"{"v":1,"type":"join","id":3,"channel":"room"}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:app_id","type":"error","v":1}"#),
        (#"{"v":1,"type":"join","id":3,"app_id":"app-one","channel":"room","token":5}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:token","type":"error","v":1}"#),
        (#"{"v":1,"type":"join","id":3,"app_id":"app-one","channel":"room","uid":-1}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:uid","type":"error","v":1}"#),
        (#"{"v":1,"type":"join","id":3,"app_id":"app-one","channel":"room","uid":2.5}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:uid","type":"error","v":1}"#),
        (#"{"v":1,"type":"join","id":3,"app_id":"app-one","channel":"room","profile":2}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:profile","type":"error","v":1}"#),
        (#"{"v":1,"type":"join","id":3,"app_id":"app-one","channel":"room","role":0}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:role","type":"error","v":1}"#),
        (#"{"v":1,"type":"join","id":3,"app_id":"app-one","channel":"room","area_code":-1}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:area_code","type":"error","v":1}"#),
        (#"{"v":1,"type":"join","id":3,"app_id":"app-one","channel":"room","echo_ms":100}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:echo_ms","type":"error","v":1}"#),
        (#"{"v":1,"type":"join","id":3,"app_id":"app-one","channel":"room","probe":1}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:probe","type":"error","v":1}"#),
        (#"{"v":1,"type":"join","id":3,"app_id":"app-one","channel":"room","probe":true,"echo_ms":3000}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:probe","type":"error","v":1}"#),
        (#"{"v":1,"type":"join","id":3,"app_id":"app-one","channel":"room","account":"","uid":4}"#, false, #"{"code":-134,"id":3,"reason":"invalid_user_account","type":"error","v":1}"#),
        (#"{"v":1,"type":"join","id":3,"app_id":"app-one","channel":"room","account":"a","uid":4}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:uid","type":"error","v":1}"#),
        (#"{"v":1,"type":"join","id":3,"app_id":"app-one","channel":"room","uid":9}"#, true, #"{"code":-17,"id":3,"reason":"already_joined","type":"error","v":1}"#),
        (#"{"v":1,"type":"set_role","id":3,"role":3}"#, false, #"{"code":-113,"id":3,"reason":"not_in_channel","type":"error","v":1}"#),
        (#"{"v":1,"type":"set_role","id":3,"role":3}"#, true, #"{"code":-2,"id":3,"reason":"bad_field:role","type":"error","v":1}"#),
        (#"{"v":1,"type":"renew_token","id":3}"#, true, #"{"code":-2,"id":3,"reason":"bad_field:token","type":"error","v":1}"#),
        (#"{"v":1,"type":"resume","id":3,"session":0,"resume_token":"x"}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:session","type":"error","v":1}"#),
        (#"{"v":1,"type":"resume","id":3,"session":1}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:resume_token","type":"error","v":1}"#),
        (#"{"v":1,"type":"resume","id":3,"session":1,"resume_token":"x","token":false}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:token","type":"error","v":1}"#),
        (#"{"v":1,"type":"register_account","id":3,"app_id":"app-one"}"#, false, #"{"code":-2,"id":3,"reason":"bad_field:account","type":"error","v":1}"#),
        (#"{"v":1,"type":"register_account","id":3,"app_id":"app-one","account":""}"#, false, #"{"code":-134,"id":3,"reason":"invalid_user_account","type":"error","v":1}"#),
        (#"{"v":1,"type":"set_audio_state","id":3}"#, true, #"{"code":-2,"id":3,"reason":"bad_field:muted","type":"error","v":1}"#),
        (#"{"v":1,"type":"set_audio_state","id":3,"muted":true,"data_rtx_ssrc":4294967296}"#, true, #"{"code":-2,"id":3,"reason":"bad_field:data_rtx_ssrc","type":"error","v":1}"#),
        (#"{"v":1,"type":"set_video_state","id":3,"muted":false,"enabled":1}"#, true, #"{"code":-2,"id":3,"reason":"bad_field:enabled","type":"error","v":1}"#),
        (#"{"v":1,"type":"set_video_state","id":3,"muted":false,"low_rtx_ssrc":-1,"ssrc":"x"}"#, true, #"{"code":-2,"id":3,"reason":"bad_field:ssrc","type":"error","v":1}"#),
        (#"{"v":1,"type":"set_audio_subscription","id":3,"muted":[0]}"#, true, #"{"code":-2,"id":3,"reason":"bad_field:muted","type":"error","v":1}"#),
        (#"{"v":1,"type":"set_audio_subscription","id":3,"low":"ignored","unmuted":"x"}"#, true, #"{"code":-2,"id":3,"reason":"bad_field:unmuted","type":"error","v":1}"#),
        (#"{"v":1,"type":"set_video_subscription","id":3,"high":[1,2,4294967296]}"#, true, #"{"code":-2,"id":3,"reason":"bad_field:high","type":"error","v":1}"#),
        (#"{"v":1,"type":"set_video_subscription","id":3,"fallback":3}"#, true, #"{"code":-2,"id":3,"reason":"bad_field:fallback","type":"error","v":1}"#),
        (#"{"v":1,"type":"set_video_subscription","id":3,"priority_uid":0}"#, true, #"{"code":-2,"id":3,"reason":"bad_field:priority_uid","type":"error","v":1}"#),
        (#"{"v":1,"type":"set_video_subscription","id":3,"default_low":null,"all_muted":"yes"}"#, true, #"{"code":-2,"id":3,"reason":"bad_field:all_muted","type":"error","v":1}"#),
        (#"{"v":1,"type":"probe_downlink","id":3,"bitrate":1}"#, true, #"{"code":-5,"id":3,"reason":"not_a_probe","type":"error","v":1}"#),
        (#"{"v":1,"type":"leave","id":3}"#, false, #"{"code":-113,"id":3,"reason":"not_in_channel","type":"error","v":1}"#),
        (#"{"v":1,"type":"ping","id":2.0}"#, false, #"{"id":2,"server_time_ms":1718000000000,"type":"pong","v":1}"#),
    ]

    static func reply(to request: String, inSession: Bool) -> String {
        var core = SignalingCore(config: { var c = ServerConfig(); c.acceptUnknownApps = true; return c }(),
                                 clockBase: Instant(nanoseconds: 0), unixAtBase: 1_718_000_000, seed: 1)
        let conn = ConnectionID(1)
        core.connected(conn, address: "10.0.0.1", now: Instant(nanoseconds: 0))
        if inSession {
            core.received(#"{"v":1,"type":"join","app_id":"app-one","channel":"room","uid":5}"#, on: conn,
                          now: Instant(nanoseconds: 0))
            while core.pollTransmit() != nil {}
        }
        core.received(request, on: conn, now: Instant(nanoseconds: 0))
        var last = ""
        while let out = core.pollTransmit() { if case .send(_, let text) = out { last = text } }
        return last
    }

    @Test func badRequestsGetTheSameErrorsAsBefore() {
        for (request, inSession, expected) in Self.cases {
            #expect(Self.reply(to: request, inSession: inSession) == expected, "\(request)")
        }
    }
}
