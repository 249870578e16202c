/*
 * old_minor_host.c — a host built against the previous ABI minor's header
 * (Tests/c/old_minor/abi-0.13/agoraish.h, kept as it was released) running on
 * today's library: every struct it passes has the 0.13 size, and the library
 * must accept each one, call back through the 0.13 event handler, and refuse a
 * struct_size that no minor ever had (-2). When a minor is released, its
 * header replaces the one kept here.
 *
 * Two engines join one channel on an embedded server; A sends a data-stream
 * message that B receives; both leave and are released.
 */
#define _POSIX_C_SOURCE 200809L
#define TEST_NAME "old_minor_host"

#include "../test_support.h"

#if AGORAISH_ABI_VERSION_MINOR != 13
#error "old_minor_host.c is built against the 0.13 header (Tests/c/old_minor/abi-0.13)"
#endif

typedef struct events {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int joins, users_joined, leaves, messages;
    char message[64];
} events_t;

static void on_join(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    events_t *ev = ud;
    (void)e, (void)channel, (void)uid, (void)elapsed;
    count_up(&ev->mutex, &ev->cond, &ev->joins);
}

static void on_user_joined(agoraish_engine_t *e, void *ud, uint32_t uid, int elapsed) {
    events_t *ev = ud;
    (void)e, (void)uid, (void)elapsed;
    count_up(&ev->mutex, &ev->cond, &ev->users_joined);
}

static void on_leave(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *stats) {
    events_t *ev = ud;
    (void)e, (void)stats;
    count_up(&ev->mutex, &ev->cond, &ev->leaves);
}

static void on_stream_message(agoraish_engine_t *e, void *ud, uint32_t uid, int stream_id, const uint8_t *data,
                              size_t length, uint64_t sent_ts) {
    events_t *ev = ud;
    (void)e, (void)uid, (void)stream_id, (void)sent_ts;
    pthread_mutex_lock(&ev->mutex);
    if (length < sizeof ev->message) {
        memcpy(ev->message, data, length);
        ev->message[length] = 0;
    }
    pthread_mutex_unlock(&ev->mutex);
    count_up(&ev->mutex, &ev->cond, &ev->messages);
}

static agoraish_engine_t *engine_for(events_t *ev, const char *url, agoraish_event_handler *handler,
                                     const char *log_name) {
    agoraish_engine_config config;
    memset(ev, 0, sizeof *ev);
    monitor_init(&ev->mutex, &ev->cond);
    *handler = empty_handler(ev);
    handler->on_join_channel_success = on_join;
    handler->on_user_joined = on_user_joined;
    handler->on_leave_channel = on_leave;
    handler->on_stream_message = on_stream_message;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = "0123456789abcdef0123456789abcdef";
    config.event_handler = handler;
    config.server_url = url;
    config.log_file = tmp_path(log_name);
    return agoraish_engine_create(&config);
}

