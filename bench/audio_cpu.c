/*
 * audio_cpu.c — CPU time per second of audio of one published and one
 * received stream through agoraish, beside a bare libopus loop and a
 * GStreamer pipeline doing the same work, in one run.
 *
 * agoraish: three processes, so that each figure is one process's own CPU
 * time (CLOCK_PROCESS_CPUTIME_ID: every thread of it, user and system):
 *   - an embedded server (not measured);
 *   - a sender: one engine in a call that pushes a 48 kHz mono speech-like
 *     signal 10 ms every 10 ms (absolute CLOCK_MONOTONIC deadlines) with the
 *     default profile: Opus encode, RTP, SRTP, send;
 *   - a receiver: one engine in the same call that pulls 10 ms every 10 ms:
 *     receive, SRTP, jitter buffer, Opus decode, mix;
 *   - and an idle engine alone in another channel, with the same external
 *     source and sink and no audio: the cost of being in a call at all.
 * Every engine joins, then the window [T0, T1] starts once audio flows; each
 * process reads its CPU time at its first 10 ms tick at or after T0 and T1.
 * The benchmark's own share of those processes is a memcpy of 10 ms per tick.
 *
 * libopus: the same signal encoded with the engine's default settings
 * (application VOIP, 18 kbps VBR, band up to super-wideband, in-band FEC for
 * 10 % loss, DTX off, complexity 9, 20 ms frames) and the packets decoded,
 * as fast as possible on one thread (CLOCK_THREAD_CPUTIME_ID), median of
 * REPEATS runs.
 *
 * GStreamer: the pipelines of audio_support.h (fdsrc ! opusenc ! rtpopuspay !
 * udpsink, and udpsrc ! rtpjitterbuffer ! rtpopusdepay ! opusdec ! fdsink
 * sync=true), the same signal written 10 ms every 10 ms; CPU of each
 * gst-launch-1.0 process (utime + stime from /proc, 10 ms ticks) over the
 * same length of window.
 *
 *   audio_cpu PATH LOG_DIR SECONDS
 *     -> {"figures": [...]}
 */
#define _POSIX_C_SOURCE 200809L

#include <opus/opus.h>

#include "audio_support.h"

#define RATE 48000
#define FRAME 480               /* 10 ms */
#define OPUS_FRAME 960          /* 20 ms */
#define WARMUP_MS 2000.0
#define REPEATS 5

enum role { SENDER, RECEIVER, IDLE };

/* What one measured process reports. */
typedef struct result {
    double cpu_ms, window_ms;
    int frames, voiced;
    int ok;
} result;

/* The engine side of one process (a forked child); writes its result line to out_fd. */
static int engine_child(enum role role, const char *lib, const char *url, const char *log,
                        const int16_t *speech, size_t frames_available, double t0, double t1, int out_fd) {
    peer p;
    int16_t frame[FRAME];
    double start, cpu0 = -1, w0 = 0, cpu1 = -1, w1 = 0;
    int frames = 0, voiced = 0, failures = 0;
    size_t k;
    char line[256];
    if (load_audio_api(lib) != 0 || !peer_create(&p, url, log, RATE)) return 1;
    if (peer_join(&p, role == IDLE ? "bench-audio-cpu-idle" : "bench-audio-cpu", 3000u + (uint32_t)role) != 0) {
        api.engine_release(p.engine, 1);
        return 1;
    }
    start = now_ms();
    for (k = 0;; k++) {
        double at = start + (double)k * 10;
        sleep_until_ms(at);
        if (at >= t0 && cpu0 < 0) { cpu0 = process_cpu_ms(); w0 = now_ms(); }
        if (at >= t1) { cpu1 = process_cpu_ms(); w1 = now_ms(); break; }
        if (role == SENDER) {
            if (api.push_external_audio_frame(p.engine, speech + (k % frames_available) * FRAME, FRAME) < 0) failures++;
        } else if (role == RECEIVER) {
            int i, peak = 0;
            if (api.pull_playback_audio_frame(p.engine, frame, FRAME) != 0) failures++;
            if (cpu0 >= 0) {
                for (i = 0; i < FRAME; i++) if (abs(frame[i]) > peak) peak = abs(frame[i]);
                frames++;
                if (peak > 500) voiced++;
            }
        }
    }
    snprintf(line, sizeof line, "%.3f %.3f %d %d %d\n", cpu1 - cpu0, w1 - w0, frames, voiced, failures);
    write_all(out_fd, line, strlen(line));
    api.engine_release(p.engine, 1);
    return 0;
}

