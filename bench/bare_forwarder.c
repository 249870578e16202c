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

#define BATCH 64
#define MAX_SUBS 256

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bare_forwarder PORT SUB_PORTS\n");
        return 2;
    }
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in me = {0};
    me.sin_family = AF_INET;
    me.sin_port = htons((unsigned short)atoi(argv[1]));
    me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&me, sizeof me) != 0) { perror("bind"); return 1; }
    struct sockaddr_in subs[MAX_SUBS];
    int nsubs = 0;
    for (char *p = argv[2]; *p && nsubs < MAX_SUBS;) {
        memset(&subs[nsubs], 0, sizeof subs[nsubs]);
        subs[nsubs].sin_family = AF_INET;
        subs[nsubs].sin_port = htons((unsigned short)atoi(p));
        subs[nsubs].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        nsubs++;
        while (*p && *p != ',') p++;
        if (*p == ',') p++;
    }
    printf("ready\n");
    fflush(stdout);
    static char in[BATCH][2048];
    static char out[BATCH][2048];
    struct mmsghdr rx[BATCH], tx[BATCH];
    struct iovec riov[BATCH], tiov[BATCH];
    for (;;) {
        for (int i = 0; i < BATCH; i++) {
            riov[i].iov_base = in[i];
            riov[i].iov_len = sizeof in[i];
            memset(&rx[i].msg_hdr, 0, sizeof rx[i].msg_hdr);
            rx[i].msg_hdr.msg_iov = &riov[i];
            rx[i].msg_hdr.msg_iovlen = 1;
        }
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
                tiov[queued].iov_base = out[queued];
                tiov[queued].iov_len = rx[i].msg_len;
                memset(&tx[queued].msg_hdr, 0, sizeof tx[queued].msg_hdr);
                tx[queued].msg_hdr.msg_iov = &tiov[queued];
                tx[queued].msg_hdr.msg_iovlen = 1;
                tx[queued].msg_hdr.msg_name = &subs[s];
                tx[queued].msg_hdr.msg_namelen = sizeof subs[s];
                queued++;
            }
        }
        if (queued) sendmmsg(fd, tx, (unsigned int)queued, 0);
    }
}
