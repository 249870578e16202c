/*
 * audio_support.h — what the audio benchmarks share (bench/audio_delay.c,
 * bench/audio_cpu.c, bench/audio_pesq.c, bench/multi_channel.c): the audio
 * part of the C API looked up with dlopen, an embedded server, engines that record their events,
 * pacing on absolute CLOCK_MONOTONIC deadlines, test signals (a chirp, a
 * speech-like signal), a lossy UDP relay for the media path (random or
 * Gilbert-Elliott bursty loss), and running a
 * GStreamer comparison pipeline as a child process.
 *
 * Header-only (static inline), like bench_support.h. Define _POSIX_C_SOURCE
 * 200809L before any include; link with -ldl -lpthread -lm.
 */
#ifndef AGORAISH_BENCH_AUDIO_SUPPORT_H
#define AGORAISH_BENCH_AUDIO_SUPPORT_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agoraish.h"
#include "bench_support.h"

#define AUDIO_PI 3.14159265358979323846
#define AUDIO_APP_ID "0123456789abcdef0123456789abcdef"
#define AUDIO_WAIT_SECONDS 10

/* ------------------------------------------------------------------------ */
/* The API                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct audio_api {
    agoraish_engine_t *(*engine_create)(const agoraish_engine_config *);
    int (*engine_release)(agoraish_engine_t *, int);
    int (*join_channel)(agoraish_engine_t *, const char *, const char *, const char *, uint32_t);
    int (*leave_channel)(agoraish_engine_t *);
    int (*get_last_error)(void);
    int (*set_parameters)(agoraish_engine_t *, const char *);
    int (*set_external_audio_source)(agoraish_engine_t *, int, int, int);
    int (*push_external_audio_frame)(agoraish_engine_t *, const int16_t *, int);
    int (*set_external_audio_sink)(agoraish_engine_t *, int, int, int);
    int (*pull_playback_audio_frame)(agoraish_engine_t *, int16_t *, int);
    agoraish_server_t *(*server_create)(const agoraish_server_config *);
    int (*server_start)(agoraish_server_t *);
    int (*server_get_url)(agoraish_server_t *, char *, size_t *);
    int (*server_release)(agoraish_server_t *);
} audio_api;

static audio_api api;

/** Opens the library at `path` and looks up every function of `api`; 0 on success. */
static inline int load_audio_api(const char *path) {
    void *lib = open_library(path);
    if (!lib) return 1;
    LOOKUP(lib, api.engine_create, "agoraish_engine_create");
    LOOKUP(lib, api.engine_release, "agoraish_engine_release");
    LOOKUP(lib, api.join_channel, "agoraish_engine_join_channel");
    LOOKUP(lib, api.leave_channel, "agoraish_engine_leave_channel");
    LOOKUP(lib, api.get_last_error, "agoraish_get_last_error");
    LOOKUP(lib, api.set_parameters, "agoraish_engine_set_parameters");
    LOOKUP(lib, api.set_external_audio_source, "agoraish_engine_set_external_audio_source");
    LOOKUP(lib, api.push_external_audio_frame, "agoraish_engine_push_external_audio_frame");
    LOOKUP(lib, api.set_external_audio_sink, "agoraish_engine_set_external_audio_sink");
    LOOKUP(lib, api.pull_playback_audio_frame, "agoraish_engine_pull_playback_audio_frame");
    LOOKUP(lib, api.server_create, "agoraish_server_create");
    LOOKUP(lib, api.server_start, "agoraish_server_start");
    LOOKUP(lib, api.server_get_url, "agoraish_server_get_url");
    LOOKUP(lib, api.server_release, "agoraish_server_release");
    return 0;
}

/**
 * Starts an embedded server on 127.0.0.1 (free ports) with `config_json`
 * (may be NULL) and writes its URL into `url`. NULL when it cannot start.
 */
