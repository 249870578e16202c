@testable import AgoraishServer
import AgoraishSession
import AgoraishWire
import Testing

/// The exact text both sides put on the wire through a call that uses every
/// message type: a change to an encoder shows up here first (docs/protocol.md
/// is the contract; key order is sorted, field names are fixed).
@Suite struct SignalingTranscriptTests {
    static let appId = "0d3723ff78bff15b898cbaa8565c4eaa", cert = "8417c227d4257030f424cee3a53e5829"

    static func token(_ channel: String, _ identity: TokenIdentity, expire: UInt32 = 600, at offset: Int64 = 0) -> String {
        AccessToken2.build(appId: appId, certificate: cert, channel: channel, identity: identity,
                           privilegeExpire: [.joinChannel: 0], expire: expire,
                           issueTs: UInt32(ClientServerDriver.unixBase + offset), salt: 3)
    }

    /// Runs a call through every request and notice; returns the wire.
    static func transcript() throws -> [String] {
        var d = ClientServerDriver(clients: 4, appId: appId) { $0.apps[appId] = .init(certificate: cert) }
        d.core.mediaEndpoint = ("198.51.100.7", 4443)
        // Alice: muted, with RTX SSRCs and a dual-stream video, before joining.
        d.clients[0].localAudioSsrcs = (1111, 1112)
        d.clients[0].localDataSsrcs = (2221, 2222)
        d.clients[0].setLocalAudioMuted(true)
        d.clients[0].setLocalVideoState(enabled: true, localEnabled: false, streamMuted: false, ssrc: 5, lowSsrc: 6,
                                        rtxSsrc: 7, lowRtxSsrc: 8)
        try d.call(0) { try $0.join(token: token("room", .uid(11), expire: 60), channel: "room", uid: 11, account: nil, now: $1) }
        d.core.streamPublished(session: 1, ssrc: 900, payloadType: 111, rtx: 901)
        d.core.streamPublished(session: 1, ssrc: 902, payloadType: 96, low: true, rtx: 903)
        // Bob: an account.
        try d.call(1) { try $0.join(token: token("room", .account("bob")), channel: "room", uid: 0, account: "bob", now: $1) }
        d.core.streamPublished(session: 1, ssrc: 904, payloadType: 100, rtx: 905)
        d.settle()
        try d.call(1) { s, _ in
            try s.muteRemoteAudio(uid: 11, true)
            s.setDefaultMuteAllRemoteVideo(true)
            try s.setRemoteVideoStreamType(uid: 11, low: true)
            try s.setRemoteSubscribeFallbackOption(2)
            try s.setRemoteUserPriority(uid: 11, high: true)
        }
        d.core.subscribeFallback(session: 2, uid: 11, audioOnly: true)
        d.call(0) { s, _ in s.setLocalAudioMuted(false) }
        d.call(0) { s, _ in s.setLocalVideoState(enabled: true, localEnabled: true, streamMuted: true, ssrc: 5, lowSsrc: 6) }
        try d.call(1) { try $0.registerLocalUserAccount("carol", now: $1) }
        try d.call(1) { try $0.renewToken(token("room", .account("bob"), expire: 900), now: $1) }
        // Keepalive, the expiry notice and the expiry.
        d.advance(.seconds(2))
        d.advance(.seconds(30))
        // A broken link resumes.
        d.call(1) { s, now in s.networkChanged(now: now) }
        d.advance(.seconds(1))
        // Another login with Bob's account takes his place.
        try d.call(2) { try $0.join(token: token("room", .account("bob")), channel: "room", uid: 0, account: "bob", now: $1) }
        d.advance(.seconds(30))
        // Live broadcasting: an audience member becomes a broadcaster, then leaves.
        try d.call(3) { s, now in
            try s.setChannelProfile(1)
            try s.join(token: token("live", .uid(44)), channel: "live", uid: 44, account: nil, now: now)
        }
        try d.call(3) { try $0.setClientRole(1, now: $1) }
        try d.call(3) { try $0.leave(now: $1) }
        // A last-mile probe.
        try d.call(3) { try $0.startProbeTest(token: token("probe", .uid(0)), now: $1) }
        try d.call(3) { s, _ in try s.requestDownlinkProbe(bitrate: 800_000, durationMs: 1500) }
        try d.call(3) { try $0.stopProbeTest(now: $1) }
        // An echo test.
        try d.call(3) { try $0.startEchoTest(intervalMs: 3000, token: token("echo", .uid(0)), now: $1) }
        return d.wire
    }