/* Runs the server, sender, receiver and idle processes; fills `res` (indexed by role). */
static int run_engines(const char *lib, const char *log_dir, const int16_t *speech, size_t frames_available,
                       double seconds, result res[3]) {
    int url_pipe[2], control[2], out[3][2], r;
    pid_t server, kids[3];
    char url[160], line[256], log[4096];
    double t0, t1;
    if (pipe(url_pipe) != 0 || pipe(control) != 0) return 1;
    if ((server = fork()) == 0) {
        close(url_pipe[0]);
        close(control[1]);
        alarm((unsigned)seconds + 60);
        _exit(server_child(lib, NULL, url_pipe[1], control[0]));
    }
    close(url_pipe[1]);
    close(control[0]);
    if (server < 0 || read_line(url_pipe[0], url, sizeof url) != 0) {
        fprintf(stderr, "the server process did not start\n");
        return 1;
    }
    close(url_pipe[0]);
    t0 = now_ms() + WARMUP_MS;
    t1 = t0 + seconds * 1e3;
    for (r = 0; r < 3; r++) {
        if (pipe(out[r]) != 0) return 1;
        snprintf(log, sizeof log, "%s/audio_cpu_%s.log", log_dir, r == SENDER ? "sender" : r == RECEIVER ? "receiver" : "idle");
        if ((kids[r] = fork()) == 0) {
            close(out[r][0]);
            close(control[1]);
            alarm((unsigned)seconds + 60);
            _exit(engine_child((enum role)r, lib, url, log, speech, frames_available, t0, t1, out[r][1]));
        }
        close(out[r][1]);
    }
    for (r = 0; r < 3; r++) {
        int status;
        memset(&res[r], 0, sizeof res[r]);
        if (read_line(out[r][0], line, sizeof line) == 0) {
            int failures = 0;
            if (sscanf(line, "%lf %lf %d %d %d", &res[r].cpu_ms, &res[r].window_ms, &res[r].frames, &res[r].voiced,
                       &failures) == 5 && failures == 0) {
                res[r].ok = 1;
            } else {
                fprintf(stderr, "process %d: %s\n", r, line);
            }
        }
        close(out[r][0]);
        waitpid(kids[r], &status, 0);
    }
    close(control[1]);
    {
        int status;
        waitpid(server, &status, 0);
    }
    return res[SENDER].ok && res[RECEIVER].ok && res[IDLE].ok ? 0 : 1;
}

static double median_of(double *v, int n) {
    sort_samples(v, n);
    return quantile(v, n, 0.5);
}

static double thread_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Bare libopus with the engine's settings: medians of encode and decode ms per second of audio. */
/* Drains a socket until it closes (the receiving end of the paced floor below). */
static void *drain_socket(void *arg) {
    char buf[2048];
    int fd = *(int *)arg;
    while (recv(fd, buf, sizeof buf, 0) >= 0) {}
    return NULL;
}

/* The floor of any real-time sender, in this process: the same signal paced
 * like the engine's host (a wake-up every 10 ms), bare opus_encode every 20 ms
 * with the engine's settings, and each packet (behind a 20-byte RTP header)
 * sent with sendto to a loopback socket read by another thread. Returns the
 * CPU of the encoding thread in ms per second of audio. */
static double run_paced_floor(const int16_t *speech, double seconds) {
    int err, rx, tx;
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    pthread_t reader;
    unsigned char packet[1500] = {0x90, 111};
    double start, cpu0, cpu;
    size_t k, ticks = (size_t)(seconds * 100);
    OpusEncoder *e = opus_encoder_create(RATE, 1, OPUS_APPLICATION_VOIP, &err);
    if (!e) return -1;
    opus_encoder_ctl(e, OPUS_SET_BITRATE(18000));
    opus_encoder_ctl(e, OPUS_SET_MAX_BANDWIDTH(OPUS_BANDWIDTH_SUPERWIDEBAND));
    opus_encoder_ctl(e, OPUS_SET_INBAND_FEC(1));
    opus_encoder_ctl(e, OPUS_SET_PACKET_LOSS_PERC(10));
    opus_encoder_ctl(e, OPUS_SET_COMPLEXITY(9));
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rx = socket(AF_INET, SOCK_DGRAM, 0);
    tx = socket(AF_INET, SOCK_DGRAM, 0);
    if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        getsockname(rx, (struct sockaddr *)&sa, &len) != 0 || pthread_create(&reader, NULL, drain_socket, &rx) != 0) {
        opus_encoder_destroy(e);
        return -1;
    }
    start = now_ms();
    cpu0 = thread_cpu_ms();
    for (k = 0; k < ticks; k++) {
        if (k % 2 == 1) {
            int n = opus_encode(e, speech + (k / 2) * OPUS_FRAME, OPUS_FRAME, packet + 20, (int)sizeof packet - 20);
            if (n > 0) sendto(tx, packet, (size_t)n + 20, MSG_DONTWAIT, (struct sockaddr *)&sa, sizeof sa);
        }
        sleep_until_ms(start + (double)(k + 1) * 10);
    }
    cpu = thread_cpu_ms() - cpu0;
    shutdown(rx, SHUT_RDWR);
    close(rx);
    pthread_join(reader, NULL);
    close(tx);
    opus_encoder_destroy(e);
    return cpu / seconds;
}

