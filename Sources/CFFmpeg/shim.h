#pragma once
// FFmpeg's libraries (Debian 12: FFmpeg 5.1) for media files and URLs:
// demuxing, decoding, encoding, muxing, resampling and pixel conversion.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/dict.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

// Macros Swift cannot import, as inline functions.
static inline int agff_error_eagain(void) { return AVERROR(EAGAIN); }
static inline int agff_error_eof(void) { return AVERROR_EOF; }
static inline int agff_error_enomem(void) { return AVERROR(ENOMEM); }
static inline int agff_error_exit(void) { return AVERROR_EXIT; }
static inline int agff_error_enoent(void) { return AVERROR(ENOENT); }
static inline int agff_error_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int agff_error_http_not_found(void) { return AVERROR_HTTP_NOT_FOUND; }
static inline int agff_error_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int64_t agff_nopts(void) { return AV_NOPTS_VALUE; }
static inline int agff_time_base(void) { return AV_TIME_BASE; }
