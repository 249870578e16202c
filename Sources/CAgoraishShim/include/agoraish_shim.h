/*
 * C helpers for what Swift cannot call directly. Internal to libagoraish: the
 * symbols use the `agsh_` prefix, which the linker version script keeps local.
 *
 *  - variadic control calls (opus_encoder_ctl, opus_decoder_ctl,
 *    vpx_codec_control, v4l2_open, v4l2_ioctl, v4l2_mmap) and function-like macros
 *    (vpx_codec_enc_init, vpx_codec_dec_init, the VIDIOC_* request numbers);
 *  - epoll, eventfd and timerfd, which the Glibc module does not expose;
 *  - recvmmsg / sendmmsg, which need _GNU_SOURCE (set only in shim.c, because
 *    defining it in a header breaks other C modules);
 *  - a per-thread last-error slot for the C ABI.
 */
#ifndef AGORAISH_SHIM_H
#define AGORAISH_SHIM_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/videodev2.h>
#include <opus/opus.h>
/* libopusenc's encoder (opusenc.h wants its own include path; only shim.c includes it). */
typedef struct OggOpusEnc OggOpusEnc;
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>

/* ---- Opus ---------------------------------------------------------------- */

/** opus_encoder_ctl(enc, request, int value) for the OPUS_SET_* integer requests. */
int agsh_opus_encoder_set_int(OpusEncoder *enc, int request, int32_t value);
/** opus_encoder_ctl(enc, request, int *value) for the OPUS_GET_* integer requests. */
int agsh_opus_encoder_get_int(OpusEncoder *enc, int request, int32_t *value);
/** opus_decoder_ctl(dec, request, int value). */
int agsh_opus_decoder_set_int(OpusDecoder *dec, int request, int32_t value);
/** opus_decoder_ctl(dec, request, int *value). */
int agsh_opus_decoder_get_int(OpusDecoder *dec, int request, int32_t *value);
/** ope_encoder_ctl(enc, request, int value) for libopusenc's integer requests (OPUS_SET_BITRATE...). */
int agsh_ope_encoder_set_int(OggOpusEnc *enc, int request, int32_t value);
/** OPUS_SET_BITRATE_REQUEST, a macro value Swift cannot see through OPUS_SET_BITRATE(). */
int agsh_opus_set_bitrate_request(void);
/** opus_encoder_ctl(enc, OPUS_RESET_STATE). */
int agsh_opus_encoder_reset(OpusEncoder *enc);
/** opus_decoder_ctl(dec, OPUS_RESET_STATE). */
int agsh_opus_decoder_reset(OpusDecoder *dec);

/* ---- libvpx -------------------------------------------------------------- */

/** The VP8 encoder interface (vpx_codec_vp8_cx()). */
vpx_codec_iface_t *agsh_vpx_vp8_cx(void);
/** The VP9 encoder interface (vpx_codec_vp9_cx()). */
vpx_codec_iface_t *agsh_vpx_vp9_cx(void);
/** The VP8 decoder interface (vpx_codec_vp8_dx()). */
vpx_codec_iface_t *agsh_vpx_vp8_dx(void);
/** The VP9 decoder interface (vpx_codec_vp9_dx()). */
vpx_codec_iface_t *agsh_vpx_vp9_dx(void);
/** vpx_codec_enc_init(ctx, iface, cfg, flags): a macro in libvpx. */
vpx_codec_err_t agsh_vpx_codec_enc_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface,
                                        const vpx_codec_enc_cfg_t *cfg, vpx_codec_flags_t flags);
/** vpx_codec_dec_init(ctx, iface, cfg, flags): a macro in libvpx. */
vpx_codec_err_t agsh_vpx_codec_dec_init(vpx_codec_ctx_t *ctx, vpx_codec_iface_t *iface,
                                        const vpx_codec_dec_cfg_t *cfg, vpx_codec_flags_t flags);
/** vpx_codec_control(ctx, id, int value) for integer controls (VP8E_SET_CPUUSED, ...). */
vpx_codec_err_t agsh_vpx_codec_control_int(vpx_codec_ctx_t *ctx, int id, int value);

/* ---- V4L2 (libv4l2) ------------------------------------------------------ */

/** v4l2_open(path, flags): variadic in libv4l2. */
int agsh_v4l2_open(const char *path, int flags);
/** v4l2_fd_open(fd, flags): hands an open device to libv4l2 (which then owns it:
 *  v4l2_close closes it). Returns fd, or -1 (errno set; fd stays the caller's). */
int agsh_v4l2_fd_open(int fd, int flags);
/** v4l2_close(fd). */
int agsh_v4l2_close(int fd);
/** v4l2_ioctl(fd, request, arg): variadic in libv4l2. */
int agsh_v4l2_ioctl(int fd, unsigned long request, void *arg);
/** v4l2_mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset): maps buffer
 *  `offset` (from VIDIOC_QUERYBUF) of a device opened with agsh_v4l2_open. Returns NULL
 *  on failure (errno set) instead of MAP_FAILED. The caller owns the mapping and ends it
 *  with agsh_v4l2_munmap before closing the device. */