    /// Keepalives after the first of each client and direction are left out.
    static func trimmed(_ wire: [String]) -> [String] {
        var seen: Set<String> = []
        return wire.filter { line in
            guard line.contains(#""type":"ping""#) || line.contains(#""type":"pong""#) else { return true }
            return seen.insert(String(line.prefix(2))).inserted
        }
    }

    @Test func everyMessageTypeIsWrittenAsBefore() throws {
        let wire = Self.trimmed(try Self.transcript())
        let golden = Self.golden.split(separator: "\n").map(String.init)
        #expect(wire.count == golden.count)
        for (line, expected) in zip(wire, golden) { #expect(line == expected) }
    }

    /// The wire as the string-keyed encoders wrote it before the messages were typed.
    static let golden = #"""
0> {"app_id":"0d3723ff78bff15b898cbaa8565c4eaa","area_code":4294967295,"channel":"room","id":1,"profile":0,"role":2,"token":"007eJxTYAgp4Hxz5xkjy2a2TVOu/1G7tGNXP/PP8tKdB883egR9k29RYDBIMTY3Mk5LM7dISkszNE2ysLRITkpMtDA1M002SU1MbJiZlmbDwMDADMSMUAgCLAxF+fm5TAyGhgDgUB8Y","type":"join","uid":11,"v":1}
0< {"call_id":"0d3723ff-1-1718000000000","drop_timeout_ms":20000,"id":1,"keepalive_ms":2000,"media":{"downlink_key":"chQ6SjXyp9HvSzD8NjsP3uTluPF0t9/oyLKakA==","host":"198.51.100.7","ice_pwd":"28hG58Mxul4DZmw/NEo1tDde","ice_ufrag":"XMOeC3hm","port":4443,"srtp_profile":"AEAD_AES_128_GCM","uplink_key":"sMM96R1xQD0KYaUmZ9enirBls1WHWEth5p/PqQ=="},"profile":0,"resume_token":"7F8r8Bz0Kzr96yEAsJ58QJ+0s/KNMjOJ","role":2,"server_time_ms":1718000000000,"session":1,"streams":[],"token_expire_ts":1718000060,"type":"joined","uid":11,"users":[],"v":1}
0> {"data_rtx_ssrc":2222,"data_ssrc":2221,"muted":true,"rtx_ssrc":1112,"ssrc":1111,"type":"set_audio_state","v":1}
0> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_audio_subscription","unmuted":[],"v":1}
0> {"enabled":true,"local_enabled":false,"low_rtx_ssrc":8,"low_ssrc":6,"muted":true,"rtx_ssrc":7,"ssrc":5,"stream_muted":false,"type":"set_video_state","v":1}
0> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_video_subscription","unmuted":[],"v":1}
1> {"account":"bob","app_id":"0d3723ff78bff15b898cbaa8565c4eaa","area_code":4294967295,"channel":"room","id":1,"profile":0,"role":2,"token":"007eJxTYJhl+eGd39unrDcECzSu8218W117rHHGL8FXUitbL7K+/rROgcEgxdjcyDgtzdwiKS3N0DTJwtIiOSkx0cLUzDTZJDUxsWFmWloEEwMDMwMDAyMUggALQ1F+fi4zQ1J+EgBlfiEn","type":"join","v":1}
1< {"account":"bob","call_id":"0d3723ff-2-1718000000000","drop_timeout_ms":20000,"id":1,"keepalive_ms":2000,"media":{"downlink_key":"LUUXPmKX7Nr5uX5DIhkUIas4xIK4uKuIYCYCiQ==","host":"198.51.100.7","ice_pwd":"vGvetpT7DiHw3XHAtgxLZQqx","ice_ufrag":"zgCCbWVu","port":4443,"srtp_profile":"AEAD_AES_128_GCM","uplink_key":"5DHMQYDvUKcaC8pg1lefi9XJWJqT/OvJGm5AvQ=="},"profile":0,"resume_token":"VRjQnZAb9eG0GdrbljP82DSZ0sLmfzn4","role":2,"server_time_ms":1718000000000,"session":2,"streams":[{"payload_type":111,"rtx_ssrc":901,"ssrc":900,"uid":11},{"layer":"low","payload_type":96,"rtx_ssrc":903,"ssrc":902,"uid":11}],"token_expire_ts":1718000600,"type":"joined","uid":2298633409,"users":[{"audio_muted":true,"local_video_enabled":false,"uid":11,"video_enabled":true,"video_muted":true,"video_stream_muted":false}],"v":1}
0< {"account":"bob","type":"user_info","uid":2298633409,"v":1}
0< {"account":"bob","type":"user_joined","uid":2298633409,"v":1}
1> {"muted":false,"type":"set_audio_state","v":1}
1> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_audio_subscription","unmuted":[],"v":1}
1> {"enabled":true,"local_enabled":true,"low_rtx_ssrc":0,"low_ssrc":0,"muted":false,"rtx_ssrc":0,"ssrc":0,"stream_muted":false,"type":"set_video_state","v":1}
1> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_video_subscription","unmuted":[],"v":1}
0< {"enabled":true,"local_enabled":true,"muted":false,"stream_muted":false,"type":"user_mute_video","uid":2298633409,"v":1}
1< {"payload_type":100,"rtx_ssrc":905,"ssrc":904,"type":"stream_added","uid":11,"v":1}
1> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[11],"priority_uid":null,"type":"set_audio_subscription","unmuted":[],"v":1}
1> {"all_muted":false,"default_low":false,"default_muted":true,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_video_subscription","unmuted":[11],"v":1}
1> {"all_muted":false,"default_low":false,"default_muted":true,"fallback":1,"high":[],"low":[11],"muted":[],"priority_uid":null,"type":"set_video_subscription","unmuted":[11],"v":1}
1> {"all_muted":false,"default_low":false,"default_muted":true,"fallback":2,"high":[],"low":[11],"muted":[],"priority_uid":null,"type":"set_video_subscription","unmuted":[11],"v":1}
1> {"all_muted":false,"default_low":false,"default_muted":true,"fallback":2,"high":[],"low":[11],"muted":[],"priority_uid":11,"type":"set_video_subscription","unmuted":[11],"v":1}
0> {"data_rtx_ssrc":2222,"data_ssrc":2221,"muted":false,"rtx_ssrc":1112,"ssrc":1111,"type":"set_audio_state","v":1}
1< {"audio_only":true,"type":"subscribe_fallback","uid":11,"v":1}
1< {"muted":false,"type":"user_mute_audio","uid":11,"v":1}
0> {"enabled":true,"local_enabled":true,"low_rtx_ssrc":0,"low_ssrc":6,"muted":true,"rtx_ssrc":0,"ssrc":5,"stream_muted":true,"type":"set_video_state","v":1}
1< {"enabled":true,"local_enabled":true,"muted":true,"stream_muted":true,"type":"user_mute_video","uid":11,"v":1}
1> {"account":"carol","app_id":"0d3723ff78bff15b898cbaa8565c4eaa","id":2,"type":"register_account","v":1}
1< {"account":"carol","id":2,"type":"account_registered","uid":1703865447,"v":1}
1> {"id":3,"token":"007eJxTYPjN8/bkMsN9b2cySlQax6ypMz67YPd3le+Z+uutf/loyeorMBikGJsbGaelmVskpaUZmiZZWFokJyUmWpiamSabpCYmNsxMS2thZmAAIgZGKAQBFoai/PxcZoak/CQArxAe0w==","type":"renew_token","v":1}
1< {"id":3,"token_expire_ts":1718000900,"type":"token_renewed","v":1}
0> {"id":2,"type":"ping","v":1}
1> {"id":4,"type":"ping","v":1}
0< {"id":2,"server_time_ms":1718000002000,"type":"pong","v":1}
1< {"id":4,"server_time_ms":1718000002000,"type":"pong","v":1}
0< {"token_expire_ts":1718000060,"type":"token_will_expire","v":1}
1> {"id":20,"resume_token":"VRjQnZAb9eG0GdrbljP82DSZ0sLmfzn4","session":2,"token":"007eJxTYPjN8/bkMsN9b2cySlQax6ypMz67YPd3le+Z+uutf/loyeorMBikGJsbGaelmVskpaUZmiZZWFokJyUmWpiamSabpCYmNsxMS2thZmAAIgZGKAQBFoai/PxcZoak/CQArxAe0w==","type":"resume","v":1}
1< {"id":20,"media":{"downlink_key":"LUUXPmKX7Nr5uX5DIhkUIas4xIK4uKuIYCYCiQ==","host":"198.51.100.7","ice_pwd":"vGvetpT7DiHw3XHAtgxLZQqx","ice_ufrag":"zgCCbWVu","port":4443,"srtp_profile":"AEAD_AES_128_GCM","uplink_key":"5DHMQYDvUKcaC8pg1lefi9XJWJqT/OvJGm5AvQ=="},"role":2,"server_time_ms":1718000032000,"session":2,"streams":[{"payload_type":111,"rtx_ssrc":901,"ssrc":900,"uid":11},{"layer":"low","payload_type":96,"rtx_ssrc":903,"ssrc":902,"uid":11},{"payload_type":100,"rtx_ssrc":905,"ssrc":904,"uid":11}],"token_expire_ts":1718000900,"type":"resumed","uid":2298633409,"users":[{"local_video_enabled":true,"uid":11,"video_enabled":true,"video_muted":true,"video_stream_muted":true}],"v":1}
1> {"muted":false,"type":"set_audio_state","v":1}
1> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[11],"priority_uid":null,"type":"set_audio_subscription","unmuted":[],"v":1}
1> {"enabled":true,"local_enabled":true,"low_rtx_ssrc":0,"low_ssrc":0,"muted":false,"rtx_ssrc":0,"ssrc":0,"stream_muted":false,"type":"set_video_state","v":1}
1> {"all_muted":false,"default_low":false,"default_muted":true,"fallback":2,"high":[],"low":[11],"muted":[],"priority_uid":11,"type":"set_video_subscription","unmuted":[11],"v":1}
2> {"account":"bob","app_id":"0d3723ff78bff15b898cbaa8565c4eaa","area_code":4294967295,"channel":"room","id":1,"profile":0,"role":2,"token":"007eJxTYJhl+eGd39unrDcECzSu8218W117rHHGL8FXUitbL7K+/rROgcEgxdjcyDgtzdwiKS3N0DTJwtIiOSkx0cLUzDTZJDUxsWFmWloEEwMDMwMDAyMUggALQ1F+fi4zQ1J+EgBlfiEn","type":"join","v":1}
1< {"code":-17,"connection_reason":19,"reason":"same_uid_login","type":"kicked","v":1}
0< {"reason":0,"type":"user_offline","uid":2298633409,"v":1}
2< {"account":"bob","call_id":"0d3723ff-3-1718000033000","drop_timeout_ms":20000,"id":1,"keepalive_ms":2000,"media":{"downlink_key":"b/NmFW6eA8jiQpPY8vql77P36sHaF0HIvmGMrw==","host":"198.51.100.7","ice_pwd":"QmnnenKC1MDAseBxQBIWz+1t","ice_ufrag":"TqanWYsl","port":4443,"srtp_profile":"AEAD_AES_128_GCM","uplink_key":"+vL/KW5jVc7HtGgz1hY810/+AiTubNENVbZDdg=="},"profile":0,"resume_token":"IXXsM1slboDOnE0fEeyL7DhiK+f+1wsC","role":2,"server_time_ms":1718000033000,"session":3,"streams":[{"payload_type":111,"rtx_ssrc":901,"ssrc":900,"uid":11},{"layer":"low","payload_type":96,"rtx_ssrc":903,"ssrc":902,"uid":11},{"payload_type":100,"rtx_ssrc":905,"ssrc":904,"uid":11}],"token_expire_ts":1718000600,"type":"joined","uid":2298633409,"users":[{"local_video_enabled":true,"uid":11,"video_enabled":true,"video_muted":true,"video_stream_muted":true}],"v":1}
0< {"account":"bob","type":"user_info","uid":2298633409,"v":1}
0< {"account":"bob","type":"user_joined","uid":2298633409,"v":1}
2> {"muted":false,"type":"set_audio_state","v":1}
2> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_audio_subscription","unmuted":[],"v":1}
2> {"enabled":true,"local_enabled":true,"low_rtx_ssrc":0,"low_ssrc":0,"muted":false,"rtx_ssrc":0,"ssrc":0,"stream_muted":false,"type":"set_video_state","v":1}
2> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_video_subscription","unmuted":[],"v":1}
0< {"enabled":true,"local_enabled":true,"muted":false,"stream_muted":false,"type":"user_mute_video","uid":2298633409,"v":1}
2> {"id":2,"type":"ping","v":1}
2< {"id":2,"server_time_ms":1718000035000,"type":"pong","v":1}
0< {"connection_reason":9,"type":"token_expired","v":1}
2< {"reason":1,"type":"user_offline","uid":11,"v":1}
3> {"app_id":"0d3723ff78bff15b898cbaa8565c4eaa","area_code":4294967295,"channel":"live","id":1,"profile":1,"role":2,"token":"007eJxTYFALfnT1H0NItN/tI/3HlmW5HJ+U9kixP7jgtZ/awd4O+8kKDAYpxuZGxmlp5hZJaWmGpkkWlhbJSYmJFqZmpskmqYmJDTPT0iKYGBiYGRgYGKEQBFgYcjLLUpkYTEwAuYUejQ==","type":"join","uid":44,"v":1}
3< {"call_id":"0d3723ff-4-1718000063000","drop_timeout_ms":20000,"id":1,"keepalive_ms":2000,"media":{"downlink_key":"vTDdHGlNndhprK5dx/aSfcpxPCl2eDyfvLT5Mg==","host":"198.51.100.7","ice_pwd":"E5biVugcMQuJovzD8dzfSWty","ice_ufrag":"gq0ij1eS","port":4443,"srtp_profile":"AEAD_AES_128_GCM","uplink_key":"7ufAGGPDEy8WmNUiMhrxDEEykeb+DH2OEughxw=="},"profile":1,"resume_token":"d8frcq+M88tYmDyq6EBUclr34vC7IdU6","role":2,"server_time_ms":1718000063000,"session":4,"streams":[],"token_expire_ts":1718000600,"type":"joined","uid":44,"users":[],"v":1}
3> {"muted":false,"type":"set_audio_state","v":1}
3> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_audio_subscription","unmuted":[],"v":1}
3> {"enabled":true,"local_enabled":true,"low_rtx_ssrc":0,"low_ssrc":0,"muted":false,"rtx_ssrc":0,"ssrc":0,"stream_muted":false,"type":"set_video_state","v":1}
3> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_video_subscription","unmuted":[],"v":1}
3> {"id":2,"role":1,"type":"set_role","v":1}
3< {"id":2,"new":1,"old":2,"type":"role_changed","v":1}
3> {"id":3,"type":"leave","v":1}
3< {"id":3,"type":"left","v":1}
3> {"app_id":"0d3723ff78bff15b898cbaa8565c4eaa","area_code":4294967295,"channel":"probe","id":4,"probe":true,"profile":1,"role":1,"token":"007eJxTYDi45uAhUc3qZDtbtpzXIWvqqkUv7qsv11jjuifhZExk6TQFBoMUY3Mj47Q0c4uktDRD0yQLS4vkpMREC1Mz02ST1MTEhplpaRFMDAzMDAwMjFAIAqwMBUX5SakMDAAmIR0z","type":"join","uid":0,"v":1}
3< {"call_id":"0d3723ff-5-1718000063000","drop_timeout_ms":20000,"id":4,"keepalive_ms":2000,"media":{"downlink_key":"qVkx8Avnm4hNh0Yznb4XuTXkos9Rs3WAQr72MA==","host":"198.51.100.7","ice_pwd":"ECWz01bOa/bLlxdVdt/9hLje","ice_ufrag":"BxZ1+oWP","port":4443,"srtp_profile":"AEAD_AES_128_GCM","uplink_key":"uvZi1PZcaVxxQp8hBJWyyECMBxjwPx5hozaaFg=="},"profile":1,"resume_token":"LPh1nsM32KTxRCP++/ExDJOdphgLBWX6","role":1,"server_time_ms":1718000063000,"session":5,"streams":[],"type":"joined","uid":4214379870,"users":[],"v":1}
3> {"muted":false,"type":"set_audio_state","v":1}
3> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_audio_subscription","unmuted":[],"v":1}
3> {"enabled":true,"local_enabled":true,"low_rtx_ssrc":0,"low_ssrc":0,"muted":false,"rtx_ssrc":0,"ssrc":0,"stream_muted":false,"type":"set_video_state","v":1}
3> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_video_subscription","unmuted":[],"v":1}
3> {"bitrate":800000,"duration_ms":1500,"type":"probe_downlink","v":1}
3> {"id":5,"type":"leave","v":1}
3< {"id":5,"type":"left","v":1}
3> {"app_id":"0d3723ff78bff15b898cbaa8565c4eaa","area_code":4294967295,"channel":"echo","echo_ms":3000,"id":6,"profile":1,"role":1,"token":"007eJxTYPgwf9sODaY7CmJn787ovbqo80ycuuyBwowAmw8Oyt7Bf98qMBikGJsbGaelmVskpaUZmiZZWFokJyUmWpiamSabpCYmNsxMS4tgYmBgZmBgYIRCEGBhSE3OyGdgAAB3Lh36","type":"join","uid":0,"v":1}
3< {"call_id":"0d3723ff-6-1718000063000","drop_timeout_ms":20000,"id":6,"keepalive_ms":2000,"media":{"downlink_key":"zfQnU6LA3qs5pBGuhKzid+ojoh2vXW4+IOPQiQ==","host":"198.51.100.7","ice_pwd":"GUSw4Akw8Iuut79Kpgjjy/ky","ice_ufrag":"j3rwtXR5","port":4443,"srtp_profile":"AEAD_AES_128_GCM","uplink_key":"jdjsnCGDR5oXMtj9aTpJ2ahg/jofFqra0em9ZA=="},"profile":1,"resume_token":"Ip1iY37wsLMVOCCgbJO/fj4ZLv+zuTer","role":1,"server_time_ms":1718000063000,"session":6,"streams":[],"type":"joined","uid":3997354251,"users":[],"v":1}
3> {"muted":false,"type":"set_audio_state","v":1}
3> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_audio_subscription","unmuted":[],"v":1}
3> {"enabled":true,"local_enabled":true,"low_rtx_ssrc":0,"low_ssrc":0,"muted":false,"rtx_ssrc":0,"ssrc":0,"stream_muted":false,"type":"set_video_state","v":1}
3> {"all_muted":false,"default_low":false,"default_muted":false,"fallback":1,"high":[],"low":[],"muted":[],"priority_uid":null,"type":"set_video_subscription","unmuted":[],"v":1}
"""#
}