int main(void) {
    agoraish_server_t *server;
    agoraish_engine_t *a = NULL, *b = NULL;
    agoraish_event_handler handler_a, handler_b;
    events_t ev_a, ev_b;
    char url[128];
    size_t len = sizeof url;
    int stream = -1;

    if (!make_tmpdir("agoraish-old-minor")) return 1;
    server = create_server(0, NULL);
    CHECK(server != NULL && agoraish_server_start(server) == 0 && agoraish_server_get_url(server, url, &len) == 0,
          "start an embedded server with a 0.13 server config");
    if (!server) return test_summary();
    a = engine_for(&ev_a, url, &handler_a, "a.log");
    b = engine_for(&ev_b, url, &handler_b, "b.log");
    CHECK(a != NULL && b != NULL, "create engines with the 0.13 config and event handler: last error %d",
          agoraish_get_last_error());
    if (!a || !b) goto done;

    /* Each struct of 0.13 at its 0.13 size is accepted. */
    {
        agoraish_video_encoder_configuration config;
        memset(&config, 0, sizeof config);
        config.struct_size = sizeof config;
        config.width = 320;
        config.height = 240;
        config.frame_rate = 15;
        config.bitrate = 300;
        config.min_bitrate = -1;
        CHECK_RC(agoraish_engine_set_video_encoder_configuration(a, &config), 0, "0.13 encoder configuration");
        config.struct_size = sizeof config + 4;
        CHECK_RC(agoraish_engine_set_video_encoder_configuration(a, &config), -2,
                 "an encoder configuration of a size no minor had");
    }
    {
        agoraish_lastmile_probe_config probe;
        memset(&probe, 0, sizeof probe);
        probe.struct_size = sizeof probe;
        probe.probe_uplink = 1;
        probe.expected_uplink_bitrate = 100000;
        CHECK_RC(agoraish_engine_start_lastmile_probe_test(a, &probe), 0, "0.13 last-mile probe config");
        CHECK_RC(agoraish_engine_stop_lastmile_probe_test(a), 0, "stop the probe");
        /* And the 0.7 / 0.8 one (20 bytes), which 0.9 grew. */
        probe.struct_size = AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7;
        CHECK_RC(agoraish_engine_start_lastmile_probe_test(a, &probe), 0, "0.8 last-mile probe config");
        CHECK_RC(agoraish_engine_stop_lastmile_probe_test(a), 0, "stop the probe");
    }
    {
        agoraish_data_stream_config config;
        memset(&config, 0, sizeof config);
        config.struct_size = sizeof config;
        config.ordered = 1;
        CHECK_RC(agoraish_engine_create_data_stream_with_config(a, &stream, &config), 0, "0.13 data stream config");
    }

    CHECK_RC(agoraish_engine_join_channel(a, NULL, "old-minor", NULL, 1), 0, "A joins");
    CHECK_RC(agoraish_engine_join_channel(b, NULL, "old-minor", NULL, 2), 0, "B joins");
    CHECK(wait_count(&ev_a.mutex, &ev_a.cond, &ev_a.joins, 1, 10) == 1 &&
              wait_count(&ev_b.mutex, &ev_b.cond, &ev_b.joins, 1, 10) == 1,
          "on_join_channel_success through the 0.13 handler");
    CHECK(wait_count(&ev_b.mutex, &ev_b.cond, &ev_b.users_joined, 1, 10) >= 1, "B sees A join");
    {
        /* A config stream is unreliable: one sent before B's media path is up is
         * lost, so A sends again each second until one arrives. */
        const char text[] = "from a 0.13 host";
        int sent = 0, i;
        for (i = 0; i < 30 && read_count(&ev_b.mutex, &ev_b.messages) == 0; i++) {
            sent += agoraish_engine_send_stream_message(a, stream, text, sizeof text - 1) == 0;
            wait_count(&ev_b.mutex, &ev_b.cond, &ev_b.messages, 1, 1);
        }
        CHECK(sent > 0, "A sends a stream message");
        pthread_mutex_lock(&ev_b.mutex);
        CHECK(ev_b.messages >= 1 && strcmp(ev_b.message, text) == 0, "B receives it: %d messages, last \"%s\"",
              ev_b.messages, ev_b.message);
        pthread_mutex_unlock(&ev_b.mutex);
    }
    CHECK_RC(agoraish_engine_leave_channel(a), 0, "A leaves");
    CHECK_RC(agoraish_engine_leave_channel(b), 0, "B leaves");
    CHECK(wait_count(&ev_a.mutex, &ev_a.cond, &ev_a.leaves, 1, 10) == 1, "on_leave_channel through the 0.13 handler");

done:
    if (a) CHECK_RC(agoraish_engine_release(a, 1), 0, "release A");
    if (b) CHECK_RC(agoraish_engine_release(b, 1), 0, "release B");
    CHECK_RC(agoraish_server_release(server), 0, "release the server");
    remove_tmpdir();
    return test_summary();
}
