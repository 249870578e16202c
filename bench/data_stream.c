/*
 * data_stream.c — delivery latency and throughput of data streams
 * (agoraish_engine_create_data_stream, agoraish_engine_send_stream_message)
 * between two engines through the embedded server, and a bare UDP loopback
 * round trip to put them beside.
 *
 * An embedded server and two engines in this process, one call per RUN (a
 * new pair of engines in a new channel each time, the same server). Both
 * engines have an external audio source and sink (no device runs, nothing is
 * pushed): the media path carries the data stream alone. The sender creates a
 * reliable ordered stream (create_data_stream(.., reliable 1, ordered 1)).
 * In a loss run the receiver gets, before it joins,
 * {"rtc.network_simulation": {"loss_percent": LOSS, "seed": SEED}}: its
 * engine drops that share of the RTP it receives at random (data,
 * retransmissions and keepalives alike), and the reliable stream repairs the
 * gaps (NACK, RTX from the server's cache).
 *
 * Warm-up: the sender sends a warm-up message every 100 ms until the first
 * one arrives (the media path is bound then), then waits 1.1 s so that the
 * engine's one-second window of the rate limits is empty again. Measured:
 * message k is sent at start + k / RATE s (absolute CLOCK_MONOTONIC
 * deadlines) for SECONDS s, BYTES bytes each, carrying a marker, k, and
 * CLOCK_MONOTONIC in ns taken just before send_stream_message; the
 * receiver's on_stream_message takes CLOCK_MONOTONIC at entry, and the
 * delivery latency is the difference (one process, one clock; finer than
 * the callback's sent_ts, the sender's wall clock in ms, which is checked
 * against the time taken here). A send refused with -115 (the engine's
 * limits: 30 messages or 6144 bytes within any second) is tried again every
 * 1 ms, with a new time, up to 200 ms, and counted. After the last send the
 * call lasts until every accepted message arrived, or 6 s (a reliable stream
 * gives a loss up after 5 s and reports it with on_stream_message_error).
 *
 * Bare UDP: before the calls, UDP_PINGS datagrams of 100 bytes, one every
 * 50 ms (the 20/s of the latency runs), from a socket of this thread to an
 * echo thread's socket on 127.0.0.1 and back; the round trip (two passes
 * through the kernel's loopback, as a message passes sender -> server ->
 * receiver) of each, CLOCK_MONOTONIC.
 *
 *   data_stream PATH LOG_DIR SECONDS UDP_PINGS RUN...
 *     RUN: RATE:BYTES:LOSS_PERCENT (messages per second, bytes per message, simulated loss on the receiver)
 *     -> {"udp": {...}, "runs": [{"rate": n, "bytes": n, "loss": n, "latency_ms": {...},
 *                                 "samples_ms": [every latency, sorted], ...}, ...]}
 */
#define _POSIX_C_SOURCE 200809L

#include <sys/time.h>

#include "audio_support.h"

#define SENDER_UID 7001u
#define RECEIVER_UID 7002u
#define SEED_BASE 7                 /* + 0: the seed of every loss run */
#define MARK_WARMUP 0x57u           /* 'W' */
#define MARK_MEASURED 0x4Du         /* 'M' */
#define HEADER_BYTES 13             /* marker (1), k (4), send time in ns (8) */
#define RETRY_MS 1.0
#define RETRY_LIMIT_MS 200.0
#define DRAIN_MS 6000.0
#define UDP_BYTES 100
#define UDP_INTERVAL_MS 50.0

static int (*create_data_stream)(agoraish_engine_t *, int *, int, int);
static int (*send_stream_message)(agoraish_engine_t *, int, const void *, size_t);

/* ------------------------------------------------------------------------ */
/* Bytes                                                                     */
/* ------------------------------------------------------------------------ */

static void put_u32(unsigned char *p, uint32_t v) {
    int i;
    for (i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (24 - 8 * i));
}

static void put_u64(unsigned char *p, uint64_t v) {
    int i;
    for (i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (56 - 8 * i));
}

static uint32_t get_u32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint64_t get_u64(const unsigned char *p) {
    uint64_t v = 0;
    int i;
    for (i = 0; i < 8; i++) v = v << 8 | p[i];
    return v;
}

