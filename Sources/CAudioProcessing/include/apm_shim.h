/*
 * A C face for the WebRTC AudioProcessing module (webrtc-audio-processing 0.3,
 * a C++ API): echo cancellation (the full AEC, extended filter, delay-agnostic),
 * noise suppression, adaptive digital gain control, the high-pass filter and
 * voice activity detection, on 48 kHz 16-bit interleaved PCM in 10 ms frames.
 *
 * Internal to libagoraish: the symbols use the `agapm_` prefix, which the
 * linker version script keeps local. Every function accepts NULL (and then
 * returns AGAPM_E_ARGUMENT or does nothing) and never lets a C++ exception out.
 *
 * Threads: agapm_process_reverse and agapm_process_capture may run at the same
 * time on two threads (the module serialises them with its own lock; each has
 * its own frame buffer here), each of them from one thread at a time.
 * agapm_configure, agapm_get_config and agapm_get_stats may be called from any
 * thread at any time. agapm_destroy must not overlap any other call on the
 * same handle.
 *
 * Ownership: agapm_create returns a handle the caller owns and frees with
 * agapm_destroy. The functions read or write the caller's buffers only for
 * the duration of the call and keep no pointer to them.
 */
#ifndef AGORAISH_APM_SHIM_H
#define AGORAISH_APM_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The sample rate of every stream, Hz. */
#define AGAPM_SAMPLE_RATE 48000
/** Frames (samples per channel) of one 10 ms block at 48 kHz. */
#define AGAPM_FRAME_SAMPLES 480

/** Success. */
#define AGAPM_OK 0
/** A NULL handle or pointer, a channel count other than 1 or 2, or a wrong sample count. */
#define AGAPM_E_ARGUMENT (-100)
/** An exception from the module or out of memory; the call had no effect. */
#define AGAPM_E_INTERNAL (-101)
/* Other negative values are the module's own AudioProcessing::Error codes
 * (-1 ... -13); -13 (a stream parameter out of range, clamped) is a warning and
 * the frame was processed. */

/** An opaque module instance. */
typedef struct agapm agapm;

/** What the module does to captured audio. */
typedef struct agapm_config {
    int echo_cancellation;   /**< 1: the full AEC (not AECM) on; 0: off. */
    int echo_suppression;    /**< 0 low, 1 moderate, 2 high: the AEC's suppression level. */
    int noise_suppression;   /**< -1 off; 0 low, 1 moderate, 2 high, 3 very high. */
    int gain_control;        /**< 1: adaptive digital AGC on; 0: off. */
    int gain_target_dbfs;    /**< 0...31: the AGC's target peak level, dB below full scale. */
    int gain_compression_db; /**< 0...90: the most gain the AGC's compression stage applies, dB. */
    int gain_limiter;        /**< 1: the AGC hard-limits at the target level. */
    int high_pass;           /**< 1: the high-pass filter on (DC and hum: -3 dB near 90 Hz, 50 Hz -13 dB). */
} agapm_config;

/** What the module reports; each has_* says whether the value next to it is known. */
typedef struct agapm_stats {
    int has_erle;              /**< 1 when erle_db is known (the AEC on and its metrics settled). */
    double erle_db;            /**< The AEC's echo return loss enhancement (long-term average), dB. */
    int has_erl;               /**< 1 when erl_db is known. */
    double erl_db;             /**< The AEC's echo return loss (long-term average), dB. */
    int has_delay;             /**< 1 when delay_median_ms is known. */
    int delay_median_ms;       /**< The AEC's estimate of the echo delay, median over the last second, ms. */
    int voice_detected;        /**< 1: the VAD found voice in the last capture frame. */
    int has_speech_probability; /**< 1 when the NS is on (and a frame has been processed). */
    double speech_probability; /**< The NS's speech probability of the last capture frame, 0...1. */
} agapm_stats;

/**
 * A module for `capture_channels` (1 or 2) channels of capture and a mono
 * reverse stream, everything off but the VAD (AudioProcessing::Create with
 * ExtendedFilter, DelayAgnostic and ExperimentalAgc off). NULL when the channel
 * count is wrong or the module cannot be made. Costs about 0.2 ms and, with
 * every step on, about 400 kB.
 */
agapm *agapm_create(int capture_channels);

/** Frees `apm` (NULL: nothing). */
void agapm_destroy(agapm *apm);

/**
 * Applies `config` (values out of range are clamped; the configuration in force,
 * once clamped, is a no-op). AGAPM_OK, AGAPM_E_ARGUMENT for NULL, or the first
 * error the module returned (the rest is applied anyway).
 */
int agapm_configure(agapm *apm, const agapm_config *config);

/** Copies the configuration in force into `out`; AGAPM_E_ARGUMENT for NULL. */
int agapm_get_config(const agapm *apm, agapm_config *out);

/**
 * Feeds 10 ms of what the loudspeaker plays: `samples` = 480 * `channels`
 * interleaved samples, `channels` 1 or 2 (2 is downmixed to mono). The
 * buffer is not changed. AGAPM_OK or an error.
 */
int agapm_process_reverse(agapm *apm, const int16_t *pcm, int samples, int channels);

/**
 * Processes 10 ms of capture in place: `samples` = 480 * capture channels
 * interleaved samples. `delay_ms` is the time from a sample entering
 * agapm_process_reverse to its echo reaching agapm_process_capture (playout
 * buffering + capture buffering), 0...500; a hint, as the AEC estimates the
 * delay itself. On an error the buffer is left as it was or as the module
 * left it. AGAPM_OK, a warning (-13) or an error.
 */
int agapm_process_capture(agapm *apm, int16_t *pcm, int samples, int delay_ms);

/** Copies the statistics as of the last capture frame into `out`; AGAPM_E_ARGUMENT for NULL. */
int agapm_get_stats(const agapm *apm, agapm_stats *out);

#ifdef __cplusplus
}
#endif

#endif
