import CAgoraishShim
import Glibc
import Testing

/// The C shim is reachable and does what the wrapped C calls do.
@Suite struct ShimTests {
    @Test func opusControlsRoundTrip() {
        var err: Int32 = 0
        let enc = opus_encoder_create(48000, 1, OPUS_APPLICATION_VOIP, &err)
        #expect(err == OPUS_OK)
        defer { opus_encoder_destroy(enc) }
        #expect(agsh_opus_encoder_set_int(enc, OPUS_SET_BITRATE_REQUEST, 32000) == OPUS_OK)
        #expect(agsh_opus_encoder_set_int(enc, OPUS_SET_INBAND_FEC_REQUEST, 1) == OPUS_OK)
        var bitrate: Int32 = 0
        var fec: Int32 = 0
        #expect(agsh_opus_encoder_get_int(enc, OPUS_GET_BITRATE_REQUEST, &bitrate) == OPUS_OK)
        #expect(agsh_opus_encoder_get_int(enc, OPUS_GET_INBAND_FEC_REQUEST, &fec) == OPUS_OK)
        #expect(bitrate == 32000)
        #expect(fec == 1)
        #expect(agsh_opus_encoder_set_int(enc, OPUS_SET_BITRATE_REQUEST, -5) == OPUS_BAD_ARG)
    }

    @Test func vp8EncoderInitializesThroughTheMacroWrapper() {
        var cfg = vpx_codec_enc_cfg_t()
        #expect(vpx_codec_enc_config_default(agsh_vpx_vp8_cx(), &cfg, 0) == VPX_CODEC_OK)
        cfg.g_w = 320
        cfg.g_h = 240
        var ctx = vpx_codec_ctx_t()
        #expect(agsh_vpx_codec_enc_init(&ctx, agsh_vpx_vp8_cx(), &cfg, 0) == VPX_CODEC_OK)
        #expect(agsh_vpx_codec_control_int(&ctx, Int32(VP8E_SET_CPUUSED.rawValue), -6) == VPX_CODEC_OK)
        vpx_codec_destroy(&ctx)
    }

    @Test func epollSeesAnEventfdWrite() {
        let ep = epoll_create1(Int32(EPOLL_CLOEXEC))
        let ev = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        defer { close(ep); close(ev) }
        #expect(agsh_epoll_ctl(ep, EPOLL_CTL_ADD, ev, EPOLLIN.rawValue, 42) == 0)
        var events = [UInt32](repeating: 0, count: 4)
        var data = [UInt64](repeating: 0, count: 4)
        #expect(agsh_epoll_wait(ep, &events, &data, 4, 0) == 0)
        var one: UInt64 = 1
        #expect(write(ev, &one, 8) == 8)
        #expect(agsh_epoll_wait(ep, &events, &data, 4, 1000) == 1)
        #expect(data[0] == 42)
        #expect(events[0] & EPOLLIN.rawValue != 0)
    }

    @Test func timerfdFires() {
        let ep = epoll_create1(Int32(EPOLL_CLOEXEC))
        let tfd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        defer { close(ep); close(tfd) }
        #expect(agsh_epoll_ctl(ep, EPOLL_CTL_ADD, tfd, EPOLLIN.rawValue, 7) == 0)
        #expect(agsh_timerfd_arm(tfd, 1_000_000) == 0)
        var events = [UInt32](repeating: 0, count: 1)
        var data = [UInt64](repeating: 0, count: 1)
        #expect(agsh_epoll_wait(ep, &events, &data, 1, 2000) == 1)
        #expect(data[0] == 7)
    }

    @Test func sendmmsgAndRecvmmsgCarryABatchOverLoopback() {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
        }
        #expect(bound == 0)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        let count = 8
        var payloads = (0..<count).map { i in [UInt8](repeating: UInt8(i), count: 100 + i) }
        var out = [agsh_datagram](repeating: agsh_datagram(), count: count)
        var inbox = [[UInt8]](repeating: [UInt8](repeating: 0, count: 1500), count: count)
        var received = [agsh_datagram](repeating: agsh_datagram(), count: count)
        let sent: Int32 = payloads.withUnsafeMutableBufferPointer { payloadsBuf in
            inbox.withUnsafeMutableBufferPointer { inboxBuf in
                for i in 0..<count {
                    payloadsBuf[i].withUnsafeMutableBytes { out[i].buffer = $0.baseAddress }
                    out[i].length = 100 + i
                    withUnsafeBytes(of: addr) { raw in
                        withUnsafeMutableBytes(of: &out[i].addr) { $0.copyMemory(from: raw) }
                    }
                    out[i].addr_len = len
                    inboxBuf[i].withUnsafeMutableBytes { received[i].buffer = $0.baseAddress }
                    received[i].length = 1500
                }
                let n = agsh_sendmmsg(fd, &out, UInt32(count))
                #expect(agsh_recvmmsg(fd, &received, UInt32(count)) == Int32(count))
                return n
            }
        }
        #expect(sent == Int32(count))
        for i in 0..<count {
            #expect(received[i].length == 100 + i)
            #expect(inbox[i][0] == UInt8(i))
        }
    }
}