/** CLOCK_MONOTONIC in nanoseconds. */
static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/** CLOCK_REALTIME in milliseconds (what sent_ts counts). */
static double wall_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* ------------------------------------------------------------------------ */
/* The engines                                                               */
/* ------------------------------------------------------------------------ */

/** What the receiver's data callbacks saw (under base.mutex). */
typedef struct dpeer {
    peer base;                  /* first: the audio_support callbacks take a peer * */
    int count;                  /* measured messages expected (k < count) */
    double *sent_ms;            /* the sender's CLOCK_MONOTONIC per k (ms), 0 until sent */
    double *sent_wall_ms;       /* the sender's CLOCK_REALTIME per k, just after the send */
    double *latency_ms;         /* per k: first delivery - send time; -1 not delivered */
    double *sent_ts_latency_ms; /* per k: CLOCK_REALTIME at delivery - sent_ts */
    double *sent_ts_skew_ms;    /* per k: sent_ts - the sender's CLOCK_REALTIME after the call */
    int warmups;                /* warm-up messages delivered */
    int delivered, duplicates, out_of_order, foreign, last_k;
    double first_delivery_ms, last_delivery_ms;
    int error_events, missed, cached;
    int error_code;             /* the last on_stream_message_error code */
} dpeer;

static void on_message(agoraish_engine_t *e, void *ud, uint32_t uid, int stream_id, const uint8_t *data,
                       size_t length, uint64_t sent_ts) {
    dpeer *p = ud;
    double at = (double)now_ns() / 1e6, wall = wall_ms();
    uint32_t k;
    (void)e, (void)stream_id;
    pthread_mutex_lock(&p->base.mutex);
    if (uid != SENDER_UID || length < HEADER_BYTES) {
        p->foreign++;
    } else if (data[0] == MARK_WARMUP) {
        p->warmups++;
        pthread_cond_broadcast(&p->base.cond);
    } else if (data[0] != MARK_MEASURED || (k = get_u32(data + 1)) >= (uint32_t)p->count) {
        p->foreign++;
    } else if (p->latency_ms[k] >= 0) {
        p->duplicates++;
    } else {
        p->latency_ms[k] = at - (double)get_u64(data + 5) / 1e6;
        p->sent_ts_latency_ms[k] = wall - (double)sent_ts;
        p->sent_ts_skew_ms[k] = (double)sent_ts; /* made relative to the sender's clock at the end */
        if ((int)k < p->last_k) p->out_of_order++;
        p->last_k = (int)k;
        if (p->delivered == 0) p->first_delivery_ms = at;
        p->last_delivery_ms = at;
        p->delivered++;
        pthread_cond_broadcast(&p->base.cond);
    }
    pthread_mutex_unlock(&p->base.mutex);
}

static void on_message_error(agoraish_engine_t *e, void *ud, uint32_t uid, int stream_id, int code, int missed,
                             int cached) {
    dpeer *p = ud;
    (void)e, (void)uid, (void)stream_id;
    pthread_mutex_lock(&p->base.mutex);
    p->error_events++;
    p->missed += missed;
    p->cached += cached;
    p->error_code = code;
    pthread_mutex_unlock(&p->base.mutex);
}

/**
 * An engine against the server at `url`, logging to `log_file`, with an
 * external audio source and sink at 48 kHz mono (no device), the data
 * callbacks on. NULL on failure.
 */
static agoraish_engine_t *dpeer_create(dpeer *p, const char *url, const char *log_file) {
    agoraish_event_handler handler;
    agoraish_engine_config config;
    peer *b = &p->base;
    memset(p, 0, sizeof *p);
    p->last_k = -1;
    pthread_mutex_init(&b->mutex, NULL);
    pthread_cond_init(&b->cond, NULL);
    memset(&handler, 0, sizeof handler);
    handler.struct_size = sizeof handler;
    handler.user_data = p;
    handler.on_join_channel_success = on_peer_join;
    handler.on_user_joined = on_peer_user_joined;
    handler.on_error = on_peer_error;
    handler.on_stream_message = on_message;
    handler.on_stream_message_error = on_message_error;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = AUDIO_APP_ID;
    config.event_handler = &handler;
    config.server_url = url;
    config.log_file = log_file;
    b->engine = api.engine_create(&config);
    if (!b->engine) {
        fprintf(stderr, "engine_create failed (%d)\n", api.get_last_error());
        return NULL;
    }
    if (api.set_external_audio_source(b->engine, 1, 48000, 1) != 0 ||
        api.set_external_audio_sink(b->engine, 1, 48000, 1) != 0) {
        fprintf(stderr, "cannot set up the external audio source and sink\n");
        api.engine_release(b->engine, 1);
        return b->engine = NULL;
    }
    return b->engine;
}

