#pragma once
/*
 * usrsctp.h includes <sys/socket.h> and <netinet/in.h>. Compiled into this
 * module textually, their declarations (SOCK_STREAM, ...) would belong to
 * CUsrsctp, and Swift files that import Glibc but not CUsrsctp would lose
 * them. Importing Swift's Glibc module first makes the include guards hold,
 * so the declarations stay Glibc's.
 */
#if __has_feature(modules)
#pragma clang module import SwiftGlibc
#endif
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <usrsctp.h>

/*
 * What Swift cannot build directly for usrsctp: struct sctp_reset_streams
 * ends in a flexible array member (srs_stream_list[]), which Swift does not
 * import as a field.
 */

/*
 * Asks the peer to reset our outgoing streams `streams[0..<count]` (RFC 6525;
 * RFC 8831 §6.7 closes a data channel this way): setsockopt SCTP_RESET_STREAMS
 * with SCTP_STREAM_RESET_OUTGOING on the socket's association. usrsctp sends
 * the request once the streams' queued data is out. 1 <= count <= 64.
 * Returns 0, or the errno (EALREADY/EBUSY while another request is pending,
 * EINVAL for a stream out of range or no association).
 */
static inline int agsh_sctp_reset_outgoing(struct socket *so, const uint16_t *streams, uint16_t count) {
    enum { most = 64 };
    union {
        struct sctp_reset_streams srs;
        uint8_t bytes[sizeof(struct sctp_reset_streams) + most * sizeof(uint16_t)];
    } request;
    if (so == NULL || streams == NULL || count == 0 || count > most) return EINVAL;
    memset(&request, 0, sizeof request);
    request.srs.srs_assoc_id = SCTP_FUTURE_ASSOC;  /* one-to-one socket: its one association */
    request.srs.srs_flags = SCTP_STREAM_RESET_OUTGOING;
    request.srs.srs_number_streams = count;
    memcpy(request.srs.srs_stream_list, streams, count * sizeof(uint16_t));
    socklen_t length = (socklen_t)(sizeof(struct sctp_reset_streams) + count * sizeof(uint16_t));
    return usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_RESET_STREAMS, &request, length) == 0 ? 0 : errno;
}
