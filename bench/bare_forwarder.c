/*
 * The baseline of the forwarding benchmarks: a minimal UDP forwarder without
 * crypto. Every datagram that arrives on PORT is sent to each of the given
 * subscriber ports on 127.0.0.1, with recvmmsg/sendmmsg batches of 64, the
 * same system calls agoraish-server uses. A subscriber given as PORT@SSRC
 * (decimal) gets only the RTP packets of that SSRC (bytes 8..11), the least
 * a forwarder does to send each subscriber one stream of a dual-stream
 * publisher. Runs until killed.
 *
 *   bare_forwarder PORT SUB_PORT[@SSRC],SUB_PORT[@SSRC],...
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "udp_batch.h"

#define BATCH 64
#define MAX_SUBS 256

/** 127.0.0.1:port. */
static struct sockaddr_in loopback(int port) {
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((unsigned short)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return addr;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bare_forwarder PORT SUB_PORTS\n");
        return 2;
    }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in me = loopback(atoi(argv[1]));
    if (bind(fd, (struct sockaddr *)&me, sizeof me) != 0) { perror("bind"); return 1; }
    struct sockaddr_in subs[MAX_SUBS];
    int ports[MAX_SUBS];
    /* Each subscriber's SSRC (0: every packet), from the "@SSRC" after its port. */
    unsigned int only[MAX_SUBS];
    int filtered = 0;
    int nsubs = parse_int_list(argv[2], ports, MAX_SUBS);
    const char *at = argv[2];
    for (int s = 0; s < nsubs; s++) {
        const char *end = strchr(at, ',');
        const char *mark = strchr(at, '@');
        only[s] = mark && (!end || mark < end) ? (unsigned int)strtoul(mark + 1, NULL, 10) : 0;
        if (only[s]) filtered = 1;
        subs[s] = loopback(ports[s]);
        at = end ? end + 1 : at + strlen(at);
    }
    printf("ready\n");
    fflush(stdout);
    static char in[BATCH][2048];
    static char out[BATCH][2048];
    struct mmsghdr rx[BATCH], tx[BATCH];
    struct iovec riov[BATCH], tiov[BATCH];
    for (;;) {
        for (int i = 0; i < BATCH; i++) batch_set(&rx[i], &riov[i], in[i], sizeof in[i], NULL);
        int n = recvmmsg(fd, rx, BATCH, MSG_WAITFORONE, NULL);
        if (n <= 0) continue;
        int queued = 0;
        for (int i = 0; i < n; i++) {
            unsigned int ssrc = 0;
            if (filtered && rx[i].msg_len >= 12) {
                const unsigned char *h = (const unsigned char *)in[i];
                ssrc = (unsigned int)h[8] << 24 | (unsigned int)h[9] << 16 | (unsigned int)h[10] << 8 | h[11];
            }
            for (int s = 0; s < nsubs; s++) {
                if (only[s] && only[s] != ssrc) continue;
                if (queued == BATCH) {
                    sendmmsg(fd, tx, BATCH, 0);
                    queued = 0;
                }
                /* Copy per receiver, as a forwarder that rewrites headers must. */
                memcpy(out[queued], in[i], rx[i].msg_len);
                batch_set(&tx[queued], &tiov[queued], out[queued], rx[i].msg_len, &subs[s]);
                queued++;
            }
        }
        if (queued) sendmmsg(fd, tx, (unsigned int)queued, 0);
    }
}
