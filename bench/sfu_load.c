/*
 * Load for the forwarding benchmarks: one publisher socket sends RTP at a
 * fixed rate (SRTP-protected with libsrtp2 in "srtp" mode, plain in "plain"
 * mode) to a forwarder, and N subscriber sockets count what arrives. The
 * sockets are inherited already bound (and, for the SFU, already STUN-bound)
 * from the Python harness.
 *
 *   sfu_load MODE HOST PORT SECONDS PACKET_BYTES RATE_PPS PUB_FD KEYHEX SUB_FD,SUB_FD,... [PATTERN]
 *
 * PATTERN "audio" (the default): every packet is PACKET_BYTES of payload type
 * 111 on one SSRC. PATTERN "dual:HIGH:LOW" (decimal SSRCs): the two VP8
 * streams (payload type 96, RFC 7741) of a dual-stream publisher in the
 * proportions of a 1280x720@30 high stream at 1710 kbps (6 packets a frame)
 * and its 320x180@15 low stream at 140 kbps (1 packet a frame): a cycle of
 * 13 packets, high frame, low frame, high frame. Every packet is
 * PACKET_BYTES; each has the 4-byte VP8 descriptor (X=1, S on a frame's first
 * packet, a 15-bit PictureID) and a frame's first packet starts with the VP8
 * frame tag, a keyframe every 90 high (45 low) frames, as the engine's 3 s;
 * the marker bit ends each frame, timestamps step 3000 (high) and 6000 (low)
 * ticks. RATE_PPS counts the packets of both streams.
 *
 * Prints {"sent": S, "received": R, "seconds": T, "received_per_sub": [...]},
 * and with "dual" also "sent_high" and "sent_low".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <srtp2/srtp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "udp_batch.h"

#define MAX_SUBS 256
#define BATCH 64

static int sub_fds[MAX_SUBS];
static int sub_count;
static volatile int running = 1;
static unsigned long long received;
static unsigned long long received_per_sub[MAX_SUBS];

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *receiver(void *arg) {
    (void)arg;
    static char bufs[BATCH][2048];
    struct mmsghdr msgs[BATCH];
    struct iovec iov[BATCH];
    struct pollfd pfds[MAX_SUBS];
    for (int i = 0; i < sub_count; i++) { pfds[i].fd = sub_fds[i]; pfds[i].events = POLLIN; }
    while (running) {
        if (poll(pfds, (nfds_t)sub_count, 100) <= 0) continue;
        for (int i = 0; i < sub_count; i++) {
            if (!(pfds[i].revents & POLLIN)) continue;
            for (;;) {
                for (int j = 0; j < BATCH; j++) batch_set(&msgs[j], &iov[j], bufs[j], sizeof bufs[j], NULL);
                int n = recvmmsg(sub_fds[i], msgs, BATCH, MSG_DONTWAIT, NULL);
                if (n <= 0) break;
                __atomic_add_fetch(&received, (unsigned long long)n, __ATOMIC_RELAXED);
                received_per_sub[i] += (unsigned long long)n;
            }
        }
    }
    return NULL;
}

/* The dual-stream pattern: where the sender is in it. */
typedef struct dual_stream {
    unsigned int ssrc;
    unsigned short seq;
    unsigned int ts, step;      /* RTP timestamp and its step per frame (90 kHz) */
    unsigned int frame;         /* frames sent */
    unsigned int packets;       /* packets of a frame */
    unsigned int keyframe_every;
    unsigned short picture_id;
    unsigned long long sent;
} dual_stream;

#define DUAL_CYCLE 13

static void put32(unsigned char *p, unsigned int v) {
    p[0] = (unsigned char)(v >> 24); p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8); p[3] = (unsigned char)v;
}

/* Writes packet `index` of a frame of `s` (RTP header, VP8 descriptor, frame tag) into p. */
static void dual_packet(unsigned char *p, int size, dual_stream *s, unsigned int index) {
    int first = index == 0, last = index + 1 == s->packets;
    int key = s->frame % s->keyframe_every == 0;
    memset(p, 0xAB, (size_t)size);
    p[0] = 0x80;
    p[1] = (unsigned char)((last ? 0x80 : 0) | 96);
    p[2] = (unsigned char)(s->seq >> 8); p[3] = (unsigned char)s->seq;
    put32(p + 4, s->ts);
    put32(p + 8, s->ssrc);
    /* RFC 7741 section 4.2: X=1, S on the first packet, PID 0; I=1; M=1 and a 15-bit PictureID. */
    p[12] = (unsigned char)(0x80 | (first ? 0x10 : 0));
    p[13] = 0x80;
    p[14] = (unsigned char)(0x80 | (s->picture_id >> 8));
    p[15] = (unsigned char)s->picture_id;
    if (first) {
        /* RFC 6386 section 9.1: the frame tag (P=0 on keyframes, show_frame), then the keyframe start code. */
        p[16] = key ? 0x10 : 0x11;
        p[17] = 0x00; p[18] = 0x00;
        if (key) { p[19] = 0x9d; p[20] = 0x01; p[21] = 0x2a; }
    }
    s->seq++;
    s->sent++;
    if (last) {
        s->frame++;
        s->ts += s->step;
        s->picture_id = (unsigned short)((s->picture_id + 1) & 0x7FFF);
    }
}

