/* Implementation of agoraish_shim.h. Compiled with _GNU_SOURCE for *mmsg. */
#define _GNU_SOURCE
#include "agoraish_shim.h"
#include <opusenc.h>
#include <alsa/asoundlib.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <libv4l2.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <fcntl.h>
#include <openssl/ssl.h>

int agsh_ope_encoder_set_int(OggOpusEnc *enc, int request, int32_t value) {
    return ope_encoder_ctl(enc, request, (opus_int32)value);
}

int agsh_opus_set_bitrate_request(void) { return OPUS_SET_BITRATE_REQUEST; }

int agsh_opus_encoder_set_int(OpusEncoder *enc, int request, int32_t value) {
    return opus_encoder_ctl(enc, request, (opus_int32)value);
}

int agsh_opus_encoder_get_int(OpusEncoder *enc, int request, int32_t *value) {
    opus_int32 v = 0;
    int rc = opus_encoder_ctl(enc, request, &v);
    if (rc == OPUS_OK && value) *value = v;
    return rc;
}

int agsh_opus_decoder_set_int(OpusDecoder *dec, int request, int32_t value) {
    return opus_decoder_ctl(dec, request, (opus_int32)value);
}

int agsh_opus_decoder_get_int(OpusDecoder *dec, int request, int32_t *value) {
    opus_int32 v = 0;
    int rc = opus_decoder_ctl(dec, request, &v);
    if (rc == OPUS_OK && value) *value = v;
    return rc;
}

int agsh_opus_encoder_reset(OpusEncoder *enc) { return opus_encoder_ctl(enc, OPUS_RESET_STATE); }
int agsh_opus_decoder_reset(OpusDecoder *dec) { return opus_decoder_ctl(dec, OPUS_RESET_STATE); }

vpx_codec_iface_t *agsh_vpx_vp8_cx(void) { return vpx_codec_vp8_cx(); }
vpx_codec_iface_t *agsh_vpx_vp9_cx(void) { return vpx_codec_vp9_cx(); }
vpx_codec_iface_t *agsh_vpx_vp8_dx(void) { return vpx_codec_vp8_dx(); }
vpx_codec_iface_t *agsh_vpx_vp9_dx(void) { return vpx_codec_vp9_dx(); }

vpx_codec_err_t agsh_vpx_codec_enc_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface,
                                        const vpx_codec_enc_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_enc_init(ctx, iface, cfg, flags);
}

vpx_codec_err_t agsh_vpx_codec_dec_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface,
                                        const vpx_codec_dec_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_dec_init(ctx, iface, cfg, flags);
}

vpx_codec_err_t agsh_vpx_codec_control_int(vpx_codec_ctx_t *ctx, int id, int value) {
    return vpx_codec_control_(ctx, id, value);
}

int agsh_v4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
int agsh_v4l2_fd_open(int fd, int flags) { return v4l2_fd_open(fd, flags); }
int agsh_v4l2_close(int fd) { return v4l2_close(fd); }
int agsh_v4l2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }

void *agsh_v4l2_mmap(int fd, size_t length, int64_t offset) {
    void *p = v4l2_mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
    return p == MAP_FAILED ? NULL : p;
}
int agsh_v4l2_munmap(void *start, size_t length) { return v4l2_munmap(start, length); }

unsigned long agsh_vidioc_querycap(void) { return VIDIOC_QUERYCAP; }
unsigned long agsh_vidioc_enum_fmt(void) { return VIDIOC_ENUM_FMT; }
unsigned long agsh_vidioc_enum_framesizes(void) { return VIDIOC_ENUM_FRAMESIZES; }
unsigned long agsh_vidioc_enum_frameintervals(void) { return VIDIOC_ENUM_FRAMEINTERVALS; }
unsigned long agsh_vidioc_s_fmt(void) { return VIDIOC_S_FMT; }
unsigned long agsh_vidioc_s_parm(void) { return VIDIOC_S_PARM; }
unsigned long agsh_vidioc_reqbufs(void) { return VIDIOC_REQBUFS; }
unsigned long agsh_vidioc_querybuf(void) { return VIDIOC_QUERYBUF; }
unsigned long agsh_vidioc_qbuf(void) { return VIDIOC_QBUF; }
unsigned long agsh_vidioc_dqbuf(void) { return VIDIOC_DQBUF; }
unsigned long agsh_vidioc_streamon(void) { return VIDIOC_STREAMON; }
unsigned long agsh_vidioc_streamoff(void) { return VIDIOC_STREAMOFF; }
uint32_t agsh_v4l2_pix_fmt_yuv420(void) { return V4L2_PIX_FMT_YUV420; }

int agsh_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &ev);
}

int agsh_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int max_events, int timeout_ms) {
    enum { BATCH = 64 };
    struct epoll_event evs[BATCH];
    if (max_events > BATCH) max_events = BATCH;
    if (max_events <= 0) { errno = EINVAL; return -1; }
    int n = epoll_wait(epfd, evs, max_events, timeout_ms);
    for (int i = 0; i < n; i++) {
        events[i] = evs[i].events;
        data[i] = evs[i].data.u64;
    }
    return n;
}

int agsh_timerfd_arm(int fd, int64_t ns) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    if (ns > 0) {
        spec.it_value.tv_sec = (time_t)(ns / 1000000000);
        spec.it_value.tv_nsec = (long)(ns % 1000000000);
    }
    return timerfd_settime(fd, 0, &spec, NULL);
}