/** Waits on the receiver's condition until `deadline_ms` (CLOCK_MONOTONIC ms) or 100 ms, whichever is first. */
static void dpeer_wait(dpeer *p, double deadline_ms) {
    struct timespec ts;
    double left = deadline_ms - now_ms();
    if (left <= 0) return;
    if (left > 100) left = 100;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)(left * 1e6);
    while (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
    pthread_cond_timedwait(&p->base.cond, &p->base.mutex, &ts);
}

/* ------------------------------------------------------------------------ */
/* One call                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct result {
    int rate, bytes, loss, seed, count;
    int accepted, refusals, refused_messages, failures, last_failure;
    double max_retry_ms;            /* the longest a refused message waited for its retry to pass */
    double send_span_ms;            /* first to last accepted send */
    int delivered, duplicates, out_of_order, foreign, error_events, missed, cached, error_code;
    double first_delivery_ms, last_delivery_ms, drain_ms;
    int n;                          /* latencies in `sorted` */
    double *sorted;                 /* delivery latencies (ms), sorted */
    double sent_ts_p50, sent_ts_p99;    /* the same from sent_ts (ms resolution) */
    double skew_min, skew_max;      /* sent_ts - the sender's CLOCK_REALTIME just after its send call */
    double warmup_ms;               /* from both joined to the first warm-up message delivered */
    int warmups_sent;
    double late_100;                /* share of messages later than 100 ms */
} result;

/** Sends `msg` (`bytes` bytes) stamping it afresh each try; retries -115 every RETRY_MS. 0 sent, else the code. */
static int send_stamped(agoraish_engine_t *engine, int stream, unsigned char *msg, int bytes, result *r,
                        double *stamped_ms) {
    double first = now_ms();
    int code, refused = 0;
    for (;;) {
        uint64_t t = now_ns();
        put_u64(msg + 5, t);
        code = send_stream_message(engine, stream, msg, (size_t)bytes);
        if (code != -115 || now_ms() - first >= RETRY_LIMIT_MS) {
            if (code == 0) *stamped_ms = (double)t / 1e6;
            break;
        }
        r->refusals++;
        refused = 1;
        sleep_until_ms(now_ms() + RETRY_MS);
    }
    if (refused) {
        r->refused_messages++;
        if (code == 0 && *stamped_ms - first > r->max_retry_ms) r->max_retry_ms = *stamped_ms - first;
    }
    return code;
}

