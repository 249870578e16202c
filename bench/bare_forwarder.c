/*
 * The baseline of the forwarding benchmark: a minimal UDP forwarder without
 * crypto. Every datagram that arrives on PORT is sent to each of the given
 * subscriber ports on 127.0.0.1, with recvmmsg/sendmmsg batches of 64, the
 * same system calls agoraish-server uses. Runs until killed.
 *
 *   bare_forwarder PORT SUB_PORT,SUB_PORT,...
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
    int nsubs = parse_int_list(argv[2], ports, MAX_SUBS);
    for (int s = 0; s < nsubs; s++) subs[s] = loopback(ports[s]);
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
            for (int s = 0; s < nsubs; s++) {
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