static inline agoraish_server_t *start_embedded_server(const char *config_json, char *url, size_t cap) {
    agoraish_server_config config;
    agoraish_server_t *server;
    size_t len = cap;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.config_json = config_json;
    server = api.server_create(&config);
    if (!server) {
        fprintf(stderr, "server_create failed (%d)\n", api.get_last_error());
        return NULL;
    }
    if (api.server_start(server) != 0 || api.server_get_url(server, url, &len) != 0) {
        fprintf(stderr, "cannot start the embedded server\n");
        api.server_release(server);
        return NULL;
    }
    return server;
}

/* ------------------------------------------------------------------------ */
/* Engines and their events                                                  */
/* ------------------------------------------------------------------------ */

/** What one engine's callbacks saw. */
typedef struct peer {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    agoraish_engine_t *engine;
    int joined;
    int remote_joined;          /* a remote user joined */
    int remote_decoded;         /* on_first_remote_audio_decoded */
    int errors;
    int stats_count;            /* on_remote_audio_stats seen */
    agoraish_remote_audio_stats remote_stats; /* the last one */
} peer;

static inline void peer_signal(peer *p, int *field) {
    pthread_mutex_lock(&p->mutex);
    (*field)++;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mutex);
}

static inline void on_peer_join(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    peer *p = ud;
    (void)e, (void)channel, (void)uid, (void)elapsed;
    peer_signal(p, &p->joined);
}

static inline void on_peer_user_joined(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    peer *p = ud;
    (void)e, (void)uid, (void)elapsed;
    peer_signal(p, &p->remote_joined);
}

static inline void on_peer_decoded(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    peer *p = ud;
    (void)e, (void)uid, (void)elapsed;
    peer_signal(p, &p->remote_decoded);
}

static inline void on_peer_error(agoraish_engine_t *e, void *ud, int err, const char *msg) {
    peer *p = ud;
    (void)e;
    fprintf(stderr, "on_error %d: %s\n", err, msg);
    peer_signal(p, &p->errors);
}

static inline void on_peer_remote_stats(agoraish_engine_t *e, void *ud, const agoraish_remote_audio_stats *stats) {
    peer *p = ud;
    size_t n = stats->struct_size < sizeof p->remote_stats ? stats->struct_size : sizeof p->remote_stats;
    (void)e;
    pthread_mutex_lock(&p->mutex);
    memset(&p->remote_stats, 0, sizeof p->remote_stats);
    memcpy(&p->remote_stats, stats, n);
    p->stats_count++;
    pthread_mutex_unlock(&p->mutex);
}

/**
 * Creates an engine for `p` against the server at `url`, logging to
 * `log_file`, with an external source and an external sink at `rate` Hz mono
 * (so no audio device runs: the host pushes and pulls). NULL on failure.
 */
static inline agoraish_engine_t *peer_create(peer *p, const char *url, const char *log_file, int rate) {
    agoraish_event_handler handler;
    agoraish_engine_config config;
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->cond, NULL);
    memset(&handler, 0, sizeof handler);
    handler.struct_size = sizeof handler;
    handler.user_data = p;
    handler.on_join_channel_success = on_peer_join;
    handler.on_user_joined = on_peer_user_joined;
    handler.on_first_remote_audio_decoded = on_peer_decoded;
    handler.on_error = on_peer_error;
    handler.on_remote_audio_stats = on_peer_remote_stats;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = AUDIO_APP_ID;
    config.event_handler = &handler;
    config.server_url = url;
    config.log_file = log_file;
    p->engine = api.engine_create(&config);
    if (!p->engine) {
        fprintf(stderr, "engine_create failed (%d)\n", api.get_last_error());
        return NULL;
    }
    if (api.set_external_audio_source(p->engine, 1, rate, 1) != 0 ||
        api.set_external_audio_sink(p->engine, 1, rate, 1) != 0) {
        fprintf(stderr, "cannot enable the external audio source and sink at %d Hz\n", rate);
        api.engine_release(p->engine, 1);
        p->engine = NULL;
        return NULL;
    }
    return p->engine;
}