static int run_call(const char *url, const char *log_dir, double seconds, int rate, int bytes, int loss, result *r) {
    char log_a[4096], log_b[4096], channel[64], json[160];
    unsigned char msg[AGORAISH_MAX_STREAM_MESSAGE_SIZE];
    dpeer a, b;
    double joined, start, deadline, first_send = 0, last_send = 0;
    int stream = 0, k, rc = 0;
    memset(r, 0, sizeof *r);
    r->rate = rate;
    r->bytes = bytes;
    r->loss = loss;
    r->seed = SEED_BASE;
    r->count = (int)(seconds * rate + 0.5);
    snprintf(log_a, sizeof log_a, "%s/data_%d_%d_%d_sender.log", log_dir, rate, bytes, loss);
    snprintf(log_b, sizeof log_b, "%s/data_%d_%d_%d_receiver.log", log_dir, rate, bytes, loss);
    snprintf(channel, sizeof channel, "bench-data-%d-%d-%d", rate, bytes, loss);
    if (!dpeer_create(&a, url, log_a) || !dpeer_create(&b, url, log_b)) return 1;
    b.count = r->count;
    b.sent_ms = calloc((size_t)r->count, sizeof(double));
    b.sent_wall_ms = calloc((size_t)r->count, sizeof(double));
    b.latency_ms = malloc((size_t)r->count * sizeof(double));
    b.sent_ts_latency_ms = calloc((size_t)r->count, sizeof(double));
    b.sent_ts_skew_ms = calloc((size_t)r->count, sizeof(double));
    r->sorted = malloc((size_t)r->count * sizeof(double));
    if (!b.sent_ms || !b.sent_wall_ms || !b.latency_ms || !b.sent_ts_latency_ms || !b.sent_ts_skew_ms || !r->sorted) {
        return 1;
    }
    for (k = 0; k < r->count; k++) b.latency_ms[k] = -1;
    memset(msg, 0x2E, sizeof msg);
    if (loss > 0) {
        snprintf(json, sizeof json, "{\"rtc.network_simulation\": {\"loss_percent\": %d, \"seed\": %d}}", loss, r->seed);
        if (api.set_parameters(b.base.engine, json) != 0) {
            fprintf(stderr, "set_parameters %s failed\n", json);
            rc = 1;
            goto done;
        }
    }
    if (peer_join(&a.base, channel, SENDER_UID) || peer_join(&b.base, channel, RECEIVER_UID) ||
        !peer_wait(&b.base, &b.base.remote_joined) || !peer_wait(&a.base, &a.base.remote_joined)) {
        fprintf(stderr, "the engines did not meet in the channel\n");
        rc = 1;
        goto done;
    }
    if (create_data_stream(a.base.engine, &stream, 1, 1) != 0) {
        fprintf(stderr, "create_data_stream failed\n");
        rc = 1;
        goto done;
    }
    joined = now_ms();

    /* Warm-up: until a message gets through (at most 10 s), then an empty rate window. */
    msg[0] = MARK_WARMUP;
    deadline = joined + 10e3;
    pthread_mutex_lock(&b.base.mutex);
    while (b.warmups == 0 && now_ms() < deadline) {
        double next = now_ms() + 100;
        pthread_mutex_unlock(&b.base.mutex);
        put_u32(msg + 1, (uint32_t)r->warmups_sent++);
        put_u64(msg + 5, now_ns());
        send_stream_message(a.base.engine, stream, msg, (size_t)bytes);
        pthread_mutex_lock(&b.base.mutex);
        while (b.warmups == 0 && now_ms() < next) dpeer_wait(&b, next);
    }
    r->warmup_ms = now_ms() - joined;
    pthread_mutex_unlock(&b.base.mutex);
    if (b.warmups == 0) {
        fprintf(stderr, "no warm-up message arrived within 10 s\n");
        rc = 1;
        goto done;
    }
    sleep_until_ms(now_ms() + 1100);

    /* Measured: RATE messages a second for SECONDS. */
    msg[0] = MARK_MEASURED;
    start = now_ms();
    for (k = 0; k < r->count; k++) {
        double stamped = 0;
        int code;
        sleep_until_ms(start + k * 1e3 / rate);
        put_u32(msg + 1, (uint32_t)k);
        code = send_stamped(a.base.engine, stream, msg, bytes, r, &stamped);
        if (code != 0) {
            r->failures++;
            r->last_failure = code;
            continue;
        }
        pthread_mutex_lock(&b.base.mutex);
        b.sent_ms[k] = stamped;
        b.sent_wall_ms[k] = wall_ms();
        pthread_mutex_unlock(&b.base.mutex);
        if (r->accepted == 0) first_send = stamped;
        last_send = stamped;
        r->accepted++;
    }
    r->send_span_ms = last_send - first_send;

    /* Until every accepted message arrived, or DRAIN_MS. */
    deadline = now_ms() + DRAIN_MS;
    pthread_mutex_lock(&b.base.mutex);
    while (b.delivered < r->accepted && now_ms() < deadline) dpeer_wait(&b, deadline);
    r->drain_ms = now_ms() - (deadline - DRAIN_MS);
    r->delivered = b.delivered;
    r->duplicates = b.duplicates;
    r->out_of_order = b.out_of_order;
    r->foreign = b.foreign;
    r->error_events = b.error_events;
    r->missed = b.missed;
    r->cached = b.cached;
    r->error_code = b.error_code;
    r->first_delivery_ms = b.first_delivery_ms - start;
    r->last_delivery_ms = b.last_delivery_ms - start;
    {
        double *ts = malloc((size_t)r->count * sizeof(double));
        int m = 0, late = 0;
        r->skew_min = 1e18;
        r->skew_max = -1e18;
        for (k = 0; k < r->count; k++) {
            double skew;
            if (b.latency_ms[k] < 0) continue;
            r->sorted[r->n++] = b.latency_ms[k];
            if (b.latency_ms[k] > 100) late++;
            if (ts) ts[m++] = b.sent_ts_latency_ms[k];
            /* sent_ts was taken inside the call: at or before the clock read just after it (ms, truncated). */
            skew = b.sent_ts_skew_ms[k] - b.sent_wall_ms[k];
            if (skew < r->skew_min) r->skew_min = skew;
            if (skew > r->skew_max) r->skew_max = skew;
        }
        r->late_100 = r->n > 0 ? (double)late / r->n : 0;
        if (ts && m > 0) {
            sort_samples(ts, m);
            r->sent_ts_p50 = quantile(ts, m, 0.5);
            r->sent_ts_p99 = quantile(ts, m, 0.99);
        }
        free(ts);
    }
    pthread_mutex_unlock(&b.base.mutex);
    sort_samples(r->sorted, r->n);
done:
    api.engine_release(a.base.engine, 1);
    api.engine_release(b.base.engine, 1);
    free(b.sent_ms);
    free(b.sent_wall_ms);
    free(b.latency_ms);
    free(b.sent_ts_latency_ms);
    free(b.sent_ts_skew_ms);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Bare UDP                                                                  */
/* ------------------------------------------------------------------------ */

static void *udp_echo(void *arg) {
    int fd = *(int *)arg;
    unsigned char buf[2048];
    for (;;) {
        struct sockaddr_in from;
        socklen_t len = sizeof from;
        ssize_t n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 1) break;      /* a 1-byte datagram ends the echo */
        sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, len);
    }
    return NULL;
}