/* Packet `k` of the cycle: high frame (6), low frame (1), high frame (6). */
static void dual_next(unsigned char *p, int size, dual_stream *high, dual_stream *low, unsigned long long k) {
    unsigned int at = (unsigned int)(k % DUAL_CYCLE);
    if (at < 6) dual_packet(p, size, high, at);
    else if (at == 6) dual_packet(p, size, low, 0);
    else dual_packet(p, size, high, at - 7);
}

static int unhex(const char *hex, unsigned char *out, int max) {
    int n = 0;
    while (hex[0] && hex[1] && n < max) {
        unsigned int v;
        if (sscanf(hex, "%2x", &v) != 1) return -1;
        out[n++] = (unsigned char)v;
        hex += 2;
    }
    return n;
}

int main(int argc, char **argv) {
    if (argc != 10 && argc != 11) {
        fprintf(stderr,
                "usage: sfu_load MODE HOST PORT SECONDS PACKET_BYTES RATE_PPS PUB_FD KEYHEX SUB_FDS [PATTERN]\n");
        return 2;
    }
    int dual = 0;
    dual_stream high = {0, 1000, 0, 3000, 0, 6, 90, 0, 0}, low = {0, 30000, 0, 6000, 0, 1, 45, 0x1234, 0};
    if (argc == 11 && strcmp(argv[10], "audio") != 0) {
        if (sscanf(argv[10], "dual:%u:%u", &high.ssrc, &low.ssrc) != 2 || high.ssrc == low.ssrc) {
            fprintf(stderr, "sfu_load: PATTERN is audio or dual:HIGH_SSRC:LOW_SSRC\n");
            return 2;
        }
        dual = 1;
    }
    int srtp_mode = strcmp(argv[1], "srtp") == 0;
    struct sockaddr_in to = {0};
    to.sin_family = AF_INET;
    to.sin_port = htons((unsigned short)atoi(argv[3]));
    inet_pton(AF_INET, argv[2], &to.sin_addr);
    double seconds = atof(argv[4]);
    int packet_bytes = atoi(argv[5]);
    if (packet_bytes < 24 || packet_bytes > 1400) {
        fprintf(stderr, "sfu_load: PACKET_BYTES is 24..1400\n");
        return 2;
    }
    double rate = atof(argv[6]);
    int pub = atoi(argv[7]);
    sub_count = parse_int_list(argv[9], sub_fds, MAX_SUBS);

    srtp_t session = NULL;
    if (srtp_mode) {
        unsigned char key[64];
        if (unhex(argv[8], key, sizeof key) != 28 || srtp_init() != srtp_err_status_ok) return 3;
        srtp_policy_t policy;
        memset(&policy, 0, sizeof policy);
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp);
        srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp);
        policy.ssrc.type = ssrc_any_outbound;
        policy.key = key;
        if (srtp_create(&session, &policy) != srtp_err_status_ok) return 3;
    }

    pthread_t rx;
    pthread_create(&rx, NULL, receiver, NULL);

    static unsigned char pkts[BATCH][2048];
    struct mmsghdr msgs[BATCH];
    struct iovec iov[BATCH];
    unsigned long long sent = 0, built = 0;
    unsigned short seq = 1;
    unsigned int ts = 0;
    double start = now_s(), end = start + seconds;
    while (now_s() < end) {
        /* Send what the schedule says is due, in batches. */
        unsigned long long due = (unsigned long long)((now_s() - start) * rate);
        while (sent < due) {
            int n = 0;
            while (n < BATCH && sent + (unsigned long long)n < due) {
                unsigned char *p = pkts[n];
                int len = packet_bytes;
                if (dual) {
                    dual_next(p, packet_bytes, &high, &low, built++);
                    if (session && srtp_protect(session, p, &len) != srtp_err_status_ok) return 4;
                    batch_set(&msgs[n], &iov[n], p, (size_t)len, &to);
                    n++;
                    continue;
                }
                memset(p, 0xAB, (size_t)packet_bytes);
                p[0] = 0x80; p[1] = 111;
                p[2] = (unsigned char)(seq >> 8); p[3] = (unsigned char)seq;
                p[4] = (unsigned char)(ts >> 24); p[5] = (unsigned char)(ts >> 16);
                p[6] = (unsigned char)(ts >> 8); p[7] = (unsigned char)ts;
                p[8] = 0x11; p[9] = 0x22; p[10] = 0x33; p[11] = 0x44;
                seq++;
                ts += 960;
                if (session && srtp_protect(session, p, &len) != srtp_err_status_ok) return 4;
                batch_set(&msgs[n], &iov[n], p, (size_t)len, &to);
                n++;
            }
            int done = sendmmsg(pub, msgs, (unsigned int)n, 0);
            if (done <= 0) break;
            sent += (unsigned long long)done;
        }
        struct timespec nap = {0, 200000};
        nanosleep(&nap, NULL);
    }
    /* Let the last packets arrive. */
    struct timespec settle = {0, 300000000};
    nanosleep(&settle, NULL);
    running = 0;
    pthread_join(rx, NULL);
    printf("{\"sent\": %llu, \"received\": %llu, \"seconds\": %.3f, \"received_per_sub\": [", sent, received,
           seconds);
    for (int i = 0; i < sub_count; i++) printf("%s%llu", i ? ", " : "", received_per_sub[i]);
    printf("]");
    if (dual) printf(", \"sent_high\": %llu, \"sent_low\": %llu", high.sent, low.sent);
    printf("}\n");
    if (session) srtp_dealloc(session);
    return 0;
}