static int run_libopus(const int16_t *speech, size_t samples, double *enc, double *dec, int *complexity_default,
                       double *kbps) {
    size_t frames = samples / OPUS_FRAME, f;
    unsigned char *packets = malloc(frames * 1500);
    int *sizes = malloc(frames * sizeof *sizes), rep, err;
    int16_t pcm[OPUS_FRAME];
    double e[REPEATS], d[REPEATS], seconds = (double)(frames * OPUS_FRAME) / RATE, bytes = 0;
    OpusEncoder *probe = opus_encoder_create(RATE, 1, OPUS_APPLICATION_VOIP, &err);
    if (!packets || !sizes || !probe) return 1;
    opus_encoder_ctl(probe, OPUS_GET_COMPLEXITY(complexity_default));
    opus_encoder_destroy(probe);
    for (rep = 0; rep < REPEATS; rep++) {
        OpusEncoder *encoder = opus_encoder_create(RATE, 1, OPUS_APPLICATION_VOIP, &err);
        OpusDecoder *decoder = opus_decoder_create(RATE, 1, &err);
        double c0;
        if (!encoder || !decoder) return 1;
        opus_encoder_ctl(encoder, OPUS_SET_BITRATE(18000));
        opus_encoder_ctl(encoder, OPUS_SET_MAX_BANDWIDTH(OPUS_BANDWIDTH_SUPERWIDEBAND));
        opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(1));
        opus_encoder_ctl(encoder, OPUS_SET_PACKET_LOSS_PERC(10));
        opus_encoder_ctl(encoder, OPUS_SET_DTX(0));
        opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(9));
        c0 = thread_cpu_ms();
        for (f = 0; f < frames; f++) {
            sizes[f] = opus_encode(encoder, speech + f * OPUS_FRAME, OPUS_FRAME, packets + f * 1500, 1500);
            if (sizes[f] < 0) return 1;
        }
        e[rep] = (thread_cpu_ms() - c0) / seconds;
        c0 = thread_cpu_ms();
        for (f = 0; f < frames; f++) {
            if (opus_decode(decoder, packets + f * 1500, sizes[f], pcm, OPUS_FRAME, 0) != OPUS_FRAME) return 1;
        }
        d[rep] = (thread_cpu_ms() - c0) / seconds;
        opus_encoder_destroy(encoder);
        opus_decoder_destroy(decoder);
    }
    for (f = 0; f < frames; f++) bytes += sizes[f];
    *kbps = bytes * 8 / seconds / 1e3;
    *enc = median_of(e, REPEATS);
    *dec = median_of(d, REPEATS);
    free(packets);
    free(sizes);
    return 0;
}

typedef struct gst_feed {
    int fd;
    const int16_t *speech;
    size_t frames_available;
    double start, end;
    int errors;
} gst_feed;

static void *feed_thread(void *arg) {
    gst_feed *g = arg;
    size_t k;
    for (k = 0;; k++) {
        double at = g->start + (double)k * 10;
        if (at >= g->end) break;
        sleep_until_ms(at);
        if (write_all(g->fd, g->speech + (k % g->frames_available) * FRAME, FRAME * sizeof(int16_t)) != 0) g->errors++;
    }
    return NULL;
}

static void *drain_thread(void *arg) {
    int fd = *(int *)arg;
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
    }
    return NULL;
}