/** `pings` round trips of UDP_BYTES bytes through 127.0.0.1, one per UDP_INTERVAL_MS, into `rtt` (ms); how many. */
static int udp_round_trips(int pings, double *rtt, int *lost) {
    struct sockaddr_in addr;
    socklen_t len = sizeof addr;
    struct timeval timeout = {1, 0};
    unsigned char buf[UDP_BYTES];
    int echo_fd = socket(AF_INET, SOCK_DGRAM, 0), fd = socket(AF_INET, SOCK_DGRAM, 0), i, n = 0;
    pthread_t thread;
    double start;
    *lost = 0;
    if (echo_fd < 0 || fd < 0) return -1;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(echo_fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        getsockname(echo_fd, (struct sockaddr *)&addr, &len) != 0 ||
        connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout) != 0) {
        return -1;
    }
    pthread_create(&thread, NULL, udp_echo, &echo_fd);
    memset(buf, 0x2E, sizeof buf);
    start = now_ms() + UDP_INTERVAL_MS;
    for (i = 0; i < pings; i++) {
        uint64_t t0;
        sleep_until_ms(start + i * UDP_INTERVAL_MS);
        put_u32(buf, (uint32_t)i);
        t0 = now_ns();
        if (send(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf) {
            (*lost)++;
            continue;
        }
        for (;;) {
            unsigned char back[2048];
            ssize_t got = recv(fd, back, sizeof back, 0);
            if (got < 0 && errno == EINTR) continue;
            if (got == (ssize_t)sizeof buf && get_u32(back) == (uint32_t)i) {
                rtt[n++] = (double)(now_ns() - t0) / 1e6;
            } else if (got >= 0) {
                continue;   /* a late answer to an earlier ping */
            } else {
                (*lost)++;
            }
            break;
        }
    }
    send(fd, buf, 1, 0);
    pthread_join(thread, NULL);
    close(fd);
    close(echo_fd);
    return n;
}

/* ------------------------------------------------------------------------ */

static void print_quantiles(const double *sorted, int n) {
    if (n == 0) {
        printf("null");
        return;
    }
    printf("{\"min\": %.3f, \"p50\": %.3f, \"p90\": %.3f, \"p99\": %.3f, \"max\": %.3f}", sorted[0],
           quantile(sorted, n, 0.5), quantile(sorted, n, 0.9), quantile(sorted, n, 0.99), sorted[n - 1]);
}

