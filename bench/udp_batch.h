/*
 * udp_batch.h — what bench/bare_forwarder.c and bench/sfu_load.c share:
 * recvmmsg/sendmmsg batches with one buffer per message, and the
 * comma-separated lists of numbers they take on the command line.
 *
 * Header-only (static inline), so that each program stays one source file
 * (bench/run.py compiles bench/<name>.c alone). Define _GNU_SOURCE before any
 * include: recvmmsg and sendmmsg are GNU extensions.
 */
#ifndef AGORAISH_BENCH_UDP_BATCH_H
#define AGORAISH_BENCH_UDP_BATCH_H

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/**
 * Points message `m` of a batch at the `len` bytes at `buf` (through `iov`,
 * which must live as long as the batch) and, when `to` is not NULL, at that
 * destination.
 */
static inline void batch_set(struct mmsghdr *m, struct iovec *iov, void *buf, size_t len, struct sockaddr_in *to) {
    iov->iov_base = buf;
    iov->iov_len = len;
    memset(&m->msg_hdr, 0, sizeof m->msg_hdr);
    m->msg_hdr.msg_iov = iov;
    m->msg_hdr.msg_iovlen = 1;
    if (to) {
        m->msg_hdr.msg_name = to;
        m->msg_hdr.msg_namelen = sizeof *to;
    }
}

/** Parses up to `max` comma-separated integers of `text` into `out`; returns how many there were. */
static inline int parse_int_list(const char *text, int *out, int max) {
    int n = 0;
    for (const char *p = text; *p && n < max;) {
        out[n++] = atoi(p);
        while (*p && *p != ',') p++;
        if (*p == ',') p++;
    }
    return n;
}

#endif /* AGORAISH_BENCH_UDP_BATCH_H */