/* GStreamer sender and receiver processes over the same window length; ms/s of each. */
static int run_gst(const char *log_dir, const int16_t *speech, size_t frames_available, double seconds,
                   double *send, double *receive, char *why, size_t cap) {
    char pipeline[2048], log[4096];
    int tx[2], rx[2];
    pid_t sender, receiver;
    pthread_t feeder, drainer;
    gst_feed g;
    double s0, r0, s1, r1, w0, w1;
    uint16_t port = free_udp_port();
    if (!have_program("gst-launch-1.0")) {
        snprintf(why, cap, "gst-launch-1.0 not found (scripts/setup-bench.sh installs GStreamer)");
        return 1;
    }
    if (port == 0 || pipe(tx) != 0 || pipe(rx) != 0) {
        snprintf(why, cap, "no port or pipe");
        return 1;
    }
    fcntl(tx[1], F_SETFD, FD_CLOEXEC);
    fcntl(rx[0], F_SETFD, FD_CLOEXEC);
    snprintf(log, sizeof log, "%s/audio_cpu_gst.log", log_dir);
    gst_receiver_pipeline(pipeline, sizeof pipeline, port);
    receiver = spawn_gst(pipeline, rx[1], log);
    close(rx[1]);
    pthread_create(&drainer, NULL, drain_thread, &rx[0]);
    sleep_until_ms(now_ms() + 500);
    gst_sender_pipeline(pipeline, sizeof pipeline, port);
    sender = spawn_gst(pipeline, tx[0], log);
    close(tx[0]);
    sleep_until_ms(now_ms() + 500);
    if (receiver < 0 || sender < 0 || !child_running(receiver) || !child_running(sender)) {
        snprintf(why, cap, "gst-launch-1.0 exited at start (missing elements? see audio_cpu_gst.log)");
        close(tx[1]);
        stop_child(sender);
        stop_child(receiver);
        pthread_join(drainer, NULL);
        close(rx[0]);
        return 1;
    }
    memset(&g, 0, sizeof g);
    g.fd = tx[1];
    g.speech = speech;
    g.frames_available = frames_available;
    g.start = now_ms() + 10;
    g.end = g.start + WARMUP_MS + seconds * 1e3 + 200;
    pthread_create(&feeder, NULL, feed_thread, &g);
    sleep_until_ms(g.start + WARMUP_MS);
    w0 = now_ms();
    s0 = pid_cpu_ms(sender);
    r0 = pid_cpu_ms(receiver);
    sleep_until_ms(w0 + seconds * 1e3);
    s1 = pid_cpu_ms(sender);
    r1 = pid_cpu_ms(receiver);
    w1 = now_ms();
    pthread_join(feeder, NULL);
    close(tx[1]);
    stop_child(sender);
    stop_child(receiver);
    pthread_join(drainer, NULL);
    close(rx[0]);
    if (g.errors || s0 < 0 || r0 < 0 || s1 < 0 || r1 < 0) {
        snprintf(why, cap, "a GStreamer process stopped during the window (see audio_cpu_gst.log)");
        return 1;
    }
    *send = (s1 - s0) / ((w1 - w0) / 1e3);
    *receive = (r1 - r0) / ((w1 - w0) / 1e3);
    return 0;
}

static void print_figure(const char *name, int have, double value, const char *note, int last) {
    printf("  {\"name\": \"%s\", \"value\": ", name);
    if (have) printf("%.2f", value); else printf("null");
    printf(", \"unit\": \"ms/s\", \"note\": \"%s\"}%s\n", note, last ? "" : ",");
}

