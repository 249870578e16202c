/*
 * Load for the forwarding benchmark: one publisher socket sends RTP at a fixed
 * rate (SRTP-protected with libsrtp2 in "srtp" mode, plain in "plain" mode) to
 * a forwarder, and N subscriber sockets count what arrives. The sockets are
 * inherited already bound (and, for the SFU, already STUN-bound) from the
 * Python harness.
 *
 *   sfu_load MODE HOST PORT SECONDS PACKET_BYTES RATE_PPS PUB_FD KEYHEX SUB_FD,SUB_FD,...
 *
 * Prints {"sent": S, "received": R, "seconds": T}.
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
            }
        }
    }
    return NULL;
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
    if (argc != 10) {
        fprintf(stderr, "usage: sfu_load MODE HOST PORT SECONDS PACKET_BYTES RATE_PPS PUB_FD KEYHEX SUB_FDS\n");
        return 2;
    }
    int srtp_mode = strcmp(argv[1], "srtp") == 0;
    struct sockaddr_in to = {0};
    to.sin_family = AF_INET;
    to.sin_port = htons((unsigned short)atoi(argv[3]));
    inet_pton(AF_INET, argv[2], &to.sin_addr);
    double seconds = atof(argv[4]);
    int packet_bytes = atoi(argv[5]);
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
    unsigned long long sent = 0;
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
                memset(p, 0xAB, (size_t)packet_bytes);
                p[0] = 0x80; p[1] = 111;
                p[2] = (unsigned char)(seq >> 8); p[3] = (unsigned char)seq;
                p[4] = (unsigned char)(ts >> 24); p[5] = (unsigned char)(ts >> 16);
                p[6] = (unsigned char)(ts >> 8); p[7] = (unsigned char)ts;
                p[8] = 0x11; p[9] = 0x22; p[10] = 0x33; p[11] = 0x44;
                seq++;
                ts += 960;
                int len = packet_bytes;
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
    printf("{\"sent\": %llu, \"received\": %llu, \"seconds\": %.3f}\n", sent, received, seconds);
    if (session) srtp_dealloc(session);
    return 0;
}
