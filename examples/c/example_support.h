/*
 * example_support.h — what the C examples share: a clock that starts with the
 * example, timestamped output lines, real-time pacing, and the names of the
 * audio states. Header-only; include it after agoraish.h.
 */
#ifndef AGORAISH_EXAMPLE_SUPPORT_H
#define AGORAISH_EXAMPLE_SUPPORT_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

/* When the example started (main sets it first thing). */
static struct timespec t0;

/* Seconds since t0. */
static inline double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9;
}

/* Prints one line: the time, who speaks, and what happened. */
static inline void say(const char *who, const char *format, ...) {
    char line[512];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    printf("%6.2f s  %-6s  %s\n", seconds(), who, line);
}

/* Sleeps until `offset_ms` after `start` (CLOCK_MONOTONIC, absolute: no drift). */
static inline void sleep_until(const struct timespec *start, long offset_ms) {
    struct timespec t = *start;
    t.tv_sec += offset_ms / 1000;
    t.tv_nsec += (offset_ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {}
}

/* The names of agoraish_local_audio_stream_state values. */
static inline const char *local_state_name(int state) {
    static const char *const names[] = {"STOPPED", "RECORDING", "ENCODING", "FAILED"};
    return state >= 0 && state < 4 ? names[state] : "?";
}

/* The names of agoraish_local_video_stream_state values. */
static inline const char *local_video_state_name(int state) {
    static const char *const names[] = {"STOPPED", "CAPTURING", "ENCODING", "FAILED"};
    return state >= 0 && state < 4 ? names[state] : "?";
}

/* The names of agoraish_remote_audio_state values (agoraish_remote_video_state has the same). */
static inline const char *remote_state_name(int state) {
    static const char *const names[] = {"STOPPED", "STARTING", "DECODING", "FROZEN", "FAILED"};
    return state >= 0 && state < 5 ? names[state] : "?";
}

/* The names of agoraish_remote_audio_state_reason values (agoraish_remote_video_state_reason has the same). */
static inline const char *remote_reason_name(int reason) {
    static const char *const names[] = {"INTERNAL", "NETWORK_CONGESTION", "NETWORK_RECOVERY", "LOCAL_MUTED",
                                        "LOCAL_UNMUTED", "REMOTE_MUTED", "REMOTE_UNMUTED", "REMOTE_OFFLINE"};
    return reason >= 0 && reason < 8 ? names[reason] : "?";
}

#endif