void *agsh_v4l2_mmap(int fd, size_t length, int64_t offset);
/** v4l2_munmap(start, length). */
int agsh_v4l2_munmap(void *start, size_t length);
/* The VIDIOC_* request numbers (the _IOR/_IOW/_IOWR macros Swift cannot import). */
/** VIDIOC_QUERYCAP. */
unsigned long agsh_vidioc_querycap(void);
/** VIDIOC_ENUM_FMT. */
unsigned long agsh_vidioc_enum_fmt(void);
/** VIDIOC_ENUM_FRAMESIZES. */
unsigned long agsh_vidioc_enum_framesizes(void);
/** VIDIOC_ENUM_FRAMEINTERVALS. */
unsigned long agsh_vidioc_enum_frameintervals(void);
/** VIDIOC_S_FMT. */
unsigned long agsh_vidioc_s_fmt(void);
/** VIDIOC_S_PARM. */
unsigned long agsh_vidioc_s_parm(void);
/** VIDIOC_REQBUFS. */
unsigned long agsh_vidioc_reqbufs(void);
/** VIDIOC_QUERYBUF. */
unsigned long agsh_vidioc_querybuf(void);
/** VIDIOC_QBUF. */
unsigned long agsh_vidioc_qbuf(void);
/** VIDIOC_DQBUF. */
unsigned long agsh_vidioc_dqbuf(void);
/** VIDIOC_STREAMON. */
unsigned long agsh_vidioc_streamon(void);
/** VIDIOC_STREAMOFF. */
unsigned long agsh_vidioc_streamoff(void);
/** V4L2_PIX_FMT_YUV420 ("YU12", planar I420): a v4l2_fourcc() macro. */
uint32_t agsh_v4l2_pix_fmt_yuv420(void);

/* ---- epoll / eventfd / timerfd --------------------------------------------- */

/** epoll_ctl(epfd, op, fd, &{events, data.u64}), avoiding the packed struct in Swift. */
int agsh_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
/** epoll_wait into parallel arrays of events and data. Returns the count or -1 (errno set). */
int agsh_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int max_events, int timeout_ms);
/** Arm a timerfd once, `ns` nanoseconds from now (0 disarms). */
int agsh_timerfd_arm(int fd, int64_t ns);

/* ---- recvmmsg / sendmmsg ----------------------------------------------------- */

/** One datagram in a batch: a buffer, its length, and the peer address. */
typedef struct agsh_datagram {
    void *buffer;                 /**< receive: where to write; send: what to send */
    size_t length;                /**< receive: capacity in, bytes received out; send: bytes to send */
    struct sockaddr_storage addr; /**< receive: the source; send: the destination */
    socklen_t addr_len;           /**< length of `addr` */
} agsh_datagram;

/** recvmmsg over `count` datagrams (MSG_DONTWAIT). Returns how many arrived, or -1 (errno). */
int agsh_recvmmsg(int fd, agsh_datagram *dgrams, unsigned int count);
/** sendmmsg over `count` datagrams (MSG_DONTWAIT). Returns how many were sent, or -1 (errno). */
int agsh_sendmmsg(int fd, agsh_datagram *dgrams, unsigned int count);

/* ---- OpenSSL macros --------------------------------------------------------- */

struct ssl_st;
/** SSL_set_tlsext_host_name (a macro over SSL_ctrl): the SNI name a client sends. */
long agsh_ssl_set_sni(struct ssl_st *ssl, const char *name);
struct ssl_ctx_st;
/** SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) (a macro over SSL_CTX_ctrl). */
long agsh_ssl_ctx_min_tls12(struct ssl_ctx_st *ctx);

/* ---- C ABI support --------------------------------------------------------- */

/** Set this thread's last error (read by agoraish_get_last_error). */
void agsh_set_last_error(int code);
/** This thread's last error. */
int agsh_last_error(void);
/** Sets this thread's error detail (agoraish_get_last_error_detail): `text`
 *  is copied, cut to 511 bytes at a UTF-8 boundary; NULL or "" clears it. */
void agsh_set_error_detail(const char *text);
/** This thread's error detail ("" when none); valid until the thread sets another. */
const char *agsh_error_detail(void);
/** pthread_setname_np (a GNU extension): the kernel name of a thread, 15 bytes at most. */
int agsh_set_thread_name(pthread_t thread, const char *name);
/** Fills `buf` with `len` secret random bytes (getrandom(2)); 0 on success, -1 on failure. */
int agsh_random_bytes(void *buf, size_t len);
/** Marks the calling thread as an engine event thread (1) or not (0). */
void agsh_set_event_thread(int on);
/** Routes ALSA's library messages (printed to stderr by default) nowhere:
 *  the engine reports device failures through its own log and callbacks. */
void agsh_alsa_quiet(void);
/** fscanf(f, "%ld %ld") (variadic): returns the count read. */
int agsh_read_two_longs(FILE *f, long *a, long *b);
/** Marks the calling thread as inside (1) or outside (0) a raw audio observer callback. */
void agsh_set_audio_callback(int on);
/** Whether the calling thread is inside a raw audio observer callback. */
int agsh_in_audio_callback(void);
/** Whether the calling thread is some engine's event thread. */
int agsh_is_event_thread(void);
/** The calling thread's kernel id, for log lines. */
int agsh_gettid(void);

/* Network changes (rtnetlink, rtnetlink(7)). */

/** A non-blocking, close-on-exec rtnetlink socket subscribed to address
 *  (IPv4 and IPv6) and link changes; -1 with errno on failure. */
int agsh_netlink_open(void);

/** One address change read from a netlink datagram: `kind` 1 added, 2 removed,
 *  3 a link changed (no address); the address (4 or 16 bytes) in `address`. */
typedef struct agsh_netlink_change {
    int kind;
    int family;
    unsigned char address[16];
} agsh_netlink_change;

/** Parses the datagram `buf` (`len` bytes) into at most `max` changes; returns
 *  how many. Malformed messages end the parse. */
int agsh_netlink_parse(const void *buf, size_t len, agsh_netlink_change *out, int max);

#endif /* AGORAISH_SHIM_H */