/** Waits until *field is nonzero (or an error, or AUDIO_WAIT_SECONDS); returns whether it is. */
static inline int peer_wait(peer *p, const int *field) {
    struct timespec deadline;
    int ok;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += AUDIO_WAIT_SECONDS;
    pthread_mutex_lock(&p->mutex);
    while (*field == 0 && p->errors == 0) {
        if (pthread_cond_timedwait(&p->cond, &p->mutex, &deadline) == ETIMEDOUT) break;
    }
    ok = *field != 0;
    pthread_mutex_unlock(&p->mutex);
    return ok;
}

/** Joins `channel` as `uid` and waits for on_join_channel_success; 0 on success. */
static inline int peer_join(peer *p, const char *channel, uint32_t uid) {
    int code = api.join_channel(p->engine, NULL, channel, NULL, uid);
    if (code != 0) {
        fprintf(stderr, "join_channel(%u) returned %d\n", uid, code);
        return 1;
    }
    if (!peer_wait(p, &p->joined)) {
        fprintf(stderr, "uid %u: no on_join_channel_success within %d s\n", uid, AUDIO_WAIT_SECONDS);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Pacing                                                                    */
/* ------------------------------------------------------------------------ */

/** Sleeps until CLOCK_MONOTONIC reads `at_ms` (an absolute deadline, as now_ms()). */
static inline void sleep_until_ms(double at_ms) {
    struct timespec ts;
    ts.tv_sec = (time_t)(at_ms / 1e3);
    ts.tv_nsec = (long)((at_ms - (double)ts.tv_sec * 1e3) * 1e6);
    if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
    if (ts.tv_nsec < 0) ts.tv_nsec = 0;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
}

/** CPU time of this process (every thread), in milliseconds. */
static inline double process_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/** CPU time of another process (user + system, every thread) from /proc, in ms; -1 when unreadable. */
static inline double pid_cpu_ms(pid_t pid) {
    char path[64], buf[2048];
    char *p;
    FILE *f;
    size_t n;
    unsigned long utime = 0, stime = 0;
    int field;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    if (!(f = fopen(path, "r"))) return -1;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    if (!(p = strrchr(buf, ')'))) return -1;
    /* Fields after the command: 3 state ... 14 utime, 15 stime. */
    p++;
    for (field = 3; field <= 15 && *p; field++) {
        while (*p == ' ') p++;
        if (field == 14) utime = strtoul(p, NULL, 10);
        if (field == 15) stime = strtoul(p, NULL, 10);
        while (*p && *p != ' ') p++;
    }
    return (double)(utime + stime) * 1e3 / (double)sysconf(_SC_CLK_TCK);
}

/* ------------------------------------------------------------------------ */
/* Signals                                                                   */
/* ------------------------------------------------------------------------ */

/** splitmix64: a small deterministic generator. */
static inline uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/** Uniform in [0, 1). */
static inline double next_uniform(uint64_t *state) { return (double)(next_random(state) >> 11) / 9007199254740992.0; }

/**
 * The click: a linear chirp from 200 Hz to 1000 Hz over `n` samples at
 * `rate`, with raised-cosine edges, peak `amplitude`. Low and slow enough
 * that 18 kbps Opus keeps its waveform: through libopus with the engine's
 * settings, 10 ms of it correlates with the original at 0.87 or more at any
 * offset in the frame, and its peak lands within 0.2 ms of the truth.
 */
static inline void make_chirp(double *out, int n, int rate, double amplitude) {
    double seconds = (double)n / rate, f0 = 200, f1 = 1000;
    int i, edge = n / 8;
    for (i = 0; i < n; i++) {
        double t = (double)i / rate;
        double phase = 2 * AUDIO_PI * (f0 * t + (f1 - f0) * t * t / (2 * seconds));
        double w = 1;
        if (i < edge) w = 0.5 - 0.5 * cos(AUDIO_PI * i / edge);
        if (i >= n - edge) w = 0.5 - 0.5 * cos(AUDIO_PI * (n - 1 - i) / edge);
        out[i] = amplitude * w * sin(phase);
    }
}

/**
 * A speech-like signal (the signal of the libopus reference measurements):
 * a 12-harmonic voice whose pitch glides between ~100 and ~220 Hz, a 4 Hz
 * syllable envelope, a 0.4 s pause every 2.5 s, and short noise bursts
 * (fricatives). Deterministic for a given `seed`.
 */
static inline void make_speech(int16_t *out, size_t n, int rate, uint64_t seed) {
    double phase = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double t = (double)i / rate, v = 0, f0, env, cycle;
        int k;
        f0 = 160 + 60 * sin(2 * AUDIO_PI * 0.35 * t) + 15 * sin(2 * AUDIO_PI * 3.1 * t);
        phase += 2 * AUDIO_PI * f0 / rate;
        if (phase > 2 * AUDIO_PI * 1000) phase -= 2 * AUDIO_PI * 1000;
        for (k = 1; k <= 12; k++) {
            /* A formant-like tilt: harmonics near 500 Hz and 1500 Hz are louder. */
            double f = k * f0;
            double g = 1.0 / k + 0.6 * exp(-pow((f - 500) / 250, 2)) + 0.3 * exp(-pow((f - 1500) / 400, 2));
            v += g * sin(k * phase);
        }
        env = pow(fabs(sin(2 * AUDIO_PI * 2.0 * t)), 0.7);
        cycle = fmod(t, 2.5);
        if (cycle > 2.1) env = 0;
        v *= env * 4200;
        /* A 60 ms noise burst every 0.7 s. */
        if (fmod(t, 0.7) < 0.06 && cycle <= 2.1) v += (next_uniform(&seed) * 2 - 1) * 2500;
        if (v > 32767) v = 32767;
        if (v < -32768) v = -32768;
        out[i] = (int16_t)lrint(v);
    }
}

/* ------------------------------------------------------------------------ */
/* A lossy relay for the media path                                          */
/* ------------------------------------------------------------------------ */

/*
 * The server advertises the relay's address as its media host (the
 * "listen.media_host" setting); every engine sends its media there. The relay
 * forwards each client's datagrams to the server's real media port through a
 * socket of its own per client (as a NAT would), and the server's answers
 * back to the client. SRTP is end to end between engine and server and the
 * relay never looks inside a packet beyond the first two bytes: it drops
 * whole RTP datagrams from the clients and forwards STUN and RTCP untouched.
 *
 * Each client's RTP has its own loss draws, all from the same seed: whether
 * a client's k-th RTP datagram is dropped depends only on k, the model and
 * the seed, so two runs whose sender sends the same packets lose the same
 * ones whatever else passes through the relay. The model is either random
 * (each datagram dropped with probability `loss`) or a Gilbert-Elliott chain
 * (relay_set_burst): before each datagram a good state turns bad with
 * probability `good_to_bad` and a bad one good with `bad_to_good`; every
 * datagram in the bad state is dropped. The long-run loss is then
 * good_to_bad / (good_to_bad + bad_to_good) and a burst lasts
 * 1 / bad_to_good datagrams on average.
 */

#define RELAY_MAX_CLIENTS 8

typedef struct relay {
    int listen_fd;                  /* 127.0.0.2:port, what the engines send to */
    uint16_t port;
    struct sockaddr_in server;      /* 127.0.0.1:port, the server's media socket */
    struct {
        struct sockaddr_in addr;
        int fd;
        uint64_t rng;               /* this client's loss draws */
        int bad;                    /* Gilbert-Elliott state */
        int dropping;               /* the previous RTP datagram was dropped */
    } clients[RELAY_MAX_CLIENTS];
    int client_count;
    double loss;                    /* random loss probability (when good_to_bad is 0) */
    double good_to_bad, bad_to_good; /* Gilbert-Elliott transition probabilities; 0, 0: random loss */
    uint64_t seed;
    volatile int stop;
    pthread_t thread;
    /* Counters of RTP from the clients (read after relay_stop): bursts are runs of consecutive drops. */
    unsigned long rtp_forwarded, rtp_dropped, other_forwarded, bursts, longest_burst, burst_now;
} relay;

/** Binds the relay's listening socket on 127.0.0.2 (a free port), random loss `loss`; 0 on success. */
static inline int relay_open(relay *r, double loss, uint64_t seed) {
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(r, 0, sizeof *r);
    r->loss = loss;
    r->seed = seed;
    r->listen_fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (r->listen_fd < 0) return 1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(0x7F000002);
    if (bind(r->listen_fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        getsockname(r->listen_fd, (struct sockaddr *)&a, &len) != 0) {
        perror("relay bind 127.0.0.2");
        return 1;
    }
    r->port = ntohs(a.sin_port);
    memset(&r->server, 0, sizeof r->server);
    r->server.sin_family = AF_INET;
    r->server.sin_addr.s_addr = htonl(0x7F000001);
    r->server.sin_port = htons(r->port);
    return 0;
}

/** Gilbert-Elliott loss instead of random loss (probabilities 0..1); call before relay_start. */
static inline void relay_set_burst(relay *r, double good_to_bad, double bad_to_good) {
    r->good_to_bad = good_to_bad;
    r->bad_to_good = bad_to_good;
}

/** Whether a datagram is RTP (not STUN, not RTCP): version 2 and a payload type outside 192..223. */
static inline int relay_is_rtp(const unsigned char *b, ssize_t n) {
    return n >= 12 && (b[0] & 0xC0) == 0x80 && !(b[1] >= 192 && b[1] <= 223);
}

/** Whether client `c`'s next RTP datagram is dropped (one draw per datagram), counting bursts. */
static inline int relay_drops(relay *r, int c) {
    double u = next_uniform(&r->clients[c].rng);
    int drop;
    if (r->good_to_bad > 0) {
        if (r->clients[c].bad) {
            if (u < r->bad_to_good) r->clients[c].bad = 0;
        } else if (u < r->good_to_bad) {
            r->clients[c].bad = 1;
        }
        drop = r->clients[c].bad;
    } else {
        drop = r->loss > 0 && u < r->loss;
    }
    if (drop) {
        if (!r->clients[c].dropping) {
            r->bursts++;
            r->burst_now = 0;
        }
        if (++r->burst_now > r->longest_burst) r->longest_burst = r->burst_now;
    }
    r->clients[c].dropping = drop;
    return drop;
}

static inline void *relay_run(void *arg) {
    relay *r = arg;
    unsigned char buf[2048];
    while (!r->stop) {
        struct pollfd fds[1 + RELAY_MAX_CLIENTS];
        int i, n = r->client_count;
        fds[0].fd = r->listen_fd;
        fds[0].events = POLLIN;
        for (i = 0; i < n; i++) {
            fds[1 + i].fd = r->clients[i].fd;
            fds[1 + i].events = POLLIN;
        }
        if (poll(fds, (nfds_t)(1 + n), 50) <= 0) continue;
        if (fds[0].revents & POLLIN) {
            struct sockaddr_in from;
            socklen_t fl = sizeof from;
            ssize_t got = recvfrom(r->listen_fd, buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
            if (got > 0) {
                int c;
                for (c = 0; c < r->client_count; c++) {
                    if (r->clients[c].addr.sin_port == from.sin_port &&
                        r->clients[c].addr.sin_addr.s_addr == from.sin_addr.s_addr) break;
                }
                if (c == r->client_count && c < RELAY_MAX_CLIENTS) {
                    struct sockaddr_in any;
                    int fd = socket(AF_INET, SOCK_DGRAM, 0);
                    memset(&any, 0, sizeof any);
                    any.sin_family = AF_INET;
                    any.sin_addr.s_addr = htonl(0x7F000001);
                    if (fd >= 0 && bind(fd, (struct sockaddr *)&any, sizeof any) == 0 &&
                        connect(fd, (struct sockaddr *)&r->server, sizeof r->server) == 0) {
                        r->clients[c].addr = from;
                        r->clients[c].fd = fd;
                        r->clients[c].rng = r->seed;
                        r->clients[c].bad = 0;
                        r->clients[c].dropping = 0;
                        r->client_count++;
                    } else {
                        if (fd >= 0) close(fd);
                        c = RELAY_MAX_CLIENTS;
                    }
                }
                if (c < r->client_count) {
                    if (relay_is_rtp(buf, got)) {
                        if (relay_drops(r, c)) {
                            r->rtp_dropped++;
                        } else {
                            r->rtp_forwarded++;
                            if (send(r->clients[c].fd, buf, (size_t)got, 0) < 0) {}
                        }
                    } else {
                        r->other_forwarded++;
                        if (send(r->clients[c].fd, buf, (size_t)got, 0) < 0) {}
                    }
                }
            }
        }
        for (i = 0; i < n; i++) {
            if (fds[1 + i].revents & POLLIN) {
                ssize_t got = recv(r->clients[i].fd, buf, sizeof buf, MSG_DONTWAIT);
                if (got > 0) {
                    if (sendto(r->listen_fd, buf, (size_t)got, 0, (struct sockaddr *)&r->clients[i].addr,
                               sizeof r->clients[i].addr) < 0) {}
                }
            }
        }
    }
    return NULL;
}

static inline int relay_start(relay *r) { return pthread_create(&r->thread, NULL, relay_run, r); }

static inline void relay_stop(relay *r) {
    int i;
    r->stop = 1;
    pthread_join(r->thread, NULL);
    for (i = 0; i < r->client_count; i++) close(r->clients[i].fd);
    close(r->listen_fd);
}

/* ------------------------------------------------------------------------ */
/* GStreamer as a child process                                              */
/* ------------------------------------------------------------------------ */

/** Whether `name` is an executable file in $PATH. */
static inline int have_program(const char *name) {
    const char *path = getenv("PATH");
    char dir[4096];
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        if (len > 0 && len + strlen(name) + 2 < sizeof dir) {
            memcpy(dir, path, len);
            dir[len] = '/';
            strcpy(dir + len + 1, name);
            if (access(dir, X_OK) == 0) return 1;
        }
        if (!end) break;
        path = end + 1;
    }
    return 0;
}

/** A free UDP port on 127.0.0.1 (bound and released); 0 on failure. */
static inline uint16_t free_udp_port(void) {
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    uint16_t port = 0;
    if (fd < 0) return 0;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(0x7F000001);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0) {
        port = ntohs(a.sin_port);
    }
    close(fd);
    return port;
}

/**
 * Starts `gst-launch-1.0 -q PIPELINE` with `fd` as the child's descriptor 3
 * (the pipeline's fdsrc or fdsink uses fd=3), stdout to /dev/null and stderr
 * to `log_path`. PIPELINE is split on spaces (no quoting: keep caps free of
 * spaces). Returns the pid, or -1.
 */
static inline pid_t spawn_gst(const char *pipeline, int fd, const char *log_path) {
    pid_t pid = fork();
    if (pid == 0) {
        char copy[4096], *argv[128], *save = NULL, *tok;
        int argc = 0, devnull, log;
        strncpy(copy, pipeline, sizeof copy - 1);
        copy[sizeof copy - 1] = 0;
        argv[argc++] = "gst-launch-1.0";
        argv[argc++] = "-q";
        for (tok = strtok_r(copy, " ", &save); tok && argc < 126; tok = strtok_r(NULL, " ", &save)) argv[argc++] = tok;
        argv[argc] = NULL;
        if (fd != 3) {
            if (dup2(fd, 3) < 0) _exit(126);
            close(fd);
        } else {
            fcntl(3, F_SETFD, 0);
        }
        devnull = open("/dev/null", O_RDWR);
        log = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (devnull >= 0) { dup2(devnull, 0); dup2(devnull, 1); }
        if (log >= 0) dup2(log, 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/** Stops a child (SIGTERM, then SIGKILL after 2 s) and reaps it. */
static inline void stop_child(pid_t pid) {
    int i, status;
    if (pid <= 0) return;
    kill(pid, SIGTERM);
    for (i = 0; i < 200; i++) {
        if (waitpid(pid, &status, WNOHANG) == pid) return;
        sleep_until_ms(now_ms() + 10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
}

/** Whether a child is still running (not exited). */
static inline int child_running(pid_t pid) {
    int status;
    return waitpid(pid, &status, WNOHANG) == 0;
}

/** Writes all of `buf` to `fd`; 0 on success. */
static inline int write_all(int fd, const void *buf, size_t len) {
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/** Reads one line (without its newline) from `fd` into `buf`; 0 when a non-empty line came. */
static inline int read_line(int fd, char *buf, size_t cap) {
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t got = read(fd, buf + n, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (buf[n] == '\n') break;
        n++;
    }
    buf[n] = 0;
    return n > 0 ? 0 : 1;
}

/** The body of a benchmark's server process (a forked child): starts an
 *  embedded server with `config_json` (NULL: the defaults), writes its URL
 *  and a newline to `url_fd`, serves until `control` reaches EOF. */
static inline int server_child(const char *lib, const char *config_json, int url_fd, int control) {
    char url[128], c;
    agoraish_server_t *server;
    if (load_audio_api(lib) != 0 || !(server = start_embedded_server(config_json, url, sizeof url))) return 1;
    strcat(url, "\n");
    write_all(url_fd, url, strlen(url));
    close(url_fd);
    while (read(control, &c, 1) > 0) {}
    api.server_release(server);
    return 0;
}

/*
 * The GStreamer pipelines compared with the engine: Opus with the engine's
 * default settings (speech, 18 kbps VBR, in-band FEC for 10 % loss,
 * complexity 9, 20 ms frames), RTP over UDP on 127.0.0.1, a 20 ms
 * rtpjitterbuffer, and a sink that renders on the pipeline clock (sync=true),
 * as a playout device would. PCM goes in and out through fd 3 as 48 kHz mono
 * S16LE. The decoder runs without in-band FEC (opusdec's default): with
 * use-inband-fec=true GStreamer 1.22's opusdec holds a packet back and
 * reports a latency that put the measured delay at ~170 ms.
 */
static inline void gst_sender_pipeline(char *out, size_t cap, uint16_t port) {
    snprintf(out, cap,
             "fdsrc fd=3 blocksize=960 ! rawaudioparse use-sink-caps=false format=pcm pcm-format=s16le "
             "sample-rate=48000 num-channels=1 ! opusenc audio-type=voice bitrate=18000 bitrate-type=vbr "
             "bandwidth=auto frame-size=20 inband-fec=true packet-loss-percentage=10 complexity=9 ! "
             "rtpopuspay pt=111 ! udpsink host=127.0.0.1 port=%u sync=false async=false",
             (unsigned)port);
}

static inline void gst_receiver_pipeline(char *out, size_t cap, uint16_t port) {
    snprintf(out, cap,
             "udpsrc address=127.0.0.1 port=%u "
             "caps=application/x-rtp,media=audio,clock-rate=48000,encoding-name=OPUS,payload=111 ! "
             "rtpjitterbuffer latency=20 ! rtpopusdepay ! opusdec ! audioconvert ! "
             "audio/x-raw,format=S16LE,channels=1,rate=48000 ! fdsink fd=3 sync=true",
             (unsigned)port);
}

#endif /* AGORAISH_BENCH_AUDIO_SUPPORT_H */