int main(int argc, char **argv) {
    char url[128];
    agoraish_server_t *server;
    double seconds, *rtt;
    int i, k, n, pings, udp_n, udp_lost;
    result *results;
    void *lib;

    if (argc < 6 || (seconds = atof(argv[3])) < 1 || (pings = atoi(argv[4])) < 0) {
        fprintf(stderr, "usage: data_stream PATH LOG_DIR SECONDS UDP_PINGS RUN... (RUN: RATE:BYTES:LOSS_PERCENT)\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    if (load_audio_api(argv[1]) != 0 || !(lib = open_library(argv[1]))) return 1;
    LOOKUP(lib, create_data_stream, "agoraish_engine_create_data_stream");
    LOOKUP(lib, send_stream_message, "agoraish_engine_send_stream_message");
    n = argc - 5;
    if (!(results = calloc((size_t)n, sizeof *results)) || !(rtt = calloc((size_t)pings + 1, sizeof *rtt))) return 1;

    udp_n = pings > 0 ? udp_round_trips(pings, rtt, &udp_lost) : 0;
    if (udp_n < 0) {
        fprintf(stderr, "cannot set up the UDP sockets\n");
        return 1;
    }
    sort_samples(rtt, udp_n);

    if (!(server = start_embedded_server(NULL, url, sizeof url))) return 1;
    for (i = 0; i < n; i++) {
        int rate = 0, bytes = 0, loss = -1;
        if (sscanf(argv[5 + i], "%d:%d:%d", &rate, &bytes, &loss) != 3 || rate < 1 || rate > 1000 ||
            bytes < HEADER_BYTES || bytes > AGORAISH_MAX_STREAM_MESSAGE_SIZE || loss < 0 || loss > 100 ||
            run_call(url, argv[2], seconds, rate, bytes, loss, &results[i]) != 0) {
            fprintf(stderr, "the call %s failed\n", argv[5 + i]);
            api.server_release(server);
            return 1;
        }
    }
    api.server_release(server);

    printf("{\"udp\": {\"bytes\": %d, \"interval_ms\": %.0f, \"pings\": %d, \"answered\": %d, \"lost\": %d, "
           "\"rtt_ms\": ", UDP_BYTES, UDP_INTERVAL_MS, pings, udp_n, udp_lost);
    print_quantiles(rtt, udp_n);
    printf("},\n \"runs\": [\n");
    for (i = 0; i < n; i++) {
        const result *r = &results[i];
        printf("  {\"rate\": %d, \"bytes\": %d, \"loss\": %d, \"seed\": %d, \"seconds\": %.1f, \"count\": %d, "
               "\"accepted\": %d, \"refusals\": %d, \"refused_messages\": %d, \"max_retry_ms\": %.3f, "
               "\"failures\": %d, \"last_failure\": %d, \"send_span_ms\": %.1f, ",
               r->rate, r->bytes, r->loss, r->seed, seconds, r->count, r->accepted, r->refusals, r->refused_messages,
               r->max_retry_ms, r->failures, r->last_failure, r->send_span_ms);
        printf("\"delivered\": %d, \"duplicates\": %d, \"out_of_order\": %d, \"foreign\": %d, \"error_events\": %d, "
               "\"missed\": %d, \"cached\": %d, \"error_code\": %d, \"first_delivery_ms\": %.1f, "
               "\"last_delivery_ms\": %.1f, \"drain_ms\": %.1f, \"warmup_ms\": %.1f, \"warmups_sent\": %d, "
               "\"late_100\": %.4f, ",
               r->delivered, r->duplicates, r->out_of_order, r->foreign, r->error_events, r->missed, r->cached,
               r->error_code, r->first_delivery_ms, r->last_delivery_ms, r->drain_ms, r->warmup_ms, r->warmups_sent,
               r->late_100);
        printf("\"sent_ts_latency_ms\": {\"p50\": %.1f, \"p99\": %.1f}, \"sent_ts_skew_ms\": {\"min\": %.1f, "
               "\"max\": %.1f}, \"latency_ms\": ",
               r->sent_ts_p50, r->sent_ts_p99, r->n ? r->skew_min : 0.0, r->n ? r->skew_max : 0.0);
        print_quantiles(r->sorted, r->n);
        printf(", \"samples_ms\": [");
        for (k = 0; k < r->n; k++) printf("%s%.3f", k ? ", " : "", r->sorted[k]);
        printf("]}%s\n", i + 1 < n ? "," : "");
        free(r->sorted);
    }
    printf("]}\n");
    free(results);
    free(rtt);
    return 0;
}