int main(int argc, char **argv) {
    double seconds, enc = 0, dec = 0, kbps = 0, gsend = 0, grecv = 0, send, recv, idle, floor_send;
    size_t samples, frames_available;
    int16_t *speech;
    result res[3];
    int complexity_default = -1, gst_ok;
    char why[512] = "", note[1024], ratio[256];

    if (argc != 4 || (seconds = atof(argv[3])) < 1) {
        fprintf(stderr, "usage: audio_cpu PATH LOG_DIR SECONDS\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    /* Enough signal for warm-up, window and tail without repeating. */
    samples = (size_t)((WARMUP_MS / 1e3 + seconds + 2) * RATE);
    samples = samples / OPUS_FRAME * OPUS_FRAME;
    frames_available = samples / FRAME;
    if (!(speech = malloc(samples * sizeof *speech))) return 1;
    make_speech(speech, samples, RATE, 42);

    if (run_engines(argv[1], argv[2], speech, frames_available, seconds, res) != 0) {
        fprintf(stderr, "the engine processes failed\n");
        return 1;
    }
    if (res[RECEIVER].voiced < res[RECEIVER].frames / 2) {
        fprintf(stderr, "the receiver heard audio in only %d of %d frames\n", res[RECEIVER].voiced, res[RECEIVER].frames);
        return 1;
    }
    send = res[SENDER].cpu_ms / (res[SENDER].window_ms / 1e3);
    recv = res[RECEIVER].cpu_ms / (res[RECEIVER].window_ms / 1e3);
    idle = res[IDLE].cpu_ms / (res[IDLE].window_ms / 1e3);
    if (run_libopus(speech, (size_t)(seconds * RATE) / OPUS_FRAME * OPUS_FRAME, &enc, &dec, &complexity_default, &kbps) != 0) {
        fprintf(stderr, "libopus failed\n");
        return 1;
    }
    floor_send = run_paced_floor(speech, seconds);
    gst_ok = run_gst(argv[2], speech, frames_available, seconds, &gsend, &grecv, why, sizeof why) == 0;

    printf("{\"figures\": [\n");
    ratio[0] = 0;
    if (gst_ok) snprintf(ratio, sizeof ratio, ", agoraish/gstreamer = %.2f", send / gsend);
    snprintf(note, sizeof note,
             "CPU of a sender process (one engine in a call, all threads) per second of 48 kHz mono speech-like "
             "audio pushed 10 ms every 10 ms, default profile (Opus 18 kbps, FEC) + RTP + SRTP + send; "
             "%.1f s window; agoraish/libopus = %.2f, agoraish/(paced libopus + sendto) = %.2f%s",
             res[SENDER].window_ms / 1e3, send / enc, floor_send > 0 ? send / floor_send : 0, ratio);
    print_figure("audio_send_cpu_ms_per_s", 1, send, note, 0);
    snprintf(note, sizeof note,
             "the floor of a real-time sender in one thread: the same signal with a wake-up every 10 ms (as the "
             "engine's host pushes), bare opus_encode every 20 ms with the same settings, and sendto of each packet "
             "to a loopback socket (the kernel's loopback delivery is charged to the sender); %.0f s", seconds);
    print_figure("libopus_paced_send_cpu_ms_per_s", floor_send > 0, floor_send, note, 0);
    snprintf(note, sizeof note,
             "bare libopus 1.3 opus_encode, same signal and settings as the engine (VOIP, 18 kbps VBR, max band SWB, "
             "in-band FEC, 10%% expected loss, complexity 9 = libopus default %d, 20 ms frames; %.1f kbps achieved), "
             "one thread, median of %d runs over %.0f s of audio", complexity_default, kbps, REPEATS, seconds);
    print_figure("libopus_encode_cpu_ms_per_s", 1, enc, note, 0);
    if (gst_ok) {
        snprintf(note, sizeof note,
                 "gst-launch-1.0 sender process (fdsrc ! rawaudioparse ! opusenc, same settings ! rtpopuspay ! udpsink), "
                 "same signal and pacing, utime+stime over %.0f s (perf-anchors section 5, pink noise at 32 kbps "
                 "complexity 10: 40.5)", seconds);
    } else {
        snprintf(note, sizeof note, "not measured: %s", why);
    }
    print_figure("gstreamer_audio_send_cpu_ms_per_s", gst_ok, gsend, note, 0);

    ratio[0] = 0;
    if (gst_ok) snprintf(ratio, sizeof ratio, ", agoraish/gstreamer = %.2f", recv / grecv);
    snprintf(note, sizeof note,
             "CPU of a receiver process (one engine in the same call, all threads) per second of audio pulled "
             "10 ms every 10 ms at 48 kHz: receive + SRTP + jitter buffer + Opus decode + mix; %.1f s window, "
             "audio heard in %d of %d frames; agoraish/libopus = %.2f%s",
             res[RECEIVER].window_ms / 1e3, res[RECEIVER].voiced, res[RECEIVER].frames, recv / dec, ratio);
    print_figure("audio_receive_cpu_ms_per_s", 1, recv, note, 0);
    snprintf(note, sizeof note, "bare libopus opus_decode of the packets above, one thread, median of %d runs", REPEATS);
    print_figure("libopus_decode_cpu_ms_per_s", 1, dec, note, 0);
    if (gst_ok) {
        snprintf(note, sizeof note,
                 "gst-launch-1.0 receiver process (udpsrc ! rtpjitterbuffer latency=20 ! rtpopusdepay ! opusdec ! "
                 "fdsink sync=true), utime+stime over %.0f s (perf-anchors section 5: 17.0)", seconds);
    } else {
        snprintf(note, sizeof note, "not measured: %s", why);
    }
    print_figure("gstreamer_audio_receive_cpu_ms_per_s", gst_ok, grecv, note, 0);
    snprintf(note, sizeof note,
             "CPU of a process whose engine is alone in a call with an external source and sink and no audio, "
             "over the same %.1f s window: the part of the two figures above that is not audio work",
             res[IDLE].window_ms / 1e3);
    print_figure("audio_idle_in_call_cpu_ms_per_s", 1, idle, note, 1);
    printf("]}\n");
    free(speech);
    return 0;
}