enum { MMSG_BATCH = 64 };

int agsh_recvmmsg(int fd, agsh_datagram *dgrams, unsigned int count) {
    struct mmsghdr msgs[MMSG_BATCH];
    struct iovec iovs[MMSG_BATCH];
    if (count > MMSG_BATCH) count = MMSG_BATCH;
    memset(msgs, 0, sizeof(struct mmsghdr) * count);
    for (unsigned int i = 0; i < count; i++) {
        iovs[i].iov_base = dgrams[i].buffer;
        iovs[i].iov_len = dgrams[i].length;
        msgs[i].msg_hdr.msg_iov = &iovs[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_hdr.msg_name = &dgrams[i].addr;
        msgs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_storage);
    }
    int n = recvmmsg(fd, msgs, count, MSG_DONTWAIT, NULL);
    for (int i = 0; i < n; i++) {
        dgrams[i].length = msgs[i].msg_len;
        dgrams[i].addr_len = msgs[i].msg_hdr.msg_namelen;
    }
    return n;
}

int agsh_sendmmsg(int fd, agsh_datagram *dgrams, unsigned int count) {
    struct mmsghdr msgs[MMSG_BATCH];
    struct iovec iovs[MMSG_BATCH];
    if (count > MMSG_BATCH) count = MMSG_BATCH;
    memset(msgs, 0, sizeof(struct mmsghdr) * count);
    for (unsigned int i = 0; i < count; i++) {
        iovs[i].iov_base = dgrams[i].buffer;
        iovs[i].iov_len = dgrams[i].length;
        msgs[i].msg_hdr.msg_iov = &iovs[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_hdr.msg_name = &dgrams[i].addr;
        msgs[i].msg_hdr.msg_namelen = dgrams[i].addr_len;
    }
    return sendmmsg(fd, msgs, count, MSG_DONTWAIT);
}

static _Thread_local int last_error;

void agsh_set_last_error(int code) { last_error = code; }

static void agsh_alsa_silent(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

void agsh_alsa_quiet(void) { snd_lib_error_set_handler(agsh_alsa_silent); }

int agsh_read_two_longs(FILE *f, long *a, long *b) { return fscanf(f, "%ld %ld", a, b); }

static _Thread_local int audio_callback;
void agsh_set_audio_callback(int on) { audio_callback = on; }
int agsh_in_audio_callback(void) { return audio_callback; }

static _Thread_local int event_thread;
void agsh_set_event_thread(int on) { event_thread = on; }
int agsh_is_event_thread(void) { return event_thread; }
int agsh_last_error(void) { return last_error; }

static _Thread_local char error_detail[512];

void agsh_set_error_detail(const char *text) {
    size_t n = 0;
    if (text) {
        n = strlen(text);
        if (n > sizeof error_detail - 1) {
            n = sizeof error_detail - 1;
            while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80) n--; /* not inside a UTF-8 sequence */
        }
        memcpy(error_detail, text, n);
    }
    error_detail[n] = 0;
}

const char *agsh_error_detail(void) { return error_detail; }
int agsh_gettid(void) { return (int)syscall(SYS_gettid); }

int agsh_set_thread_name(pthread_t thread, const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = 0;
    return pthread_setname_np(thread, truncated);
}

int agsh_random_bytes(void *buf, size_t len) {
    size_t filled = 0;
    while (filled < len) {
        ssize_t got = getrandom((char *)buf + filled, len - filled, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        filled += (size_t)got;
    }
    return 0;
}

long agsh_ssl_set_sni(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

long agsh_ssl_ctx_min_tls12(SSL_CTX *ctx) {
    return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

int agsh_netlink_open(void) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return -1;
    struct sockaddr_nl sa;
    memset(&sa, 0, sizeof sa);
    sa.nl_family = AF_NETLINK;
    sa.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int agsh_netlink_parse(const void *buf, size_t len, agsh_netlink_change *out, int max) {
    int n = 0;
    const struct nlmsghdr *h = buf;
    size_t left = len;
    for (; n < max && NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
        if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) break;
        if (h->nlmsg_type == RTM_NEWLINK || h->nlmsg_type == RTM_DELLINK) {
            memset(&out[n], 0, sizeof out[n]);
            out[n++].kind = 3;
            continue;
        }
        if (h->nlmsg_type != RTM_NEWADDR && h->nlmsg_type != RTM_DELADDR) continue;
        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifaddrmsg))) break;
        const struct ifaddrmsg *ifa = NLMSG_DATA(h);
        size_t alen = (ifa->ifa_family == AF_INET) ? 4 : (ifa->ifa_family == AF_INET6) ? 16 : 0;
        if (alen == 0) continue;
        const unsigned char *found = NULL;
        int attrlen = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(struct ifaddrmsg)));
        for (const struct rtattr *a = IFA_RTA(ifa); RTA_OK(a, attrlen); a = RTA_NEXT(a, attrlen)) {
            if ((a->rta_type == IFA_LOCAL || (a->rta_type == IFA_ADDRESS && found == NULL)) &&
                RTA_PAYLOAD(a) >= alen) {
                found = RTA_DATA(a);
            }
        }
        if (found == NULL) continue;
        memset(&out[n], 0, sizeof out[n]);
        out[n].kind = h->nlmsg_type == RTM_NEWADDR ? 1 : 2;
        out[n].family = ifa->ifa_family;
        memcpy(out[n].address, found, alen);
        n++;
    }
    return n;
}
