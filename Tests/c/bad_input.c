/*
 * bad_input.c — every function of include/agoraish.h with bad handles, NULL
 * pointers and out-of-range values, checked against the documented codes
 * (the header, and the handle table of docs/abi.md). Table-driven: a new
 * function or value is a new row.
 *
 * Handles:  NULL -> -7; a handle of another type or bits that are no handle
 *           -> -2; a released or never-issued engine handle -> -7, except
 *           agoraish_engine_release, which is idempotent (0).
 * Values:   rejected calls return their code and change nothing the
 *           parameters can show; accepted edge values are read back.
 *
 * Servers: the same for agoraish_server_*: NULL -> -7; an engine handle or
 *           bits that are no handle -> -2; a released or never-issued server
 *           handle -> -7, except agoraish_server_release (0).
 * Channels: every channel function with NULL and malformed strings, bad
 *           channel names (-102), bad accounts (-134), bad roles and profiles
 *           (-2), and calls in the wrong state (-18, -113, -17, -5, -4); the
 *           accepted edges run against an embedded server.
 * Preload 0.12: preload_channel with the channel rows' names, tokens of 2048
 *           bytes (0) and 2049 bytes (-2, after the name), uids 0 and
 *           UINT32_MAX, a ws:// server URL to a host other than loopback (-5,
 *           after the arguments), in a call, and a join of a preloaded
 *           channel; update_preload_channel_token with nothing preloaded (-8,
 *           also after refused preloads; a 2049-byte token is -2 first), then
 *           0 for NULL, empty and 2048-byte tokens.
 * Audio:    every ABI 0.4 audio function with every bad handle above; volumes,
 *           intervals, smoothing, uids, observer formats (rate, channels,
 *           mode, samples per call), position bits and struct_size, recording
 *           configs (struct_size, path, rate, position, quality; a rejected
 *           call creates no file), device kinds and indexes, device ids
 *           (NULL, empty, 511 and 512 bytes), the caller-buffer convention of
 *           get_recording_device / get_playback_device, and the WAV files the
 *           playback device test refuses. The device tests run on ALSA's
 *           "null" PCM. Ogg recordings that end before any audio run last
 *           (see test_empty_ogg_recordings).
 * Video:    every ABI 0.5 video function with every bad handle above; the
 *           encoder configuration (NULL, struct_size, each field's range,
 *           codec types other than 0 and 1); pushed pictures (NULL,
 *           struct_size, unknown formats, sizes outside 16..4096 or odd,
 *           strides shorter than a row of their plane, NULL planes the format
 *           needs, any timestamp; -3 without an external source) outside and
 *           in a call; canvases (NULL, struct_size, uid 0, bind, rebind and
 *           unbind) outside and in a call; the video mutes (any int, uid 0
 *           for the per-user one) outside and in a call. Pushes in a call use timestamps
 *           close together: a call whose timestamps span more than
 *           INT64_MAX / 90 ms makes the library trap (see test_bad_input.py).
 * Video 0.6: every ABI 0.6 function with every bad handle above; structs of
 *           ABI 0.5's size with bad 0.6 fields past struct_size (not read: 0);
 *           encoder orientation, degradation and mirror modes and codec types
 *           (VP8, VP9); pushed rotations (0, 90, 180, 270); canvases, local
 *           and remote (render mode, mirror mode, view sizes: 0 x 0 or
 *           2..4096 on both sides); the render mode setters (-2 before -3);
 *           the preview; observer struct_size and position bits; dual stream
 *           and stream types (0, 1 and the simulcast layers 4..9, ABI 0.12);
 *           snapshot paths (-2 before -113) and, in a call,
 *           the ninth waiting snapshot of a user (-12) and the -1 results when
 *           the call ends; watermark files (PNGs written here: missing, a
 *           directory, text, truncated, 4097 wide) and rectangles; camera
 *           indexes, ids, the caller-buffer convention of
 *           get_current_video_device, capture configurations and switch_camera
 *           (-4 with fewer than two cameras). Outside and in a call.
 * Simulcast 0.12: set_simulcast_config with NULL, struct_size 0, 4, one byte
 *           short, 8 bytes long or UINT32_MAX, four and seven entries enabled
 *           (any nonzero enable), an enabled entry's width, height or frame
 *           rate out of 16..3840, 16..2160, 1..60 (-2); the edges, odd sizes,
 *           entries not enabled holding anything, any publish_fallback_enable
 *           (0). Outside and in a call, and set_simulcast_config_ex on a
 *           connection of that call (besides the connection rows below).
 * Fallback 0.7: the three ABI 0.7 functions with every bad handle above;
 *           publish fallback options (0 and 2 only), subscribe fallback
 *           options (0..2), remote user priorities (uid not 0; 50 and 100
 *           only). Outside and in a call.
 * Echo test: the three functions with every bad handle above; intervals
 *           outside 2..10 (-2, checked first, also while a test runs); stop
 *           without a test (-5); configurations (ABI 0.9: NULL, struct_size 0,
 *           too small or splitting a field, bad intervals, no medium, channel
 *           names that are not valid or not UTF-8, tokens not UTF-8: -2; video
 *           -4 after them); against an embedded server: start twice (-5, also
 *           with a configuration), a configuration with a channel and a token
 *           (0), a join during the test (-17), stop twice (-5), in a channel
 *           (ABI 0.11) a start beside the call (0, then -5 for a second) and
 *           its stop (0), and no join or leave event for the test's own channel.
 * Last mile 0.7: the four last-mile functions with every bad handle above;
 *           probe configs (NULL, struct_size 0, too small or splitting a
 *           field, no direction, a probed bitrate of 0, 99999, 5000001 or
 *           UINT_MAX, a channel_id that is no valid channel name, a token not
 *           UTF-8: -2, checked first, also while a test runs or in a
 *           channel; an unprobed direction's bitrate is not read), stop and
 *           disable when not running (-5); against an embedded
 *           server: the edges 100000 and 5000000, the 0.7 struct_size (20)
 *           and the 0.9 one (40) with a token and channel, a second test or probe
 *           (-5), an echo test during either (-5) and either during an echo
 *           test (-5), stop for the quality test and disable for a probe
 *           (-5), in a channel (ABI 0.11) a probe beside the call and its stop
 *           (0) but the quality test (-5), a join ending the test, and no
 *           join, leave or probe result reported for the tests' own channel.
 * Data 0.8: the nine data-stream, metadata, encryption and packet-observer
 *           functions with every bad handle above; NULL stream ids, configs,
 *           data and observers; struct_size too small or splitting a field;
 *           message lengths 0 (-2), 1025 up to INT64_MAX (-114, checked
 *           first) and SIZE_MAX (never read); -113 outside a call; metadata
 *           types other than VIDEO and maximum sizes outside 1..1024;
 *           encryption modes 0, END, -1 and INT_MIN, keys NULL, empty, of 129
 *           bytes or not UTF-8, all-zero salts (-2 for the GCM2 modes only),
 *           secrets of 129 bytes and mode names outside the six of the header;
 *           five streams then -116, outside and in a call. Against an
 *           embedded server, in a call: unknown streams (-2), six messages of
 *           1024 bytes then -115, metadata of 1 and 1024 bytes, and leaving
 *           ending the streams.
 * Connections 0.11: every `_ex` function with a NULL connection, struct_size
 *           0, 4, one byte short, 8 bytes long or UINT32_MAX, a NULL or non-UTF-8
 *           channel_id (-2), and an unknown connection (-2; leave_channel_ex
 *           -18); join_channel_ex with handler tables of a bad struct_size, bad
 *           channel names (-102) and the camera published (-2); media options
 *           (NULL, struct_size, client roles, channel profiles, custom track ids
 *           unset, unknown, 0 or negative, tokens not UTF-8: -2; a token outside a
 *           call: -113 for the update; values without their has_ flags are not
 *           read) for join_channel_with_options, join_channel_ex and
 *           update_channel_media_options; custom audio tracks: unknown types and
 *           ids (-2), NULL track_id, volumes outside 0..100, pushes with NULL
 *           samples, counts outside 0..rate, rates and channel counts the header
 *           does not list; AGORAISH_MAX_CUSTOM_AUDIO_TRACKS then -5. Custom video
 *           tracks: NULL track_id, unknown ids (destroy, both pushes) and
 *           tracks of the other kind (a raw track pushed as encoded and the
 *           reverse; media options naming one, both kinds or the camera with
 *           one): -2; raw pushes refuse what push_external_video_frame
 *           refuses (its rows, by id); encoded pushes with NULL data or info,
 *           lengths 0, past AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES or SIZE_MAX,
 *           info struct_size, codecs other than VP8 and VP9, frame types other
 *           than key and delta, sizes outside 0..16384, rotations: -2 (0 with
 *           nobody publishing); the encoded frame observer's struct_size (-2;
 *           NULL or a NULL callback unregister); AGORAISH_MAX_CUSTOM_VIDEO_TRACKS
 *           raw and encoded together, then -5. Nothing joins.
 *
 * Exit status 0 when every check passes; otherwise one line per failed check
 * on stderr and exit status 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <signal.h>

#define TEST_NAME "bad_input"
#include "test_support.h"
#include "abi_functions.h"

enum {
    E_FAILED = -AGORAISH_ERR_FAILED,
    E_INVALID = -AGORAISH_ERR_INVALID_ARGUMENT,
    E_NOT_READY = -AGORAISH_ERR_NOT_READY,
    E_NOT_SUPPORTED = -AGORAISH_ERR_NOT_SUPPORTED,
    E_REFUSED = -AGORAISH_ERR_REFUSED,
    E_TOO_SMALL = -AGORAISH_ERR_BUFFER_TOO_SMALL,
    E_NOT_INIT = -AGORAISH_ERR_NOT_INITIALIZED,
    E_STATE = -AGORAISH_ERR_INVALID_STATE,
    E_BIND = -AGORAISH_ERR_BIND_SOCKET,
    E_JOIN_REJECTED = -AGORAISH_ERR_JOIN_CHANNEL_REJECTED,
    E_LEAVE_REJECTED = -AGORAISH_ERR_LEAVE_CHANNEL_REJECTED,
    E_APP_ID = -AGORAISH_ERR_INVALID_APP_ID,
    E_CHANNEL = -AGORAISH_ERR_INVALID_CHANNEL_NAME,
    E_NOT_IN_CHANNEL = -AGORAISH_ERR_NOT_IN_CHANNEL,
    E_ACCOUNT = -AGORAISH_ERR_INVALID_USER_ACCOUNT
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define HANDLE(bits) ((agoraish_engine_t *)(uintptr_t)(bits))
#define SERVER(bits) ((agoraish_server_t *)(uintptr_t)(bits))
/** The app id of the engines of this test. */
#define LIVE_APP_ID "bad-input-live"

/* ------------------------------------------------------------------------ */
/* Fixture: a temporary directory (test_support.h) and one live engine      */
/* ------------------------------------------------------------------------ */

static agoraish_engine_t *live;

/** An engine with no handler and no server, logging to <tmpdir>/<log_name>. */
static agoraish_engine_t *create_with_log(const char *app_id, const char *log_name) {
    return new_engine(app_id, NULL, NULL, log_name);
}

/** Every readable parameter of `engine`, concatenated: what a rejected call must not change. */
static void snapshot(agoraish_engine_t *engine, char *out, size_t size) {
    static const char *const keys[] = {"rtc.log_file", "rtc.log_filter", "rtc.log_level", "rtc.log_size",
                                       "rtc.server_url", "rtc.app_id", "rtc.area_code"};
    size_t i, used = 0;
    out[0] = '\0';
    for (i = 0; i < COUNT(keys); i++) {
        char value[512];
        size_t len = sizeof value;
        int rc = agoraish_engine_get_parameter(engine, keys[i], value, &len);
        int n = snprintf(out + used, size - used, "%s=%s;", keys[i], rc == 0 ? value : "(error)");
        if (n < 0 || (size_t)n >= size - used) break;
        used += (size_t)n;
    }
}

/**
 * Checks a setter row run on the live engine: its code `rc`; that a rejection
 * changed nothing (`before` is the snapshot taken before the call); and, for
 * an accepted row with a `read_back`, that parameter `key` now reads it.
 */
static void check_setter(int line, const char *what, int rc, int expected, const char *before, const char *key,
                         const char *read_back) {
    char after[2048];
    check_(rc == expected, line, "%s: returned %d, expected %d", what, rc, expected);
    if (expected != 0) {
        snapshot(live, after, sizeof after);
        check_(strcmp(before, after) == 0, line, "%s: rejected but changed parameters:\n  before %s\n  after  %s",
               what, before, after);
    } else if (read_back) {
        char value[64];
        get_param(live, key, value, sizeof value);
        check_(strcmp(value, read_back) == 0, line, "%s: %s is %s, expected %s", what, key, value, read_back);
    }
}

/* ------------------------------------------------------------------------ */
/* Handles                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    agoraish_engine_t *handle;
    int expected;         /* every function but release */
    int expected_release; /* agoraish_engine_release */
} bad_handle_t;

/* A call that reads the live engine: it must still answer after the bad handles. */
static int call_get_parameter(agoraish_engine_t *e) {
    char buf[64];
    size_t len = sizeof buf;
    return agoraish_engine_get_parameter(e, "rtc.log_size", buf, &len);
}


static void test_handles(void) {
    agoraish_engine_t *stale = create_with_log("bad-input-stale", "stale.log");
    agoraish_server_config server_config;
    agoraish_server_t *server;
    size_t h, c;
    memset(&server_config, 0, sizeof server_config);
    server_config.struct_size = sizeof server_config;
    server = agoraish_server_create(&server_config);
    CHECK(server != NULL, "create a server to pass as an engine: last error %d", agoraish_get_last_error());
    bad_handle_t handles[] = {
        {"NULL", NULL, E_NOT_INIT, E_NOT_INIT},
        /* A live handle of another type: the server is left alone. */
        {"a live server's", (agoraish_engine_t *)(void *)server, E_INVALID, E_INVALID},
        {"stale (released)", stale, E_NOT_INIT, 0},
        /* Another type: tag 0x02 in bits 63..56, generation 1, slot 1. */
        {"wrong type (tag 0x02)", HANDLE((0x02ULL << 56) | (1ULL << 32) | 1), E_INVALID, E_INVALID},
        {"wrong type (tag 0xff)", HANDLE((0xffULL << 56) | (1ULL << 32) | 1), E_INVALID, E_INVALID},
        /* Bits that are no handle. */
        {"garbage 0xdeadbeef", HANDLE(0xdeadbeefULL), E_INVALID, E_INVALID},
        {"all bits set", HANDLE(~0ULL), E_INVALID, E_INVALID},
        {"engine tag, generation 0", HANDLE((0x01ULL << 56) | 1), E_INVALID, E_INVALID},
        {"engine tag, slot 0", HANDLE((0x01ULL << 56) | (1ULL << 32)), E_INVALID, E_INVALID},
        /* Well-formed engine handles that were never issued: -7, and release
         * treats them like released ones (0). */
        {"engine tag, slot never used", HANDLE((0x01ULL << 56) | (1ULL << 32) | 0xfffffffULL), E_NOT_INIT, 0},
        {"engine tag, future generation", HANDLE((0x01ULL << 56) | (0xffffffULL << 32) | 1), E_NOT_INIT, 0},
    };
    CHECK(stale != NULL, "create the engine to release: last error %d", agoraish_get_last_error());
    CHECK(agoraish_engine_release(stale, 1) == 0, "release the engine that becomes stale");

    for (h = 0; h < COUNT(handles); h++) {
        if (!handles[h].handle && strcmp(handles[h].name, "NULL") != 0) continue; /* create failed */
        for (c = 0; c < COUNT(abi_engine_functions); c++) {
            const abi_function *f = &abi_engine_functions[c];
            char before[2048];
            int expected = strcmp(f->name, "agoraish_engine_release") == 0 ? handles[h].expected_release
                                                                           : handles[h].expected;
            int rc;
            snapshot(live, before, sizeof before);
            rc = f->call(handles[h].handle);
            CHECK(rc == expected, "%s with a %s handle: returned %d, expected %d", f->name, handles[h].name, rc,
                  expected);
            {
                char after[2048];
                snapshot(live, after, sizeof after);
                CHECK(strcmp(before, after) == 0, "%s with a %s handle changed the live engine", f->name,
                      handles[h].name);
            }
        }
        /* The table releases without waiting (sync 0); the waiting release answers alike. */
        CHECK_RC(agoraish_engine_release(handles[h].handle, 1), handles[h].expected_release,
                 "agoraish_engine_release(sync 1) with a bad handle");
    }
    /* The live engine survived all of that, and so did the server. */
    CHECK(call_get_parameter(live) == 0, "the live engine answers after the bad-handle calls");
    CHECK(agoraish_engine_get_connection_state(live) == AGORAISH_CONNECTION_STATE_DISCONNECTED,
          "the live engine joined nothing during the bad-handle calls");
    CHECK(access(tmp_path("handle.wav"), F_OK) != 0,
          "start_audio_recording with a bad handle created its file");
    if (server) {
        CHECK(agoraish_server_get_http_port(server) == E_NOT_READY, "the server passed as an engine changed");
        CHECK(agoraish_server_release(server) == 0, "release the server passed as an engine");
    }
}

/* ------------------------------------------------------------------------ */
/* agoraish_engine_create                                                    */
/* ------------------------------------------------------------------------ */

/** How a create row changes a valid configuration; zeroed fields keep it. */
typedef struct {
    const char *name;
    int null_config;          /* pass NULL instead of a config */
    int set_struct_size;      /* struct_size = struct_size instead of sizeof */
    uint32_t struct_size;
    int set_app_id;           /* app_id = app_id instead of a valid id */
    const char *app_id;
    int set_handler;          /* pass an event handler with no callbacks ... */
    uint32_t handler_size;    /* ... and this struct_size */
    const char *server_url;
    const char *log_file;     /* NULL = <tmp>/create.log */
    int32_t log_file_size_kb;
    int32_t log_level;
    uint32_t area_code;
    int expected;             /* agoraish_get_last_error(); 0 = success */
    const char *read_key;     /* on success: read back this parameter ... */
    const char *read_value;   /* ... and expect this JSON text */
} create_row_t;

#define STRUCT_SIZE(n) .set_struct_size = 1, .struct_size = (uint32_t)(n)
#define APP_ID(s) .set_app_id = 1, .app_id = (s)
#define HANDLER_SIZE(n) .set_handler = 1, .handler_size = (uint32_t)(n)
#define CONFIG_SIZE sizeof(agoraish_engine_config)
#define HANDLER_STRUCT_SIZE sizeof(agoraish_event_handler)

static char app_id_128[129], app_id_129[130], bad_log_dir_path[256], log_file_bad_utf8[256];

static void test_create(void) {
    const create_row_t rows[] = {
        {.name = "NULL config", .null_config = 1, .expected = E_INVALID},
        {.name = "struct_size 0", STRUCT_SIZE(0), .expected = E_INVALID},
        {.name = "struct_size 4", STRUCT_SIZE(4), .expected = E_INVALID},
        {.name = "struct_size one byte short", STRUCT_SIZE(CONFIG_SIZE - 1), .expected = E_INVALID},
        {.name = "app_id NULL", APP_ID(NULL), .expected = E_APP_ID},
        {.name = "app_id empty", APP_ID(""), .expected = E_APP_ID},
        {.name = "app_id of 129 characters", APP_ID(app_id_129), .expected = E_APP_ID},
        {.name = "app_id with a control character", APP_ID("app\x01id"), .expected = E_APP_ID},
        {.name = "app_id not ASCII", APP_ID("app\xc3\xa9"), .expected = E_APP_ID},
        {.name = "app_id not UTF-8", APP_ID("app\xff"), .expected = E_APP_ID},
        {.name = "event handler struct_size 0", HANDLER_SIZE(0), .expected = E_INVALID},
        {.name = "event handler struct_size one byte short of ABI 0.1's", HANDLER_SIZE(AGORAISH_EVENT_HANDLER_SIZE_0_1 - 1),
         .expected = E_INVALID},
        {.name = "event handler struct_size 4", HANDLER_SIZE(4), .expected = E_INVALID},
        {.name = "server_url http://", .server_url = "http://example.test:7450", .expected = E_INVALID},
        {.name = "server_url without host", .server_url = "ws://", .expected = E_INVALID},
        {.name = "server_url not a URL", .server_url = "example.test", .expected = E_INVALID},
        {.name = "log_file in a missing directory", .log_file = bad_log_dir_path, .expected = E_FAILED},
        {.name = "log_file not UTF-8", .log_file = log_file_bad_utf8, .expected = E_INVALID},
        {.name = "log_file_size_kb -2", .log_file_size_kb = -2, .expected = E_INVALID},
        {.name = "log_file_size_kb above the maximum", .log_file_size_kb = AGORAISH_LOG_FILE_SIZE_MAX_KB + 1,
         .expected = E_INVALID},
        {.name = "log_file_size_kb INT32_MIN", .log_file_size_kb = INT32_MIN, .expected = E_INVALID},
        {.name = "log_level 3", .log_level = 3, .expected = E_INVALID},
        {.name = "log_level -1", .log_level = -1, .expected = E_INVALID},
        {.name = "log_level 16", .log_level = 16, .expected = E_INVALID},
        {.name = "area_code 0x40", .area_code = 0x40, .expected = E_INVALID},
        {.name = "area_code 0x80000000", .area_code = 0x80000000u, .expected = E_INVALID},
        {.name = "area_code 0xfffffffe", .area_code = 0xfffffffeu, .expected = E_INVALID},
        /* Accepted edges, read back. */
        {.name = "zeroed fields (defaults)", .read_key = "rtc.log_size", .read_value = "1024"},
        {.name = "app_id of 128 characters", APP_ID(app_id_128), .read_key = "rtc.app_id"},
        {.name = "event handler with no callbacks", HANDLER_SIZE(HANDLER_STRUCT_SIZE)},
        {.name = "event handler of ABI 0.1's size", HANDLER_SIZE(AGORAISH_EVENT_HANDLER_SIZE_0_1)},
        {.name = "server_url empty (default)", .server_url = ""},
        {.name = "server_url wss://", .server_url = "wss://example.test:443", .read_key = "rtc.server_url",
         .read_value = "\"wss://example.test:443\""},
        {.name = "log_file_size_kb -1 (default)", .log_file_size_kb = -1, .read_key = "rtc.log_size", .read_value = "1024"},
        {.name = "log_file_size_kb 1 (raised)", .log_file_size_kb = 1, .read_key = "rtc.log_size", .read_value = "128"},
        {.name = "log_file_size_kb at the maximum", .log_file_size_kb = AGORAISH_LOG_FILE_SIZE_MAX_KB,
         .read_key = "rtc.log_size", .read_value = "20480"},
        {.name = "log_level FATAL", .log_level = AGORAISH_LOG_LEVEL_FATAL, .read_key = "rtc.log_level", .read_value = "8"},
        {.name = "log_level 0 (INFO)", .read_key = "rtc.log_level", .read_value = "1"},
        {.name = "area_code 0x3f", .area_code = 0x3f, .read_key = "rtc.area_code", .read_value = "63"},
        {.name = "area_code 0 (GLOB)", .read_key = "rtc.area_code", .read_value = "4294967295"},
        {.name = "struct_size larger than any header's", STRUCT_SIZE(CONFIG_SIZE + 64), .expected = E_INVALID},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        const create_row_t *row = &rows[i];
        /* Room for a struct_size larger than ours: the tail is zeroed. */
        union {
            agoraish_engine_config config;
            unsigned char bytes[CONFIG_SIZE + 64];
        } storage;
        agoraish_event_handler handler;
        agoraish_engine_config *config = &storage.config;
        agoraish_engine_t *engine;
        int last;

        memset(&storage, 0, sizeof storage);
        config->struct_size = row->set_struct_size ? row->struct_size : (uint32_t)CONFIG_SIZE;
        config->app_id = row->set_app_id ? row->app_id : "bad-input-create";
        memset(&handler, 0, sizeof handler);
        if (row->set_handler) {
            handler.struct_size = row->handler_size;
            config->event_handler = &handler;
        }
        config->server_url = row->server_url;
        config->log_file = row->log_file ? row->log_file : tmp_path("create.log");
        config->log_file_size_kb = row->log_file_size_kb;
        config->log_level = row->log_level;
        config->area_code = row->area_code;

        engine = agoraish_engine_create(row->null_config ? NULL : config);
        last = agoraish_get_last_error();
        if (row->expected != 0) {
            CHECK(engine == NULL, "create with %s: succeeded, expected %d", row->name, row->expected);
            CHECK(last == row->expected, "create with %s: last error %d, expected %d", row->name, last, row->expected);
            if (engine) agoraish_engine_release(engine, 1);
        } else {
            CHECK(engine != NULL, "create with %s: failed with %d, expected success", row->name, last);
            CHECK(last == 0, "create with %s: last error %d after success", row->name, last);
            if (engine && row->read_key) {
                char value[512], quoted[200];
                const char *want = row->read_value;
                if (!want) { /* the app id row: the id itself, quoted */
                    snprintf(quoted, sizeof quoted, "\"%s\"", row->app_id);
                    want = quoted;
                }
                CHECK(get_param(engine, row->read_key, value, sizeof value) == 0, "create with %s: read %s failed",
                      row->name, row->read_key);
                CHECK(strcmp(value, want) == 0, "create with %s: %s is %s, expected %s", row->name, row->read_key,
                      value, want);
            }
            if (engine) CHECK(agoraish_engine_release(engine, 1) == 0, "release after create with %s", row->name);
        }
    }
}

static void *last_error_on_new_thread(void *arg) {
    *(int *)arg = agoraish_get_last_error();
    return NULL;
}

/** The last error is per thread: a failure on this thread is not seen on another. */
static void test_last_error_is_per_thread(void) {
    pthread_t thread;
    int other = 12345;
    CHECK(agoraish_engine_create(NULL) == NULL, "create(NULL) succeeded");
    CHECK(agoraish_get_last_error() == E_INVALID, "last error after create(NULL): %d", agoraish_get_last_error());
    if (pthread_create(&thread, NULL, last_error_on_new_thread, &other) == 0) {
        pthread_join(thread, NULL);
        CHECK(other == 0, "a new thread sees last error %d, expected 0", other);
    }
    CHECK(agoraish_get_last_error() == E_INVALID, "last error changed by another thread: %d",
          agoraish_get_last_error());
}

/* ------------------------------------------------------------------------ */
/* Setters on a live engine                                                  */
/* ------------------------------------------------------------------------ */

static char json_max[65536 + 1], json_too_long[65537 + 1];

typedef struct {
    const char *name;
    const char *json;
    int expected;
} json_row_t;

static void test_set_parameters(void) {
    const json_row_t rows[] = {
        {"NULL", NULL, E_INVALID},
        {"empty text", "", E_INVALID},
        {"unterminated object", "{", E_INVALID},
        {"an array", "[]", E_INVALID},
        {"null", "null", E_INVALID},
        {"a number", "42", E_INVALID},
        {"a string", "\"rtc.log_size\"", E_INVALID},
        {"trailing garbage", "{\"rtc.log_size\": 256} x", E_INVALID},
        {"unknown key", "{\"rtc.no_such_key\": 1}", E_INVALID},
        {"key in the wrong case", "{\"RTC.LOG_SIZE\": 256}", E_INVALID},
        {"log_size as a string", "{\"rtc.log_size\": \"256\"}", E_INVALID},
        {"log_size 0", "{\"rtc.log_size\": 0}", E_INVALID},
        {"log_size -1", "{\"rtc.log_size\": -1}", E_INVALID},
        {"log_size above the maximum", "{\"rtc.log_size\": 20481}", E_INVALID},
        {"log_filter with unknown bits", "{\"rtc.log_filter\": 4096}", E_INVALID},
        {"log_filter -1", "{\"rtc.log_filter\": -1}", E_INVALID},
        {"log_level 3", "{\"rtc.log_level\": 3}", E_INVALID},
        {"log_level as a string", "{\"rtc.log_level\": \"info\"}", E_INVALID},
        {"log_file empty", "{\"rtc.log_file\": \"\"}", E_INVALID},
        {"log_file a number", "{\"rtc.log_file\": 5}", E_INVALID},
        {"log_file in a missing directory", "{\"rtc.log_file\": \"/nonexistent-agoraish-dir/x.log\"}", E_INVALID},
        {"server_url http://", "{\"rtc.server_url\": \"http://example.test\"}", E_INVALID},
        {"server_url without host", "{\"rtc.server_url\": \"ws://\"}", E_INVALID},
        {"read-only app_id", "{\"rtc.app_id\": \"other\"}", E_INVALID},
        {"read-only area_code", "{\"rtc.area_code\": 1}", E_INVALID},
        {"one bad value among good ones", "{\"rtc.log_size\": 300, \"rtc.log_level\": 3}", E_INVALID},
        {"one unknown key among good ones", "{\"rtc.log_size\": 300, \"rtc.bogus\": true}", E_INVALID},
        {"not UTF-8", "{\"rtc.log_file\": \"/tmp/\xff\xfe.log\"}", E_INVALID},
        {"65537 bytes", json_too_long, E_INVALID},
        /* Accepted. */
        {"log_size 256", "{\"rtc.log_size\": 256}", 0},
        {"65536 bytes (the maximum)", json_max, 0},
        {"log_level 0", "{\"rtc.log_level\": 0}", 0},
        {"log_filter 2063", "{\"rtc.log_filter\": 2063}", 0},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        char before[2048], what[128];
        snapshot(live, before, sizeof before);
        snprintf(what, sizeof what, "set_parameters(%s)", rows[i].name);
        check_setter(__LINE__, what, agoraish_engine_set_parameters(live, rows[i].json), rows[i].expected, before, NULL,
                     NULL);
    }
    {
        char value[64];
        CHECK(get_param(live, "rtc.log_size", value, sizeof value) == 0 && strcmp(value, "300") == 0,
              "rtc.log_size after the 65536-byte JSON: %s, expected 300", value);
    }
}

static char path_too_long[4097], path_bad_utf8[256], path_ok[256];

static void test_set_log_file(void) {
    const struct {
        const char *name;
        const char *path;
        int expected;
    } rows[] = {
        {"NULL", NULL, E_INVALID},
        {"empty", "", E_INVALID},
        {"4096 bytes", path_too_long, E_INVALID},
        {"in a missing directory", bad_log_dir_path, E_INVALID},
        {"a directory", tmpdir, E_INVALID},
        {"not UTF-8", path_bad_utf8, E_INVALID},
        {"a new file", path_ok, 0},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        char before[2048], what[128];
        snapshot(live, before, sizeof before);
        snprintf(what, sizeof what, "set_log_file(%s)", rows[i].name);
        check_setter(__LINE__, what, agoraish_engine_set_log_file(live, rows[i].path), rows[i].expected, before, NULL,
                     NULL);
    }
    {
        char value[512], want[300];
        snprintf(want, sizeof want, "\"%s\"", path_ok);
        CHECK(get_param(live, "rtc.log_file", value, sizeof value) == 0 && strcmp(value, want) == 0,
              "rtc.log_file is %s, expected %s", value, want);
    }
}

typedef struct {
    unsigned int value;
    int expected;
    const char *read_back; /* on success, the parameter's JSON text (NULL: not checked) */
} uint_row_t;

typedef struct {
    int value;
    int expected;
    const char *read_back;
} int_row_t;

static void test_set_log_filter(void) {
    const uint_row_t rows[] = {
        {0x1000, E_INVALID, NULL},
        {0x0010, E_INVALID, NULL},
        {0x0810 | 0x000f, E_INVALID, NULL},
        {0x80000000u, E_INVALID, NULL},
        {UINT_MAX, E_INVALID, NULL},
        {AGORAISH_LOG_FILTER_OFF, 0, "0"},
        {AGORAISH_LOG_FILTER_DEBUG, 0, "2063"},
        {AGORAISH_LOG_FILTER_CRITICAL, 0, "8"},
        {0x0001, 0, "1"},
        {AGORAISH_LOG_FILTER_INFO, 0, "15"},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        char before[2048], what[64], value[64];
        snapshot(live, before, sizeof before);
        snprintf(what, sizeof what, "set_log_filter(0x%x)", rows[i].value);
        check_setter(__LINE__, what, agoraish_engine_set_log_filter(live, rows[i].value), rows[i].expected, before,
                     "rtc.log_filter", rows[i].read_back);
        if (rows[i].value == 0x0001 && rows[i].expected == 0) {
            /* A filter that is no level's reads back as level null (docs/abi.md). */
            get_param(live, "rtc.log_level", value, sizeof value);
            CHECK(strcmp(value, "null") == 0, "rtc.log_level with filter 0x1 is %s, expected null", value);
        }
    }
}

static void test_set_log_level(void) {
    const int_row_t rows[] = {
        {-1, E_INVALID, NULL},   {3, E_INVALID, NULL},       {5, E_INVALID, NULL},
        {7, E_INVALID, NULL},    {16, E_INVALID, NULL},      {0x0800, E_INVALID, NULL},
        {INT_MIN, E_INVALID, NULL}, {INT_MAX, E_INVALID, NULL},
        {AGORAISH_LOG_LEVEL_NONE, 0, "0"}, {AGORAISH_LOG_LEVEL_FATAL, 0, "8"}, {AGORAISH_LOG_LEVEL_ERROR, 0, "4"},
        {AGORAISH_LOG_LEVEL_WARN, 0, "2"}, {AGORAISH_LOG_LEVEL_INFO, 0, "1"},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        char before[2048], what[64];
        snapshot(live, before, sizeof before);
        snprintf(what, sizeof what, "set_log_level(%d)", rows[i].value);
        check_setter(__LINE__, what, agoraish_engine_set_log_level(live, rows[i].value), rows[i].expected, before,
                     "rtc.log_level", rows[i].read_back);
    }
}

static void test_set_log_file_size(void) {
    const uint_row_t rows[] = {
        {0, E_INVALID, NULL},
        {AGORAISH_LOG_FILE_SIZE_MAX_KB + 1, E_INVALID, NULL},
        {0x7fffffffu, E_INVALID, NULL},
        {0x80000000u, E_INVALID, NULL},
        {UINT_MAX, E_INVALID, NULL},
        {1, 0, "128"},
        {AGORAISH_LOG_FILE_SIZE_MIN_KB - 1, 0, "128"},
        {AGORAISH_LOG_FILE_SIZE_MIN_KB, 0, "128"},
        {AGORAISH_LOG_FILE_SIZE_MIN_KB + 1, 0, "129"},
        {AGORAISH_LOG_FILE_SIZE_MAX_KB, 0, "20480"},
        {AGORAISH_LOG_FILE_SIZE_DEFAULT_KB, 0, "1024"},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        char before[2048], what[64];
        snapshot(live, before, sizeof before);
        snprintf(what, sizeof what, "set_log_file_size(%u)", rows[i].value);
        check_setter(__LINE__, what, agoraish_engine_set_log_file_size(live, rows[i].value), rows[i].expected, before,
                     "rtc.log_size", rows[i].read_back);
    }
}

/* ------------------------------------------------------------------------ */
/* agoraish_engine_get_parameter                                             */
/* ------------------------------------------------------------------------ */

static void test_get_parameter(void) {
    /* The value of rtc.log_size is "1024" here: 5 bytes with the NUL. */
    const struct {
        const char *name;
        const char *key;
        int null_buf;
        int null_len;
        size_t capacity;
        int expected;
        size_t expected_len; /* 0: not checked */
    } rows[] = {
        {"NULL key", NULL, 0, 0, 64, E_INVALID, 0},
        {"NULL len", "rtc.log_size", 0, 1, 64, E_INVALID, 0},
        {"NULL key and len", NULL, 0, 1, 64, E_INVALID, 0},
        {"empty key", "", 0, 0, 64, E_INVALID, 0},
        {"unknown key", "rtc.no_such_key", 0, 0, 64, E_INVALID, 0},
        {"key in the wrong case", "RTC.LOG_SIZE", 0, 0, 64, E_INVALID, 0},
        {"key not UTF-8", "rtc.\xff", 0, 0, 64, E_INVALID, 0},
        {"NULL buf, *len 0 (size query)", "rtc.log_size", 1, 0, 0, E_TOO_SMALL, 5},
        {"capacity 0", "rtc.log_size", 0, 0, 0, E_TOO_SMALL, 5},
        {"capacity 1", "rtc.log_size", 0, 0, 1, E_TOO_SMALL, 5},
        {"capacity one short of the NUL", "rtc.log_size", 0, 0, 4, E_TOO_SMALL, 5},
        {"exact capacity", "rtc.log_size", 0, 0, 5, 0, 5},
        {"large capacity", "rtc.log_size", 0, 0, 64, 0, 5},
    };
    size_t i;
    CHECK(agoraish_engine_set_log_file_size(live, 1024) == 0, "set_log_file_size(1024) for the get rows");
    for (i = 0; i < COUNT(rows); i++) {
        char buf[64];
        size_t len = rows[i].capacity;
        int rc;
        memset(buf, 'Z', sizeof buf);
        rc = agoraish_engine_get_parameter(live, rows[i].key, rows[i].null_buf ? NULL : buf,
                                           rows[i].null_len ? NULL : &len);
        CHECK(rc == rows[i].expected, "get_parameter(%s): returned %d, expected %d", rows[i].name, rc,
              rows[i].expected);
        if (rows[i].expected_len) {
            CHECK(len == rows[i].expected_len, "get_parameter(%s): *len %zu, expected %zu", rows[i].name, len,
                  rows[i].expected_len);
        }
        if (rc == E_TOO_SMALL) {
            size_t j;
            int untouched = 1;
            for (j = 0; j < sizeof buf; j++) untouched &= buf[j] == 'Z';
            CHECK(untouched, "get_parameter(%s): -6 but the buffer was written", rows[i].name);
        }
        if (rc == 0) CHECK(strcmp(buf, "1024") == 0, "get_parameter(%s): value %.8s, expected 1024", rows[i].name, buf);
    }
}

/* ------------------------------------------------------------------------ */
/* Server handles                                                            */
/* ------------------------------------------------------------------------ */


static void test_server_handles(void) {
    agoraish_server_t *stale = create_server(0, NULL);
    agoraish_server_t *bystander = create_server(0, NULL); /* must stay untouched */
    size_t h, c;
    struct {
        const char *name;
        agoraish_server_t *handle;
        int expected;         /* every function but release */
        int expected_release; /* agoraish_server_release */
    } handles[] = {
        {"NULL", NULL, E_NOT_INIT, E_NOT_INIT},
        {"stale (released)", stale, E_NOT_INIT, 0},
        /* A live handle of another type: the engine is left alone. */
        {"the live engine's", (agoraish_server_t *)(void *)live, E_INVALID, E_INVALID},
        {"engine tag", SERVER((0x01ULL << 56) | (1ULL << 32) | 1), E_INVALID, E_INVALID},
        {"tag 0xff", SERVER((0xffULL << 56) | (1ULL << 32) | 1), E_INVALID, E_INVALID},
        {"garbage 0xdeadbeef", SERVER(0xdeadbeefULL), E_INVALID, E_INVALID},
        {"all bits set", SERVER(~0ULL), E_INVALID, E_INVALID},
        {"server tag, generation 0", SERVER((0x02ULL << 56) | 1), E_INVALID, E_INVALID},
        {"server tag, slot 0", SERVER((0x02ULL << 56) | (1ULL << 32)), E_INVALID, E_INVALID},
        {"server tag, slot never used", SERVER((0x02ULL << 56) | (1ULL << 32) | 0xfffffffULL), E_NOT_INIT, 0},
        {"server tag, future generation", SERVER((0x02ULL << 56) | (0xffffffULL << 32) | 1), E_NOT_INIT, 0},
    };
    CHECK(stale != NULL && bystander != NULL, "create the servers: last error %d", agoraish_get_last_error());
    CHECK(agoraish_server_release(stale) == 0, "release the server that becomes stale");

    for (h = 0; h < COUNT(handles); h++) {
        if (!handles[h].handle && strcmp(handles[h].name, "NULL") != 0) continue; /* create failed */
        for (c = 0; c < COUNT(abi_server_functions); c++) {
            const abi_function *f = &abi_server_functions[c];
            int expected = strcmp(f->name, "agoraish_server_release") == 0 ? handles[h].expected_release
                                                                           : handles[h].expected;
            int rc = f->call(handles[h].handle);
            CHECK(rc == expected, "%s with a %s handle: returned %d, expected %d", f->name, handles[h].name, rc,
                  expected);
        }
    }
    /* The engine and the bystander server survived, neither started nor released. */
    CHECK(call_get_parameter(live) == 0, "the live engine answers after the bad server handles");
    if (bystander) {
        CHECK(agoraish_server_get_http_port(bystander) == E_NOT_READY, "the bystander server was started");
        CHECK(agoraish_server_release(bystander) == 0, "release the bystander server");
    }
}

/* ------------------------------------------------------------------------ */
/* agoraish_server_create and the server's states                           */
/* ------------------------------------------------------------------------ */

static char json_bad_utf8[64], host_bad_utf8[32];

static void test_server_create(void) {
    const struct {
        const char *name;
        int null_config;
        int set_struct_size;
        uint32_t struct_size;
        const char *host;
        int32_t signaling_port;
        int32_t http_port;
        const char *config_json;
        int expected;   /* agoraish_get_last_error(); 0 = success */
        int start;      /* on success: start, then expect ... */
        int http_state; /* ... get_http_port: 0 (disabled) or 1 (a port) */
    } rows[] = {
        {.name = "NULL config", .null_config = 1, .expected = E_INVALID},
        {.name = "struct_size 0", .set_struct_size = 1, .struct_size = 0, .expected = E_INVALID},
        {.name = "struct_size 4", .set_struct_size = 1, .struct_size = 4, .expected = E_INVALID},
        {.name = "struct_size one byte short", .set_struct_size = 1,
         .struct_size = (uint32_t)sizeof(agoraish_server_config) - 1, .expected = E_INVALID},
        {.name = "signaling_port -1", .signaling_port = -1, .expected = E_INVALID},
        {.name = "signaling_port 65536", .signaling_port = 65536, .expected = E_INVALID},
        {.name = "signaling_port INT32_MIN", .signaling_port = INT32_MIN, .expected = E_INVALID},
        {.name = "http_port -2", .http_port = -2, .expected = E_INVALID},
        {.name = "http_port 65536", .http_port = 65536, .expected = E_INVALID},
        {.name = "http_port INT32_MAX", .http_port = INT32_MAX, .expected = E_INVALID},
        {.name = "host not UTF-8", .host = host_bad_utf8, .expected = E_INVALID},
        {.name = "config_json empty", .config_json = "", .expected = E_INVALID},
        {.name = "config_json not JSON", .config_json = "listen on 7450", .expected = E_INVALID},
        {.name = "config_json unterminated", .config_json = "{\"listen\": {}", .expected = E_INVALID},
        {.name = "config_json an array", .config_json = "[]", .expected = E_INVALID},
        {.name = "config_json null", .config_json = "null", .expected = E_INVALID},
        {.name = "config_json unknown key", .config_json = "{\"bogus\": 1}", .expected = E_INVALID},
        {.name = "config_json listen not an object", .config_json = "{\"listen\": 5}", .expected = E_INVALID},
        {.name = "config_json malformed app id", .config_json = "{\"apps\": [{\"app_id\": \"short\"}]}",
         .expected = E_INVALID},
        {.name = "config_json negative limit", .config_json = "{\"limits\": {\"max_channels\": -1}}",
         .expected = E_INVALID},
        {.name = "config_json not UTF-8", .config_json = json_bad_utf8, .expected = E_INVALID},
        /* Accepted. */
        {.name = "zeroed fields (defaults)", .start = 1, .http_state = 0},
        {.name = "http_port -1 (a free port)", .http_port = -1, .start = 1, .http_state = 1},
        {.name = "host 127.0.0.1", .host = "127.0.0.1", .start = 1},
        {.name = "host empty (default)", .host = ""},
        {.name = "config_json {}", .config_json = "{}"},
        {.name = "config_json with an app and limits",
         .config_json = "{\"apps\": [{\"app_id\": \"0123456789abcdef0123456789abcdef\"}],"
                        " \"limits\": {\"joins_per_second_per_address\": 1000}}"},
        {.name = "struct_size larger than any header's", .set_struct_size = 1,
         .struct_size = (uint32_t)sizeof(agoraish_server_config) + 64, .expected = E_INVALID},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        union {
            agoraish_server_config config;
            unsigned char bytes[sizeof(agoraish_server_config) + 64];
        } storage;
        agoraish_server_t *server;
        int last;
        memset(&storage, 0, sizeof storage);
        storage.config.struct_size = rows[i].set_struct_size ? rows[i].struct_size : (uint32_t)sizeof storage.config;
        storage.config.host = rows[i].host;
        storage.config.signaling_port = rows[i].signaling_port;
        storage.config.http_port = rows[i].http_port;
        storage.config.config_json = rows[i].config_json;
        server = agoraish_server_create(rows[i].null_config ? NULL : &storage.config);
        last = agoraish_get_last_error();
        if (rows[i].expected != 0) {
            CHECK(server == NULL, "server_create with %s: succeeded, expected %d", rows[i].name, rows[i].expected);
            CHECK(last == rows[i].expected, "server_create with %s: last error %d, expected %d", rows[i].name, last,
                  rows[i].expected);
            if (server) agoraish_server_release(server);
            continue;
        }
        CHECK(server != NULL, "server_create with %s: failed with %d", rows[i].name, last);
        CHECK(last == 0, "server_create with %s: last error %d after success", rows[i].name, last);
        if (!server) continue;
        if (rows[i].start) {
            int port;
            CHECK(agoraish_server_start(server) == 0, "server_start after create with %s", rows[i].name);
            port = agoraish_server_get_http_port(server);
            CHECK(rows[i].http_state ? port > 0 : port == 0, "server with %s: get_http_port %d", rows[i].name, port);
        }
        CHECK(agoraish_server_release(server) == 0, "server_release after create with %s", rows[i].name);
    }
}

static void test_server_states(void) {
    agoraish_server_t *server = create_server(0, NULL), *rival;
    char url[128], again[128];
    size_t len;
    int port;
    CHECK(server != NULL, "create the server: last error %d", agoraish_get_last_error());
    if (!server) return;

    /* Not started. */
    len = sizeof url;
    CHECK(agoraish_server_get_url(server, url, &len) == E_NOT_READY, "server_get_url before start");
    CHECK(agoraish_server_get_http_port(server) == E_NOT_READY, "server_get_http_port before start");
    CHECK(agoraish_server_stop(server) == 0, "server_stop before start");

    /* Started; twice is -8. */
    CHECK(agoraish_server_start(server) == 0, "server_start");
    CHECK(agoraish_server_start(server) == E_STATE, "server_start twice: expected -8");
    CHECK(agoraish_server_get_http_port(server) == 0, "server_get_http_port with HTTP disabled");

    /* The buffer convention of get_url. */
    CHECK(agoraish_server_get_url(server, url, NULL) == E_INVALID, "server_get_url with NULL len");
    len = 16;
    CHECK(agoraish_server_get_url(server, NULL, &len) == E_INVALID, "server_get_url with NULL buf and *len 16");
    len = 0;
    CHECK(agoraish_server_get_url(server, NULL, &len) == E_TOO_SMALL, "server_get_url size query");
    {
        size_t needed = len;
        memset(url, 'Z', sizeof url);
        len = needed - 1;
        CHECK(agoraish_server_get_url(server, url, &len) == E_TOO_SMALL && len == needed,
              "server_get_url one byte short: *len %zu, expected %zu", len, needed);
        CHECK(url[0] == 'Z' && url[needed - 2] == 'Z', "server_get_url one byte short wrote bytes");
        len = needed;
        CHECK(agoraish_server_get_url(server, url, &len) == 0 && strlen(url) + 1 == needed,
              "server_get_url with the exact size: \"%.40s\"", url);
    }
    CHECK(strncmp(url, "ws://127.0.0.1:", 15) == 0, "server URL \"%s\"", url);
    port = atoi(url + 15);

    /* Another server on the same port cannot bind it. */
    {
        agoraish_server_config config;
        memset(&config, 0, sizeof config);
        config.struct_size = sizeof config;
        config.signaling_port = port;
        rival = agoraish_server_create(&config);
        CHECK(rival != NULL, "create a server on port %d: last error %d", port, agoraish_get_last_error());
        if (rival) {
            CHECK(agoraish_server_start(rival) == E_BIND, "server_start on a port in use: expected -13");
            CHECK(agoraish_server_get_http_port(rival) == E_NOT_READY, "a server that failed to bind runs");
            CHECK(agoraish_server_release(rival) == 0, "release the server that could not bind");
        }
    }

    /* Stopped: no URL; stop again is 0; it starts again. */
    CHECK(agoraish_server_stop(server) == 0, "server_stop");
    CHECK(agoraish_server_stop(server) == 0, "server_stop twice");
    len = sizeof url;
    CHECK(agoraish_server_get_url(server, url, &len) == E_NOT_READY, "server_get_url after stop");
    CHECK(agoraish_server_start(server) == 0, "server_start after stop");
    len = sizeof again;
    CHECK(agoraish_server_get_url(server, again, &len) == 0, "server_get_url after restart");

    /* Released: -7 from everything, release again 0. */
    CHECK(agoraish_server_release(server) == 0, "server_release while running");
    CHECK(agoraish_server_release(server) == 0, "server_release twice");
    CHECK(agoraish_server_start(server) == E_NOT_INIT, "server_start after release");
    len = sizeof url;
    CHECK(agoraish_server_get_url(server, url, &len) == E_NOT_INIT, "server_get_url after release");
}

/* ------------------------------------------------------------------------ */
/* Channel functions                                                         */
/* ------------------------------------------------------------------------ */

typedef enum {
    F_PROFILE,
    F_ROLE,
    F_JOIN,
    F_JOIN_ACCOUNT,
    F_REGISTER,
    F_INFO_BY_ACCOUNT,
    F_INFO_BY_UID,
    F_LEAVE,
    F_RENEW,
    F_SWITCH,
    F_PRELOAD,
    F_UPDATE_PRELOAD,
    F_CALL_ID,
    F_STATE
} channel_fn_t;

static const char *const channel_fn_names[] = {
    "set_channel_profile", "set_client_role", "join_channel", "join_channel_with_user_account",
    "register_local_user_account", "get_user_info_by_user_account", "get_user_info_by_uid", "leave_channel",
    "renew_token", "switch_channel", "preload_channel", "update_preload_channel_token", "get_call_id",
    "get_connection_state",
};

/** One call: the function and its arguments (unused ones stay zero). */
typedef struct {
    const char *name;
    channel_fn_t fn;
    int value;          /* profile or role */
    const char *token;  /* join, join_account, switch, renew, preload, update_preload */
    const char *text;   /* channel (join, join_account, switch, preload), app id (register),
                           account (get_user_info_by_user_account) */
    const char *text2;  /* info (join), account (join_account, register) */
    uint32_t uid;       /* join, get_user_info_by_uid, preload */
    int null_out;       /* get_user_info_*: NULL info; get_call_id: NULL len */
    int expected;
} channel_row_t;

static int run_channel_row(agoraish_engine_t *engine, const channel_row_t *row) {
    agoraish_user_info info;
    char buf[128];
    size_t len = sizeof buf;
    switch (row->fn) {
    case F_PROFILE: return agoraish_engine_set_channel_profile(engine, row->value);
    case F_ROLE: return agoraish_engine_set_client_role(engine, row->value);
    case F_JOIN: return agoraish_engine_join_channel(engine, row->token, row->text, row->text2, row->uid);
    case F_JOIN_ACCOUNT: return agoraish_engine_join_channel_with_user_account(engine, row->token, row->text, row->text2);
    case F_REGISTER: return agoraish_engine_register_local_user_account(engine, row->text, row->text2);
    case F_INFO_BY_ACCOUNT:
        return agoraish_engine_get_user_info_by_user_account(engine, row->text, row->null_out ? NULL : &info);
    case F_INFO_BY_UID: return agoraish_engine_get_user_info_by_uid(engine, row->uid, row->null_out ? NULL : &info);
    case F_LEAVE: return agoraish_engine_leave_channel(engine);
    case F_RENEW: return agoraish_engine_renew_token(engine, row->token);
    case F_SWITCH: return agoraish_engine_switch_channel(engine, row->token, row->text);
    case F_PRELOAD: return agoraish_engine_preload_channel(engine, row->token, row->text, row->uid);
    case F_UPDATE_PRELOAD: return agoraish_engine_update_preload_channel_token(engine, row->token);
    case F_CALL_ID: return agoraish_engine_get_call_id(engine, buf, row->null_out ? NULL : &len);
    case F_STATE: return agoraish_engine_get_connection_state(engine);
    }
    return 12345;
}

static void run_channel_rows(agoraish_engine_t *engine, const char *where, const channel_row_t *rows, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        int rc = run_channel_row(engine, &rows[i]);
        CHECK(rc == rows[i].expected, "%s(%s) %s: returned %d, expected %d", channel_fn_names[rows[i].fn], rows[i].name,
              where, rc, rows[i].expected);
    }
}

static char channel_63[64], channel_64[65], account_255[256], account_256[257];
/* Preload tokens: at most 2048 bytes. */
static char token_2048[2049], token_2049[2050];

/** The channel functions on the live engine, which is in no channel and has no
 *  reachable server: every row is decided before anything is sent. */
static void test_channel_rows_not_joined(void) {
    const channel_row_t rows[] = {
        {"-1", F_PROFILE, .value = -1, .expected = E_INVALID},
        {"2 (not supported)", F_PROFILE, .value = 2, .expected = E_INVALID},
        {"3", F_PROFILE, .value = 3, .expected = E_INVALID},
        {"INT_MIN", F_PROFILE, .value = INT_MIN, .expected = E_INVALID},
        {"INT_MAX", F_PROFILE, .value = INT_MAX, .expected = E_INVALID},
        {"LIVE_BROADCASTING", F_PROFILE, .value = AGORAISH_CHANNEL_PROFILE_LIVE_BROADCASTING, .expected = 0},
        {"COMMUNICATION", F_PROFILE, .value = AGORAISH_CHANNEL_PROFILE_COMMUNICATION, .expected = 0},
        {"0", F_ROLE, .value = 0, .expected = E_INVALID},
        {"3", F_ROLE, .value = 3, .expected = E_INVALID},
        {"-1", F_ROLE, .value = -1, .expected = E_INVALID},
        {"INT_MIN", F_ROLE, .value = INT_MIN, .expected = E_INVALID},
        {"AUDIENCE", F_ROLE, .value = AGORAISH_CLIENT_ROLE_AUDIENCE, .expected = 0},
        {"BROADCASTER", F_ROLE, .value = AGORAISH_CLIENT_ROLE_BROADCASTER, .expected = 0},
        {"NULL channel", F_JOIN, .text = NULL, .expected = E_INVALID},
        {"empty channel", F_JOIN, .text = "", .expected = E_CHANNEL},
        {"channel of 64 bytes", F_JOIN, .text = channel_64, .expected = E_CHANNEL},
        {"channel with '/'", F_JOIN, .text = "a/b", .expected = E_CHANNEL},
        {"channel with '*'", F_JOIN, .text = "a*b", .expected = E_CHANNEL},
        {"channel with a quote", F_JOIN, .text = "a\"b", .expected = E_CHANNEL},
        {"channel with a tab", F_JOIN, .text = "a\tb", .expected = E_CHANNEL},
        {"channel with a newline", F_JOIN, .text = "a\nb", .expected = E_CHANNEL},
        {"channel not ASCII", F_JOIN, .text = "caf\xc3\xa9", .expected = E_CHANNEL},
        {"channel not UTF-8", F_JOIN, .text = "chan\xff", .expected = E_INVALID},
        {"token not UTF-8", F_JOIN, .token = "tok\xff", .text = "bad-input", .expected = E_INVALID},
        {"info not UTF-8", F_JOIN, .text = "bad-input", .text2 = "info\xc3\x28", .expected = E_INVALID},
        {"NULL channel", F_JOIN_ACCOUNT, .text = NULL, .text2 = "account", .expected = E_INVALID},
        {"NULL account", F_JOIN_ACCOUNT, .text = "bad-input", .text2 = NULL, .expected = E_ACCOUNT},
        {"empty account", F_JOIN_ACCOUNT, .text = "bad-input", .text2 = "", .expected = E_ACCOUNT},
        {"account of 256 bytes", F_JOIN_ACCOUNT, .text = "bad-input", .text2 = account_256, .expected = E_ACCOUNT},
        {"account not UTF-8", F_JOIN_ACCOUNT, .text = "bad-input", .text2 = "acc\xff", .expected = E_INVALID},
        {"empty channel", F_JOIN_ACCOUNT, .text = "", .text2 = "account", .expected = E_CHANNEL},
        {"channel of 64 bytes", F_JOIN_ACCOUNT, .text = channel_64, .text2 = "account", .expected = E_CHANNEL},
        {"token not UTF-8", F_JOIN_ACCOUNT, .token = "\xff", .text = "bad-input", .text2 = "account",
         .expected = E_INVALID},
        {"NULL app id", F_REGISTER, .text = NULL, .text2 = "account", .expected = E_INVALID},
        {"another app id", F_REGISTER, .text = "another-app", .text2 = "account", .expected = E_INVALID},
        {"app id not UTF-8", F_REGISTER, .text = "bad-input-live\xff", .text2 = "account", .expected = E_INVALID},
        {"NULL account", F_REGISTER, .text = LIVE_APP_ID, .text2 = NULL, .expected = E_ACCOUNT},
        {"empty account", F_REGISTER, .text = LIVE_APP_ID, .text2 = "", .expected = E_ACCOUNT},
        {"account of 256 bytes", F_REGISTER, .text = LIVE_APP_ID, .text2 = account_256, .expected = E_ACCOUNT},
        {"account not UTF-8", F_REGISTER, .text = LIVE_APP_ID, .text2 = "acc\xff", .expected = E_INVALID},
        {"NULL account", F_INFO_BY_ACCOUNT, .text = NULL, .expected = E_INVALID},
        {"NULL info", F_INFO_BY_ACCOUNT, .text = "account", .null_out = 1, .expected = E_INVALID},
        {"unknown account", F_INFO_BY_ACCOUNT, .text = "account", .expected = E_INVALID},
        {"account not UTF-8", F_INFO_BY_ACCOUNT, .text = "acc\xff", .expected = E_INVALID},
        {"NULL info", F_INFO_BY_UID, .uid = 1, .null_out = 1, .expected = E_INVALID},
        {"unknown uid", F_INFO_BY_UID, .uid = 12345, .expected = E_INVALID},
        {"uid 0", F_INFO_BY_UID, .uid = 0, .expected = E_INVALID},
        {"not joined", F_LEAVE, .expected = E_LEAVE_REJECTED},
        {"NULL token", F_RENEW, .token = NULL, .expected = E_INVALID},
        {"empty token", F_RENEW, .token = "", .expected = E_INVALID},
        {"token not UTF-8", F_RENEW, .token = "tok\xff", .expected = E_INVALID},
        {"not joined", F_RENEW, .token = "token", .expected = E_NOT_IN_CHANNEL},
        {"NULL channel", F_SWITCH, .text = NULL, .expected = E_INVALID},
        {"not joined", F_SWITCH, .text = "bad-input", .expected = E_NOT_IN_CHANNEL},
        {"nothing preloaded", F_UPDATE_PRELOAD, .token = "token", .expected = E_STATE},
        {"NULL token, nothing preloaded", F_UPDATE_PRELOAD, .token = NULL, .expected = E_STATE},
        {"empty token, nothing preloaded", F_UPDATE_PRELOAD, .token = "", .expected = E_STATE},
        {"token of 2049 bytes (checked first)", F_UPDATE_PRELOAD, .token = token_2049, .expected = E_INVALID},
        {"token not UTF-8", F_UPDATE_PRELOAD, .token = "tok\xff", .expected = E_INVALID},
        {"NULL channel", F_PRELOAD, .text = NULL, .uid = 7, .expected = E_INVALID},
        {"empty channel", F_PRELOAD, .text = "", .uid = 7, .expected = E_CHANNEL},
        {"channel of 64 bytes", F_PRELOAD, .text = channel_64, .uid = 7, .expected = E_CHANNEL},
        {"channel with '/'", F_PRELOAD, .text = "bad/name", .uid = 7, .expected = E_CHANNEL},
        {"channel with '*'", F_PRELOAD, .text = "a*b", .uid = 7, .expected = E_CHANNEL},
        {"channel with a newline", F_PRELOAD, .text = "a\nb", .uid = 7, .expected = E_CHANNEL},
        {"channel not ASCII", F_PRELOAD, .text = "caf\xc3\xa9", .uid = 7, .expected = E_CHANNEL},
        {"channel not UTF-8", F_PRELOAD, .text = "chan\xff", .uid = 7, .expected = E_INVALID},
        {"token of 2049 bytes", F_PRELOAD, .token = token_2049, .text = "bad-input", .uid = 7, .expected = E_INVALID},
        {"token not UTF-8", F_PRELOAD, .token = "tok\xff", .text = "bad-input", .uid = 7, .expected = E_INVALID},
        {"bad name and a token of 2049 bytes (the name first)", F_PRELOAD, .token = token_2049, .text = "bad/name",
         .uid = 7, .expected = E_CHANNEL},
        {"nothing preloaded after refused preloads", F_UPDATE_PRELOAD, .token = "token", .expected = E_STATE},
        {"NULL len", F_CALL_ID, .null_out = 1, .expected = E_INVALID},
        {"before any call", F_CALL_ID, .expected = E_NOT_IN_CHANNEL},
        {"never joined", F_STATE, .expected = AGORAISH_CONNECTION_STATE_DISCONNECTED},
    };
    run_channel_rows(live, "on an engine in no channel", rows, COUNT(rows));
}

/** preload_channel on an engine whose server URL is ws:// to a host other than
 *  loopback: -5 once the arguments pass (nothing listens there; nothing is
 *  opened). update_preload_channel_token has nothing to refuse it for. */
static void test_preload_insecure_server(void) {
    agoraish_engine_t *engine = new_engine(LIVE_APP_ID, NULL, "ws://10.99.0.1:7450", "preload-remote.log");
    const channel_row_t rows[] = {
        {"ws:// to 10.99.0.1", F_PRELOAD, .text = "bad-input", .uid = 7, .expected = E_REFUSED},
        {"ws:// to 10.99.0.1, with a token", F_PRELOAD, .token = "token", .text = "bad-input", .uid = 7,
         .expected = E_REFUSED},
        {"bad name (checked first)", F_PRELOAD, .text = "bad/name", .uid = 7, .expected = E_CHANNEL},
        {"token of 2049 bytes (checked first)", F_PRELOAD, .token = token_2049, .text = "bad-input", .uid = 7,
         .expected = E_INVALID},
        {"nothing preloaded", F_UPDATE_PRELOAD, .token = "token", .expected = E_STATE},
    };
    CHECK(engine != NULL, "create an engine for ws://10.99.0.1:7450: last error %d", agoraish_get_last_error());
    if (!engine) return;
    run_channel_rows(engine, "with a ws:// server URL to another host", rows, COUNT(rows));
    CHECK(agoraish_engine_get_connection_state(engine) == AGORAISH_CONNECTION_STATE_DISCONNECTED,
          "a refused preload starts nothing");
    CHECK(agoraish_engine_release(engine, 1) == 0, "release the ws:// engine");
}

/* ---- Rows that need a server: an engine with a small event recorder ---- */

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int joins, leaves, registrations, errors;
} channel_events_t;

static channel_events_t chan_events;

/** Counts one event into the counter `field` of `chan_events`. */
static void chan_count_up(int *field) { count_up(&chan_events.mutex, &chan_events.cond, field); }

static void chan_on_join(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    (void)e, (void)ud, (void)channel, (void)uid, (void)elapsed;
    chan_count_up(&chan_events.joins);
}
static void chan_on_leave(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *stats) {
    (void)e, (void)ud, (void)stats;
    chan_count_up(&chan_events.leaves);
}
static void chan_on_registered(agoraish_engine_t *e, void *ud, uint32_t uid, const char *account) {
    (void)e, (void)ud, (void)uid, (void)account;
    chan_count_up(&chan_events.registrations);
}
static void chan_on_error(agoraish_engine_t *e, void *ud, int err, const char *msg) {
    (void)e, (void)ud, (void)err, (void)msg;
    chan_count_up(&chan_events.errors);
}

/** Waits until the counter at `field` reaches `n`; returns whether it did within 15 s. */
static int chan_wait(const int *field, int n) { return wait_count(&chan_events.mutex, &chan_events.cond, field, n, 15) >= n; }

static int chan_count(const int *field) { return read_count(&chan_events.mutex, field); }

#define CHAN_APP_ID "0123456789abcdef0123456789abcdef"

static agoraish_engine_t *create_channel_engine(const char *server_url, const char *log_name) {
    agoraish_event_handler handler = empty_handler(&chan_events);
    handler.on_join_channel_success = chan_on_join;
    handler.on_leave_channel = chan_on_leave;
    handler.on_local_user_registered = chan_on_registered;
    handler.on_error = chan_on_error;
    return new_engine(CHAN_APP_ID, &handler, server_url, log_name);
}

/** Joins with `row` (which must be accepted), runs `in_call` rows, leaves. */
static void join_run_leave(agoraish_engine_t *engine, const channel_row_t *join, const channel_row_t *in_call,
                           size_t n) {
    int joins = chan_count(&chan_events.joins), leaves = chan_count(&chan_events.leaves);
    int rc = run_channel_row(engine, join);
    CHECK(rc == 0, "%s(%s): returned %d, expected 0", channel_fn_names[join->fn], join->name, rc);
    if (rc != 0) return;
    CHECK(chan_wait(&chan_events.joins, joins + 1), "%s(%s): no on_join_channel_success", channel_fn_names[join->fn],
          join->name);
    run_channel_rows(engine, "in a channel", in_call, n);
    CHECK(agoraish_engine_leave_channel(engine) == 0, "leave after %s(%s)", channel_fn_names[join->fn], join->name);
    CHECK(chan_wait(&chan_events.leaves, leaves + 1), "no on_leave_channel after %s(%s)", channel_fn_names[join->fn],
          join->name);
}

static void test_channel_rows_with_server(void) {
    agoraish_server_t *server = create_server(0, NULL);
    agoraish_engine_t *engine = NULL;
    char url[128];
    size_t len = sizeof url;

    memset(&chan_events, 0, sizeof chan_events);
    monitor_init(&chan_events.mutex, &chan_events.cond);

    CHECK(server != NULL && agoraish_server_start(server) == 0 && agoraish_server_get_url(server, url, &len) == 0,
          "start a server for the channel rows");
    if (!server) goto done;
    engine = create_channel_engine(url, "channel-rows.log");
    CHECK(engine != NULL, "create the channel engine: last error %d", agoraish_get_last_error());
    if (!engine) goto done;

    /* A registration is answered; the account is then known. */
    CHECK(agoraish_engine_register_local_user_account(engine, CHAN_APP_ID, "registered") == 0,
          "register_local_user_account(valid)");
    CHECK(chan_wait(&chan_events.registrations, 1), "no on_local_user_registered");
    {
        const channel_row_t rows[] = {
            {"a registered account", F_INFO_BY_ACCOUNT, .text = "registered", .expected = 0},
            {"a registered account, NULL info", F_INFO_BY_ACCOUNT, .text = "registered", .null_out = 1,
             .expected = E_INVALID},
        };
        run_channel_rows(engine, "after registering", rows, COUNT(rows));
    }

    /* Communication, broadcaster: the accepted edges of join, and what a call refuses. */
    {
        const channel_row_t join = {"a 63-byte channel of every allowed kind", F_JOIN, .text = channel_63,
                                    .text2 = "info", .uid = 4294967295u, .expected = 0};
        const channel_row_t in_call[] = {
            {"while joined", F_JOIN, .text = "bad-input", .expected = E_JOIN_REJECTED},
            {"while joined", F_JOIN_ACCOUNT, .text = "bad-input", .text2 = "account", .expected = E_JOIN_REJECTED},
            {"while joined", F_PROFILE, .value = AGORAISH_CHANNEL_PROFILE_LIVE_BROADCASTING, .expected = E_REFUSED},
            {"a broadcaster", F_SWITCH, .text = "bad-input-2", .expected = E_REFUSED},
            {"empty token while joined", F_RENEW, .token = "", .expected = E_INVALID},
            {"NULL token while joined", F_RENEW, .token = NULL, .expected = E_INVALID},
            {"while joined", F_RENEW, .token = "renewed-token", .expected = 0},
            {"NULL len in a call", F_CALL_ID, .null_out = 1, .expected = E_INVALID},
            {"in a call", F_CALL_ID, .expected = 0},
            {"in a call", F_STATE, .expected = AGORAISH_CONNECTION_STATE_CONNECTED},
            {"the same role while joined", F_ROLE, .value = AGORAISH_CLIENT_ROLE_BROADCASTER, .expected = 0},
            {"a bad role while joined", F_ROLE, .value = 0, .expected = E_INVALID},
        };
        join_run_leave(engine, &join, in_call, COUNT(in_call));
    }
    {
        const channel_row_t join = {"an account of 255 bytes", F_JOIN_ACCOUNT, .text = "bad-input",
                                    .text2 = account_255, .expected = 0};
        join_run_leave(engine, &join, NULL, 0);
    }

    /* The call id's buffer convention after a call. */
    {
        char buf[128];
        size_t needed = 0;
        CHECK(agoraish_engine_get_call_id(engine, NULL, &needed) == E_TOO_SMALL && needed > 1,
              "get_call_id size query after a call: *len %zu", needed);
        len = 16;
        CHECK(agoraish_engine_get_call_id(engine, NULL, &len) == E_INVALID, "get_call_id with NULL buf and *len 16");
        memset(buf, 'Z', sizeof buf);
        len = needed - 1;
        CHECK(agoraish_engine_get_call_id(engine, buf, &len) == E_TOO_SMALL && len == needed && buf[0] == 'Z',
              "get_call_id one byte short: *len %zu, first byte %c", len, buf[0]);
        len = needed;
        CHECK(needed <= sizeof buf && agoraish_engine_get_call_id(engine, buf, &len) == 0 && strlen(buf) + 1 == needed,
              "get_call_id with the exact size");
    }

    /* preload_channel and update_preload_channel_token: nothing preloaded yet,
     * then the accepted edges; a join of a preloaded channel and a preload in
     * a call follow in the switch rows. */
    {
        const channel_row_t rows[] = {
            {"nothing preloaded", F_UPDATE_PRELOAD, .token = "", .expected = E_STATE},
            {"bad name", F_PRELOAD, .text = "bad/name", .uid = 7, .expected = E_CHANNEL},
            {"still nothing preloaded", F_UPDATE_PRELOAD, .token = NULL, .expected = E_STATE},
            {"NULL token", F_PRELOAD, .token = NULL, .text = "bad-input-preload", .uid = 7, .expected = 0},
            {"after a preload", F_UPDATE_PRELOAD, .token = "token", .expected = 0},
            {"empty token", F_PRELOAD, .token = "", .text = "bad-input-preload-2", .uid = 7, .expected = 0},
            {"the same channel and uid again", F_PRELOAD, .text = "bad-input-preload", .uid = 7, .expected = 0},
            {"a token of 2048 bytes", F_PRELOAD, .token = token_2048, .text = "bad-input-preload", .uid = 8,
             .expected = 0},
            {"a 63-byte channel of every allowed kind, uid 2^32-1", F_PRELOAD, .text = channel_63,
             .uid = 4294967295u, .expected = 0},
            {"uid 0", F_PRELOAD, .text = "bad-input-preload", .uid = 0, .expected = 0},
            {"the live broadcasting channel, uid 9", F_PRELOAD, .text = "bad-input-live-broadcast", .uid = 9,
             .expected = 0},
            {"empty channel", F_PRELOAD, .text = "", .uid = 7, .expected = E_CHANNEL},
            {"token of 2049 bytes", F_PRELOAD, .token = token_2049, .text = "bad-input", .uid = 7,
             .expected = E_INVALID},
            {"a token of 2048 bytes", F_UPDATE_PRELOAD, .token = token_2048, .expected = 0},
            {"token of 2049 bytes", F_UPDATE_PRELOAD, .token = token_2049, .expected = E_INVALID},
            {"NULL token", F_UPDATE_PRELOAD, .token = NULL, .expected = 0},
            {"empty token", F_UPDATE_PRELOAD, .token = "", .expected = 0},
        };
        run_channel_rows(engine, "before joining", rows, COUNT(rows));
    }

    /* Live broadcasting audience: switch_channel checks the new name. */
    CHECK(agoraish_engine_set_channel_profile(engine, AGORAISH_CHANNEL_PROFILE_LIVE_BROADCASTING) == 0,
          "set_channel_profile(LIVE_BROADCASTING) for the switch rows");
    CHECK(agoraish_engine_set_client_role(engine, AGORAISH_CLIENT_ROLE_AUDIENCE) == 0, "set_client_role(AUDIENCE)");
    {
        /* Preloaded above with uid 9: the join goes on the preloaded connection. */
        const channel_row_t join = {"as audience, preloaded", F_JOIN, .text = "bad-input-live-broadcast", .uid = 9,
                                    .expected = 0};
        const channel_row_t in_call[] = {
            {"another channel in a call", F_PRELOAD, .text = "bad-input-preload-3", .uid = 9, .expected = 0},
            {"bad name in a call", F_PRELOAD, .text = "a/b", .uid = 9, .expected = E_CHANNEL},
            {"in a call", F_UPDATE_PRELOAD, .token = "token", .expected = 0},
            {"NULL channel", F_SWITCH, .text = NULL, .expected = E_INVALID},
            {"empty channel", F_SWITCH, .text = "", .expected = E_CHANNEL},
            {"channel of 64 bytes", F_SWITCH, .text = channel_64, .expected = E_CHANNEL},
            {"channel with '/'", F_SWITCH, .text = "a/b", .expected = E_CHANNEL},
            {"channel not UTF-8", F_SWITCH, .text = "\xff", .expected = E_INVALID},
            {"token not UTF-8", F_SWITCH, .token = "\xff", .text = "other", .expected = E_INVALID},
        };
        join_run_leave(engine, &join, in_call, COUNT(in_call));
    }
    CHECK(chan_count(&chan_events.errors) == 0, "on_error during the channel rows: %d", chan_count(&chan_events.errors));

done:
    if (engine) CHECK(agoraish_engine_release(engine, 1) == 0, "release the channel engine");
    if (server) CHECK(agoraish_server_release(server) == 0, "release the channel rows' server");
    monitor_destroy(&chan_events.mutex, &chan_events.cond);
}

/* ------------------------------------------------------------------------ */
/* Audio (ABI 0.4): switches, volumes, raw audio, recording and devices      */
/* ------------------------------------------------------------------------ */

/** Writes a RIFF/WAVE file: `format` 1 (PCM) or another tag, `bits` per
 *  sample, `frames` frames of a 440 Hz tone (or zeros for 8-bit and other
 *  formats). Returns whether it was written. */
static int write_wav(const char *path, int format, int rate, int channels, int bits, int frames) {
    unsigned char header[44];
    uint32_t data = (uint32_t)frames * (uint32_t)channels * (uint32_t)(bits / 8);
    uint32_t fields[] = {36 + data, 16, (uint32_t)rate, (uint32_t)rate * (uint32_t)channels * (uint32_t)(bits / 8), data};
    FILE *f = fopen(path, "wb");
    int i, c;
    if (!f) return 0;
    memcpy(header, "RIFF....WAVEfmt ....", 20);
    memcpy(header + 36, "data", 4);
#define LE32(at, v) (header[(at)] = (unsigned char)((v) & 0xff), header[(at) + 1] = (unsigned char)((v) >> 8 & 0xff), \
                     header[(at) + 2] = (unsigned char)((v) >> 16 & 0xff), header[(at) + 3] = (unsigned char)((v) >> 24))
#define LE16(at, v) (header[(at)] = (unsigned char)((v) & 0xff), header[(at) + 1] = (unsigned char)((v) >> 8 & 0xff))
    LE32(4, fields[0]);
    LE32(16, fields[1]);
    LE16(20, format);
    LE16(22, channels);
    LE32(24, fields[2]);
    LE32(28, fields[3]);
    LE16(32, channels * bits / 8);
    LE16(34, bits);
    LE32(40, fields[4]);
#undef LE32
#undef LE16
    fwrite(header, 1, sizeof header, f);
    for (i = 0; i < frames; i++) {
        /* A triangle wave near 440 Hz: no libm needed, and audible. */
        int period = rate / 440 > 1 ? rate / 440 : 2, phase = i % period;
        int value = (phase < period / 2 ? phase : period - phase) * 16000 / (period / 2) - 8000;
        for (c = 0; c < channels; c++) {
            if (bits == 16 && format == 1) {
                unsigned char s[2] = {(unsigned char)(value & 0xff), (unsigned char)((value >> 8) & 0xff)};
                fwrite(s, 1, 2, f);
            } else {
                unsigned char zero[8] = {0};
                fwrite(zero, 1, (size_t)(bits / 8), f);
            }
        }
    }
    return fclose(f) == 0;
}

/** Whether the file at `path` begins with `magic`. */
static int file_starts_with(const char *path, const char *magic) {
    char head[16] = {0};
    size_t n = strlen(magic);
    FILE *f = fopen(path, "rb");
    int ok;
    if (!f) return 0;
    ok = fread(head, 1, n, f) == n && memcmp(head, magic, n) == 0;
    fclose(f);
    return ok;
}

static char device_511[512], device_512[513];

typedef enum {
    A_ENABLE_AUDIO,
    A_DISABLE_AUDIO,
    A_ENABLE_LOCAL,
    A_MUTE_LOCAL,
    A_MUTE_REMOTE,
    A_MUTE_ALL,
    A_DEFAULT_MUTE_ALL,
    A_RECORDING_VOLUME,
    A_PLAYBACK_VOLUME,
    A_USER_VOLUME,
    A_VOLUME_INDICATION,
    A_RECORD_PARAMS,
    A_PLAYBACK_PARAMS,
    A_MIXED_PARAMS,
    A_BEFORE_MIXING_PARAMS,
    A_STOP_RECORDING,
    A_DEVICE_COUNT,
    A_SET_RECORDING_DEVICE,
    A_SET_PLAYBACK_DEVICE,
    A_START_RECORDING_TEST,
    A_STOP_RECORDING_TEST,
    A_START_PLAYBACK_TEST,
    A_STOP_PLAYBACK_TEST,
    A_START_LOOPBACK_TEST,
    A_STOP_LOOPBACK_TEST
} audio_fn_t;

static const char *const audio_fn_names[] = {
    "enable_audio", "disable_audio", "enable_local_audio", "mute_local_audio_stream", "mute_remote_audio_stream",
    "mute_all_remote_audio_streams", "set_default_mute_all_remote_audio_streams", "adjust_recording_signal_volume",
    "adjust_playback_signal_volume", "adjust_user_playback_signal_volume", "enable_audio_volume_indication",
    "set_recording_audio_frame_parameters", "set_playback_audio_frame_parameters", "set_mixed_audio_frame_parameters",
    "set_playback_audio_frame_before_mixing_parameters", "stop_audio_recording", "get_audio_device_count",
    "set_recording_device", "set_playback_device", "start_recording_device_test", "stop_recording_device_test",
    "start_playback_device_test", "stop_playback_device_test", "start_audio_device_loopback_test",
    "stop_audio_device_loopback_test",
};

/** One call of an audio function with int arguments a..d, a uid or a string. */
typedef struct {
    const char *name;
    audio_fn_t fn;
    int a, b, c, d;
    uint32_t uid;
    const char *text;
    int expected;    /* the return code ... */
    int nonnegative; /* ... or, when set, any value >= 0 (a count) */
} audio_row_t;

static int run_audio_row(agoraish_engine_t *e, const audio_row_t *r) {
    switch (r->fn) {
    case A_ENABLE_AUDIO: return agoraish_engine_enable_audio(e);
    case A_DISABLE_AUDIO: return agoraish_engine_disable_audio(e);
    case A_ENABLE_LOCAL: return agoraish_engine_enable_local_audio(e, r->a);
    case A_MUTE_LOCAL: return agoraish_engine_mute_local_audio_stream(e, r->a);
    case A_MUTE_REMOTE: return agoraish_engine_mute_remote_audio_stream(e, r->uid, r->a);
    case A_MUTE_ALL: return agoraish_engine_mute_all_remote_audio_streams(e, r->a);
    case A_DEFAULT_MUTE_ALL: return agoraish_engine_set_default_mute_all_remote_audio_streams(e, r->a);
    case A_RECORDING_VOLUME: return agoraish_engine_adjust_recording_signal_volume(e, r->a);
    case A_PLAYBACK_VOLUME: return agoraish_engine_adjust_playback_signal_volume(e, r->a);
    case A_USER_VOLUME: return agoraish_engine_adjust_user_playback_signal_volume(e, r->uid, r->a);
    case A_VOLUME_INDICATION: return agoraish_engine_enable_audio_volume_indication(e, r->a, r->b, r->c);
    case A_RECORD_PARAMS: return agoraish_engine_set_recording_audio_frame_parameters(e, r->a, r->b, r->c, r->d);
    case A_PLAYBACK_PARAMS: return agoraish_engine_set_playback_audio_frame_parameters(e, r->a, r->b, r->c, r->d);
    case A_MIXED_PARAMS: return agoraish_engine_set_mixed_audio_frame_parameters(e, r->a, r->b, r->c);
    case A_BEFORE_MIXING_PARAMS: return agoraish_engine_set_playback_audio_frame_before_mixing_parameters(e, r->a, r->b);
    case A_STOP_RECORDING: return agoraish_engine_stop_audio_recording(e);
    case A_DEVICE_COUNT: return agoraish_engine_get_audio_device_count(e, r->a);
    case A_SET_RECORDING_DEVICE: return agoraish_engine_set_recording_device(e, r->text);
    case A_SET_PLAYBACK_DEVICE: return agoraish_engine_set_playback_device(e, r->text);
    case A_START_RECORDING_TEST: return agoraish_engine_start_recording_device_test(e, r->a);
    case A_STOP_RECORDING_TEST: return agoraish_engine_stop_recording_device_test(e);
    case A_START_PLAYBACK_TEST: return agoraish_engine_start_playback_device_test(e, r->text);
    case A_STOP_PLAYBACK_TEST: return agoraish_engine_stop_playback_device_test(e);
    case A_START_LOOPBACK_TEST: return agoraish_engine_start_audio_device_loopback_test(e, r->a);
    case A_STOP_LOOPBACK_TEST: return agoraish_engine_stop_audio_device_loopback_test(e);
    }
    return 12345;
}

static void run_audio_rows(const audio_row_t *rows, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        int rc = run_audio_row(live, &rows[i]);
        if (rows[i].nonnegative) {
            CHECK(rc >= 0, "%s(%s): returned %d, expected a count >= 0", audio_fn_names[rows[i].fn], rows[i].name, rc);
        } else {
            CHECK(rc == rows[i].expected, "%s(%s): returned %d, expected %d", audio_fn_names[rows[i].fn], rows[i].name,
                  rc, rows[i].expected);
        }
    }
}

#define RO AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_ONLY
#define WO AGORAISH_RAW_AUDIO_FRAME_OP_MODE_WRITE_ONLY
#define RW AGORAISH_RAW_AUDIO_FRAME_OP_MODE_READ_WRITE

/** The functions with int, uid and string arguments, on the live engine (in no channel). */
static void test_audio_rows(void) {
    const audio_row_t rows[] = {
        /* Switches: accepted at any time, also outside a call. */
        {"in no channel", A_DISABLE_AUDIO, .expected = 0},
        {"in no channel", A_ENABLE_AUDIO, .expected = 0},
        {"0", A_ENABLE_LOCAL, .a = 0, .expected = 0},
        {"1", A_ENABLE_LOCAL, .a = 1, .expected = 0},
        {"1", A_MUTE_LOCAL, .a = 1, .expected = 0},
        {"0", A_MUTE_LOCAL, .a = 0, .expected = 0},
        {"uid 0", A_MUTE_REMOTE, .uid = 0, .a = 1, .expected = E_INVALID},
        {"uid 0, unmute", A_MUTE_REMOTE, .uid = 0, .a = 0, .expected = E_INVALID},
        {"a user not (yet) in a call", A_MUTE_REMOTE, .uid = 7, .a = 1, .expected = 0},
        {"uid 2^32-1", A_MUTE_REMOTE, .uid = 4294967295u, .a = 1, .expected = 0},
        {"unmute", A_MUTE_REMOTE, .uid = 7, .a = 0, .expected = 0},
        {"1", A_MUTE_ALL, .a = 1, .expected = 0},
        {"0", A_MUTE_ALL, .a = 0, .expected = 0},
        {"1", A_DEFAULT_MUTE_ALL, .a = 1, .expected = 0},
        {"0", A_DEFAULT_MUTE_ALL, .a = 0, .expected = 0},
        /* Volumes: 0..400 for recording and playback, 0..100 per user. */
        {"-1", A_RECORDING_VOLUME, .a = -1, .expected = E_INVALID},
        {"401", A_RECORDING_VOLUME, .a = 401, .expected = E_INVALID},
        {"INT_MIN", A_RECORDING_VOLUME, .a = INT_MIN, .expected = E_INVALID},
        {"INT_MAX", A_RECORDING_VOLUME, .a = INT_MAX, .expected = E_INVALID},
        {"0", A_RECORDING_VOLUME, .a = 0, .expected = 0},
        {"400", A_RECORDING_VOLUME, .a = 400, .expected = 0},
        {"100", A_RECORDING_VOLUME, .a = 100, .expected = 0},
        {"-1", A_PLAYBACK_VOLUME, .a = -1, .expected = E_INVALID},
        {"401", A_PLAYBACK_VOLUME, .a = 401, .expected = E_INVALID},
        {"INT_MIN", A_PLAYBACK_VOLUME, .a = INT_MIN, .expected = E_INVALID},
        {"0", A_PLAYBACK_VOLUME, .a = 0, .expected = 0},
        {"400", A_PLAYBACK_VOLUME, .a = 400, .expected = 0},
        {"100", A_PLAYBACK_VOLUME, .a = 100, .expected = 0},
        {"uid 0", A_USER_VOLUME, .uid = 0, .a = 50, .expected = E_INVALID},
        {"-1", A_USER_VOLUME, .uid = 7, .a = -1, .expected = E_INVALID},
        {"101", A_USER_VOLUME, .uid = 7, .a = 101, .expected = E_INVALID},
        {"400 (the range of the other two)", A_USER_VOLUME, .uid = 7, .a = 400, .expected = E_INVALID},
        {"INT_MIN", A_USER_VOLUME, .uid = 7, .a = INT_MIN, .expected = E_INVALID},
        {"0", A_USER_VOLUME, .uid = 7, .a = 0, .expected = 0},
        {"100", A_USER_VOLUME, .uid = 7, .a = 100, .expected = 0},
        /* Volume indication: interval <= 0 is off, else 10..60000; smooth 0..10. */
        {"interval 1", A_VOLUME_INDICATION, .a = 1, .b = 3, .expected = E_INVALID},
        {"interval 9", A_VOLUME_INDICATION, .a = 9, .b = 3, .expected = E_INVALID},
        {"interval 60001", A_VOLUME_INDICATION, .a = 60001, .b = 3, .expected = E_INVALID},
        {"interval INT_MAX", A_VOLUME_INDICATION, .a = INT_MAX, .b = 3, .expected = E_INVALID},
        {"smooth -1", A_VOLUME_INDICATION, .a = 200, .b = -1, .expected = E_INVALID},
        {"smooth 11", A_VOLUME_INDICATION, .a = 200, .b = 11, .expected = E_INVALID},
        {"smooth -1 with interval 0", A_VOLUME_INDICATION, .a = 0, .b = -1, .expected = E_INVALID},
        {"interval 10, smooth 0", A_VOLUME_INDICATION, .a = 10, .b = 0, .expected = 0},
        {"interval 60000, smooth 10, vad", A_VOLUME_INDICATION, .a = 60000, .b = 10, .c = 1, .expected = 0},
        {"interval -1 (off)", A_VOLUME_INDICATION, .a = -1, .b = 3, .expected = 0},
        {"interval INT_MIN (off)", A_VOLUME_INDICATION, .a = INT_MIN, .b = 3, .expected = 0},
        {"interval 0 (off)", A_VOLUME_INDICATION, .a = 0, .b = 3, .expected = 0},
        /* Observer formats: 8000/16000/32000/44100/48000 Hz, 1 or 2 channels, a
         * mode, and 0 or rate/100 .. rate samples per call. */
        {"rate 0", A_RECORD_PARAMS, .a = 0, .b = 1, .c = RO, .expected = E_INVALID},
        {"rate 11025", A_RECORD_PARAMS, .a = 11025, .b = 1, .c = RO, .expected = E_INVALID},
        {"rate 22050", A_RECORD_PARAMS, .a = 22050, .b = 1, .c = RO, .expected = E_INVALID},
        {"rate 96000", A_RECORD_PARAMS, .a = 96000, .b = 1, .c = RO, .expected = E_INVALID},
        {"rate -48000", A_RECORD_PARAMS, .a = -48000, .b = 1, .c = RO, .expected = E_INVALID},
        {"channels 0", A_RECORD_PARAMS, .a = 48000, .b = 0, .c = RO, .expected = E_INVALID},
        {"channels 3", A_RECORD_PARAMS, .a = 48000, .b = 3, .c = RO, .expected = E_INVALID},
        {"channels -1", A_RECORD_PARAMS, .a = 48000, .b = -1, .c = RO, .expected = E_INVALID},
        {"mode -1", A_RECORD_PARAMS, .a = 48000, .b = 1, .c = -1, .expected = E_INVALID},
        {"mode 3", A_RECORD_PARAMS, .a = 48000, .b = 1, .c = 3, .expected = E_INVALID},
        {"samples_per_call -1", A_RECORD_PARAMS, .a = 48000, .b = 1, .c = RO, .d = -1, .expected = E_INVALID},
        {"samples_per_call 479 at 48 kHz", A_RECORD_PARAMS, .a = 48000, .b = 1, .c = RO, .d = 479, .expected = E_INVALID},
        {"samples_per_call 48001 at 48 kHz", A_RECORD_PARAMS, .a = 48000, .b = 1, .c = RO, .d = 48001,
         .expected = E_INVALID},
        {"samples_per_call 440 at 44.1 kHz", A_RECORD_PARAMS, .a = 44100, .b = 1, .c = RO, .d = 440, .expected = E_INVALID},
        {"samples_per_call 79 at 8 kHz", A_RECORD_PARAMS, .a = 8000, .b = 2, .c = RW, .d = 79, .expected = E_INVALID},
        {"samples_per_call INT_MAX", A_RECORD_PARAMS, .a = 48000, .b = 1, .c = RO, .d = INT_MAX, .expected = E_INVALID},
        {"8 kHz stereo, 80 per call", A_RECORD_PARAMS, .a = 8000, .b = 2, .c = RW, .d = 80, .expected = 0},
        {"16 kHz, write-only, 1 s per call", A_RECORD_PARAMS, .a = 16000, .b = 1, .c = WO, .d = 16000, .expected = 0},
        {"32 kHz stereo", A_RECORD_PARAMS, .a = 32000, .b = 2, .c = RO, .expected = 0},
        {"44.1 kHz, 441 per call", A_RECORD_PARAMS, .a = 44100, .b = 1, .c = RW, .d = 441, .expected = 0},
        {"48 kHz, 48000 per call", A_RECORD_PARAMS, .a = 48000, .b = 1, .c = RO, .d = 48000, .expected = 0},
        {"48 kHz mono (the default)", A_RECORD_PARAMS, .a = 48000, .b = 1, .c = RO, .expected = 0},
        {"rate 22050", A_PLAYBACK_PARAMS, .a = 22050, .b = 1, .c = RO, .expected = E_INVALID},
        {"channels 3", A_PLAYBACK_PARAMS, .a = 48000, .b = 3, .c = RO, .expected = E_INVALID},
        {"mode 3", A_PLAYBACK_PARAMS, .a = 48000, .b = 1, .c = 3, .expected = E_INVALID},
        {"samples_per_call 159 at 16 kHz", A_PLAYBACK_PARAMS, .a = 16000, .b = 1, .c = RO, .d = 159,
         .expected = E_INVALID},
        {"samples_per_call 16001 at 16 kHz", A_PLAYBACK_PARAMS, .a = 16000, .b = 1, .c = RO, .d = 16001,
         .expected = E_INVALID},
        {"16 kHz stereo, read-write, 160 per call", A_PLAYBACK_PARAMS, .a = 16000, .b = 2, .c = RW, .d = 160,
         .expected = 0},
        {"48 kHz mono (the default)", A_PLAYBACK_PARAMS, .a = 48000, .b = 1, .c = RO, .expected = 0},
        {"rate 0", A_MIXED_PARAMS, .a = 0, .b = 1, .expected = E_INVALID},
        {"rate 24000", A_MIXED_PARAMS, .a = 24000, .b = 1, .expected = E_INVALID},
        {"channels 0", A_MIXED_PARAMS, .a = 48000, .b = 0, .expected = E_INVALID},
        {"channels 3", A_MIXED_PARAMS, .a = 48000, .b = 3, .expected = E_INVALID},
        {"samples_per_call -1", A_MIXED_PARAMS, .a = 48000, .b = 1, .c = -1, .expected = E_INVALID},
        {"samples_per_call 319 at 32 kHz", A_MIXED_PARAMS, .a = 32000, .b = 1, .c = 319, .expected = E_INVALID},
        {"samples_per_call 32001 at 32 kHz", A_MIXED_PARAMS, .a = 32000, .b = 1, .c = 32001, .expected = E_INVALID},
        {"32 kHz stereo, 320 per call", A_MIXED_PARAMS, .a = 32000, .b = 2, .c = 320, .expected = 0},
        {"48 kHz mono (the default)", A_MIXED_PARAMS, .a = 48000, .b = 1, .c = 0, .expected = 0},
        {"rate 0", A_BEFORE_MIXING_PARAMS, .a = 0, .b = 1, .expected = E_INVALID},
        {"rate 12000", A_BEFORE_MIXING_PARAMS, .a = 12000, .b = 1, .expected = E_INVALID},
        {"channels 0", A_BEFORE_MIXING_PARAMS, .a = 48000, .b = 0, .expected = E_INVALID},
        {"channels 3", A_BEFORE_MIXING_PARAMS, .a = 48000, .b = 3, .expected = E_INVALID},
        {"8 kHz stereo", A_BEFORE_MIXING_PARAMS, .a = 8000, .b = 2, .expected = 0},
        {"48 kHz mono (the default)", A_BEFORE_MIXING_PARAMS, .a = 48000, .b = 1, .expected = 0},
        /* Recording: stopping is idempotent. */
        {"when not recording", A_STOP_RECORDING, .expected = 0},
        {"again", A_STOP_RECORDING, .expected = 0},
        /* Devices. */
        {"type -1", A_DEVICE_COUNT, .a = -1, .expected = E_INVALID},
        {"type 2", A_DEVICE_COUNT, .a = 2, .expected = E_INVALID},
        {"type INT_MAX", A_DEVICE_COUNT, .a = INT_MAX, .expected = E_INVALID},
        {"playout", A_DEVICE_COUNT, .a = AGORAISH_AUDIO_PLAYOUT_DEVICE, .nonnegative = 1},
        {"recording", A_DEVICE_COUNT, .a = AGORAISH_AUDIO_RECORDING_DEVICE, .nonnegative = 1},
        {"NULL", A_SET_RECORDING_DEVICE, .text = NULL, .expected = E_INVALID},
        {"empty", A_SET_RECORDING_DEVICE, .text = "", .expected = E_INVALID},
        {"512 bytes", A_SET_RECORDING_DEVICE, .text = device_512, .expected = E_INVALID},
        {"a name ALSA does not know (checked when capture starts)", A_SET_RECORDING_DEVICE,
         .text = "no-such-alsa-device", .expected = 0},
        {"511 bytes", A_SET_RECORDING_DEVICE, .text = device_511, .expected = 0},
        {"NULL", A_SET_PLAYBACK_DEVICE, .text = NULL, .expected = E_INVALID},
        {"empty", A_SET_PLAYBACK_DEVICE, .text = "", .expected = E_INVALID},
        {"512 bytes", A_SET_PLAYBACK_DEVICE, .text = device_512, .expected = E_INVALID},
        {"511 bytes", A_SET_PLAYBACK_DEVICE, .text = device_511, .expected = 0},
    };
    run_audio_rows(rows, COUNT(rows));
}

/** get_recording_device / get_playback_device: the caller-buffer convention. */
static void test_audio_device_buffers(void) {
    const struct {
        const char *name;
        int null_buf, null_len;
        size_t capacity;
        int expected;
        size_t expected_len; /* 0: not checked */
    } rows[] = {
        /* The device is "null": 5 bytes with the NUL. */
        {"NULL len", 0, 1, 64, E_INVALID, 0},
        {"NULL buf, *len 0 (size query)", 1, 0, 0, E_TOO_SMALL, 5},
        {"NULL buf, *len 16", 1, 0, 16, E_INVALID, 0},
        {"capacity 0", 0, 0, 0, E_TOO_SMALL, 5},
        {"capacity 1", 0, 0, 1, E_TOO_SMALL, 5},
        {"capacity one short of the NUL", 0, 0, 4, E_TOO_SMALL, 5},
        {"exact capacity", 0, 0, 5, 0, 5},
        {"large capacity", 0, 0, 64, 0, 5},
    };
    size_t i, kind;
    char value[AGORAISH_MAX_DEVICE_ID_LENGTH];
    size_t len;

    /* The 511-byte ids of test_audio_rows() read back whole. */
    len = sizeof value;
    CHECK(agoraish_engine_get_recording_device(live, value, &len) == 0 && strcmp(value, device_511) == 0 && len == 512,
          "get_recording_device after setting a 511-byte id: *len %zu", len);
    len = sizeof value;
    CHECK(agoraish_engine_get_playback_device(live, value, &len) == 0 && strcmp(value, device_511) == 0 && len == 512,
          "get_playback_device after setting a 511-byte id: *len %zu", len);

    CHECK(agoraish_engine_set_recording_device(live, "null") == 0, "set_recording_device(null)");
    CHECK(agoraish_engine_set_playback_device(live, "null") == 0, "set_playback_device(null)");
    for (kind = 0; kind < 2; kind++) {
        const char *fn = kind == 0 ? "get_recording_device" : "get_playback_device";
        for (i = 0; i < COUNT(rows); i++) {
            char buf[64];
            int rc;
            len = rows[i].capacity;
            memset(buf, 'Z', sizeof buf);
            rc = kind == 0 ? agoraish_engine_get_recording_device(live, rows[i].null_buf ? NULL : buf,
                                                                 rows[i].null_len ? NULL : &len)
                           : agoraish_engine_get_playback_device(live, rows[i].null_buf ? NULL : buf,
                                                                rows[i].null_len ? NULL : &len);
            CHECK(rc == rows[i].expected, "%s(%s): returned %d, expected %d", fn, rows[i].name, rc, rows[i].expected);
            if (rows[i].expected_len) {
                CHECK(len == rows[i].expected_len, "%s(%s): *len %zu, expected %zu", fn, rows[i].name, len,
                      rows[i].expected_len);
            }
            if (rc == E_TOO_SMALL) {
                size_t j;
                int untouched = 1;
                for (j = 0; j < sizeof buf; j++) untouched &= buf[j] == 'Z';
                CHECK(untouched, "%s(%s): -6 but the buffer was written", fn, rows[i].name);
            }
            if (rc == 0) CHECK(strcmp(buf, "null") == 0, "%s(%s): \"%.8s\", expected \"null\"", fn, rows[i].name, buf);
        }
    }
}

/** get_audio_device: kinds, NULL info and indexes around the enumeration. */
static void test_get_audio_device(void) {
    int kind;
    for (kind = AGORAISH_AUDIO_PLAYOUT_DEVICE; kind <= AGORAISH_AUDIO_RECORDING_DEVICE; kind++) {
        agoraish_audio_device_info info;
        int count = agoraish_engine_get_audio_device_count(live, kind);
        const struct {
            const char *name;
            int type, index, null_info, expected;
        } rows[] = {
            {"type -1", -1, 0, 0, E_INVALID},
            {"type 2", 2, 0, 0, E_INVALID},
            {"NULL info", kind, 0, 1, E_INVALID},
            {"index -1", kind, -1, 0, E_INVALID},
            {"index INT_MIN", kind, INT_MIN, 0, E_INVALID},
            {"index = count", kind, count, 0, E_INVALID},
            {"index INT_MAX", kind, INT_MAX, 0, E_INVALID},
            {"index 0", kind, 0, 0, count > 0 ? 0 : E_INVALID},
            {"the last index", kind, count - 1, 0, count > 0 ? 0 : E_INVALID},
        };
        size_t i;
        CHECK(count >= 0, "get_audio_device_count(%d): %d", kind, count);
        for (i = 0; i < COUNT(rows); i++) {
            int rc;
            memset(&info, 0, sizeof info);
            rc = agoraish_engine_get_audio_device(live, rows[i].type, rows[i].index, rows[i].null_info ? NULL : &info);
            CHECK(rc == rows[i].expected, "get_audio_device(kind %d, %s): returned %d, expected %d", kind, rows[i].name,
                  rc, rows[i].expected);
            if (rc == 0) {
                CHECK(info.id[0] != '\0' && memchr(info.id, '\0', sizeof info.id) != NULL &&
                          memchr(info.name, '\0', sizeof info.name) != NULL,
                      "get_audio_device(kind %d, %s): id \"%.40s\" not a NUL-terminated name", kind, rows[i].name,
                      info.id);
            }
        }
    }
}

/** register_audio_frame_observer: struct_size and position bits. */
static void test_register_observer(void) {
    const struct {
        const char *name;
        int null_observer;
        uint32_t struct_size; /* 0 with set_size 0: sizeof */
        int set_size;
        int positions;
        int expected;
    } rows[] = {
        {"NULL (removes none)", 1, 0, 0, 0, 0},
        {"struct_size 0", 0, 0, 1, AGORAISH_AUDIO_FRAME_POSITION_RECORD, E_INVALID},
        {"struct_size 4", 0, 4, 1, AGORAISH_AUDIO_FRAME_POSITION_RECORD, E_INVALID},
        {"struct_size one field short", 0, (uint32_t)(sizeof(agoraish_audio_frame_observer) - sizeof(void *)), 1,
         AGORAISH_AUDIO_FRAME_POSITION_RECORD, E_INVALID},
        {"struct_size one byte short", 0, (uint32_t)(sizeof(agoraish_audio_frame_observer) - 1), 1,
         AGORAISH_AUDIO_FRAME_POSITION_RECORD, E_INVALID},
        {"position bit 0x10", 0, 0, 0, 0x10, E_INVALID},
        {"positions 0x1f", 0, 0, 0, 0x1f, E_INVALID},
        {"positions -1", 0, 0, 0, -1, E_INVALID},
        {"positions INT_MIN", 0, 0, 0, INT_MIN, E_INVALID},
        {"position NONE", 0, 0, 0, AGORAISH_AUDIO_FRAME_POSITION_NONE, 0},
        {"every position, no callbacks", 0, 0, 0, 0xf, 0},
        {"struct_size larger than any header's", 0, (uint32_t)sizeof(agoraish_audio_frame_observer) + 64, 1,
         AGORAISH_AUDIO_FRAME_POSITION_PLAYBACK, E_INVALID},
        {"NULL (removes it)", 1, 0, 0, 0, 0},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        /* Room for a struct_size larger than ours: the tail is zeroed. */
        union {
            agoraish_audio_frame_observer observer;
            unsigned char bytes[sizeof(agoraish_audio_frame_observer) + 64];
        } storage;
        int rc;
        memset(&storage, 0, sizeof storage);
        storage.observer.struct_size = rows[i].set_size ? rows[i].struct_size : (uint32_t)sizeof storage.observer;
        storage.observer.observed_position = rows[i].positions;
        rc = agoraish_engine_register_audio_frame_observer(live, rows[i].null_observer ? NULL : &storage.observer);
        CHECK(rc == rows[i].expected, "register_audio_frame_observer(%s): returned %d, expected %d", rows[i].name, rc,
              rows[i].expected);
    }
}

/** start_audio_recording: the config, its path, rate, position and quality. */
static void test_start_audio_recording(void) {
    const struct {
        const char *name;
        int null_config;
        int set_size;
        uint32_t struct_size;
        const char *path;  /* in tmpdir unless it starts with '/' or is NULL/"" */
        int null_path;
        int rate, position, quality;
        int expected;
        const char *magic; /* on success, the file begins with it after stop */
    } rows[] = {
        {"NULL config", 1, 0, 0, "r.wav", 0, 32000, 1, 1, E_INVALID, NULL},
        {"struct_size 0", 0, 1, 0, "rejected-1.wav", 0, 32000, 1, 1, E_INVALID, NULL},
        {"struct_size 4", 0, 1, 4, "rejected-2.wav", 0, 32000, 1, 1, E_INVALID, NULL},
        {"struct_size one field short", 0, 1, (uint32_t)(sizeof(agoraish_audio_recording_config) - 8), "rejected-3.wav",
         0, 32000, 1, 1, E_INVALID, NULL},
        {"NULL path", 0, 0, 0, NULL, 1, 32000, 1, 1, E_INVALID, NULL},
        {"empty path", 0, 0, 0, "", 0, 32000, 1, 1, E_INVALID, NULL},
        {"rate 0", 0, 0, 0, "rejected-4.wav", 0, 0, 1, 1, E_INVALID, NULL},
        {"rate 8000", 0, 0, 0, "rejected-5.wav", 0, 8000, 1, 1, E_INVALID, NULL},
        {"rate 22050", 0, 0, 0, "rejected-6.wav", 0, 22050, 1, 1, E_INVALID, NULL},
        {"rate 96000", 0, 0, 0, "rejected-7.wav", 0, 96000, 1, 1, E_INVALID, NULL},
        {"rate -32000", 0, 0, 0, "rejected-8.wav", 0, -32000, 1, 1, E_INVALID, NULL},
        {"position -1", 0, 0, 0, "rejected-9.wav", 0, 32000, -1, 1, E_INVALID, NULL},
        {"position 3", 0, 0, 0, "rejected-10.wav", 0, 32000, 3, 1, E_INVALID, NULL},
        {"quality -1", 0, 0, 0, "rejected-11.ogg", 0, 32000, 1, -1, E_INVALID, NULL},
        {"quality 4", 0, 0, 0, "rejected-12.ogg", 0, 32000, 1, 4, E_INVALID, NULL},
        {"a file in a missing directory", 0, 0, 0, bad_log_dir_path, 0, 32000, 1, 1, E_FAILED, NULL},
        {"a directory", 0, 0, 0, tmpdir, 0, 32000, 1, 1, E_FAILED, NULL},
        /* Accepted: every rate, position and quality, WAV and Ogg Opus. */
        {"WAV at 16 kHz, recording", 0, 0, 0, "rec-16k.wav", 0, 16000, AGORAISH_AUDIO_RECORDING_POSITION_RECORDING,
         AGORAISH_AUDIO_RECORDING_QUALITY_LOW, 0, "RIFF"},
        {"WAV at 32 kHz, mixed", 0, 0, 0, "rec-32k.wav", 0, 32000,
         AGORAISH_AUDIO_RECORDING_POSITION_MIXED_RECORDING_AND_PLAYBACK, AGORAISH_AUDIO_RECORDING_QUALITY_MEDIUM, 0,
         "RIFF"},
        {"WAV at 44.1 kHz, playback", 0, 0, 0, "rec-44k.wav", 0, 44100, AGORAISH_AUDIO_RECORDING_POSITION_MIXED_PLAYBACK,
         AGORAISH_AUDIO_RECORDING_QUALITY_HIGH, 0, "RIFF"},
        {"any other extension is WAV", 0, 0, 0, "rec-48k.pcm", 0, 48000, AGORAISH_AUDIO_RECORDING_POSITION_RECORDING,
         AGORAISH_AUDIO_RECORDING_QUALITY_ULTRA_HIGH, 0, "RIFF"},
        {"struct_size larger than any header's", 0, 1, (uint32_t)sizeof(agoraish_audio_recording_config) + 64,
         "rejected-larger.wav", 0, 32000, AGORAISH_AUDIO_RECORDING_POSITION_RECORDING,
         AGORAISH_AUDIO_RECORDING_QUALITY_LOW, E_INVALID, NULL},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        union {
            agoraish_audio_recording_config config;
            unsigned char bytes[sizeof(agoraish_audio_recording_config) + 64];
        } storage;
        char path[512];
        int rc;
        path[0] = '\0';
        if (rows[i].path && rows[i].path[0] != '\0' && rows[i].path[0] != '/') {
            path_in_tmp(path, sizeof path, rows[i].path);
        } else if (rows[i].path) {
            snprintf(path, sizeof path, "%s", rows[i].path);
        }
        memset(&storage, 0, sizeof storage);
        storage.config.struct_size = rows[i].set_size ? rows[i].struct_size : (uint32_t)sizeof storage.config;
        storage.config.file_path = rows[i].null_path ? NULL : path;
        storage.config.sample_rate = rows[i].rate;
        storage.config.position = rows[i].position;
        storage.config.quality = rows[i].quality;
        rc = agoraish_engine_start_audio_recording(live, rows[i].null_config ? NULL : &storage.config);
        CHECK(rc == rows[i].expected, "start_audio_recording(%s): returned %d, expected %d", rows[i].name, rc,
              rows[i].expected);
        if (rows[i].expected != 0 && rows[i].path && rows[i].path[0] != '\0' && rows[i].path[0] != '/') {
            CHECK(access(path, F_OK) != 0, "start_audio_recording(%s): rejected, but created %s", rows[i].name, path);
        }
        if (rc == 0) {
            CHECK(agoraish_engine_stop_audio_recording(live) == 0, "stop_audio_recording after %s", rows[i].name);
            if (rows[i].magic) {
                CHECK(file_starts_with(path, rows[i].magic), "start_audio_recording(%s): the file does not begin with %s",
                      rows[i].name, rows[i].magic);
            }
        }
    }
    /* A recording in progress is finished by the next start. */
    {
        agoraish_audio_recording_config config;
        memset(&config, 0, sizeof config);
        config.struct_size = sizeof config;
        config.sample_rate = 16000;
        config.position = AGORAISH_AUDIO_RECORDING_POSITION_RECORDING;
        config.file_path = tmp_path("first.wav");
        CHECK(agoraish_engine_start_audio_recording(live, &config) == 0, "start_audio_recording(first.wav)");
        config.file_path = tmp_path("second.wav");
        CHECK(agoraish_engine_start_audio_recording(live, &config) == 0, "start_audio_recording(second.wav) while recording");
        CHECK(file_starts_with(tmp_path("first.wav"), "RIFF"), "first.wav after the next start");
        CHECK(agoraish_engine_stop_audio_recording(live) == 0, "stop_audio_recording");
        CHECK(agoraish_engine_stop_audio_recording(live) == 0, "stop_audio_recording twice");
        CHECK(file_starts_with(tmp_path("second.wav"), "RIFF"), "second.wav after stop");
    }
}

/** The row of test_empty_ogg_recordings() in progress, for report_abort(). */
static const char *volatile aborting_row;

/** SIGABRT during test_empty_ogg_recordings(): one FAIL line naming the row, then the default action. */
static void report_abort(int sig) {
    static const char head[] = "FAIL " TEST_NAME ".c: start_audio_recording(";
    static const char tail[] = ") then stop_audio_recording with no audio: the process aborted (SIGABRT)\n";
    const char *row = aborting_row;
    if (write(STDERR_FILENO, head, sizeof head - 1) < 0) _exit(134);
    if (row && write(STDERR_FILENO, row, strlen(row)) < 0) _exit(134);
    if (write(STDERR_FILENO, tail, sizeof tail - 1) < 0) _exit(134);
    signal(sig, SIG_DFL);
    raise(sig);
}

/**
 * Ogg Opus recordings that end before any audio reached them: the engine is
 * in no call and nobody pushes, so the file holds only its headers. Run last:
 * a library that drains an Opus encoder which never got a sample aborts the
 * process here (libopusenc asserts), and every other row has reported by then.
 */
static void test_empty_ogg_recordings(void) {
    const struct {
        const char *name;
        const char *file;
        int rate, position, quality;
        int restart; /* finished by starting another recording instead of by stop */
    } rows[] = {
        {"Ogg Opus (.ogg), stopped", "empty.ogg", 48000, AGORAISH_AUDIO_RECORDING_POSITION_RECORDING,
         AGORAISH_AUDIO_RECORDING_QUALITY_ULTRA_HIGH, 0},
        {"Ogg Opus (.opus) at 16 kHz, stopped", "empty.opus", 16000, AGORAISH_AUDIO_RECORDING_POSITION_MIXED_PLAYBACK,
         AGORAISH_AUDIO_RECORDING_QUALITY_LOW, 0},
        {"Ogg Opus, finished by the next start", "empty-restarted.ogg", 32000,
         AGORAISH_AUDIO_RECORDING_POSITION_MIXED_RECORDING_AND_PLAYBACK, AGORAISH_AUDIO_RECORDING_QUALITY_MEDIUM, 1},
    };
    size_t i;
    struct sigaction on_abort;
    memset(&on_abort, 0, sizeof on_abort);
    on_abort.sa_handler = report_abort;
    sigemptyset(&on_abort.sa_mask);
    sigaction(SIGABRT, &on_abort, NULL);
    for (i = 0; i < COUNT(rows); i++) {
        agoraish_audio_recording_config config;
        char path[512];
        aborting_row = rows[i].name;
        path_in_tmp(path, sizeof path, rows[i].file);
        memset(&config, 0, sizeof config);
        config.struct_size = sizeof config;
        config.file_path = path;
        config.sample_rate = rows[i].rate;
        config.position = rows[i].position;
        config.quality = rows[i].quality;
        CHECK(agoraish_engine_start_audio_recording(live, &config) == 0, "start_audio_recording(%s)", rows[i].name);
        if (rows[i].restart) {
            config.file_path = tmp_path("after-empty.wav");
            CHECK(agoraish_engine_start_audio_recording(live, &config) == 0, "start_audio_recording after %s",
                  rows[i].name);
        }
        CHECK(agoraish_engine_stop_audio_recording(live) == 0, "stop_audio_recording after %s", rows[i].name);
        CHECK(file_starts_with(path, "OggS"), "start_audio_recording(%s): the file does not begin with OggS",
              rows[i].name);
    }
    aborting_row = NULL;
    signal(SIGABRT, SIG_DFL);
}

static char wav_not_riff[256];

/** The device tests: intervals and WAV files. The devices are ALSA's "null". */
static void test_device_tests(void) {
    const audio_row_t rows[] = {
        {"interval 0", A_START_RECORDING_TEST, .a = 0, .expected = E_INVALID},
        {"interval -1", A_START_RECORDING_TEST, .a = -1, .expected = E_INVALID},
        {"interval 9", A_START_RECORDING_TEST, .a = 9, .expected = E_INVALID},
        {"interval 60001", A_START_RECORDING_TEST, .a = 60001, .expected = E_INVALID},
        {"interval INT_MIN", A_START_RECORDING_TEST, .a = INT_MIN, .expected = E_INVALID},
        {"when not started", A_STOP_RECORDING_TEST, .expected = 0},
        {"interval 10", A_START_RECORDING_TEST, .a = 10, .expected = 0},
        {"interval 60000 (while running)", A_START_RECORDING_TEST, .a = 60000, .expected = 0},
        {"after start", A_STOP_RECORDING_TEST, .expected = 0},
        {"again", A_STOP_RECORDING_TEST, .expected = 0},
        {"NULL path", A_START_PLAYBACK_TEST, .text = NULL, .expected = E_INVALID},
        {"empty path", A_START_PLAYBACK_TEST, .text = "", .expected = E_INVALID},
        {"a missing file", A_START_PLAYBACK_TEST, .text = bad_log_dir_path, .expected = E_INVALID},
        {"a directory", A_START_PLAYBACK_TEST, .text = tmpdir, .expected = E_INVALID},
        {"a file that is not RIFF", A_START_PLAYBACK_TEST, .text = wav_not_riff, .expected = E_INVALID},
        {"8-bit PCM", A_START_PLAYBACK_TEST, .text = tmp_path("pcm8.wav"), .expected = E_INVALID},
        {"32-bit float", A_START_PLAYBACK_TEST, .text = tmp_path("float.wav"), .expected = E_INVALID},
        {"96 kHz", A_START_PLAYBACK_TEST, .text = tmp_path("tone-96k.wav"), .expected = E_INVALID},
        {"4 kHz", A_START_PLAYBACK_TEST, .text = tmp_path("tone-4k.wav"), .expected = E_INVALID},
        {"3 channels", A_START_PLAYBACK_TEST, .text = tmp_path("tone-3ch.wav"), .expected = E_INVALID},
        {"a header without data", A_START_PLAYBACK_TEST, .text = tmp_path("truncated.wav"), .expected = E_INVALID},
        {"when not started", A_STOP_PLAYBACK_TEST, .expected = 0},
        {"16 kHz mono", A_START_PLAYBACK_TEST, .text = tmp_path("tone-16k-mono.wav"), .expected = 0},
        {"8 kHz mono (while running)", A_START_PLAYBACK_TEST, .text = tmp_path("tone-8k.wav"), .expected = 0},
        {"48 kHz stereo (while running)", A_START_PLAYBACK_TEST, .text = tmp_path("tone-48k-stereo.wav"), .expected = 0},
        {"after start", A_STOP_PLAYBACK_TEST, .expected = 0},
        {"again", A_STOP_PLAYBACK_TEST, .expected = 0},
        {"interval 0", A_START_LOOPBACK_TEST, .a = 0, .expected = E_INVALID},
        {"interval 9", A_START_LOOPBACK_TEST, .a = 9, .expected = E_INVALID},
        {"interval 60001", A_START_LOOPBACK_TEST, .a = 60001, .expected = E_INVALID},
        {"interval -100", A_START_LOOPBACK_TEST, .a = -100, .expected = E_INVALID},
        {"when not started", A_STOP_LOOPBACK_TEST, .expected = 0},
        {"interval 10", A_START_LOOPBACK_TEST, .a = 10, .expected = 0},
        {"after start", A_STOP_LOOPBACK_TEST, .expected = 0},
        {"again", A_STOP_LOOPBACK_TEST, .expected = 0},
    };
    run_audio_rows(rows, COUNT(rows));
}

/** The WAV files and device ids of the audio rows. */
static void build_audio_inputs(void) {
    FILE *f;
    int ok = 1;
    memset(device_511, 'd', sizeof device_511 - 1);
    device_511[sizeof device_511 - 1] = '\0';
    memset(device_512, 'd', sizeof device_512 - 1);
    device_512[sizeof device_512 - 1] = '\0';
    ok &= write_wav(tmp_path("tone-16k-mono.wav"), 1, 16000, 1, 16, 1600);
    ok &= write_wav(tmp_path("tone-8k.wav"), 1, 8000, 1, 16, 800);
    ok &= write_wav(tmp_path("tone-48k-stereo.wav"), 1, 48000, 2, 16, 4800);
    ok &= write_wav(tmp_path("pcm8.wav"), 1, 16000, 1, 8, 1600);
    ok &= write_wav(tmp_path("float.wav"), 3, 16000, 1, 32, 1600);
    ok &= write_wav(tmp_path("tone-96k.wav"), 1, 96000, 1, 16, 9600);
    ok &= write_wav(tmp_path("tone-4k.wav"), 1, 4000, 1, 16, 400);
    ok &= write_wav(tmp_path("tone-3ch.wav"), 1, 16000, 3, 16, 1600);
    /* A header that announces 3200 bytes of data, followed by none. */
    ok &= write_wav(tmp_path("truncated.wav"), 1, 16000, 1, 16, 0);
    f = fopen(tmp_path("truncated.wav"), "r+b");
    if (f) {
        unsigned char size[4] = {0x80, 0x0c, 0, 0};
        ok &= fseek(f, 40, SEEK_SET) == 0 && fwrite(size, 1, 4, f) == 4;
        ok &= fclose(f) == 0;
    } else {
        ok = 0;
    }
    path_in_tmp(wav_not_riff, sizeof wav_not_riff, "not-riff.wav");
    f = fopen(wav_not_riff, "wb");
    if (f) {
        fputs("not a RIFF file, although its name ends in .wav\n", f);
        ok &= fclose(f) == 0;
    } else {
        ok = 0;
    }
    CHECK(ok, "write the WAV files of the audio rows");
}

#undef RO
#undef WO
#undef RW

/* ------------------------------------------------------------------------ */
/* Video (ABI 0.5)                                                           */
/* ------------------------------------------------------------------------ */

/** Every plane of the pushed pictures points here: large enough for any size
 *  and stride the rows pass (at most 4 x 4096 bytes x 64 rows). */
static unsigned char video_planes[1 << 20];

/** enable_video / disable_video and set_external_video_source: any int, at any time. */
static void test_video_switches(void) {
    static const int flags[] = {0, 1, -1, 2, INT_MAX, INT_MIN, 0};
    size_t i;
    CHECK_RC(agoraish_engine_disable_video(live), 0, "disable_video (off by default)");
    CHECK_RC(agoraish_engine_enable_video(live), 0, "enable_video");
    CHECK_RC(agoraish_engine_enable_video(live), 0, "enable_video twice");
    CHECK_RC(agoraish_engine_disable_video(live), 0, "disable_video");
    CHECK_RC(agoraish_engine_disable_video(live), 0, "disable_video twice");
    for (i = 0; i < COUNT(flags); i++) {
        int rc = agoraish_engine_set_external_video_source(live, flags[i]);
        CHECK(rc == 0, "set_external_video_source(%d): returned %d, expected 0", flags[i], rc);
    }
}

/** The video mutes: which function, with a flag and (for the per-user one) a uid. */
typedef enum {
    V_ENABLE_LOCAL,
    V_MUTE_LOCAL,
    V_MUTE_REMOTE,
    V_MUTE_ALL,
    V_DEFAULT_MUTE_ALL
} video_mute_fn_t;

static const char *const video_mute_fn_names[] = {
    "enable_local_video", "mute_local_video_stream", "mute_remote_video_stream", "mute_all_remote_video_streams",
    "set_default_mute_all_remote_video_streams",
};

typedef struct {
    const char *name;
    video_mute_fn_t fn;
    int a;
    uint32_t uid;
    int expected;
} video_mute_row_t;

static int run_video_mute_row(agoraish_engine_t *e, const video_mute_row_t *r) {
    switch (r->fn) {
    case V_ENABLE_LOCAL: return agoraish_engine_enable_local_video(e, r->a);
    case V_MUTE_LOCAL: return agoraish_engine_mute_local_video_stream(e, r->a);
    case V_MUTE_REMOTE: return agoraish_engine_mute_remote_video_stream(e, r->uid, r->a);
    case V_MUTE_ALL: return agoraish_engine_mute_all_remote_video_streams(e, r->a);
    case V_DEFAULT_MUTE_ALL: return agoraish_engine_set_default_mute_all_remote_video_streams(e, r->a);
    }
    return 12345;
}

/** Switches: any int at any time; uid 0 is -2 for the per-user mute. Each
 *  function ends with 0 (unmuted, local video on). */
static const video_mute_row_t video_mute_rows[] = {
    {"0", V_ENABLE_LOCAL, .a = 0, .expected = 0},
    {"-1", V_ENABLE_LOCAL, .a = -1, .expected = 0},
    {"INT_MIN", V_ENABLE_LOCAL, .a = INT_MIN, .expected = 0},
    {"INT_MAX", V_ENABLE_LOCAL, .a = INT_MAX, .expected = 0},
    {"1", V_ENABLE_LOCAL, .a = 1, .expected = 0},
    {"1", V_MUTE_LOCAL, .a = 1, .expected = 0},
    {"1 twice", V_MUTE_LOCAL, .a = 1, .expected = 0},
    {"-1", V_MUTE_LOCAL, .a = -1, .expected = 0},
    {"INT_MIN", V_MUTE_LOCAL, .a = INT_MIN, .expected = 0},
    {"0", V_MUTE_LOCAL, .a = 0, .expected = 0},
    {"uid 0", V_MUTE_REMOTE, .uid = 0, .a = 1, .expected = E_INVALID},
    {"uid 0, unmute", V_MUTE_REMOTE, .uid = 0, .a = 0, .expected = E_INVALID},
    {"a user not (yet) in a call", V_MUTE_REMOTE, .uid = 7, .a = 1, .expected = 0},
    {"uid 2^32-1", V_MUTE_REMOTE, .uid = 4294967295u, .a = 1, .expected = 0},
    {"mute INT_MAX", V_MUTE_REMOTE, .uid = 7, .a = INT_MAX, .expected = 0},
    {"unmute", V_MUTE_REMOTE, .uid = 7, .a = 0, .expected = 0},
    {"unmute uid 2^32-1", V_MUTE_REMOTE, .uid = 4294967295u, .a = 0, .expected = 0},
    {"1", V_MUTE_ALL, .a = 1, .expected = 0},
    {"INT_MIN", V_MUTE_ALL, .a = INT_MIN, .expected = 0},
    {"0", V_MUTE_ALL, .a = 0, .expected = 0},
    {"1", V_DEFAULT_MUTE_ALL, .a = 1, .expected = 0},
    {"-1", V_DEFAULT_MUTE_ALL, .a = -1, .expected = 0},
    {"0", V_DEFAULT_MUTE_ALL, .a = 0, .expected = 0},
};

static void run_video_mute_rows(agoraish_engine_t *e, const char *where) {
    size_t i;
    for (i = 0; i < COUNT(video_mute_rows); i++) {
        const video_mute_row_t *r = &video_mute_rows[i];
        int rc = run_video_mute_row(e, r);
        CHECK(rc == r->expected, "%s(%s) %s: returned %d, expected %d", video_mute_fn_names[r->fn], r->name, where, rc,
              r->expected);
    }
}

/** set_video_encoder_configuration: the struct and each field's range. */
static void test_video_encoder_configuration(void) {
    const size_t full = sizeof(agoraish_video_encoder_configuration);
    /* ABI 0.5's struct: up to codec_type. */
    const size_t size_0_5 = offsetof(agoraish_video_encoder_configuration, orientation_mode);
    const struct {
        const char *name;
        int null_config;
        int set_size;
        uint32_t struct_size;
        int width, height, frame_rate, bitrate, min_bitrate, codec_type;
        int expected;
    } rows[] = {
        {"NULL", 1, 0, 0, 320, 240, 15, 0, -1, 1, E_INVALID},
        {"struct_size 0", 0, 1, 0, 320, 240, 15, 0, -1, 1, E_INVALID},
        {"struct_size 4", 0, 1, 4, 320, 240, 15, 0, -1, 1, E_INVALID},
        {"struct_size one field short of ABI 0.5", 0, 1, (uint32_t)(size_0_5 - sizeof(int)), 320, 240, 15, 0, -1, 1,
         E_INVALID},
        {"struct_size one byte short", 0, 1, (uint32_t)(full - 1), 320, 240, 15, 0, -1, 1, E_INVALID},
        {"struct_size splitting a field", 0, 1, (uint32_t)(full + 2), 320, 240, 15, 0, -1, 1, E_INVALID},
        {"width 0", 0, 0, 0, 0, 240, 15, 0, -1, 1, E_INVALID},
        {"width 14", 0, 0, 0, 14, 240, 15, 0, -1, 1, E_INVALID},
        {"width 17 (odd)", 0, 0, 0, 17, 240, 15, 0, -1, 1, E_INVALID},
        {"width 4097", 0, 0, 0, 4097, 240, 15, 0, -1, 1, E_INVALID},
        {"width 4098", 0, 0, 0, 4098, 240, 15, 0, -1, 1, E_INVALID},
        {"width -320", 0, 0, 0, -320, 240, 15, 0, -1, 1, E_INVALID},
        {"width INT_MIN", 0, 0, 0, INT_MIN, 240, 15, 0, -1, 1, E_INVALID},
        {"height 0", 0, 0, 0, 320, 0, 15, 0, -1, 1, E_INVALID},
        {"height 15", 0, 0, 0, 320, 15, 15, 0, -1, 1, E_INVALID},
        {"height 241 (odd)", 0, 0, 0, 320, 241, 15, 0, -1, 1, E_INVALID},
        {"height 4098", 0, 0, 0, 320, 4098, 15, 0, -1, 1, E_INVALID},
        {"height INT_MAX", 0, 0, 0, 320, INT_MAX, 15, 0, -1, 1, E_INVALID},
        {"frame_rate 0", 0, 0, 0, 320, 240, 0, 0, -1, 1, E_INVALID},
        {"frame_rate -1", 0, 0, 0, 320, 240, -1, 0, -1, 1, E_INVALID},
        {"frame_rate 61", 0, 0, 0, 320, 240, 61, 0, -1, 1, E_INVALID},
        {"frame_rate INT_MAX", 0, 0, 0, 320, 240, INT_MAX, 0, -1, 1, E_INVALID},
        {"bitrate -2", 0, 0, 0, 320, 240, 15, -2, -1, 1, E_INVALID},
        {"bitrate 100001", 0, 0, 0, 320, 240, 15, 100001, -1, 1, E_INVALID},
        {"bitrate INT_MIN", 0, 0, 0, 320, 240, 15, INT_MIN, -1, 1, E_INVALID},
        {"min_bitrate -2", 0, 0, 0, 320, 240, 15, 0, -2, 1, E_INVALID},
        {"min_bitrate 100001", 0, 0, 0, 320, 240, 15, 0, 100001, 1, E_INVALID},
        {"codec_type -1", 0, 0, 0, 320, 240, 15, 0, -1, -1, E_INVALID},
        {"codec_type 2", 0, 0, 0, 320, 240, 15, 0, -1, 2, E_INVALID},
        {"codec_type INT_MAX", 0, 0, 0, 320, 240, 15, 0, -1, INT_MAX, E_INVALID},
        {"codec_type 3", 0, 0, 0, 320, 240, 15, 0, -1, 3, E_INVALID},
        {"codec_type 4", 0, 0, 0, 320, 240, 15, 0, -1, 4, E_INVALID},
        {"codec_type 6", 0, 0, 0, 320, 240, 15, 0, -1, 6, E_INVALID},
        /* Accepted edges. */
        {"16x16 at 1 fps, 1 Kbps", 0, 0, 0, 16, 16, 1, 1, 1, AGORAISH_VIDEO_CODEC_VP8, 0},
        {"4096x4096 at 60 fps, 100000 Kbps", 0, 0, 0, 4096, 4096, 60, 100000, 100000, AGORAISH_VIDEO_CODEC_VP8, 0},
        {"COMPATIBLE_BITRATE (-1), codec_type 0 (VP8)", 0, 0, 0, 640, 360, 15, -1, -1, 0, 0},
        {"struct_size larger than any header's", 0, 1, (uint32_t)full + 64, 320, 240, 15, 600, -1, 1, E_INVALID},
        {"codec_type 5 (VP9)", 0, 0, 0, 320, 240, 15, 0, -1, AGORAISH_VIDEO_CODEC_VP9, 0},
        {"STANDARD_BITRATE (0)", 0, 0, 0, 320, 240, 15, 0, -1, AGORAISH_VIDEO_CODEC_VP8, 0},
    };
    /* ABI 0.6: orientation and mirror modes (0..2), degradation preference (0..3) of a 320x240 VP8 configuration. */
    const struct {
        const char *name;
        int set_size;
        uint32_t struct_size;
        int orientation_mode, degradation_preference, mirror_mode;
        int expected;
    } rows_0_6[] = {
        {"orientation_mode 3", .orientation_mode = 3, .expected = E_INVALID},
        {"orientation_mode -1", .orientation_mode = -1, .expected = E_INVALID},
        {"orientation_mode INT_MAX", .orientation_mode = INT_MAX, .expected = E_INVALID},
        {"degradation_preference 4", .degradation_preference = 4, .expected = E_INVALID},
        {"degradation_preference -1", .degradation_preference = -1, .expected = E_INVALID},
        {"mirror_mode 3", .mirror_mode = 3, .expected = E_INVALID},
        {"mirror_mode -1", .mirror_mode = -1, .expected = E_INVALID},
        {"mirror_mode INT_MIN", .mirror_mode = INT_MIN, .expected = E_INVALID},
        {"FIXED_LANDSCAPE, MAINTAIN_FRAMERATE, mirror ENABLED", .orientation_mode = 1, .degradation_preference = 1,
         .mirror_mode = 1, .expected = 0},
        {"FIXED_PORTRAIT, MAINTAIN_BALANCED, mirror DISABLED", .orientation_mode = 2, .degradation_preference = 2,
         .mirror_mode = 2, .expected = 0},
        /* A host built against ABI 0.5 passes the smaller struct: the fields
         * past its struct_size are not read (here they hold bad values). */
        {"struct_size of ABI 0.5, bad 0.6 fields past it", .set_size = 1, .struct_size = (uint32_t)size_0_5,
         .orientation_mode = 99, .degradation_preference = -5, .mirror_mode = INT_MIN, .expected = 0},
        {"struct_size ending before mirror_mode (no header's size)", .set_size = 1,
         .struct_size = (uint32_t)(full - sizeof(int)), .mirror_mode = 7, .expected = E_INVALID},
        {"ADAPTIVE, MAINTAIN_QUALITY, mirror AUTO (all 0)", .expected = 0},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        union {
            agoraish_video_encoder_configuration config;
            unsigned char bytes[sizeof(agoraish_video_encoder_configuration) + 64];
        } storage;
        int rc;
        memset(&storage, 0, sizeof storage);
        storage.config.struct_size = rows[i].set_size ? rows[i].struct_size : (uint32_t)sizeof storage.config;
        storage.config.width = rows[i].width;
        storage.config.height = rows[i].height;
        storage.config.frame_rate = rows[i].frame_rate;
        storage.config.bitrate = rows[i].bitrate;
        storage.config.min_bitrate = rows[i].min_bitrate;
        storage.config.codec_type = rows[i].codec_type;
        rc = agoraish_engine_set_video_encoder_configuration(live, rows[i].null_config ? NULL : &storage.config);
        CHECK(rc == rows[i].expected, "set_video_encoder_configuration(%s): returned %d, expected %d", rows[i].name, rc,
              rows[i].expected);
    }
    for (i = 0; i < COUNT(rows_0_6); i++) {
        union {
            agoraish_video_encoder_configuration config;
            unsigned char bytes[sizeof(agoraish_video_encoder_configuration) + 64];
        } storage;
        int rc;
        memset(&storage, 0, sizeof storage);
        storage.config.struct_size = rows_0_6[i].set_size ? rows_0_6[i].struct_size : (uint32_t)sizeof storage.config;
        storage.config.width = 320;
        storage.config.height = 240;
        storage.config.frame_rate = 15;
        storage.config.min_bitrate = -1;
        storage.config.codec_type = AGORAISH_VIDEO_CODEC_VP8;
        storage.config.orientation_mode = rows_0_6[i].orientation_mode;
        storage.config.degradation_preference = rows_0_6[i].degradation_preference;
        storage.config.mirror_mode = rows_0_6[i].mirror_mode;
        rc = agoraish_engine_set_video_encoder_configuration(live, &storage.config);
        CHECK(rc == rows_0_6[i].expected, "set_video_encoder_configuration(%s): returned %d, expected %d",
              rows_0_6[i].name, rc, rows_0_6[i].expected);
    }
}

/* Which planes a push row passes: bits of Y, U, V (the others are NULL). */
enum { PY = 1, PU = 2, PV = 4, PALL = 7 };
#define I420 AGORAISH_VIDEO_PIXEL_I420
#define BGRA AGORAISH_VIDEO_PIXEL_BGRA
#define NV21 AGORAISH_VIDEO_PIXEL_NV21
#define RGBA AGORAISH_VIDEO_PIXEL_RGBA
#define NV12 AGORAISH_VIDEO_PIXEL_NV12

/** One push_external_video_frame call: a 32x16 picture unless the row says otherwise. */
typedef struct {
    const char *name;
    int null_frame;
    int set_size;
    uint32_t struct_size;
    int format, width, height; /* 0 width/height: 32x16 */
    int planes;                /* PY | PU | PV; 0: every plane */
    int y_stride, u_stride, v_stride; /* used as given when set_strides, else the format's tight strides */
    int set_strides;
    int64_t timestamp;
    int expected;
    int rotation; /* ABI 0.6 */
} push_row_t;

/** Nonzero: run_push_row pushes into this custom video track (push_external_video_frame_by_id, ABI 0.11). */
static int32_t push_track;

static int run_push_row(agoraish_engine_t *engine, const push_row_t *r) {
    union {
        agoraish_external_video_frame frame;
        unsigned char bytes[sizeof(agoraish_external_video_frame) + 64];
    } storage;
    const int planes = r->planes ? r->planes : PALL;
    memset(&storage, 0, sizeof storage);
    storage.frame.struct_size = r->set_size ? r->struct_size : (uint32_t)sizeof storage.frame;
    storage.frame.format = r->format;
    storage.frame.width = r->width ? r->width : 32;
    storage.frame.height = r->height ? r->height : 16;
    storage.frame.y_buffer = planes & PY ? video_planes : NULL;
    storage.frame.u_buffer = planes & PU ? video_planes : NULL;
    storage.frame.v_buffer = planes & PV ? video_planes : NULL;
    if (r->set_strides) {
        storage.frame.y_stride = r->y_stride;
        storage.frame.u_stride = r->u_stride;
        storage.frame.v_stride = r->v_stride;
    } else if (r->format == BGRA || r->format == RGBA) {
        storage.frame.y_stride = 4 * storage.frame.width;
    } else if (r->format == NV12 || r->format == NV21) {
        storage.frame.y_stride = storage.frame.width;
        storage.frame.u_stride = storage.frame.width;
    } else {
        storage.frame.y_stride = storage.frame.width;
        storage.frame.u_stride = storage.frame.width / 2;
        storage.frame.v_stride = storage.frame.width / 2;
    }
    storage.frame.timestamp = r->timestamp;
    storage.frame.rotation = r->rotation;
    if (push_track != 0) {
        return agoraish_engine_push_external_video_frame_by_id(engine, r->null_frame ? NULL : &storage.frame,
                                                               push_track);
    }
    return agoraish_engine_push_external_video_frame(engine, r->null_frame ? NULL : &storage.frame);
}

static void run_push_rows(agoraish_engine_t *engine, const char *where, const push_row_t *rows, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        int rc = run_push_row(engine, &rows[i]);
        CHECK(rc == rows[i].expected, "push_external_video_frame%s(%s) %s: returned %d, expected %d",
              push_track != 0 ? "_by_id" : "", rows[i].name, where, rc, rows[i].expected);
    }
}

/** push_external_video_frame outside a call: the source, the struct, formats, sizes, strides, planes. */
static void test_push_external_video_frame(void) {
    const size_t full = sizeof(agoraish_external_video_frame);
    /* ABI 0.5's struct: up to timestamp. */
    const size_t size_0_5 = offsetof(agoraish_external_video_frame, rotation);
    int32_t track = 0;
    const push_row_t no_source[] = {
        {"NULL", .null_frame = 1, .format = I420, .expected = E_INVALID},
        {"I420", .format = I420, .expected = E_NOT_READY},
        {"NV12", .format = NV12, .expected = E_NOT_READY},
        {"BGRA", .format = BGRA, .expected = E_NOT_READY},
        {"rotation 45 (checked before the source)", .format = I420, .rotation = 45, .expected = E_INVALID},
        {"rotation 90", .format = I420, .rotation = 90, .expected = E_NOT_READY},
    };
    const push_row_t rows[] = {
        {"NULL", .null_frame = 1, .format = I420, .expected = E_INVALID},
        {"struct_size 0", .set_size = 1, .struct_size = 0, .format = I420, .expected = E_INVALID},
        {"struct_size 4", .set_size = 1, .struct_size = 4, .format = I420, .expected = E_INVALID},
        {"struct_size one field short of ABI 0.5", .set_size = 1, .struct_size = (uint32_t)(size_0_5 - sizeof(int64_t)),
         .format = I420, .expected = E_INVALID},
        {"struct_size of ABI 0.5, a bad rotation past it", .set_size = 1, .struct_size = (uint32_t)size_0_5,
         .format = I420, .rotation = 45, .expected = 0},
        {"struct_size one byte short", .set_size = 1, .struct_size = (uint32_t)(full - 1), .format = I420,
         .expected = E_INVALID},
        {"struct_size splitting a field", .set_size = 1, .struct_size = (uint32_t)(full + 4), .format = I420,
         .expected = E_INVALID},
        {"struct_size larger than any header's", .set_size = 1, .struct_size = (uint32_t)(full + 64), .format = I420,
         .expected = E_INVALID},
        /* Formats: I420 1, BGRA 2, NV21 3, RGBA 4, NV12 8; anything else is -2. */
        {"format 0", .format = 0, .set_strides = 1, .y_stride = 128, .u_stride = 128, .v_stride = 128,
         .expected = E_INVALID},
        {"format 5", .format = 5, .set_strides = 1, .y_stride = 128, .u_stride = 128, .v_stride = 128,
         .expected = E_INVALID},
        {"format 7", .format = 7, .set_strides = 1, .y_stride = 128, .u_stride = 128, .v_stride = 128,
         .expected = E_INVALID},
        {"format 9", .format = 9, .set_strides = 1, .y_stride = 128, .u_stride = 128, .v_stride = 128,
         .expected = E_INVALID},
        {"format -1", .format = -1, .set_strides = 1, .y_stride = 128, .u_stride = 128, .v_stride = 128,
         .expected = E_INVALID},
        {"format INT_MAX", .format = INT_MAX, .set_strides = 1, .y_stride = 128, .u_stride = 128, .v_stride = 128,
         .expected = E_INVALID},
        {"I420", .format = I420, .expected = 0},
        {"BGRA", .format = BGRA, .expected = 0},
        {"NV21", .format = NV21, .expected = 0},
        {"RGBA", .format = RGBA, .expected = 0},
        {"NV12", .format = NV12, .expected = 0},
        /* Sizes: 16..4096, even. */
        {"width 0", .format = I420, .width = -0x7fffffff - 1, .expected = E_INVALID},
        {"width 14", .format = I420, .width = 14, .expected = E_INVALID},
        {"width 17", .format = I420, .width = 17, .set_strides = 1, .y_stride = 64, .u_stride = 32, .v_stride = 32,
         .expected = E_INVALID},
        {"width 4097", .format = I420, .width = 4097, .set_strides = 1, .y_stride = 4100, .u_stride = 2050,
         .v_stride = 2050, .expected = E_INVALID},
        {"width 4098", .format = I420, .width = 4098, .expected = E_INVALID},
        {"width -32", .format = I420, .width = -32, .set_strides = 1, .y_stride = 32, .u_stride = 16, .v_stride = 16,
         .expected = E_INVALID},
        {"height 14", .format = I420, .height = 14, .expected = E_INVALID},
        {"height 17", .format = I420, .height = 17, .expected = E_INVALID},
        {"height 4098", .format = I420, .height = 4098, .expected = E_INVALID},
        {"height -16", .format = I420, .height = -16, .expected = E_INVALID},
        {"height INT_MAX", .format = I420, .height = INT_MAX, .expected = E_INVALID},
        {"BGRA width 15", .format = BGRA, .width = 15, .set_strides = 1, .y_stride = 64, .expected = E_INVALID},
        {"NV12 height 4097", .format = NV12, .height = 4097, .expected = E_INVALID},
        {"16x16", .format = I420, .width = 16, .height = 16, .expected = 0},
        {"4096x16", .format = I420, .width = 4096, .expected = 0},
        {"16x4096", .format = I420, .width = 16, .height = 4096, .expected = 0},
        {"RGBA 4096x16", .format = RGBA, .width = 4096, .expected = 0},
        {"NV21 16x4096", .format = NV21, .width = 16, .height = 4096, .expected = 0},
        /* Strides: at least a row of the plane. */
        {"I420 y_stride 31", .format = I420, .set_strides = 1, .y_stride = 31, .u_stride = 16, .v_stride = 16,
         .expected = E_INVALID},
        {"I420 y_stride 0", .format = I420, .set_strides = 1, .y_stride = 0, .u_stride = 16, .v_stride = 16,
         .expected = E_INVALID},
        {"I420 y_stride -32", .format = I420, .set_strides = 1, .y_stride = -32, .u_stride = 16, .v_stride = 16,
         .expected = E_INVALID},
        {"I420 u_stride 15", .format = I420, .set_strides = 1, .y_stride = 32, .u_stride = 15, .v_stride = 16,
         .expected = E_INVALID},
        {"I420 v_stride 15", .format = I420, .set_strides = 1, .y_stride = 32, .u_stride = 16, .v_stride = 15,
         .expected = E_INVALID},
        {"I420 v_stride INT_MIN", .format = I420, .set_strides = 1, .y_stride = 32, .u_stride = 16,
         .v_stride = INT_MIN, .expected = E_INVALID},
        {"NV12 u_stride 31", .format = NV12, .set_strides = 1, .y_stride = 32, .u_stride = 31, .expected = E_INVALID},
        {"NV21 u_stride 16 (I420's)", .format = NV21, .set_strides = 1, .y_stride = 32, .u_stride = 16,
         .expected = E_INVALID},
        {"BGRA y_stride 127", .format = BGRA, .set_strides = 1, .y_stride = 127, .expected = E_INVALID},
        {"RGBA y_stride 32 (a luma row)", .format = RGBA, .set_strides = 1, .y_stride = 32, .expected = E_INVALID},
        {"I420 strides longer than a row", .format = I420, .set_strides = 1, .y_stride = 4096, .u_stride = 17,
         .v_stride = 4096, .expected = 0},
        {"NV12 u_stride 34", .format = NV12, .set_strides = 1, .y_stride = 33, .u_stride = 34, .expected = 0},
        {"BGRA y_stride 132, unused strides -1", .format = BGRA, .set_strides = 1, .y_stride = 132, .u_stride = -1,
         .v_stride = INT_MIN, .expected = 0},
        {"NV21 v_stride -1 (unused)", .format = NV21, .set_strides = 1, .y_stride = 32, .u_stride = 32,
         .v_stride = -1, .expected = 0},
        /* Planes: the ones the format uses. */
        {"I420 without Y", .format = I420, .planes = PU | PV, .expected = E_INVALID},
        {"I420 without U", .format = I420, .planes = PY | PV, .expected = E_INVALID},
        {"I420 without V", .format = I420, .planes = PY | PU, .expected = E_INVALID},
        {"I420 with Y only", .format = I420, .planes = PY, .expected = E_INVALID},
        {"NV12 without Y", .format = NV12, .planes = PU | PV, .expected = E_INVALID},
        {"NV12 without its chroma plane", .format = NV12, .planes = PY | PV, .expected = E_INVALID},
        {"NV21 without its chroma plane", .format = NV21, .planes = PY, .expected = E_INVALID},
        {"BGRA without its pixels", .format = BGRA, .planes = PU | PV, .expected = E_INVALID},
        {"NV12 without V (unused)", .format = NV12, .planes = PY | PU, .expected = 0},
        {"RGBA with its pixels only", .format = RGBA, .planes = PY, .expected = 0},
        {"BGRA with its pixels only", .format = BGRA, .planes = PY, .expected = 0},
        /* Timestamps: any origin; nothing is encoded outside a call. */
        {"timestamp -1", .format = I420, .timestamp = -1, .expected = 0},
        {"timestamp INT64_MAX", .format = I420, .timestamp = INT64_MAX, .expected = 0},
        {"timestamp INT64_MIN", .format = I420, .timestamp = INT64_MIN, .expected = 0},
        /* ABI 0.6: rotation 0, 90, 180 or 270 (clockwise). */
        {"rotation 90", .format = I420, .rotation = 90, .expected = 0},
        {"rotation 180", .format = NV12, .rotation = 180, .expected = 0},
        {"rotation 270", .format = RGBA, .rotation = 270, .expected = 0},
        {"rotation 90, 4096x16 (turned to 16x4096)", .format = I420, .width = 4096, .rotation = 90, .expected = 0},
        {"rotation 45", .format = I420, .rotation = 45, .expected = E_INVALID},
        {"rotation 1", .format = I420, .rotation = 1, .expected = E_INVALID},
        {"rotation -90", .format = I420, .rotation = -90, .expected = E_INVALID},
        {"rotation 360", .format = I420, .rotation = 360, .expected = E_INVALID},
        {"rotation INT_MIN", .format = I420, .rotation = INT_MIN, .expected = E_INVALID},
    };
    CHECK_RC(agoraish_engine_set_external_video_source(live, 0), 0, "set_external_video_source(0)");
    run_push_rows(live, "without an external source", no_source, COUNT(no_source));
    CHECK_RC(agoraish_engine_enable_video(live), 0, "enable_video");
    run_push_rows(live, "with video on, without an external source", no_source, COUNT(no_source));
    CHECK_RC(agoraish_engine_set_external_video_source(live, 1), 0, "set_external_video_source(1)");
    run_push_rows(live, "with an external source", rows, COUNT(rows));
    CHECK_RC(agoraish_engine_disable_video(live), 0, "disable_video");
    run_push_rows(live, "with video off", rows, COUNT(rows));
    CHECK_RC(agoraish_engine_set_external_video_source(live, 0), 0, "set_external_video_source(0) again");
    run_push_rows(live, "after the source is turned off", no_source, COUNT(no_source));
    /* ABI 0.11: a custom video track takes and refuses the same pictures, source or not. */
    CHECK_RC(agoraish_engine_create_custom_video_track(live, &track), 0, "create_custom_video_track");
    push_track = track;
    run_push_rows(live, "into a custom video track nobody publishes", rows, COUNT(rows));
    push_track = 0;
    CHECK_RC(agoraish_engine_destroy_custom_video_track(live, track), 0, "destroy_custom_video_track");
}

static void ignore_frame(agoraish_engine_t *engine, void *user_data, uint32_t uid, const agoraish_video_frame *frame) {
    (void)engine, (void)user_data, (void)uid, (void)frame;
}

/** One setup_remote_video call. */
typedef struct {
    const char *name;
    int null_canvas;
    int set_size;
    uint32_t struct_size;
    uint32_t uid;
    int bind; /* on_frame set; else NULL (unbind) */
    int expected;
    int render_mode, mirror_mode, view_width, view_height; /* ABI 0.6; 0 unless named */
} canvas_row_t;

static void run_canvas_rows(agoraish_engine_t *engine, const char *where, const canvas_row_t *rows, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        union {
            agoraish_video_canvas canvas;
            unsigned char bytes[sizeof(agoraish_video_canvas) + 64];
        } storage;
        int rc;
        memset(&storage, 0, sizeof storage);
        storage.canvas.struct_size = rows[i].set_size ? rows[i].struct_size : (uint32_t)sizeof storage.canvas;
        storage.canvas.uid = rows[i].uid;
        storage.canvas.on_frame = rows[i].bind ? ignore_frame : NULL;
        storage.canvas.user_data = (void *)&storage; /* never dereferenced by the library */
        storage.canvas.render_mode = rows[i].render_mode;
        storage.canvas.mirror_mode = rows[i].mirror_mode;
        storage.canvas.view_width = rows[i].view_width;
        storage.canvas.view_height = rows[i].view_height;
        rc = agoraish_engine_setup_remote_video(engine, rows[i].null_canvas ? NULL : &storage.canvas);
        CHECK(rc == rows[i].expected, "setup_remote_video(%s) %s: returned %d, expected %d", rows[i].name, where, rc,
              rows[i].expected);
    }
}

/** The ABI 0.6 fields of a canvas: the same rows for setup_remote_video and
 *  setup_local_video (`UID` names the remote user; the local canvas ignores it). */
#define CANVAS_0_6_ROWS(UID)                                                                                            \
    {"render_mode 5", UID, .bind = 1, .render_mode = 5, .expected = E_INVALID},                                         \
    {"render_mode -1", UID, .bind = 1, .render_mode = -1, .expected = E_INVALID},                                       \
    {"render_mode INT_MAX", UID, .bind = 1, .render_mode = INT_MAX, .view_width = 64, .view_height = 64,                \
     .expected = E_INVALID},                                                                                            \
    {"mirror_mode 3", UID, .bind = 1, .mirror_mode = 3, .expected = E_INVALID},                                         \
    {"mirror_mode -1", UID, .bind = 1, .mirror_mode = -1, .expected = E_INVALID},                                       \
    {"view 4098x360", UID, .bind = 1, .view_width = 4098, .view_height = 360, .expected = E_INVALID},                  \
    {"view 640x4097", UID, .bind = 1, .view_width = 640, .view_height = 4097, .expected = E_INVALID},                  \
    {"view -640x-360", UID, .bind = 1, .view_width = -640, .view_height = -360, .expected = E_INVALID},                \
    {"view 640x0 (one side set)", UID, .bind = 1, .view_width = 640, .expected = E_INVALID},                            \
    {"view 0x360 (one side set)", UID, .bind = 1, .view_height = 360, .expected = E_INVALID},                           \
    {"view 1x1", UID, .bind = 1, .view_width = 1, .view_height = 1, .expected = E_INVALID},                            \
    {"view 1x360", UID, .bind = 1, .view_width = 1, .view_height = 360, .expected = E_INVALID},                        \
    {"render_mode 0 (HIDDEN)", UID, .bind = 1, .render_mode = 0, .view_width = 640, .view_height = 360, .expected = 0}, \
    {"HIDDEN", UID, .bind = 1, .render_mode = 1, .view_width = 640, .view_height = 360, .expected = 0},                 \
    {"FIT, mirror ENABLED", UID, .bind = 1, .render_mode = 2, .mirror_mode = 1, .view_width = 2, .view_height = 2,      \
     .expected = 0},                                                                                                    \
    {"ADAPTIVE, mirror DISABLED", UID, .bind = 1, .render_mode = 3, .mirror_mode = 2, .view_width = 4096,              \
     .view_height = 4096, .expected = 0},                                                                               \
    {"FILL, view 320x240", UID, .bind = 1, .render_mode = 4, .view_width = 320, .view_height = 240, .expected = 0},    \
    /* A host built against ABI 0.5 passes the smaller struct: the fields past it are not read. */                     \
    {"struct_size of ABI 0.5, bad 0.6 fields past it", UID, .bind = 1, .set_size = 1,                                   \
     .struct_size = (uint32_t)offsetof(agoraish_video_canvas, render_mode), .render_mode = 99, .mirror_mode = -1,      \
     .view_width = 1, .expected = 0},                                                                                   \
    {"struct_size ending before view_width (no header's size)", UID, .bind = 1, .set_size = 1,                        \
     .struct_size = (uint32_t)offsetof(agoraish_video_canvas, view_width), .render_mode = 2, .view_width = 5000,       \
     .expected = E_INVALID},

static const canvas_row_t canvas_rows[] = {
    {"NULL", .null_canvas = 1, .expected = E_INVALID},
    {"struct_size 0", .set_size = 1, .struct_size = 0, .uid = 1, .bind = 1, .expected = E_INVALID},
    {"struct_size 4", .set_size = 1, .struct_size = 4, .uid = 1, .bind = 1, .expected = E_INVALID},
    {"struct_size one field short of ABI 0.5", .set_size = 1,
     .struct_size = (uint32_t)(offsetof(agoraish_video_canvas, render_mode) - sizeof(void *)), .uid = 1, .bind = 1,
     .expected = E_INVALID},
    {"struct_size one byte short, unbinding", .set_size = 1,
     .struct_size = (uint32_t)(sizeof(agoraish_video_canvas) - 1), .uid = 1, .expected = E_INVALID},
    {"struct_size splitting a field", .set_size = 1, .struct_size = (uint32_t)(sizeof(agoraish_video_canvas) + 4),
     .uid = 1, .bind = 1, .expected = E_INVALID},
    {"uid 0", .uid = 0, .bind = 1, .expected = E_INVALID},
    {"uid 0, unbinding", .uid = 0, .expected = E_INVALID},
    {"unbinding a uid never bound", .uid = 7, .expected = 0},
    {"a user not (yet) in a call", .uid = 7, .bind = 1, .expected = 0},
    {"binding again", .uid = 7, .bind = 1, .expected = 0},
    {"unbinding", .uid = 7, .expected = 0},
    {"unbinding twice", .uid = 7, .expected = 0},
    {"uid 2^32-1", .uid = 4294967295u, .bind = 1, .expected = 0},
    {"struct_size larger than any header's", .set_size = 1,
     .struct_size = (uint32_t)sizeof(agoraish_video_canvas) + 64, .uid = 4294967295u, .expected = E_INVALID},
    /* ABI 0.6: render mode 0 (HIDDEN) or 1..4, mirror mode 0..2, a view of 0 x 0 or 2..4096 on both sides. */
    CANVAS_0_6_ROWS(.uid = 7)
    {"unbinding after the 0.6 rows", .uid = 7, .expected = 0},
};

/* ------------------------------------------------------------------------ */
/* Video (ABI 0.6)                                                           */
/* ------------------------------------------------------------------------ */

/* ---- PNG files for the watermark rows, written here without a library ---- */

/** CRC-32 (ISO 3309, as PNG chunks use it) of `n` bytes, continuing `crc`. */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n) {
    size_t i;
    int bit;
    crc = ~crc;
    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    return ~crc;
}

static void put_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/** Writes one PNG chunk: length, type, data, CRC of type and data. */
static void write_chunk(FILE *f, const char *type, const unsigned char *data, size_t n) {
    unsigned char word[4];
    uint32_t crc = crc32_update(0, (const unsigned char *)type, 4);
    crc = crc32_update(crc, data, n);
    put_be32(word, (uint32_t)n);
    fwrite(word, 1, 4, f);
    fwrite(type, 1, 4, f);
    if (n) fwrite(data, 1, n, f);
    put_be32(word, crc);
    fwrite(word, 1, 4, f);
}

/**
 * Writes an 8-bit RGBA PNG of `width` x `height` (a half-transparent white
 * square on a clear background), its pixels in stored (uncompressed) deflate
 * blocks of a zlib stream (RFC 1950, 1951). `truncate`: the file ends in the
 * middle of its pixel data. Returns 0 on success.
 */
static int write_png(const char *path, int width, int height, int truncate) {
    const size_t row = 1 + 4 * (size_t)width, raw_size = row * (size_t)height;
    const size_t blocks = (raw_size + 65534) / 65535;
    unsigned char *raw = malloc(raw_size), *z = malloc(2 + raw_size + 5 * blocks + 4);
    unsigned char ihdr[13];
    size_t i, used = 0, done = 0;
    uint32_t a = 1, b = 0;
    FILE *f = fopen(path, "wb");
    int x, y;
    if (!raw || !z || !f) {
        free(raw);
        free(z);
        if (f) fclose(f);
        return -1;
    }
    for (y = 0; y < height; y++) {
        unsigned char *p = raw + (size_t)y * row;
        p[0] = 0; /* filter: none */
        for (x = 0; x < width; x++) {
            const int inside = x >= width / 4 && x < width * 3 / 4 && y >= height / 4 && y < height * 3 / 4;
            p[1 + 4 * x] = p[2 + 4 * x] = p[3 + 4 * x] = 255;
            p[4 + 4 * x] = (unsigned char)(inside ? 128 : 0);
        }
    }
    z[used++] = 0x78; /* deflate, 32 K window */
    z[used++] = 0x01; /* no dictionary; (0x78 << 8 | 0x01) % 31 == 0 */
    while (done < raw_size) {
        const size_t n = raw_size - done < 65535 ? raw_size - done : 65535;
        z[used++] = (unsigned char)(done + n == raw_size ? 1 : 0); /* BFINAL, BTYPE 00 (stored) */
        z[used++] = (unsigned char)(n & 0xff);
        z[used++] = (unsigned char)(n >> 8);
        z[used++] = (unsigned char)(~n & 0xff);
        z[used++] = (unsigned char)((~n >> 8) & 0xff);
        memcpy(z + used, raw + done, n);
        used += n;
        done += n;
    }
    for (i = 0; i < raw_size; i++) {
        a = (a + raw[i]) % 65521;
        b = (b + a) % 65521;
    }
    put_be32(z + used, b << 16 | a); /* Adler-32 */
    used += 4;
    fwrite("\x89PNG\r\n\x1a\n", 1, 8, f);
    put_be32(ihdr, (uint32_t)width);
    put_be32(ihdr + 4, (uint32_t)height);
    ihdr[8] = 8;  /* bits per sample */
    ihdr[9] = 6;  /* RGBA */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering */
    ihdr[12] = 0; /* not interlaced */
    write_chunk(f, "IHDR", ihdr, sizeof ihdr);
    if (truncate) {
        fwrite(z, 1, used / 2, f); /* half a chunk: no IDAT CRC, no IEND */
    } else {
        write_chunk(f, "IDAT", z, used);
        write_chunk(f, "IEND", NULL, 0);
    }
    free(raw);
    free(z);
    return fclose(f) == 0 ? 0 : -1;
}

static char png_ok[256], png_portrait[256], png_4096[256], png_4097[256], png_truncated[256], png_not_png[256],
    png_missing[256];

/** The PNG files of the watermark rows, in the temporary directory. */
static void build_video_0_6_inputs(void) {
    FILE *f;
    path_in_tmp(png_ok, sizeof png_ok, "mark-64x32.png");
    path_in_tmp(png_portrait, sizeof png_portrait, "mark-16x48.png");
    path_in_tmp(png_4096, sizeof png_4096, "mark-4096x2.png");
    path_in_tmp(png_4097, sizeof png_4097, "mark-4097x2.png");
    path_in_tmp(png_truncated, sizeof png_truncated, "mark-truncated.png");
    path_in_tmp(png_not_png, sizeof png_not_png, "mark-text.png");
    path_in_tmp(png_missing, sizeof png_missing, "no-such-mark.png");
    CHECK(write_png(png_ok, 64, 32, 0) == 0 && write_png(png_portrait, 16, 48, 0) == 0 &&
              write_png(png_4096, 4096, 2, 0) == 0 && write_png(png_4097, 4097, 2, 0) == 0 &&
              write_png(png_truncated, 64, 32, 1) == 0,
          "write the PNG files of the watermark rows");
    f = fopen(png_not_png, "w");
    CHECK(f != NULL, "write the text file named .png");
    if (f) {
        fputs("not a PNG file\n", f);
        fclose(f);
    }
}

/* ---- The local canvas, the preview and the render modes ---- */

static void ignore_local_frame(agoraish_engine_t *engine, void *user_data, uint32_t uid,
                               const agoraish_video_frame *frame) {
    (void)engine, (void)user_data, (void)uid, (void)frame;
}

/** setup_local_video with the rows of setup_remote_video that do not depend on the uid. */
static void run_local_canvas_rows(agoraish_engine_t *engine, const char *where) {
    const canvas_row_t rows[] = {
        {"NULL", .null_canvas = 1, .expected = E_INVALID},
        {"struct_size 0", .set_size = 1, .struct_size = 0, .bind = 1, .expected = E_INVALID},
        {"struct_size 4", .set_size = 1, .struct_size = 4, .bind = 1, .expected = E_INVALID},
        {"struct_size one field short of ABI 0.5", .set_size = 1,
         .struct_size = (uint32_t)(offsetof(agoraish_video_canvas, render_mode) - sizeof(void *)), .bind = 1,
         .expected = E_INVALID},
        {"struct_size one byte short", .set_size = 1, .struct_size = (uint32_t)(sizeof(agoraish_video_canvas) - 1),
         .bind = 1, .expected = E_INVALID},
        {"struct_size splitting a field", .set_size = 1, .struct_size = (uint32_t)(sizeof(agoraish_video_canvas) + 4),
         .bind = 1, .expected = E_INVALID},
        {"unbinding when nothing is bound", .expected = 0},
        {"uid 0", .uid = 0, .bind = 1, .expected = 0},
        {"uid 7 (ignored)", .uid = 7, .bind = 1, .expected = 0},
        {"binding again", .bind = 1, .expected = 0},
        CANVAS_0_6_ROWS(.uid = 0)
        {"struct_size larger than any header's", .set_size = 1,
         .struct_size = (uint32_t)sizeof(agoraish_video_canvas) + 64, .bind = 1, .expected = E_INVALID},
        {"unbinding", .expected = 0},
        {"unbinding twice", .expected = 0},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        union {
            agoraish_video_canvas canvas;
            unsigned char bytes[sizeof(agoraish_video_canvas) + 64];
        } storage;
        int rc;
        memset(&storage, 0, sizeof storage);
        storage.canvas.struct_size = rows[i].set_size ? rows[i].struct_size : (uint32_t)sizeof storage.canvas;
        storage.canvas.uid = rows[i].uid;
        storage.canvas.on_frame = rows[i].bind ? ignore_local_frame : NULL;
        storage.canvas.user_data = (void *)&storage; /* never dereferenced by the library */
        storage.canvas.render_mode = rows[i].render_mode;
        storage.canvas.mirror_mode = rows[i].mirror_mode;
        storage.canvas.view_width = rows[i].view_width;
        storage.canvas.view_height = rows[i].view_height;
        rc = agoraish_engine_setup_local_video(engine, rows[i].null_canvas ? NULL : &storage.canvas);
        CHECK(rc == rows[i].expected, "setup_local_video(%s) %s: returned %d, expected %d", rows[i].name, where, rc,
              rows[i].expected);
    }
}

/** Binds (or with `bind` 0 unbinds) a plain canvas: the local one for uid 0, else uid's. */
static int bind_plain_canvas(agoraish_engine_t *engine, uint32_t uid, int bind) {
    agoraish_video_canvas canvas;
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.uid = uid;
    canvas.on_frame = bind ? ignore_local_frame : NULL;
    return uid == 0 ? agoraish_engine_setup_local_video(engine, &canvas)
                    : agoraish_engine_setup_remote_video(engine, &canvas);
}

/**
 * set_local_render_mode and set_remote_render_mode: render mode 1..4, mirror
 * mode 0..2 (-2, checked first), then -3 while no canvas is bound for the
 * user; uid 0 is -2 for the remote one.
 */
static void run_render_mode_rows(agoraish_engine_t *engine, const char *where) {
    const struct {
        const char *name;
        int render_mode, mirror_mode;
        int bound;    /* the expected code with a canvas bound ... */
        int unbound;  /* ... and without */
    } rows[] = {
        {"HIDDEN, AUTO", 1, 0, 0, E_NOT_READY},
        {"FIT, ENABLED", 2, 1, 0, E_NOT_READY},
        {"ADAPTIVE, DISABLED", 3, 2, 0, E_NOT_READY},
        {"FILL, AUTO", 4, 0, 0, E_NOT_READY},
        {"render mode 0", 0, 0, E_INVALID, E_INVALID},
        {"render mode 5", 5, 0, E_INVALID, E_INVALID},
        {"render mode -1", -1, 0, E_INVALID, E_INVALID},
        {"render mode INT_MIN", INT_MIN, 0, E_INVALID, E_INVALID},
        {"mirror mode 3", 1, 3, E_INVALID, E_INVALID},
        {"mirror mode -1", 1, -1, E_INVALID, E_INVALID},
        {"mirror mode INT_MAX", 2, INT_MAX, E_INVALID, E_INVALID},
    };
    const uint32_t remote = 9;
    size_t i;
    int pass;
    CHECK_RC(bind_plain_canvas(engine, 0, 0), 0, "setup_local_video(unbind) before the render mode rows");
    CHECK_RC(bind_plain_canvas(engine, remote, 0), 0, "setup_remote_video(9, unbind) before the render mode rows");
    for (pass = 0; pass < 3; pass++) {
        /* Unbound, bound, unbound again. */
        const int bound = pass == 1;
        if (pass == 1) {
            CHECK_RC(bind_plain_canvas(engine, 0, 1), 0, "setup_local_video for the render mode rows");
            CHECK_RC(bind_plain_canvas(engine, remote, 1), 0, "setup_remote_video(9) for the render mode rows");
        } else if (pass == 2) {
            CHECK_RC(bind_plain_canvas(engine, 0, 0), 0, "setup_local_video(unbind) after the render mode rows");
            CHECK_RC(bind_plain_canvas(engine, remote, 0), 0, "setup_remote_video(9, unbind) after the render mode rows");
        }
        for (i = 0; i < COUNT(rows); i++) {
            const int expected = bound ? rows[i].bound : rows[i].unbound;
            int rc = agoraish_engine_set_local_render_mode(engine, rows[i].render_mode, rows[i].mirror_mode);
            CHECK(rc == expected, "set_local_render_mode(%s) %s, %s: returned %d, expected %d", rows[i].name, where,
                  bound ? "canvas bound" : "no canvas", rc, expected);
            rc = agoraish_engine_set_remote_render_mode(engine, remote, rows[i].render_mode, rows[i].mirror_mode);
            CHECK(rc == expected, "set_remote_render_mode(9, %s) %s, %s: returned %d, expected %d", rows[i].name,
                  where, bound ? "canvas bound" : "no canvas", rc, expected);
            rc = agoraish_engine_set_remote_render_mode(engine, 0, rows[i].render_mode, rows[i].mirror_mode);
            CHECK(rc == E_INVALID, "set_remote_render_mode(uid 0, %s) %s: returned %d, expected -2", rows[i].name,
                  where, rc);
        }
    }
    /* Another user than the one bound has no canvas. */
    CHECK_RC(bind_plain_canvas(engine, remote, 1), 0, "setup_remote_video(9) again");
    CHECK_RC(agoraish_engine_set_remote_render_mode(engine, remote + 1, 1, 0), E_NOT_READY,
             "set_remote_render_mode(10) with only 9 bound");
    CHECK_RC(bind_plain_canvas(engine, remote, 0), 0, "setup_remote_video(9, unbind) again");
}

/** start_preview and stop_preview: at any time, any number of times. */
static void test_preview(void) {
    CHECK_RC(agoraish_engine_stop_preview(live), 0, "stop_preview before any start");
    CHECK_RC(agoraish_engine_start_preview(live), 0, "start_preview with video off");
    CHECK_RC(agoraish_engine_start_preview(live), 0, "start_preview twice");
    CHECK_RC(agoraish_engine_stop_preview(live), 0, "stop_preview");
    CHECK_RC(agoraish_engine_stop_preview(live), 0, "stop_preview twice");
    CHECK_RC(agoraish_engine_set_external_video_source(live, 1), 0, "set_external_video_source(1) for the preview");
    CHECK_RC(agoraish_engine_enable_video(live), 0, "enable_video for the preview");
    CHECK_RC(bind_plain_canvas(live, 0, 1), 0, "setup_local_video for the preview");
    CHECK_RC(agoraish_engine_start_preview(live), 0, "start_preview with video on and a local canvas");
    CHECK_RC(bind_plain_canvas(live, 0, 0), 0, "setup_local_video(unbind) while previewing");
    CHECK_RC(agoraish_engine_stop_preview(live), 0, "stop_preview with video on");
    CHECK_RC(agoraish_engine_disable_video(live), 0, "disable_video after the preview");
    CHECK_RC(agoraish_engine_set_external_video_source(live, 0), 0, "set_external_video_source(0) after the preview");
}

/* ---- Video frame observers ---- */

static int keep_video_frame(agoraish_engine_t *engine, void *user_data, agoraish_video_frame *frame) {
    (void)engine, (void)user_data, (void)frame;
    return 1;
}

static int keep_rendered_frame(agoraish_engine_t *engine, void *user_data, uint32_t uid, agoraish_video_frame *frame) {
    (void)engine, (void)user_data, (void)uid, (void)frame;
    return 1;
}

/** register_video_frame_observer: NULL unregisters; struct_size; position bits (1 | 2 | 4). */
static void test_register_video_frame_observer(void) {
    const size_t full = sizeof(agoraish_video_frame_observer);
    const struct {
        const char *name;
        int null_observer, set_size;
        uint32_t struct_size;
        int position;
        int no_callbacks;
        int expected;
    } rows[] = {
        {"NULL (nothing registered)", .null_observer = 1, .expected = 0},
        {"struct_size 0", .set_size = 1, .struct_size = 0, .expected = E_INVALID},
        {"struct_size 4", .set_size = 1, .struct_size = 4, .expected = E_INVALID},
        {"struct_size one field short", .set_size = 1, .struct_size = (uint32_t)(full - sizeof(void *)),
         .expected = E_INVALID},
        {"struct_size one byte short", .set_size = 1, .struct_size = (uint32_t)(full - 1), .expected = E_INVALID},
        {"struct_size splitting a field", .set_size = 1, .struct_size = (uint32_t)(full + 4), .expected = E_INVALID},
        {"position 8", .position = 8, .expected = E_INVALID},
        {"position 15", .position = 15, .expected = E_INVALID},
        {"position 16", .position = 16, .expected = E_INVALID},
        {"position -1", .position = -1, .expected = E_INVALID},
        {"position INT_MIN", .position = INT_MIN, .expected = E_INVALID},
        {"position INT_MAX", .position = INT_MAX, .expected = E_INVALID},
        {"position 0 (POST_CAPTURER | PRE_RENDERER)", .position = 0, .expected = 0},
        {"POST_CAPTURER", .position = AGORAISH_VIDEO_POSITION_POST_CAPTURER, .expected = 0},
        {"PRE_RENDERER", .position = AGORAISH_VIDEO_POSITION_PRE_RENDERER, .expected = 0},
        {"PRE_ENCODER", .position = AGORAISH_VIDEO_POSITION_PRE_ENCODER, .expected = 0},
        {"all three", .position = 7, .expected = 0},
        {"no callbacks", .position = 7, .no_callbacks = 1, .expected = 0},
        {"struct_size larger than any header's", .set_size = 1, .struct_size = (uint32_t)(full + 64), .position = 1,
         .expected = E_INVALID},
        {"NULL (unregisters)", .null_observer = 1, .expected = 0},
        {"NULL twice", .null_observer = 1, .expected = 0},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        union {
            agoraish_video_frame_observer observer;
            unsigned char bytes[sizeof(agoraish_video_frame_observer) + 64];
        } storage;
        int rc;
        memset(&storage, 0, sizeof storage);
        storage.observer.struct_size = rows[i].set_size ? rows[i].struct_size : (uint32_t)sizeof storage.observer;
        storage.observer.observed_position = rows[i].position;
        if (!rows[i].no_callbacks) {
            storage.observer.on_capture_video_frame = keep_video_frame;
            storage.observer.on_pre_encode_video_frame = keep_video_frame;
            storage.observer.on_render_video_frame = keep_rendered_frame;
        }
        storage.observer.user_data = (void *)&storage; /* never dereferenced by the library */
        rc = agoraish_engine_register_video_frame_observer(live, rows[i].null_observer ? NULL : &storage.observer);
        CHECK(rc == rows[i].expected, "register_video_frame_observer(%s): returned %d, expected %d", rows[i].name, rc,
              rows[i].expected);
    }
}

/* ---- Dual stream ---- */

/** enable_dual_stream_mode (any int), set_remote_video_stream_type (uid not 0,
 *  type 0, 1 or a simulcast layer 4..9) and set_remote_default_video_stream_type
 *  (the same types). */
static void run_stream_type_rows(agoraish_engine_t *engine, const char *where) {
    static const int flags[] = {1, 0, -1, INT_MAX, INT_MIN, 0};
    const struct {
        const char *name;
        uint32_t uid;
        int type, expected;
    } rows[] = {
        {"uid 0, high", 0, 0, E_INVALID},
        {"uid 0, low", 0, 1, E_INVALID},
        {"uid 0, layer 1", 0, AGORAISH_VIDEO_STREAM_LAYER_1, E_INVALID},
        {"type 2", 7, 2, E_INVALID},
        {"type 3", 7, 3, E_INVALID},
        {"type 10", 7, 10, E_INVALID},
        {"type -1", 7, -1, E_INVALID},
        {"type INT_MAX", 7, INT_MAX, E_INVALID},
        {"type INT_MIN", 7, INT_MIN, E_INVALID},
        {"a user not (yet) in a call, low", 7, 1, 0},
        {"low twice", 7, 1, 0},
        {"uid 2^32-1, low", 4294967295u, 1, 0},
        {"layer 1 (4)", 7, AGORAISH_VIDEO_STREAM_LAYER_1, 0},
        {"layer 2 (5)", 7, AGORAISH_VIDEO_STREAM_LAYER_2, 0},
        {"layer 3 (6)", 7, AGORAISH_VIDEO_STREAM_LAYER_3, 0},
        {"layer 4 (7)", 7, AGORAISH_VIDEO_STREAM_LAYER_4, 0},
        {"layer 5 (8)", 7, AGORAISH_VIDEO_STREAM_LAYER_5, 0},
        {"layer 6 (9)", 7, AGORAISH_VIDEO_STREAM_LAYER_6, 0},
        {"uid 2^32-1, layer 6", 4294967295u, AGORAISH_VIDEO_STREAM_LAYER_6, 0},
        {"high", 7, 0, 0},
        {"uid 2^32-1, high", 4294967295u, 0, 0},
    };
    const struct {
        const char *name;
        int type, expected;
    } default_rows[] = {
        {"2", 2, E_INVALID},   {"3", 3, E_INVALID},   {"10", 10, E_INVALID},   {"-1", -1, E_INVALID},
        {"INT_MAX", INT_MAX, E_INVALID},            {"INT_MIN", INT_MIN, E_INVALID},
        {"layer 1 (4)", 4, 0}, {"layer 2 (5)", 5, 0}, {"layer 3 (6)", 6, 0}, {"layer 4 (7)", 7, 0},
        {"layer 5 (8)", 8, 0}, {"layer 6 (9)", 9, 0}, {"low", 1, 0},          {"high", 0, 0},
    };
    size_t i;
    for (i = 0; i < COUNT(flags); i++) {
        int rc = agoraish_engine_enable_dual_stream_mode(engine, flags[i]);
        CHECK(rc == 0, "enable_dual_stream_mode(%d) %s: returned %d, expected 0", flags[i], where, rc);
    }
    for (i = 0; i < COUNT(rows); i++) {
        int rc = agoraish_engine_set_remote_video_stream_type(engine, rows[i].uid, rows[i].type);
        CHECK(rc == rows[i].expected, "set_remote_video_stream_type(%s) %s: returned %d, expected %d", rows[i].name,
              where, rc, rows[i].expected);
    }
    for (i = 0; i < COUNT(default_rows); i++) {
        int rc = agoraish_engine_set_remote_default_video_stream_type(engine, default_rows[i].type);
        CHECK(rc == default_rows[i].expected, "set_remote_default_video_stream_type(%s) %s: returned %d, expected %d",
              default_rows[i].name, where, rc, default_rows[i].expected);
    }
}

/* ---- Simulcast (ABI 0.12) ---- */

/** One entry of agoraish_simulcast_config::configs a row sets. */
typedef struct {
    int index, width, height, framerate, enable;
} layer_row_t;

/** set_simulcast_config, or its _ex twin on `connection` when that is not NULL:
 *  NULL, a struct_size other than ABI 0.12's, more than three entries enabled
 *  (any nonzero `enable`), an enabled entry's size outside 16..3840 x 16..2160
 *  or frame rate outside 1..60: -2; entries not enabled are not read;
 *  publish_fallback_enable is any int; the edges are 0. Ends with no entry
 *  enabled (dual stream as enable_dual_stream_mode chose). */
static void run_simulcast_rows(agoraish_engine_t *engine, const agoraish_rtc_connection *connection,
                               const char *where) {
    enum { L1 = AGORAISH_STREAM_LAYER_1, L2 = AGORAISH_STREAM_LAYER_2, L3 = AGORAISH_STREAM_LAYER_3,
           L4 = AGORAISH_STREAM_LAYER_4, L5 = AGORAISH_STREAM_LAYER_5, L6 = AGORAISH_STREAM_LAYER_6,
           LOW = AGORAISH_STREAM_LOW };
    const uint32_t full = sizeof(agoraish_simulcast_config);
    const struct {
        const char *name;
        int null_config;
        int set_size;
        uint32_t struct_size;
        int publish_fallback_enable;
        size_t count;
        layer_row_t layers[AGORAISH_STREAM_LAYER_COUNT_MAX];
        int expected;
    } rows[] = {
        {"NULL", .null_config = 1, .expected = E_INVALID},
        {"struct_size 0", .set_size = 1, .struct_size = 0, .expected = E_INVALID},
        {"struct_size 4", .set_size = 1, .struct_size = 4, .expected = E_INVALID},
        {"struct_size one byte short", .set_size = 1, .struct_size = full - 1, .expected = E_INVALID},
        {"struct_size 8 bytes long", .set_size = 1, .struct_size = full + 8, .expected = E_INVALID},
        {"struct_size UINT32_MAX", .set_size = 1, .struct_size = UINT32_MAX, .expected = E_INVALID},
        {"no entry enabled", .expected = 0},
        {"LAYER_1 480x270, LAYER_2 320x180, STREAM_LOW 160x90", .count = 3,
         .layers = {{L1, 480, 270, 15, 1}, {L2, 320, 180, 15, 1}, {LOW, 160, 90, 15, 1}}, .expected = 0},
        {"four entries enabled", .count = 4,
         .layers = {{L1, 480, 270, 15, 1}, {L2, 320, 180, 15, 1}, {L3, 240, 136, 15, 1}, {LOW, 160, 90, 15, 1}},
         .expected = E_INVALID},
        {"all seven enabled", .count = 7,
         .layers = {{L1, 160, 90, 15, 1}, {L2, 160, 90, 15, 1}, {L3, 160, 90, 15, 1}, {L4, 160, 90, 15, 1},
                    {L5, 160, 90, 15, 1}, {L6, 160, 90, 15, 1}, {LOW, 160, 90, 15, 1}},
         .expected = E_INVALID},
        {"four enabled with enable -1 and INT_MIN", .count = 4,
         .layers = {{L1, 480, 270, 15, -1}, {L2, 320, 180, 15, INT_MIN}, {L3, 240, 136, 15, 2}, {L4, 160, 90, 15, 1}},
         .expected = E_INVALID},
        {"width 0", .count = 1, .layers = {{L1, 0, 270, 15, 1}}, .expected = E_INVALID},
        {"width 15", .count = 1, .layers = {{L1, 15, 270, 15, 1}}, .expected = E_INVALID},
        {"width 3841", .count = 1, .layers = {{L1, 3841, 270, 15, 1}}, .expected = E_INVALID},
        {"width -480", .count = 1, .layers = {{L1, -480, 270, 15, 1}}, .expected = E_INVALID},
        {"width INT_MAX", .count = 1, .layers = {{L1, INT_MAX, 270, 15, 1}}, .expected = E_INVALID},
        {"height 0", .count = 1, .layers = {{L2, 320, 0, 15, 1}}, .expected = E_INVALID},
        {"height 15", .count = 1, .layers = {{L2, 320, 15, 15, 1}}, .expected = E_INVALID},
        {"height 2161", .count = 1, .layers = {{L2, 320, 2161, 15, 1}}, .expected = E_INVALID},
        {"height INT_MIN", .count = 1, .layers = {{L2, 320, INT_MIN, 15, 1}}, .expected = E_INVALID},
        {"framerate 0", .count = 1, .layers = {{LOW, 160, 90, 0, 1}}, .expected = E_INVALID},
        {"framerate 61", .count = 1, .layers = {{LOW, 160, 90, 61, 1}}, .expected = E_INVALID},
        {"framerate -1", .count = 1, .layers = {{LOW, 160, 90, -1, 1}}, .expected = E_INVALID},
        {"framerate INT_MAX", .count = 1, .layers = {{LOW, 160, 90, INT_MAX, 1}}, .expected = E_INVALID},
        {"enable 2 with width 15", .count = 1, .layers = {{L6, 15, 90, 15, 2}}, .expected = E_INVALID},
        {"a bad entry beside good ones", .count = 3,
         .layers = {{L1, 480, 270, 15, 1}, {L2, 320, 180, 61, 1}, {LOW, 160, 90, 15, 1}}, .expected = E_INVALID},
        {"16x16 at 1 fps", .count = 1, .layers = {{L1, 16, 16, 1, 1}}, .expected = 0},
        {"3840x2160 at 60 fps", .count = 1, .layers = {{L6, 3840, 2160, 60, 1}}, .expected = 0},
        {"odd sizes 17x17 (rounded down)", .count = 1, .layers = {{L3, 17, 17, 15, 1}}, .expected = 0},
        {"enable -1 and INT_MIN", .count = 2, .layers = {{L4, 320, 180, 15, -1}, {L5, 160, 90, 15, INT_MIN}},
         .expected = 0},
        {"entries not enabled are not read", .count = 6,
         .layers = {{L1, 480, 270, 15, 1}, {L2, -1, INT_MAX, 0, 0}, {L3, 0, 0, 0, 0}, {L4, 3841, 2161, 61, 0},
                    {L5, INT_MIN, INT_MIN, INT_MIN, 0}, {LOW, 160, 90, 15, 1}},
         .expected = 0},
        {"publish_fallback_enable 1", .publish_fallback_enable = 1, .count = 1, .layers = {{LOW, 160, 90, 15, 1}},
         .expected = 0},
        {"publish_fallback_enable INT_MIN", .publish_fallback_enable = INT_MIN, .count = 1,
         .layers = {{LOW, 160, 90, 15, 1}}, .expected = 0},
        {"no entry enabled again", .expected = 0},
    };
    size_t i, k;
    for (i = 0; i < COUNT(rows); i++) {
        agoraish_simulcast_config config;
        const agoraish_simulcast_config *arg = rows[i].null_config ? NULL : &config;
        int rc;
        memset(&config, 0, sizeof config);
        config.struct_size = rows[i].set_size ? rows[i].struct_size : full;
        config.publish_fallback_enable = rows[i].publish_fallback_enable;
        for (k = 0; k < rows[i].count; k++) {
            const layer_row_t *l = &rows[i].layers[k];
            config.configs[l->index].width = l->width;
            config.configs[l->index].height = l->height;
            config.configs[l->index].framerate = l->framerate;
            config.configs[l->index].enable = l->enable;
        }
        rc = connection ? agoraish_engine_set_simulcast_config_ex(engine, arg, connection)
                        : agoraish_engine_set_simulcast_config(engine, arg);
        CHECK(rc == rows[i].expected, "set_simulcast_config%s(%s) %s: returned %d, expected %d", connection ? "_ex" : "",
              rows[i].name, where, rc, rows[i].expected);
    }
}

/* ---- Fallback and priority (ABI 0.7) ---- */

/** set_local_publish_fallback_option (DISABLED 0 or AUDIO_ONLY 2; VIDEO_STREAM_LOW
 *  is for subscribing), set_remote_subscribe_fallback_option (0..2) and
 *  set_remote_user_priority (uid not 0, HIGH 50 or NORMAL 100). The rows end on
 *  the defaults: publish DISABLED, subscribe VIDEO_STREAM_LOW, no priority. */
static void run_fallback_rows(agoraish_engine_t *engine, const char *where) {
    const struct {
        const char *name;
        int option, expected;
    } publish_rows[] = {
        {"-1", -1, E_INVALID},
        {"VIDEO_STREAM_LOW (1)", AGORAISH_STREAM_FALLBACK_OPTION_VIDEO_STREAM_LOW, E_INVALID},
        {"3", 3, E_INVALID},
        {"INT_MIN", INT_MIN, E_INVALID},
        {"INT_MAX", INT_MAX, E_INVALID},
        {"AUDIO_ONLY (2)", AGORAISH_STREAM_FALLBACK_OPTION_AUDIO_ONLY, 0},
        {"AUDIO_ONLY twice", AGORAISH_STREAM_FALLBACK_OPTION_AUDIO_ONLY, 0},
        {"DISABLED (0)", AGORAISH_STREAM_FALLBACK_OPTION_DISABLED, 0},
    };
    const struct {
        const char *name;
        int option, expected;
    } subscribe_rows[] = {
        {"-1", -1, E_INVALID},
        {"3", 3, E_INVALID},
        {"INT_MIN", INT_MIN, E_INVALID},
        {"INT_MAX", INT_MAX, E_INVALID},
        {"DISABLED (0)", AGORAISH_STREAM_FALLBACK_OPTION_DISABLED, 0},
        {"AUDIO_ONLY (2)", AGORAISH_STREAM_FALLBACK_OPTION_AUDIO_ONLY, 0},
        {"AUDIO_ONLY twice", AGORAISH_STREAM_FALLBACK_OPTION_AUDIO_ONLY, 0},
        {"VIDEO_STREAM_LOW (1)", AGORAISH_STREAM_FALLBACK_OPTION_VIDEO_STREAM_LOW, 0},
    };
    const struct {
        const char *name;
        uint32_t uid;
        int priority, expected;
    } priority_rows[] = {
        {"uid 0, HIGH", 0, AGORAISH_PRIORITY_HIGH, E_INVALID},
        {"uid 0, NORMAL", 0, AGORAISH_PRIORITY_NORMAL, E_INVALID},
        {"priority 0", 7, 0, E_INVALID},
        {"priority 49", 7, 49, E_INVALID},
        {"priority 51", 7, 51, E_INVALID},
        {"priority 101", 7, 101, E_INVALID},
        {"priority -1", 7, -1, E_INVALID},
        {"priority INT_MIN", 7, INT_MIN, E_INVALID},
        {"priority INT_MAX", 7, INT_MAX, E_INVALID},
        {"a user not (yet) in a call, HIGH", 7, AGORAISH_PRIORITY_HIGH, 0},
        {"HIGH twice", 7, AGORAISH_PRIORITY_HIGH, 0},
        {"another user, HIGH", 8, AGORAISH_PRIORITY_HIGH, 0},
        {"NORMAL for a user without HIGH", 7, AGORAISH_PRIORITY_NORMAL, 0},
        {"uid 2^32-1, HIGH", 4294967295u, AGORAISH_PRIORITY_HIGH, 0},
        {"uid 2^32-1, NORMAL", 4294967295u, AGORAISH_PRIORITY_NORMAL, 0},
    };
    size_t i;
    for (i = 0; i < COUNT(publish_rows); i++) {
        int rc = agoraish_engine_set_local_publish_fallback_option(engine, publish_rows[i].option);
        CHECK(rc == publish_rows[i].expected, "set_local_publish_fallback_option(%s) %s: returned %d, expected %d",
              publish_rows[i].name, where, rc, publish_rows[i].expected);
    }
    for (i = 0; i < COUNT(subscribe_rows); i++) {
        int rc = agoraish_engine_set_remote_subscribe_fallback_option(engine, subscribe_rows[i].option);
        CHECK(rc == subscribe_rows[i].expected,
              "set_remote_subscribe_fallback_option(%s) %s: returned %d, expected %d", subscribe_rows[i].name, where,
              rc, subscribe_rows[i].expected);
    }
    for (i = 0; i < COUNT(priority_rows); i++) {
        int rc = agoraish_engine_set_remote_user_priority(engine, priority_rows[i].uid, priority_rows[i].priority);
        CHECK(rc == priority_rows[i].expected, "set_remote_user_priority(%s) %s: returned %d, expected %d",
              priority_rows[i].name, where, rc, priority_rows[i].expected);
    }
}

/* ---- Snapshots ---- */

/** take_snapshot outside a call: NULL, empty or another extension (-2) before -113. */
static void test_take_snapshot_in_no_call(void) {
    const struct {
        const char *name;
        uint32_t uid;
        const char *path;
        int expected;
    } rows[] = {
        {"NULL path", 1, NULL, E_INVALID},
        {"NULL path, uid 0", 0, NULL, E_INVALID},
        {"empty path", 1, "", E_INVALID},
        {"no extension", 1, tmp_path("snapshot"), E_INVALID},
        {".bmp", 1, tmp_path("snapshot.bmp"), E_INVALID},
        {".jpgx", 1, tmp_path("snapshot.jpgx"), E_INVALID},
        {".jpg.txt", 1, tmp_path("snapshot.jpg.txt"), E_INVALID},
        {".jpg", 1, tmp_path("snapshot.jpg"), E_NOT_IN_CHANNEL},
        {".jpeg, uid 0", 0, tmp_path("snapshot.jpeg"), E_NOT_IN_CHANNEL},
        {".png, uid 2^32-1", 4294967295u, tmp_path("snapshot.png"), E_NOT_IN_CHANNEL},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        int rc = agoraish_engine_take_snapshot(live, rows[i].uid, rows[i].path);
        CHECK(rc == rows[i].expected, "take_snapshot(%s) in no call: returned %d, expected %d", rows[i].name, rc,
              rows[i].expected);
    }
    CHECK(access(tmp_path("snapshot.jpg"), F_OK) != 0 && access(tmp_path("handle.jpg"), F_OK) != 0,
          "a refused take_snapshot created its file");
}

/* ---- Watermarks ---- */

/** add_video_watermark: the file (a readable PNG up to 4096 x 4096), the options and their rectangles. */
static void test_add_video_watermark(void) {
    const size_t full = sizeof(agoraish_watermark_options);
    /* Which rectangle field a row changes: landscape x, y, width, height, then portrait's. */
    enum { NONE, LX, LY, LW, LH, PX, PY, PW, PH };
    const struct {
        const char *name;
        const char *path;
        int null_options, set_size;
        uint32_t struct_size;
        int field, value;
        int expected;
    } rows[] = {
        {"NULL path", NULL, .expected = E_INVALID},
        {"empty path", "", .expected = E_INVALID},
        {"a missing file", png_missing, .expected = E_INVALID},
        {"a directory", tmpdir, .expected = E_INVALID},
        {"a text file named .png", png_not_png, .expected = E_INVALID},
        {"a truncated PNG", png_truncated, .expected = E_INVALID},
        {"a PNG 4097 pixels wide", png_4097, .expected = E_INVALID},
        {"NULL options", png_ok, .null_options = 1, .expected = E_INVALID},
        {"struct_size 0", png_ok, .set_size = 1, .struct_size = 0, .expected = E_INVALID},
        {"struct_size 4", png_ok, .set_size = 1, .struct_size = 4, .expected = E_INVALID},
        {"struct_size one field short", png_ok, .set_size = 1, .struct_size = (uint32_t)(full - sizeof(int)),
         .expected = E_INVALID},
        {"struct_size one byte short", png_ok, .set_size = 1, .struct_size = (uint32_t)(full - 1),
         .expected = E_INVALID},
        {"struct_size splitting a field", png_ok, .set_size = 1, .struct_size = (uint32_t)(full + 2),
         .expected = E_INVALID},
        {"landscape_x -1", png_ok, .field = LX, .value = -1, .expected = E_INVALID},
        {"landscape_x 4097", png_ok, .field = LX, .value = 4097, .expected = E_INVALID},
        {"landscape_y -1", png_ok, .field = LY, .value = -1, .expected = E_INVALID},
        {"landscape_y INT_MAX", png_ok, .field = LY, .value = INT_MAX, .expected = E_INVALID},
        {"landscape_width 0", png_ok, .field = LW, .value = 0, .expected = E_INVALID},
        {"landscape_width 4097", png_ok, .field = LW, .value = 4097, .expected = E_INVALID},
        {"landscape_height 0", png_ok, .field = LH, .value = 0, .expected = E_INVALID},
        {"landscape_height -32", png_ok, .field = LH, .value = -32, .expected = E_INVALID},
        {"portrait_x INT_MIN", png_ok, .field = PX, .value = INT_MIN, .expected = E_INVALID},
        {"portrait_y 4097", png_ok, .field = PY, .value = 4097, .expected = E_INVALID},
        {"portrait_width 0", png_ok, .field = PW, .value = 0, .expected = E_INVALID},
        {"portrait_height 4097", png_ok, .field = PH, .value = 4097, .expected = E_INVALID},
        /* Accepted: edges, a portrait PNG, a replacement. */
        {"a 64x32 PNG", png_ok, .expected = 0},
        {"landscape_x 4096 (clipped away)", png_ok, .field = LX, .value = 4096, .expected = 0},
        {"landscape_y 4096", png_ok, .field = LY, .value = 4096, .expected = 0},
        {"landscape_width 1", png_ok, .field = LW, .value = 1, .expected = 0},
        {"portrait_height 4096", png_ok, .field = PH, .value = 4096, .expected = 0},
        {"a PNG 4096 pixels wide", png_4096, .expected = 0},
        {"a 16x48 PNG replacing it", png_portrait, .expected = 0},
        {"struct_size larger than any header's", png_ok, .set_size = 1, .struct_size = (uint32_t)(full + 64),
         .expected = E_INVALID},
    };
    size_t i;
    for (i = 0; i < COUNT(rows); i++) {
        union {
            agoraish_watermark_options options;
            unsigned char bytes[sizeof(agoraish_watermark_options) + 64];
        } storage;
        int *fields[9];
        int rc;
        memset(&storage, 0, sizeof storage);
        storage.options.struct_size = rows[i].set_size ? rows[i].struct_size : (uint32_t)sizeof storage.options;
        storage.options.visible_in_preview = 1;
        storage.options.landscape_x = 8;
        storage.options.landscape_y = 8;
        storage.options.landscape_width = 64;
        storage.options.landscape_height = 32;
        storage.options.portrait_x = 8;
        storage.options.portrait_y = 8;
        storage.options.portrait_width = 32;
        storage.options.portrait_height = 64;
        fields[NONE] = NULL;
        fields[LX] = &storage.options.landscape_x;
        fields[LY] = &storage.options.landscape_y;
        fields[LW] = &storage.options.landscape_width;
        fields[LH] = &storage.options.landscape_height;
        fields[PX] = &storage.options.portrait_x;
        fields[PY] = &storage.options.portrait_y;
        fields[PW] = &storage.options.portrait_width;
        fields[PH] = &storage.options.portrait_height;
        if (rows[i].field != NONE) *fields[rows[i].field] = rows[i].value;
        rc = agoraish_engine_add_video_watermark(live, rows[i].path, rows[i].null_options ? NULL : &storage.options);
        CHECK(rc == rows[i].expected, "add_video_watermark(%s): returned %d, expected %d", rows[i].name, rc,
              rows[i].expected);
    }
    CHECK_RC(agoraish_engine_clear_video_watermarks(live), 0, "clear_video_watermarks");
    CHECK_RC(agoraish_engine_clear_video_watermarks(live), 0, "clear_video_watermarks twice");
}

/* ---- Cameras ---- */

/** The camera functions: enumeration indexes, device ids, the caller-buffer
 *  convention of get_current_video_device, capture configurations, switch_camera. */
static void test_video_devices(void) {
    const int count = agoraish_engine_get_video_device_count(live);
    agoraish_video_device_info info;
    char buf[64];
    size_t len, i;
    int rc;
    const struct {
        const char *name;
        int index, null_info, expected;
    } device_rows[] = {
        {"NULL info", 0, 1, E_INVALID},
        {"index -1", -1, 0, E_INVALID},
        {"index INT_MIN", INT_MIN, 0, E_INVALID},
        {"index = count", count, 0, E_INVALID},
        {"index INT_MAX", INT_MAX, 0, E_INVALID},
        {"index 0", 0, 0, count > 0 ? 0 : E_INVALID},
        {"the last index", count - 1, 0, count > 0 ? 0 : E_INVALID},
    };
    const struct {
        const char *name;
        const char *id;
        int expected;
    } id_rows[] = {
        {"NULL", NULL, E_INVALID},
        {"empty", "", E_INVALID},
        {"512 bytes", device_512, E_INVALID},
        {"511 bytes", device_511, 0},
        {"a path with no camera", "/dev/video99", 0},
    };
    /* The id is "/dev/video99": 13 bytes with the NUL. */
    const struct {
        const char *name;
        int null_buf, null_len;
        size_t capacity;
        int expected;
        size_t expected_len; /* 0: not checked */
    } buffer_rows[] = {
        {"NULL len", 0, 1, 64, E_INVALID, 0},
        {"NULL buf, *len 0 (size query)", 1, 0, 0, E_TOO_SMALL, 13},
        {"NULL buf, *len 16", 1, 0, 16, E_INVALID, 0},
        {"capacity 0", 0, 0, 0, E_TOO_SMALL, 13},
        {"capacity one short of the NUL", 0, 0, 12, E_TOO_SMALL, 13},
        {"exact capacity", 0, 0, 13, 0, 13},
        {"large capacity", 0, 0, 64, 0, 13},
    };
    const size_t config_full = sizeof(agoraish_camera_capturer_configuration);
    const struct {
        const char *name;
        int null_config, set_size;
        uint32_t struct_size;
        int preference, width, height;
        int expected;
    } config_rows[] = {
        {"NULL", .null_config = 1, .width = 640, .height = 480, .expected = E_INVALID},
        {"struct_size 0", .set_size = 1, .struct_size = 0, .width = 640, .height = 480, .expected = E_INVALID},
        {"struct_size 4", .set_size = 1, .struct_size = 4, .width = 640, .height = 480, .expected = E_INVALID},
        {"struct_size one field short", .set_size = 1, .struct_size = (uint32_t)(config_full - sizeof(int)),
         .width = 640, .height = 480, .expected = E_INVALID},
        {"struct_size one byte short", .set_size = 1, .struct_size = (uint32_t)(config_full - 1), .width = 640,
         .height = 480, .expected = E_INVALID},
        {"struct_size splitting a field", .set_size = 1, .struct_size = (uint32_t)(config_full + 2), .width = 640,
         .height = 480, .expected = E_INVALID},
        {"preference -1", .preference = -1, .width = 640, .height = 480, .expected = E_INVALID},
        {"preference 4", .preference = 4, .width = 640, .height = 480, .expected = E_INVALID},
        {"preference INT_MAX", .preference = INT_MAX, .width = 640, .height = 480, .expected = E_INVALID},
        {"MANUAL, width 15", .preference = 3, .width = 15, .height = 480, .expected = E_INVALID},
        {"MANUAL, width 4097", .preference = 3, .width = 4097, .height = 480, .expected = E_INVALID},
        {"MANUAL, width -640", .preference = 3, .width = -640, .height = 480, .expected = E_INVALID},
        {"MANUAL, height 15", .preference = 3, .width = 640, .height = 15, .expected = E_INVALID},
        {"MANUAL, height 4097", .preference = 3, .width = 640, .height = 4097, .expected = E_INVALID},
        {"MANUAL, height INT_MIN", .preference = 3, .width = 640, .height = INT_MIN, .expected = E_INVALID},
        {"AUTO, size 0x0", .preference = 0, .expected = E_INVALID},
        {"AUTO, 640x480", .preference = 0, .width = 640, .height = 480, .expected = 0},
        {"PERFORMANCE", .preference = 1, .width = 640, .height = 480, .expected = 0},
        {"PREVIEW", .preference = 2, .width = 640, .height = 480, .expected = 0},
        {"MANUAL, 16x16", .preference = 3, .width = 16, .height = 16, .expected = 0},
        {"MANUAL, 4096x4096", .preference = 3, .width = 4096, .height = 4096, .expected = 0},
        {"struct_size larger than any header's", .set_size = 1, .struct_size = (uint32_t)(config_full + 64),
         .preference = 3, .width = 1280, .height = 720, .expected = E_INVALID},
        {"AUTO, 640x480 again", .preference = 0, .width = 640, .height = 480, .expected = 0},
    };

    CHECK(count >= 0, "get_video_device_count: %d", count);
    for (i = 0; i < COUNT(device_rows); i++) {
        memset(&info, 0, sizeof info);
        rc = agoraish_engine_get_video_device(live, device_rows[i].index, device_rows[i].null_info ? NULL : &info);
        CHECK(rc == device_rows[i].expected, "get_video_device(%s): returned %d, expected %d", device_rows[i].name, rc,
              device_rows[i].expected);
        if (rc == 0) {
            CHECK(info.id[0] != '\0' && memchr(info.id, '\0', sizeof info.id) != NULL &&
                      memchr(info.name, '\0', sizeof info.name) != NULL && info.format_count >= 0 &&
                      info.format_count <= AGORAISH_MAX_VIDEO_FORMATS,
                  "get_video_device(%s): id \"%.40s\", %d formats", device_rows[i].name, info.id, info.format_count);
        }
    }

    /* Before any set_video_device: the first camera, or -3 without one. */
    len = sizeof buf;
    rc = agoraish_engine_get_current_video_device(live, buf, &len);
    CHECK(rc == (count > 0 ? 0 : E_NOT_READY), "get_current_video_device before set_video_device (%d cameras): %d",
          count, rc);
    CHECK_RC(agoraish_engine_get_current_video_device(live, buf, NULL), E_INVALID,
             "get_current_video_device(NULL len) before set_video_device");

    for (i = 0; i < COUNT(id_rows); i++) {
        rc = agoraish_engine_set_video_device(live, id_rows[i].id);
        CHECK(rc == id_rows[i].expected, "set_video_device(%s): returned %d, expected %d", id_rows[i].name, rc,
              id_rows[i].expected);
    }
    for (i = 0; i < COUNT(buffer_rows); i++) {
        len = buffer_rows[i].capacity;
        memset(buf, 'Z', sizeof buf);
        rc = agoraish_engine_get_current_video_device(live, buffer_rows[i].null_buf ? NULL : buf,
                                                      buffer_rows[i].null_len ? NULL : &len);
        CHECK(rc == buffer_rows[i].expected, "get_current_video_device(%s): returned %d, expected %d",
              buffer_rows[i].name, rc, buffer_rows[i].expected);
        if (buffer_rows[i].expected_len) {
            CHECK(len == buffer_rows[i].expected_len, "get_current_video_device(%s): *len %zu, expected %zu",
                  buffer_rows[i].name, len, buffer_rows[i].expected_len);
        }
        if (rc == E_TOO_SMALL) {
            size_t j;
            int untouched = 1;
            for (j = 0; j < sizeof buf; j++) untouched &= buf[j] == 'Z';
            CHECK(untouched, "get_current_video_device(%s): -6 but the buffer was written", buffer_rows[i].name);
        }
        if (rc == 0) {
            CHECK(strcmp(buf, "/dev/video99") == 0, "get_current_video_device(%s): \"%.16s\"", buffer_rows[i].name,
                  buf);
        }
    }

    for (i = 0; i < COUNT(config_rows); i++) {
        union {
            agoraish_camera_capturer_configuration config;
            unsigned char bytes[sizeof(agoraish_camera_capturer_configuration) + 64];
        } storage;
        memset(&storage, 0, sizeof storage);
        storage.config.struct_size = config_rows[i].set_size ? config_rows[i].struct_size : (uint32_t)config_full;
        storage.config.preference = config_rows[i].preference;
        storage.config.capture_width = config_rows[i].width;
        storage.config.capture_height = config_rows[i].height;
        rc = agoraish_engine_set_camera_capturer_configuration(live, config_rows[i].null_config ? NULL : &storage.config);
        CHECK(rc == config_rows[i].expected, "set_camera_capturer_configuration(%s): returned %d, expected %d",
              config_rows[i].name, rc, config_rows[i].expected);
    }

    if (count < 2) {
        CHECK_RC(agoraish_engine_switch_camera(live), E_NOT_SUPPORTED, "switch_camera with fewer than two cameras");
        CHECK_RC(agoraish_engine_switch_camera(live), E_NOT_SUPPORTED, "switch_camera twice");
    }
}

/* ---- Video in a call ---- */

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int joins, published;
    int snapshots_failed, snapshots_other; /* on_snapshot_taken with error -1 (no size), and anything else */
} video_events_t;

static video_events_t video_events;

static void video_on_join(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    (void)e, (void)ud, (void)channel, (void)uid, (void)elapsed;
    count_up(&video_events.mutex, &video_events.cond, &video_events.joins);
}
static void video_on_published(agoraish_engine_t *e, void *ud, int elapsed) {
    (void)e, (void)ud, (void)elapsed;
    count_up(&video_events.mutex, &video_events.cond, &video_events.published);
}
static void video_on_snapshot(agoraish_engine_t *e, void *ud, uint32_t uid, const char *path, int width, int height,
                              int error) {
    const int failed = error == -1 && width == 0 && height == 0 && (uid == 7 || uid == 8) && path != NULL &&
                       strstr(path, "waiting") != NULL;
    (void)e, (void)ud;
    count_up(&video_events.mutex, &video_events.cond, failed ? &video_events.snapshots_failed : &video_events.snapshots_other);
}

/** The rows again in a call (with video on and an external source, so that accepted pictures are encoded and sent). */
static void test_video_in_a_call(void) {
    agoraish_server_t *server = create_server(0, NULL);
    agoraish_engine_t *engine = NULL;
    agoraish_event_handler handler = empty_handler(NULL);
    char url[128];
    size_t len = sizeof url;
    /* 32x32 pictures: libvpx's VP8 encoder reads a value of its own stack that
     * it never set when a picture is one macroblock (16 rows) high, which
     * valgrind reports; nothing here is meant to show that. */
    const push_row_t rows[] = {
        {"NULL", .null_frame = 1, .format = I420, .expected = E_INVALID},
        {"format 6", .format = 6, .height = 32, .set_strides = 1, .y_stride = 128, .u_stride = 128, .v_stride = 128,
         .expected = E_INVALID},
        {"width 18, y_stride 17", .format = I420, .width = 18, .height = 32, .set_strides = 1, .y_stride = 17,
         .u_stride = 9, .v_stride = 9, .expected = E_INVALID},
        {"NV12 without its chroma plane", .format = NV12, .height = 32, .planes = PY, .expected = E_INVALID},
        {"I420 at 0 ms", .format = I420, .height = 32, .timestamp = 0, .expected = 0},
        {"NV12 at 66 ms", .format = NV12, .height = 32, .timestamp = 66, .expected = 0},
        {"NV21 at 133 ms", .format = NV21, .height = 32, .timestamp = 133, .expected = 0},
        {"BGRA at 200 ms", .format = BGRA, .height = 32, .timestamp = 200, .expected = 0},
        {"RGBA at 266 ms", .format = RGBA, .height = 32, .timestamp = 266, .expected = 0},
        {"64x48 (a new size) at 333 ms", .format = I420, .width = 64, .height = 48, .timestamp = 333, .expected = 0},
        {"1280x128, larger than configured: scaled down, at 400 ms", .format = I420, .width = 1280, .height = 128,
         .timestamp = 400, .expected = 0},
        {"I420 32x48 rotated 90 (48x32) at 433 ms", .format = I420, .width = 32, .height = 48, .rotation = 90,
         .timestamp = 433, .expected = 0},
        {"NV12 rotated 180 at 466 ms", .format = NV12, .height = 32, .rotation = 180, .timestamp = 466, .expected = 0},
        {"RGBA 64x32 rotated 270 (32x64) at 500 ms", .format = RGBA, .width = 64, .height = 32, .rotation = 270,
         .timestamp = 500, .expected = 0},
        {"rotation 45", .format = I420, .height = 32, .rotation = 45, .timestamp = 533, .expected = E_INVALID},
        {"the same timestamp again", .format = I420, .height = 32, .timestamp = 400, .expected = 0},
        {"a timestamp going back", .format = I420, .height = 32, .timestamp = 100, .expected = 0},
    };
    agoraish_video_encoder_configuration config;

    memset(&video_events, 0, sizeof video_events);
    monitor_init(&video_events.mutex, &video_events.cond);
    handler.on_join_channel_success = video_on_join;
    handler.on_first_local_video_frame_published = video_on_published;
    handler.on_snapshot_taken = video_on_snapshot;
    CHECK(server != NULL && agoraish_server_start(server) == 0 && agoraish_server_get_url(server, url, &len) == 0,
          "start a server for the video rows");
    if (!server) goto done;
    engine = new_engine("bad-input-video", &handler, url, "video-rows.log");
    CHECK(engine != NULL, "create the video engine: last error %d", agoraish_get_last_error());
    if (!engine) goto done;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.width = 320;
    config.height = 240;
    config.frame_rate = 15;
    config.bitrate = 200;
    config.min_bitrate = -1;
    config.codec_type = AGORAISH_VIDEO_CODEC_VP8;
    CHECK_RC(agoraish_engine_set_video_encoder_configuration(engine, &config), 0, "set_video_encoder_configuration");
    CHECK_RC(agoraish_engine_join_channel(engine, NULL, "bad-input-video", NULL, 0), 0, "join_channel");
    CHECK(wait_count(&video_events.mutex, &video_events.cond, &video_events.joins, 1, 15) >= 1,
          "no on_join_channel_success for the video rows");
    run_push_rows(engine, "in a call, without an external source",
                  (const push_row_t[]){{"I420", .format = I420, .height = 32, .expected = E_NOT_READY}}, 1);
    CHECK_RC(agoraish_engine_enable_video(engine), 0, "enable_video in a call");
    CHECK_RC(agoraish_engine_set_external_video_source(engine, 1), 0, "set_external_video_source(1) in a call");
    /* Dual stream: each accepted picture is also encoded small (the low stream). */
    CHECK_RC(agoraish_engine_enable_dual_stream_mode(engine, 1), 0, "enable_dual_stream_mode(1) in a call");
    run_push_rows(engine, "in a call", rows, COUNT(rows));
    CHECK(wait_count(&video_events.mutex, &video_events.cond, &video_events.published, 1, 15) >= 1,
          "no on_first_local_video_frame_published after the pushes in a call");
    run_canvas_rows(engine, "in a call", canvas_rows, COUNT(canvas_rows));
    run_video_mute_rows(engine, "in a call");
    run_local_canvas_rows(engine, "in a call");
    run_render_mode_rows(engine, "in a call");
    run_stream_type_rows(engine, "in a call");
    run_simulcast_rows(engine, NULL, "in a call");
    /* The _ex twin on a connection of the same engine (joining: the rows need no call). */
    {
        agoraish_rtc_connection connection;
        memset(&connection, 0, sizeof connection);
        connection.struct_size = sizeof connection;
        connection.channel_id = "bad-input-video-ex";
        connection.local_uid = 11;
        CHECK_RC(agoraish_engine_join_channel_ex(engine, NULL, &connection, NULL, NULL, NULL), 0, "join_channel_ex");
        run_simulcast_rows(engine, &connection, "on a connection");
        CHECK_RC(agoraish_engine_leave_channel_ex(engine, &connection), 0, "leave_channel_ex");
    }
    run_fallback_rows(engine, "in a call");
    /* Snapshots of users who send nothing wait: eight per user, the ninth is
     * -12; the call's end fails the waiting ones with -1. */
    {
        char path[64];
        int i, rc;
        CHECK_RC(agoraish_engine_take_snapshot(engine, 7, NULL), E_INVALID, "take_snapshot(NULL path) in a call");
        CHECK_RC(agoraish_engine_take_snapshot(engine, 7, tmp_path("waiting.gif")), E_INVALID,
                 "take_snapshot(.gif) in a call");
        for (i = 0; i < 8; i++) {
            snprintf(path, sizeof path, "waiting-%d.%s", i, i % 2 ? "png" : "jpg");
            rc = agoraish_engine_take_snapshot(engine, 7, tmp_path(path));
            CHECK(rc == 0, "take_snapshot(7, %s) in a call: returned %d, expected 0", path, rc);
        }
        CHECK_RC(agoraish_engine_take_snapshot(engine, 7, tmp_path("waiting-8.jpg")), -AGORAISH_ERR_TOO_OFTEN,
                 "a ninth take_snapshot of user 7 waiting");
        CHECK_RC(agoraish_engine_take_snapshot(engine, 8, tmp_path("waiting-uid-8.jpeg")), 0,
                 "take_snapshot of another user while 8 of user 7 wait");
    }
    CHECK_RC(agoraish_engine_disable_video(engine), 0, "disable_video in a call");
    CHECK_RC(agoraish_engine_leave_channel(engine), 0, "leave_channel");
    CHECK(wait_count(&video_events.mutex, &video_events.cond, &video_events.snapshots_failed, 9, 15) == 9,
          "on_snapshot_taken(error -1, 0x0) for the 9 snapshots waiting when the call ended: %d",
          read_count(&video_events.mutex, &video_events.snapshots_failed));
    CHECK(read_count(&video_events.mutex, &video_events.snapshots_other) == 0,
          "%d other on_snapshot_taken events for snapshots that never had a picture",
          read_count(&video_events.mutex, &video_events.snapshots_other));

done:
    if (engine) CHECK(agoraish_engine_release(engine, 1) == 0, "release the video engine");
    if (server) CHECK(agoraish_server_release(server) == 0, "release the video rows' server");
    monitor_destroy(&video_events.mutex, &video_events.cond);
}

#undef I420
#undef BGRA
#undef NV21
#undef RGBA
#undef NV12

/* ------------------------------------------------------------------------ */
/* Echo test                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int joins, leaves, connected;
} echo_events_t;

static echo_events_t echo_events;

static void echo_on_join(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    (void)e, (void)ud, (void)channel, (void)uid, (void)elapsed;
    count_up(&echo_events.mutex, &echo_events.cond, &echo_events.joins);
}
static void echo_on_leave(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *stats) {
    (void)e, (void)ud, (void)stats;
    count_up(&echo_events.mutex, &echo_events.cond, &echo_events.leaves);
}
static void echo_on_state(agoraish_engine_t *e, void *ud, int state, int reason) {
    (void)e, (void)ud, (void)reason;
    if (state == AGORAISH_CONNECTION_STATE_CONNECTED) count_up(&echo_events.mutex, &echo_events.cond, &echo_events.connected);
}

/** An echo test configuration of this header's size: audio, no video, the interval. */
static agoraish_echo_test_configuration echo_config(int interval, const char *token, const char *channel_id) {
    agoraish_echo_test_configuration config;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.enable_audio = 1;
    config.enable_video = 0;
    config.token = token;
    config.channel_id = channel_id;
    config.interval_in_seconds = interval;
    return config;
}

/** Every configuration start_echo_test_with_config rejects, whatever runs
 *  (checked before the engine's state): -2 for NULL, struct_size, intervals,
 *  no medium, channel names and strings that are not UTF-8; then -4 for video. */
static void run_bad_echo_configs(agoraish_engine_t *engine, const char *where) {
    const uint32_t full = (uint32_t)sizeof(agoraish_echo_test_configuration);
    static char long_channel[65];
    const struct {
        const char *name;
        uint32_t struct_size;
        int audio, video, interval;
        const char *token, *channel;
        int expected;
    } rows[] = {
        {"struct_size 0", 0, 1, 0, 2, NULL, NULL, E_INVALID},
        {"struct_size 4", 4, 1, 0, 2, NULL, NULL, E_INVALID},
        {"struct_size one field short", full - 4, 1, 0, 2, NULL, NULL, E_INVALID},
        {"struct_size one byte short", full - 1, 1, 0, 2, NULL, NULL, E_INVALID},
        {"struct_size splitting a field", full + 1, 1, 0, 2, NULL, NULL, E_INVALID},
        {"interval 0", full, 1, 0, 0, NULL, NULL, E_INVALID},
        {"interval 1", full, 1, 0, 1, NULL, NULL, E_INVALID},
        {"interval 11", full, 1, 0, 11, NULL, NULL, E_INVALID},
        {"interval -1", full, 1, 0, -1, NULL, NULL, E_INVALID},
        {"interval INT_MIN", full, 1, 0, INT_MIN, NULL, NULL, E_INVALID},
        {"interval INT_MAX", full, 1, 0, INT_MAX, NULL, NULL, E_INVALID},
        {"neither audio nor video", full, 0, 0, 2, NULL, NULL, E_INVALID},
        {"channel with a slash", full, 1, 0, 2, NULL, "no/slash", E_INVALID},
        {"channel of 64 bytes", full, 1, 0, 2, NULL, long_channel, E_INVALID},
        {"channel not UTF-8", full, 1, 0, 2, NULL, "\xff\xfe", E_INVALID},
        {"token not UTF-8", full, 1, 0, 2, "007\xff", NULL, E_INVALID},
        {"video and a bad interval: -2 first", full, 1, 1, 11, NULL, NULL, E_INVALID},
        {"video and a bad channel: -2 first", full, 1, 1, 2, NULL, "no/slash", E_INVALID},
        {"audio and video", full, 1, 1, 2, NULL, NULL, E_NOT_SUPPORTED},
        {"video alone", full, 0, 1, 2, NULL, NULL, E_NOT_SUPPORTED},
        {"video as -1 (nonzero)", full, 1, -1, 10, "token", "echo", E_NOT_SUPPORTED},
    };
    size_t i;
    int rc;
    memset(long_channel, 'c', 64);
    long_channel[64] = '\0';
    rc = agoraish_engine_start_echo_test_with_config(engine, NULL);
    CHECK(rc == E_INVALID, "start_echo_test_with_config(NULL) %s: returned %d, expected %d", where, rc, E_INVALID);
    for (i = 0; i < COUNT(rows); i++) {
        agoraish_echo_test_configuration config = echo_config(rows[i].interval, rows[i].token, rows[i].channel);
        config.struct_size = rows[i].struct_size;
        config.enable_audio = rows[i].audio;
        config.enable_video = rows[i].video;
        rc = agoraish_engine_start_echo_test_with_config(engine, &config);
        CHECK(rc == rows[i].expected, "start_echo_test_with_config(%s) %s: returned %d, expected %d", rows[i].name,
              where, rc, rows[i].expected);
    }
}

/** Intervals outside 2..10, bad configurations and stop without a test on the
 *  live engine (decided before anything is sent); the states against an
 *  embedded server. */
static void test_echo_test(void) {
    static const struct {
        const char *name;
        int interval;
    } bad_intervals[] = {{"0", 0}, {"1", 1}, {"11", 11}, {"-1", -1}, {"INT_MIN", INT_MIN}, {"INT_MAX", INT_MAX}};
    agoraish_server_t *server = NULL;
    agoraish_engine_t *engine = NULL;
    agoraish_event_handler handler = empty_handler(NULL);
    agoraish_echo_test_configuration config;
    char url[128];
    size_t i, len = sizeof url;
    int rc;

    for (i = 0; i < COUNT(bad_intervals); i++) {
        rc = agoraish_engine_start_echo_test(live, bad_intervals[i].interval);
        CHECK(rc == E_INVALID, "start_echo_test(%s) on an engine in no channel: returned %d, expected %d",
              bad_intervals[i].name, rc, E_INVALID);
    }
    run_bad_echo_configs(live, "on an engine in no channel");
    CHECK_RC(agoraish_engine_stop_echo_test(live), E_REFUSED, "stop_echo_test without an echo test");
    CHECK_RC(agoraish_engine_stop_echo_test(live), E_REFUSED, "stop_echo_test without an echo test, twice");
    CHECK(agoraish_engine_get_connection_state(live) == AGORAISH_CONNECTION_STATE_DISCONNECTED,
          "the rejected echo tests connected the live engine");

    memset(&echo_events, 0, sizeof echo_events);
    monitor_init(&echo_events.mutex, &echo_events.cond);
    handler.on_join_channel_success = echo_on_join;
    handler.on_leave_channel = echo_on_leave;
    handler.on_connection_state_changed = echo_on_state;
    server = create_server(0, NULL);
    CHECK(server != NULL && agoraish_server_start(server) == 0 && agoraish_server_get_url(server, url, &len) == 0,
          "start a server for the echo test rows");
    if (!server) goto done;
    engine = new_engine("bad-input-echo", &handler, url, "echo-rows.log");
    CHECK(engine != NULL, "create the echo test engine: last error %d", agoraish_get_last_error());
    if (!engine) goto done;

    CHECK_RC(agoraish_engine_stop_echo_test(engine), E_REFUSED, "stop_echo_test before any echo test");
    CHECK_RC(agoraish_engine_start_echo_test(engine, 2), 0, "start_echo_test(2)");
    CHECK_RC(agoraish_engine_start_echo_test(engine, 2), E_REFUSED, "start_echo_test twice");
    CHECK_RC(agoraish_engine_start_echo_test(engine, 10), E_REFUSED, "start_echo_test(10) during the test");
    for (i = 0; i < COUNT(bad_intervals); i++) {
        rc = agoraish_engine_start_echo_test(engine, bad_intervals[i].interval);
        CHECK(rc == E_INVALID, "start_echo_test(%s) during the test: returned %d, expected %d", bad_intervals[i].name,
              rc, E_INVALID);
    }
    config = echo_config(2, NULL, NULL);
    CHECK_RC(agoraish_engine_start_echo_test_with_config(engine, &config), E_REFUSED,
             "start_echo_test_with_config during the test");
    run_bad_echo_configs(engine, "during the test");
    CHECK_RC(agoraish_engine_join_channel(engine, NULL, "bad-input-echo", NULL, 0), E_JOIN_REJECTED,
             "join_channel during the echo test");
    CHECK(wait_count(&echo_events.mutex, &echo_events.cond, &echo_events.connected, 1, 15) >= 1,
          "the echo test never reached CONNECTED");
    CHECK_RC(agoraish_engine_stop_echo_test(engine), 0, "stop_echo_test");
    CHECK_RC(agoraish_engine_stop_echo_test(engine), E_REFUSED, "stop_echo_test twice");

    /* A configuration with a channel and a token (the server has no certificate:
     * the token is not checked), at the longest interval; then the defaults. */
    config = echo_config(10, "007-not-checked", "bad-input-echo-config");
    config.enable_video = 0;
    CHECK_RC(agoraish_engine_start_echo_test_with_config(engine, &config), 0,
             "start_echo_test_with_config(10 s, a channel and a token)");
    CHECK_RC(agoraish_engine_start_echo_test(engine, 2), E_REFUSED, "start_echo_test during a configured test");
    CHECK_RC(agoraish_engine_start_echo_test_with_config(engine, &config), E_REFUSED,
             "start_echo_test_with_config twice");
    CHECK(wait_count(&echo_events.mutex, &echo_events.cond, &echo_events.connected, 2, 15) >= 2,
          "the configured echo test never reached CONNECTED");
    CHECK_RC(agoraish_engine_stop_echo_test(engine), 0, "stop_echo_test of the configured test");
    config = echo_config(2, "", "");
    CHECK_RC(agoraish_engine_start_echo_test_with_config(engine, &config), 0,
             "start_echo_test_with_config(\"\" token and channel)");
    CHECK_RC(agoraish_engine_stop_echo_test(engine), 0, "stop_echo_test of the test with empty strings");

    /* A normal call afterwards: its join and leave are the only ones reported. */
    CHECK_RC(agoraish_engine_join_channel(engine, NULL, "bad-input-echo", NULL, 0), 0, "join_channel after the echo test");
    CHECK(wait_count(&echo_events.mutex, &echo_events.cond, &echo_events.joins, 1, 15) >= 1,
          "no on_join_channel_success after the echo test");
    /* ABI 0.11: in a channel the test runs beside the call, in a connection of its own. */
    CHECK_RC(agoraish_engine_start_echo_test(engine, 2), 0, "start_echo_test in a channel (beside the call)");
    CHECK_RC(agoraish_engine_start_echo_test(engine, 1), E_INVALID, "start_echo_test(1) in a channel");
    config = echo_config(2, NULL, NULL);
    CHECK_RC(agoraish_engine_start_echo_test_with_config(engine, &config), E_REFUSED,
             "start_echo_test_with_config in a channel, a test running beside the call");
    run_bad_echo_configs(engine, "in a channel");
    CHECK_RC(agoraish_engine_stop_echo_test(engine), 0, "stop_echo_test of the test beside the call");
    CHECK_RC(agoraish_engine_stop_echo_test(engine), E_REFUSED, "stop_echo_test in a channel, no test");
    CHECK_RC(agoraish_engine_leave_channel(engine), 0, "leave_channel after the echo test");
    CHECK(wait_count(&echo_events.mutex, &echo_events.cond, &echo_events.leaves, 1, 15) >= 1,
          "no on_leave_channel after the call that followed the echo test");
    CHECK(read_count(&echo_events.mutex, &echo_events.joins) == 1 &&
              read_count(&echo_events.mutex, &echo_events.leaves) == 1,
          "the echo test's channel was reported: %d joins, %d leaves (expected 1 and 1, the call's)",
          read_count(&echo_events.mutex, &echo_events.joins), read_count(&echo_events.mutex, &echo_events.leaves));

done:
    if (engine) CHECK(agoraish_engine_release(engine, 1) == 0, "release the echo test engine");
    if (server) CHECK(agoraish_server_release(server) == 0, "release the echo test rows' server");
    monitor_destroy(&echo_events.mutex, &echo_events.cond);
}

/* ------------------------------------------------------------------------ */
/* Last-mile test and probe (ABI 0.7)                                        */
/* ------------------------------------------------------------------------ */

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int joins, leaves, connected, probe_results;
} lastmile_events_t;

static lastmile_events_t lastmile_events;

static void lastmile_on_join(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    (void)e, (void)ud, (void)channel, (void)uid, (void)elapsed;
    count_up(&lastmile_events.mutex, &lastmile_events.cond, &lastmile_events.joins);
}
static void lastmile_on_leave(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *stats) {
    (void)e, (void)ud, (void)stats;
    count_up(&lastmile_events.mutex, &lastmile_events.cond, &lastmile_events.leaves);
}
static void lastmile_on_state(agoraish_engine_t *e, void *ud, int state, int reason) {
    (void)e, (void)ud, (void)reason;
    if (state == AGORAISH_CONNECTION_STATE_CONNECTED)
        count_up(&lastmile_events.mutex, &lastmile_events.cond, &lastmile_events.connected);
}
static void lastmile_on_probe_result(agoraish_engine_t *e, void *ud, const struct agoraish_lastmile_probe_result *r) {
    (void)e, (void)ud, (void)r;
    count_up(&lastmile_events.mutex, &lastmile_events.cond, &lastmile_events.probe_results);
}

/** A probe config of this header's size. */
static agoraish_lastmile_probe_config probe_config(int uplink, unsigned int uplink_bps, int downlink,
                                                   unsigned int downlink_bps) {
    agoraish_lastmile_probe_config config;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.probe_uplink = uplink;
    config.probe_downlink = downlink;
    config.expected_uplink_bitrate = uplink_bps;
    config.expected_downlink_bitrate = downlink_bps;
    return config;
}

/** Every config start_lastmile_probe_test rejects with -2 whatever runs (checked
 *  before the engine's state): NULL, struct_size, no direction, probed bitrates
 *  outside 100000..5000000. */
static void run_bad_probe_configs(agoraish_engine_t *engine, const char *where) {
    const uint32_t full = (uint32_t)sizeof(agoraish_lastmile_probe_config);
    const struct {
        const char *name;
        uint32_t struct_size;
        int uplink;
        unsigned int uplink_bps;
        int downlink;
        unsigned int downlink_bps;
    } rows[] = {
        {"struct_size 0", 0, 1, 1000000, 1, 1000000},
        {"struct_size 4", 4, 1, 1000000, 1, 1000000},
        {"struct_size one field short", full - 4, 1, 1000000, 1, 1000000},
        {"struct_size one byte short", full - 1, 1, 1000000, 1, 1000000},
        {"struct_size splitting a field", full + 1, 1, 1000000, 1, 1000000},
        {"struct_size 0.7 one field short", (uint32_t)AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7 - 4, 1, 1000000, 1,
         1000000},
        {"struct_size 0.7 one byte short", (uint32_t)AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7 - 1, 1, 1000000, 1,
         1000000},
        {"struct_size 0.7 and a byte", (uint32_t)AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7 + 1, 1, 1000000, 1, 1000000},
        {"struct_size splitting the token", (uint32_t)offsetof(agoraish_lastmile_probe_config, token) + 4, 1, 1000000,
         1, 1000000},
        {"struct_size splitting the channel_id", (uint32_t)offsetof(agoraish_lastmile_probe_config, channel_id) + 4, 1,
         1000000, 1, 1000000},
        {"no direction", full, 0, 1000000, 0, 1000000},
        {"no direction, no bitrates", full, 0, 0, 0, 0},
        {"uplink 0 bps", full, 1, 0, 0, 1000000},
        {"uplink 99999 bps", full, 1, 99999, 0, 1000000},
        {"uplink 5000001 bps", full, 1, 5000001, 0, 1000000},
        {"uplink UINT_MAX bps", full, 1, UINT_MAX, 0, 1000000},
        {"uplink probed with -1 (nonzero), 0 bps", full, -1, 0, 0, 1000000},
        {"downlink 0 bps", full, 0, 1000000, 1, 0},
        {"downlink 99999 bps", full, 0, 1000000, 1, 99999},
        {"downlink 5000001 bps", full, 0, 1000000, 1, 5000001},
        {"downlink UINT_MAX bps", full, 0, 1000000, 1, UINT_MAX},
        {"both, the uplink's 99999 bps", full, 1, 99999, 1, 1000000},
        {"both, the downlink's 5000001 bps", full, 1, 1000000, 1, 5000001},
        {"both at 0 bps", full, 1, 0, 1, 0},
    };
    /* ABI 0.9: the probe's channel and token (struct_size full). */
    static char long_channel[65];
    const struct {
        const char *name;
        const char *token, *channel;
    } strings[] = {
        {"channel with a slash", NULL, "no/slash"},
        {"channel of 64 bytes", NULL, long_channel},
        {"channel not UTF-8", "token", "\xff\xfe"},
        {"token not UTF-8", "007\xff", "probe"},
    };
    size_t i;
    int rc = agoraish_engine_start_lastmile_probe_test(engine, NULL);
    CHECK(rc == E_INVALID, "start_lastmile_probe_test(NULL) %s: returned %d, expected %d", where, rc, E_INVALID);
    for (i = 0; i < COUNT(rows); i++) {
        agoraish_lastmile_probe_config config =
            probe_config(rows[i].uplink, rows[i].uplink_bps, rows[i].downlink, rows[i].downlink_bps);
        config.struct_size = rows[i].struct_size;
        rc = agoraish_engine_start_lastmile_probe_test(engine, &config);
        CHECK(rc == E_INVALID, "start_lastmile_probe_test(%s) %s: returned %d, expected %d", rows[i].name, where, rc,
              E_INVALID);
    }
    memset(long_channel, 'c', 64);
    long_channel[64] = '\0';
    for (i = 0; i < COUNT(strings); i++) {
        agoraish_lastmile_probe_config config = probe_config(1, 1000000, 1, 1000000);
        config.token = strings[i].token;
        config.channel_id = strings[i].channel;
        rc = agoraish_engine_start_lastmile_probe_test(engine, &config);
        CHECK(rc == E_INVALID, "start_lastmile_probe_test(%s) %s: returned %d, expected %d", strings[i].name, where,
              rc, E_INVALID);
    }
}

/** The configs and states of the last-mile functions: rejected configs and
 *  stop / disable without a test on the live engine, then the states against
 *  an embedded server. Probes are stopped long before they would report, so
 *  no on_lastmile_probe_result comes. */
static void test_lastmile(void) {
    agoraish_server_t *server = NULL;
    agoraish_engine_t *engine = NULL;
    agoraish_event_handler handler = empty_handler(NULL);
    agoraish_lastmile_probe_config config;
    char url[128];
    size_t i, len = sizeof url;

    /* On the live engine only what is decided before anything is sent (its
     * server URL is the default one, where anything may listen). */
    run_bad_probe_configs(live, "on an engine in no channel");
    CHECK_RC(agoraish_engine_stop_lastmile_probe_test(live), E_REFUSED, "stop_lastmile_probe_test without a probe");
    CHECK_RC(agoraish_engine_disable_lastmile_test(live), E_REFUSED, "disable_lastmile_test without a test");
    CHECK_RC(agoraish_engine_disable_lastmile_test(live), E_REFUSED, "disable_lastmile_test without a test, twice");
    CHECK(agoraish_engine_get_connection_state(live) == AGORAISH_CONNECTION_STATE_DISCONNECTED,
          "the rejected last-mile calls connected the live engine");

    memset(&lastmile_events, 0, sizeof lastmile_events);
    monitor_init(&lastmile_events.mutex, &lastmile_events.cond);
    handler.on_join_channel_success = lastmile_on_join;
    handler.on_leave_channel = lastmile_on_leave;
    handler.on_connection_state_changed = lastmile_on_state;
    handler.on_lastmile_probe_result = lastmile_on_probe_result;
    server = create_server(0, NULL);
    CHECK(server != NULL && agoraish_server_start(server) == 0 && agoraish_server_get_url(server, url, &len) == 0,
          "start a server for the last-mile rows");
    if (!server) goto done;
    engine = new_engine("bad-input-lastmile", &handler, url, "lastmile-rows.log");
    CHECK(engine != NULL, "create the last-mile engine: last error %d", agoraish_get_last_error());
    if (!engine) goto done;

    CHECK_RC(agoraish_engine_stop_lastmile_probe_test(engine), E_REFUSED, "stop_lastmile_probe_test before any probe");
    CHECK_RC(agoraish_engine_disable_lastmile_test(engine), E_REFUSED, "disable_lastmile_test before any test");
    run_bad_probe_configs(engine, "with a server");

    /* A probe of the uplink at the lowest rate: the downlink's bitrate is not read. */
    config = probe_config(1, 100000, 0, UINT_MAX);
    CHECK_RC(agoraish_engine_start_lastmile_probe_test(engine, &config), 0,
             "start_lastmile_probe_test(uplink 100000 bps, downlink not probed at UINT_MAX)");
    config = probe_config(1, 1000000, 1, 1000000);
    CHECK_RC(agoraish_engine_start_lastmile_probe_test(engine, &config), E_REFUSED, "start_lastmile_probe_test twice");
    CHECK_RC(agoraish_engine_enable_lastmile_test(engine), E_REFUSED, "enable_lastmile_test during a probe");
    CHECK_RC(agoraish_engine_disable_lastmile_test(engine), E_REFUSED, "disable_lastmile_test during a probe");
    CHECK_RC(agoraish_engine_start_echo_test(engine, 2), E_REFUSED, "start_echo_test during a probe");
    run_bad_probe_configs(engine, "during a probe");
    CHECK(wait_count(&lastmile_events.mutex, &lastmile_events.cond, &lastmile_events.connected, 1, 15) >= 1,
          "the probe never reached CONNECTED");
    CHECK_RC(agoraish_engine_stop_lastmile_probe_test(engine), 0, "stop_lastmile_probe_test");
    CHECK_RC(agoraish_engine_stop_lastmile_probe_test(engine), E_REFUSED, "stop_lastmile_probe_test twice");

    /* A probe of the downlink at the highest rate: the uplink's bitrate is not read. */
    config = probe_config(0, 0, 1, 5000000);
    CHECK_RC(agoraish_engine_start_lastmile_probe_test(engine, &config), 0,
             "start_lastmile_probe_test(downlink 5000000 bps, uplink not probed at 0)");
    CHECK_RC(agoraish_engine_stop_lastmile_probe_test(engine), 0, "stop_lastmile_probe_test of the downlink probe");

    /* The sizes of real headers: 0.7 and 0.8 (20, without token and
     * channel_id: what lies past it is not read); sizes between it and 0.9's
     * (24, 32: no header had them) are -2; a token and a channel (the server
     * has no certificate: not checked), "" for both. */
    config = probe_config(1, 1000000, 1, 1000000);
    config.struct_size = (uint32_t)offsetof(agoraish_lastmile_probe_config, token);
    CHECK_RC(agoraish_engine_start_lastmile_probe_test(engine, &config), E_INVALID, "struct_size 24 (no header's)");
    config.struct_size = (uint32_t)offsetof(agoraish_lastmile_probe_config, channel_id);
    CHECK_RC(agoraish_engine_start_lastmile_probe_test(engine, &config), E_INVALID, "struct_size 32 (no header's)");
    {
        static const struct {
            const char *name;
            size_t size;
        } sizes[] = {
            {"the 0.7 struct_size (20), a bad channel past it", AGORAISH_LASTMILE_PROBE_CONFIG_SIZE_0_7},
        };
        for (i = 0; i < COUNT(sizes); i++) {
            config = probe_config(1, 1000000, 1, 1000000);
            config.struct_size = (uint32_t)sizes[i].size;
            config.channel_id = "no/slash";
            CHECK_RC(agoraish_engine_start_lastmile_probe_test(engine, &config), 0, sizes[i].name);
            CHECK_RC(agoraish_engine_stop_lastmile_probe_test(engine), 0, sizes[i].name);
        }
        config = probe_config(1, 1000000, 1, 1000000);
        config.token = "007-not-checked";
        config.channel_id = "bad-input-probe";
        CHECK_RC(agoraish_engine_start_lastmile_probe_test(engine, &config), 0,
                 "start_lastmile_probe_test with a token and a channel");
        CHECK_RC(agoraish_engine_stop_lastmile_probe_test(engine), 0, "stop the probe with a token and a channel");
        config.token = "";
        config.channel_id = "";
        CHECK_RC(agoraish_engine_start_lastmile_probe_test(engine, &config), 0,
                 "start_lastmile_probe_test with \"\" token and channel");
        CHECK_RC(agoraish_engine_stop_lastmile_probe_test(engine), 0, "stop the probe with \"\" token and channel");
    }

    /* The quality test. */
    CHECK_RC(agoraish_engine_enable_lastmile_test(engine), 0, "enable_lastmile_test");
    CHECK_RC(agoraish_engine_enable_lastmile_test(engine), E_REFUSED, "enable_lastmile_test twice");
    CHECK_RC(agoraish_engine_start_lastmile_probe_test(engine, &config), E_REFUSED,
             "start_lastmile_probe_test during the last-mile test");
    CHECK_RC(agoraish_engine_stop_lastmile_probe_test(engine), E_REFUSED,
             "stop_lastmile_probe_test during the last-mile test (no probe)");
    CHECK_RC(agoraish_engine_start_echo_test(engine, 2), E_REFUSED, "start_echo_test during the last-mile test");
    run_bad_probe_configs(engine, "during the last-mile test");
    CHECK_RC(agoraish_engine_disable_lastmile_test(engine), 0, "disable_lastmile_test");
    CHECK_RC(agoraish_engine_disable_lastmile_test(engine), E_REFUSED, "disable_lastmile_test twice");

    /* A join ends the last-mile test; in a channel the quality test is
     * refused, a probe runs beside the call (ABI 0.11). The call's join and
     * leave are the only ones reported. */
    CHECK_RC(agoraish_engine_enable_lastmile_test(engine), 0, "enable_lastmile_test again");
    CHECK_RC(agoraish_engine_join_channel(engine, NULL, "bad-input-lastmile", NULL, 0), 0,
             "join_channel during the last-mile test");
    CHECK_RC(agoraish_engine_disable_lastmile_test(engine), E_REFUSED, "disable_lastmile_test after a join ended it");
    CHECK(wait_count(&lastmile_events.mutex, &lastmile_events.cond, &lastmile_events.joins, 1, 15) >= 1,
          "no on_join_channel_success after the last-mile test");
    config = probe_config(1, 1000000, 1, 1000000);
    CHECK_RC(agoraish_engine_start_lastmile_probe_test(engine, &config), 0,
             "start_lastmile_probe_test in a channel (beside the call)");
    run_bad_probe_configs(engine, "in a channel");
    CHECK_RC(agoraish_engine_stop_lastmile_probe_test(engine), 0, "stop_lastmile_probe_test of the probe beside the call");
    CHECK_RC(agoraish_engine_stop_lastmile_probe_test(engine), E_REFUSED, "stop_lastmile_probe_test in a channel, no probe");
    CHECK_RC(agoraish_engine_enable_lastmile_test(engine), E_REFUSED, "enable_lastmile_test in a channel");
    CHECK_RC(agoraish_engine_disable_lastmile_test(engine), E_REFUSED, "disable_lastmile_test in a channel");
    CHECK_RC(agoraish_engine_leave_channel(engine), 0, "leave_channel after the last-mile rows");
    CHECK(wait_count(&lastmile_events.mutex, &lastmile_events.cond, &lastmile_events.leaves, 1, 15) >= 1,
          "no on_leave_channel after the call that followed the last-mile test");
    CHECK(read_count(&lastmile_events.mutex, &lastmile_events.joins) == 1 &&
              read_count(&lastmile_events.mutex, &lastmile_events.leaves) == 1,
          "the last-mile tests' channel was reported: %d joins, %d leaves (expected 1 and 1, the call's)",
          read_count(&lastmile_events.mutex, &lastmile_events.joins),
          read_count(&lastmile_events.mutex, &lastmile_events.leaves));
    CHECK(read_count(&lastmile_events.mutex, &lastmile_events.probe_results) == 0,
          "%d on_lastmile_probe_result for probes that were stopped or ended by a join",
          read_count(&lastmile_events.mutex, &lastmile_events.probe_results));

    /* During an echo test (refused as soon as it is started). */
    CHECK_RC(agoraish_engine_start_echo_test(engine, 2), 0, "start_echo_test after the call");
    CHECK_RC(agoraish_engine_start_lastmile_probe_test(engine, &config), E_REFUSED,
             "start_lastmile_probe_test during an echo test");
    CHECK_RC(agoraish_engine_enable_lastmile_test(engine), E_REFUSED, "enable_lastmile_test during an echo test");
    CHECK_RC(agoraish_engine_stop_lastmile_probe_test(engine), E_REFUSED, "stop_lastmile_probe_test during an echo test");
    CHECK_RC(agoraish_engine_disable_lastmile_test(engine), E_REFUSED, "disable_lastmile_test during an echo test");
    CHECK_RC(agoraish_engine_stop_echo_test(engine), 0, "stop_echo_test after the last-mile rows");

done:
    if (engine) CHECK(agoraish_engine_release(engine, 1) == 0, "release the last-mile engine");
    if (server) CHECK(agoraish_server_release(server) == 0, "release the last-mile rows' server");
    monitor_destroy(&lastmile_events.mutex, &lastmile_events.cond);
}

/* ------------------------------------------------------------------------ */
/* Data streams, metadata, encryption, the packet observer (ABI 0.8)         */
/* ------------------------------------------------------------------------ */

static const char *const data_key = "0123456789abcdef0123456789abcdef";

/** An encryption config of this header's size: mode, key, and a salt of 1..32. */
static agoraish_encryption_config encryption_config(int mode, const char *key) {
    agoraish_encryption_config config;
    int i;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.encryption_mode = mode;
    config.encryption_key = key;
    for (i = 0; i < 32; i++) config.encryption_kdf_salt[i] = (uint8_t)(i + 1);
    return config;
}

static int max_metadata_size_value;
static int data_max_metadata_size(agoraish_engine_t *e, void *ud) {
    (void)e, (void)ud;
    return max_metadata_size_value;
}
static int data_ready_to_send(agoraish_engine_t *e, void *ud, agoraish_metadata *metadata) {
    (void)e, (void)ud, (void)metadata;
    return 0;
}
static int data_packet_pass(agoraish_engine_t *e, void *ud, agoraish_packet *packet) {
    (void)e, (void)ud, (void)packet;
    return 1;
}

/** Creates streams on `engine` until one is refused: `expected` of them (distinct ids
 *  in 1..255), then -116 with the id left alone. Returns how many were created. */
static int fill_data_streams(agoraish_engine_t *engine, int expected, const char *where) {
    int ids[AGORAISH_MAX_DATA_STREAMS + 1];
    int n, i, rc = 0;
    for (n = 0; n <= AGORAISH_MAX_DATA_STREAMS; n++) {
        ids[n] = -1;
        rc = agoraish_engine_create_data_stream(engine, &ids[n], n % 2, n / 2 % 2);
        if (rc != 0) break;
        CHECK(ids[n] >= 1 && ids[n] <= 255, "create_data_stream %s: stream id %d outside 1..255", where, ids[n]);
        for (i = 0; i < n; i++) CHECK(ids[i] != ids[n], "create_data_stream %s: id %d twice", where, ids[n]);
    }
    CHECK(n == expected && rc == -AGORAISH_ERR_TOO_MANY_DATA_STREAMS,
          "create_data_stream %s: %d streams, then %d (expected %d, then -116)", where, n, rc, expected);
    CHECK(n > AGORAISH_MAX_DATA_STREAMS || ids[n] == -1, "create_data_stream %s: a refused create wrote an id", where);
    return n;
}

/** What is decided before anything is sent, on an engine in no call. */
static void run_data_rows_not_in_call(agoraish_engine_t *engine) {
    static char message[AGORAISH_MAX_STREAM_MESSAGE_SIZE + 1];
    const uint32_t config_size = (uint32_t)sizeof(agoraish_data_stream_config);
    const uint32_t metadata_size = (uint32_t)sizeof(agoraish_metadata_observer);
    const uint32_t encryption_size = (uint32_t)sizeof(agoraish_encryption_config);
    const uint32_t packet_size = (uint32_t)sizeof(agoraish_packet_observer);
    const uint32_t sizes_small[] = {0, 4, 8, 16};
    static char key_129[130];
    agoraish_data_stream_config config;
    agoraish_metadata_observer metadata;
    agoraish_encryption_config encryption;
    agoraish_packet_observer packet;
    int id = -1, rc;
    size_t i;
    memset(message, 'm', sizeof message);
    memset(key_129, 'k', 129);
    key_129[129] = '\0';

    /* Streams: NULL id, struct_size, the five-stream limit. */
    CHECK_RC(agoraish_engine_create_data_stream(engine, NULL, 1, 1), E_INVALID, "create_data_stream(NULL id)");
    memset(&config, 0, sizeof config);
    config.struct_size = config_size;
    CHECK_RC(agoraish_engine_create_data_stream_with_config(engine, NULL, &config), E_INVALID,
             "create_data_stream_with_config(NULL id)");
    CHECK_RC(agoraish_engine_create_data_stream_with_config(engine, &id, NULL), E_INVALID,
             "create_data_stream_with_config(NULL config)");
    for (i = 0; i < COUNT(sizes_small) && sizes_small[i] < config_size; i++) {
        config.struct_size = sizes_small[i];
        rc = agoraish_engine_create_data_stream_with_config(engine, &id, &config);
        CHECK(rc == E_INVALID, "create_data_stream_with_config(struct_size %u): returned %d, expected -2",
              sizes_small[i], rc);
    }
    config.struct_size = config_size - 1;
    CHECK_RC(agoraish_engine_create_data_stream_with_config(engine, &id, &config), E_INVALID,
             "create_data_stream_with_config(struct_size one byte short)");
    config.struct_size = config_size + 1;
    CHECK_RC(agoraish_engine_create_data_stream_with_config(engine, &id, &config), E_INVALID,
             "create_data_stream_with_config(struct_size splitting a field)");
    config.struct_size = config_size;
    config.sync_with_audio = INT_MIN;
    config.ordered = -1;
    id = -1;
    CHECK_RC(agoraish_engine_create_data_stream_with_config(engine, &id, &config), 0,
             "create_data_stream_with_config(any nonzero flags)");
    CHECK(id >= 1 && id <= 255, "create_data_stream_with_config: stream id %d outside 1..255", id);
    fill_data_streams(engine, AGORAISH_MAX_DATA_STREAMS - 1, "in no call, after one with a config");
    CHECK_RC(agoraish_engine_create_data_stream_with_config(engine, &id, &config), -AGORAISH_ERR_TOO_MANY_DATA_STREAMS,
             "create_data_stream_with_config: a sixth stream");

    /* Sending outside a call: the length first (-2, -114), then -113. */
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, NULL, 4), E_INVALID, "send_stream_message(NULL data)");
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, NULL, 0), E_INVALID,
             "send_stream_message(NULL data, length 0)");
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, message, 0), E_INVALID, "send_stream_message(length 0)");
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, message, AGORAISH_MAX_STREAM_MESSAGE_SIZE + 1),
             -AGORAISH_ERR_SIZE_TOO_LARGE, "send_stream_message(length 1025)");
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, message, (size_t)INT64_MAX), -AGORAISH_ERR_SIZE_TOO_LARGE,
             "send_stream_message(length INT64_MAX): nothing is read");
    /* Any length above 1024, up to SIZE_MAX, is -114 and nothing is read. */
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, message, SIZE_MAX), -AGORAISH_ERR_SIZE_TOO_LARGE,
             "send_stream_message(length SIZE_MAX): nothing is read");
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, message, 1), E_NOT_IN_CHANNEL,
             "send_stream_message(1 byte) in no call");
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, message, AGORAISH_MAX_STREAM_MESSAGE_SIZE),
             E_NOT_IN_CHANNEL, "send_stream_message(1024 bytes) in no call");
    CHECK_RC(agoraish_engine_send_stream_message(engine, 0, message, 1), E_NOT_IN_CHANNEL,
             "send_stream_message(stream 0) in no call");
    CHECK_RC(agoraish_engine_send_audio_metadata(engine, NULL, 4), E_INVALID, "send_audio_metadata(NULL)");
    CHECK_RC(agoraish_engine_send_audio_metadata(engine, message, 0), E_INVALID, "send_audio_metadata(length 0)");
    CHECK_RC(agoraish_engine_send_audio_metadata(engine, message, AGORAISH_MAX_METADATA_SIZE + 1), E_INVALID,
             "send_audio_metadata(length 1025)");
    CHECK_RC(agoraish_engine_send_audio_metadata(engine, message, SIZE_MAX), E_INVALID,
             "send_audio_metadata(length SIZE_MAX)");
    CHECK_RC(agoraish_engine_send_audio_metadata(engine, message, 1), E_NOT_IN_CHANNEL,
             "send_audio_metadata(1 byte) in no call");

    /* The metadata observer: the type first, struct_size, the maximum size. */
    CHECK_RC(agoraish_engine_register_media_metadata_observer(engine, NULL, AGORAISH_METADATA_TYPE_VIDEO), 0,
             "register_media_metadata_observer(NULL) with none");
    CHECK_RC(agoraish_engine_register_media_metadata_observer(engine, NULL, 1), E_INVALID,
             "register_media_metadata_observer(NULL, type 1)");
    CHECK_RC(agoraish_engine_register_media_metadata_observer(engine, NULL, AGORAISH_METADATA_TYPE_UNKNOWN), E_INVALID,
             "register_media_metadata_observer(NULL, UNKNOWN)");
    memset(&metadata, 0, sizeof metadata);
    metadata.struct_size = metadata_size;
    metadata.get_max_metadata_size = data_max_metadata_size;
    metadata.on_ready_to_send_metadata = data_ready_to_send;
    max_metadata_size_value = 1024;
    CHECK_RC(agoraish_engine_register_media_metadata_observer(engine, &metadata, 1), E_INVALID,
             "register_media_metadata_observer(type 1)");
    CHECK_RC(agoraish_engine_register_media_metadata_observer(engine, &metadata, INT_MIN), E_INVALID,
             "register_media_metadata_observer(type INT_MIN)");
    for (i = 0; i < COUNT(sizes_small); i++) {
        metadata.struct_size = sizes_small[i];
        rc = agoraish_engine_register_media_metadata_observer(engine, &metadata, AGORAISH_METADATA_TYPE_VIDEO);
        CHECK(rc == E_INVALID, "register_media_metadata_observer(struct_size %u): returned %d, expected -2",
              sizes_small[i], rc);
    }
    metadata.struct_size = metadata_size - 1;
    CHECK_RC(agoraish_engine_register_media_metadata_observer(engine, &metadata, 0), E_INVALID,
             "register_media_metadata_observer(struct_size one byte short)");
    metadata.struct_size = metadata_size;
    {
        const int rejected[] = {0, -1, AGORAISH_MAX_METADATA_SIZE + 1, INT_MAX, INT_MIN};
        const int accepted[] = {1, AGORAISH_MAX_METADATA_SIZE};
        for (i = 0; i < COUNT(rejected); i++) {
            max_metadata_size_value = rejected[i];
            rc = agoraish_engine_register_media_metadata_observer(engine, &metadata, 0);
            CHECK(rc == E_INVALID, "register_media_metadata_observer(maximum size %d): returned %d, expected -2",
                  rejected[i], rc);
        }
        for (i = 0; i < COUNT(accepted); i++) {
            max_metadata_size_value = accepted[i];
            rc = agoraish_engine_register_media_metadata_observer(engine, &metadata, 0);
            CHECK(rc == 0, "register_media_metadata_observer(maximum size %d): returned %d, expected 0",
                  accepted[i], rc);
        }
    }
    metadata.get_max_metadata_size = NULL;
    CHECK_RC(agoraish_engine_register_media_metadata_observer(engine, &metadata, 0), 0,
             "register_media_metadata_observer(no get_max_metadata_size: the maximum)");
    CHECK_RC(agoraish_engine_register_media_metadata_observer(engine, NULL, 0), 0,
             "register_media_metadata_observer(NULL) removes it");

    /* Encryption: config, struct_size, modes, keys, salts. */
    CHECK_RC(agoraish_engine_enable_encryption(engine, 1, NULL), E_INVALID, "enable_encryption(1, NULL)");
    CHECK_RC(agoraish_engine_enable_encryption(engine, -1, NULL), E_INVALID, "enable_encryption(-1, NULL)");
    CHECK_RC(agoraish_engine_enable_encryption(engine, 0, NULL), 0, "enable_encryption(0, NULL)");
    encryption = encryption_config(AGORAISH_ENCRYPTION_MODE_AES_128_GCM2, data_key);
    for (i = 0; i < COUNT(sizes_small); i++) {
        encryption.struct_size = sizes_small[i];
        rc = agoraish_engine_enable_encryption(engine, 1, &encryption);
        CHECK(rc == E_INVALID, "enable_encryption(struct_size %u): returned %d, expected -2", sizes_small[i], rc);
    }
    encryption.struct_size = encryption_size - 8;
    CHECK_RC(agoraish_engine_enable_encryption(engine, 1, &encryption), E_INVALID,
             "enable_encryption(struct_size without the last 8 bytes of salt)");
    encryption.struct_size = encryption_size + 1;
    CHECK_RC(agoraish_engine_enable_encryption(engine, 1, &encryption), E_INVALID,
             "enable_encryption(struct_size splitting a field)");
    encryption.struct_size = 0;
    CHECK_RC(agoraish_engine_enable_encryption(engine, 0, &encryption), 0,
             "enable_encryption(0, struct_size 0): the config is not read");
    {
        const int modes[] = {0, AGORAISH_ENCRYPTION_MODE_END, -1, 10, INT_MAX, INT_MIN};
        int mode;
        for (i = 0; i < COUNT(modes); i++) {
            encryption = encryption_config(modes[i], data_key);
            rc = agoraish_engine_enable_encryption(engine, 1, &encryption);
            CHECK(rc == E_INVALID, "enable_encryption(mode %d): returned %d, expected -2", modes[i], rc);
        }
        for (mode = AGORAISH_ENCRYPTION_MODE_AES_128_XTS; mode < AGORAISH_ENCRYPTION_MODE_END; mode++) {
            encryption = encryption_config(mode, data_key);
            rc = agoraish_engine_enable_encryption(engine, 1, &encryption);
            CHECK(rc == 0, "enable_encryption(mode %d): returned %d, expected 0", mode, rc);
        }
    }
    {
        const char *const keys[] = {NULL, "", key_129, "\xff\xfe"};
        const char *const names[] = {"NULL", "\"\"", "129 bytes", "not UTF-8"};
        for (i = 0; i < COUNT(keys); i++) {
            encryption = encryption_config(AGORAISH_ENCRYPTION_MODE_AES_256_GCM2, keys[i]);
            rc = agoraish_engine_enable_encryption(engine, 1, &encryption);
            CHECK(rc == E_INVALID, "enable_encryption(key %s): returned %d, expected -2", names[i], rc);
        }
        encryption = encryption_config(AGORAISH_ENCRYPTION_MODE_AES_256_GCM2, key_129 + 1);
        CHECK_RC(agoraish_engine_enable_encryption(engine, 1, &encryption), 0, "enable_encryption(key of 128 bytes)");
        encryption = encryption_config(AGORAISH_ENCRYPTION_MODE_AES_128_XTS, "k");
        CHECK_RC(agoraish_engine_enable_encryption(engine, 1, &encryption), 0, "enable_encryption(key of 1 byte)");
    }
    {
        int mode;
        for (mode = AGORAISH_ENCRYPTION_MODE_AES_128_XTS; mode < AGORAISH_ENCRYPTION_MODE_END; mode++) {
            int gcm2 = mode == AGORAISH_ENCRYPTION_MODE_AES_128_GCM2 || mode == AGORAISH_ENCRYPTION_MODE_AES_256_GCM2;
            encryption = encryption_config(mode, data_key);
            memset(encryption.encryption_kdf_salt, 0, sizeof encryption.encryption_kdf_salt);
            rc = agoraish_engine_enable_encryption(engine, 1, &encryption);
            CHECK(rc == (gcm2 ? E_INVALID : 0), "enable_encryption(mode %d, all-zero salt): returned %d, expected %d",
                  mode, rc, gcm2 ? E_INVALID : 0);
            encryption.encryption_kdf_salt[31] = 1;
            rc = agoraish_engine_enable_encryption(engine, 1, &encryption);
            CHECK(rc == 0, "enable_encryption(mode %d, salt ...01): returned %d, expected 0", mode, rc);
        }
    }
    CHECK_RC(agoraish_engine_enable_encryption(engine, 0, NULL), 0, "enable_encryption(0, NULL) after enabling");

    /* The deprecated secret and mode. */
    CHECK_RC(agoraish_engine_set_encryption_secret(engine, key_129), E_INVALID, "set_encryption_secret(129 bytes)");
    CHECK_RC(agoraish_engine_set_encryption_secret(engine, "\xff"), E_INVALID, "set_encryption_secret(not UTF-8)");
    CHECK_RC(agoraish_engine_set_encryption_secret(engine, key_129 + 1), 0, "set_encryption_secret(128 bytes)");
    CHECK_RC(agoraish_engine_set_encryption_secret(engine, ""), 0, "set_encryption_secret(\"\")");
    CHECK_RC(agoraish_engine_set_encryption_secret(engine, NULL), 0, "set_encryption_secret(NULL)");
    {
        const char *const accepted[] = {"aes-128-xts", "aes-128-ecb", "aes-256-xts", "sm4-128-ecb",
                                        "aes-128-gcm", "aes-256-gcm", "", NULL};
        const char *const rejected[] = {"aes-128-gcm-2", "aes-256-gcm-2", "aes-128-gcm2", "AES-128-XTS",
                                        "aes-128-xts ", "aes", "\xff"};
        for (i = 0; i < COUNT(accepted); i++) {
            rc = agoraish_engine_set_encryption_mode(engine, accepted[i]);
            CHECK(rc == 0, "set_encryption_mode(\"%s\"): returned %d, expected 0", accepted[i] ? accepted[i] : "(NULL)",
                  rc);
        }
        for (i = 0; i < COUNT(rejected); i++) {
            rc = agoraish_engine_set_encryption_mode(engine, rejected[i]);
            CHECK(rc == E_INVALID, "set_encryption_mode(\"%s\"): returned %d, expected -2", rejected[i], rc);
        }
    }

    /* The packet observer. */
    CHECK_RC(agoraish_engine_register_packet_observer(engine, NULL), 0, "register_packet_observer(NULL) with none");
    memset(&packet, 0, sizeof packet);
    for (i = 0; i < COUNT(sizes_small); i++) {
        packet.struct_size = sizes_small[i];
        rc = agoraish_engine_register_packet_observer(engine, &packet);
        CHECK(rc == E_INVALID, "register_packet_observer(struct_size %u): returned %d, expected -2", sizes_small[i], rc);
    }
    packet.struct_size = packet_size - 8;
    CHECK_RC(agoraish_engine_register_packet_observer(engine, &packet), E_INVALID,
             "register_packet_observer(struct_size one callback short)");
    packet.struct_size = packet_size + 1;
    CHECK_RC(agoraish_engine_register_packet_observer(engine, &packet), E_INVALID,
             "register_packet_observer(struct_size splitting a field)");
    packet.struct_size = packet_size;
    CHECK_RC(agoraish_engine_register_packet_observer(engine, &packet), 0, "register_packet_observer(NULL callbacks)");
    packet.on_send_audio_packet = packet.on_receive_audio_packet = data_packet_pass;
    packet.on_send_video_packet = packet.on_receive_video_packet = data_packet_pass;
    CHECK_RC(agoraish_engine_register_packet_observer(engine, &packet), 0, "register_packet_observer(pass-through)");
    CHECK_RC(agoraish_engine_register_packet_observer(engine, NULL), 0, "register_packet_observer(NULL) removes it");
}

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int joins, leaves;
} data_events_t;

static data_events_t data_events;

static void data_on_join(agoraish_engine_t *e, void *ud, const char *channel, uint32_t uid, int elapsed) {
    (void)e, (void)ud, (void)channel, (void)uid, (void)elapsed;
    count_up(&data_events.mutex, &data_events.cond, &data_events.joins);
}
static void data_on_leave(agoraish_engine_t *e, void *ud, const agoraish_rtc_stats *stats) {
    (void)e, (void)ud, (void)stats;
    count_up(&data_events.mutex, &data_events.cond, &data_events.leaves);
}

/** The rows decided before anything is sent on the live engine; then, against
 *  an embedded server, what only a call decides: unknown streams (-2), the
 *  limits (-114 first, -115, -116) and accepted sends. */
static void test_data_streams(void) {
    static char message[AGORAISH_MAX_STREAM_MESSAGE_SIZE];
    agoraish_server_t *server = NULL;
    agoraish_engine_t *engine = NULL;
    agoraish_event_handler handler = empty_handler(NULL);
    agoraish_encryption_config encryption;
    char url[128];
    size_t len = sizeof url;
    int id = -1, other = -1, i, rc;
    memset(message, 'm', sizeof message);

    run_data_rows_not_in_call(live);
    CHECK(agoraish_engine_get_connection_state(live) == AGORAISH_CONNECTION_STATE_DISCONNECTED,
          "the data rows connected the live engine");

    memset(&data_events, 0, sizeof data_events);
    monitor_init(&data_events.mutex, &data_events.cond);
    handler.on_join_channel_success = data_on_join;
    handler.on_leave_channel = data_on_leave;
    server = create_server(0, NULL);
    CHECK(server != NULL && agoraish_server_start(server) == 0 && agoraish_server_get_url(server, url, &len) == 0,
          "start a server for the data rows");
    if (!server) goto done;
    engine = new_engine("bad-input-data", &handler, url, "data-rows.log");
    CHECK(engine != NULL, "create the data engine: last error %d", agoraish_get_last_error());
    if (!engine) goto done;
    encryption = encryption_config(AGORAISH_ENCRYPTION_MODE_AES_256_GCM2, data_key);
    CHECK_RC(agoraish_engine_enable_encryption(engine, 1, &encryption), 0, "enable_encryption before the call");
    CHECK_RC(agoraish_engine_join_channel(engine, NULL, "bad-input-data", NULL, 0), 0, "join_channel");
    CHECK(wait_count(&data_events.mutex, &data_events.cond, &data_events.joins, 1, 15) >= 1,
          "no on_join_channel_success for the data rows");

    CHECK_RC(agoraish_engine_create_data_stream(engine, &id, 1, 1), 0, "create_data_stream in a call");
    CHECK_RC(agoraish_engine_send_stream_message(engine, 0, message, 1), E_INVALID, "send_stream_message(stream 0)");
    CHECK_RC(agoraish_engine_send_stream_message(engine, -1, message, 1), E_INVALID, "send_stream_message(stream -1)");
    CHECK_RC(agoraish_engine_send_stream_message(engine, 256, message, 1), E_INVALID, "send_stream_message(stream 256)");
    CHECK_RC(agoraish_engine_send_stream_message(engine, id == 255 ? 254 : id + 1, message, 1), E_INVALID,
             "send_stream_message(a stream never created)");
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, NULL, 1), E_INVALID, "send_stream_message(NULL) in a call");
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, message, 0), E_INVALID,
             "send_stream_message(length 0) in a call");
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, message, AGORAISH_MAX_STREAM_MESSAGE_SIZE + 1),
             -AGORAISH_ERR_SIZE_TOO_LARGE, "send_stream_message(length 1025) in a call");
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, message, SIZE_MAX), -AGORAISH_ERR_SIZE_TOO_LARGE,
             "send_stream_message(length SIZE_MAX) in a call");
    /* 6144 bytes in a second: six messages of 1024, then nothing more. */
    for (i = 0; i < 6; i++) {
        rc = agoraish_engine_send_stream_message(engine, id, message, AGORAISH_MAX_STREAM_MESSAGE_SIZE);
        CHECK(rc == 0, "send_stream_message(1024 bytes) #%d in a call: returned %d, expected 0", i + 1, rc);
    }
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, message, 1), -AGORAISH_ERR_BITRATE_LIMIT,
             "send_stream_message past 6144 bytes in a second");
    CHECK_RC(agoraish_engine_send_stream_message(engine, id, message, AGORAISH_MAX_STREAM_MESSAGE_SIZE + 1),
             -AGORAISH_ERR_SIZE_TOO_LARGE, "send_stream_message(length 1025) at the rate limit: -114 first");
    CHECK_RC(agoraish_engine_send_audio_metadata(engine, message, 1), 0, "send_audio_metadata(1 byte) in a call");
    CHECK_RC(agoraish_engine_send_audio_metadata(engine, message, AGORAISH_MAX_METADATA_SIZE), 0,
             "send_audio_metadata(1024 bytes) in a call");
    CHECK_RC(agoraish_engine_send_audio_metadata(engine, message, AGORAISH_MAX_METADATA_SIZE + 1), E_INVALID,
             "send_audio_metadata(1025 bytes) in a call");
    CHECK_RC(agoraish_engine_create_data_stream(engine, &other, 0, 0), 0, "create_data_stream, a second one");
    fill_data_streams(engine, AGORAISH_MAX_DATA_STREAMS - 2, "in a call, after two");
    CHECK_RC(agoraish_engine_leave_channel(engine), 0, "leave_channel after the data rows");
    CHECK(wait_count(&data_events.mutex, &data_events.cond, &data_events.leaves, 1, 15) >= 1,
          "no on_leave_channel after the data rows");
    fill_data_streams(engine, AGORAISH_MAX_DATA_STREAMS, "after the call (leaving ended its streams)");

done:
    if (engine) CHECK(agoraish_engine_release(engine, 1) == 0, "release the data engine");
    if (server) CHECK(agoraish_server_release(server) == 0, "release the data rows' server");
    monitor_destroy(&data_events.mutex, &data_events.cond);
}

/* ------------------------------------------------------------------------ */
/* Connections and custom audio tracks (ABI 0.11)                            */
/* ------------------------------------------------------------------------ */

/** A malformed or unknown connection, as every `_ex` function gets it. */
typedef struct {
    const char *name;
    int null_connection;  /* pass NULL instead */
    uint32_t struct_size;
    const char *channel_id;
    int unknown;          /* well formed, but the engine has no such connection */
} bad_connection_t;

static const char channel_not_utf8[] = "bad-\xff";

static const bad_connection_t bad_connections[] = {
    {"NULL", 1, 0, NULL, 0},
    {"struct_size 0", 0, 0, "bad-input", 0},
    {"struct_size 4", 0, 4, "bad-input", 0},
    {"struct_size one byte short", 0, sizeof(agoraish_rtc_connection) - 1, "bad-input", 0},
    {"struct_size 8 bytes long", 0, sizeof(agoraish_rtc_connection) + 8, "bad-input", 0},
    {"struct_size UINT32_MAX", 0, UINT32_MAX, "bad-input", 0},
    {"channel_id NULL", 0, sizeof(agoraish_rtc_connection), NULL, 0},
    {"channel_id not UTF-8", 0, sizeof(agoraish_rtc_connection), channel_not_utf8, 0},
    {"unknown", 0, sizeof(agoraish_rtc_connection), "bad-input-nowhere", 1},
};

/** One `_ex` function called with valid arguments but the connection. */
typedef struct {
    const char *name;
    int (*call)(agoraish_engine_t *e, const agoraish_rtc_connection *c);
} ex_function_t;

static agoraish_channel_media_options unset_options(void) {
    agoraish_channel_media_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    return o;
}

static int ex_update_options(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    agoraish_channel_media_options o = unset_options();
    return agoraish_engine_update_channel_media_options_ex(e, &o, c);
}
static int ex_get_state(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_get_connection_state_ex(e, c);
}
static int ex_get_call_id(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    char buf[128];
    size_t len = sizeof buf;
    return agoraish_engine_get_call_id_ex(e, buf, &len, c);
}
static int ex_user_by_uid(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    agoraish_user_info info;
    return agoraish_engine_get_user_info_by_uid_ex(e, 5, &info, c);
}
static int ex_user_by_account(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    agoraish_user_info info;
    return agoraish_engine_get_user_info_by_user_account_ex(e, "account", &info, c);
}
static int ex_mute_local_audio(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_mute_local_audio_stream_ex(e, 1, c);
}
static int ex_mute_remote_audio(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_mute_remote_audio_stream_ex(e, 5, 1, c);
}
static int ex_mute_all_audio(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_mute_all_remote_audio_streams_ex(e, 1, c);
}
static int ex_user_volume(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_adjust_user_playback_signal_volume_ex(e, 5, 50, c);
}
static int ex_mute_remote_video(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_mute_remote_video_stream_ex(e, 5, 1, c);
}
static int ex_mute_all_video(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_mute_all_remote_video_streams_ex(e, 1, c);
}
static int ex_stream_type(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_set_remote_video_stream_type_ex(e, 5, 1, c);
}
static int ex_setup_remote_video(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    agoraish_video_canvas canvas;
    memset(&canvas, 0, sizeof canvas);
    canvas.struct_size = sizeof canvas;
    canvas.uid = 5;
    return agoraish_engine_setup_remote_video_ex(e, &canvas, c);
}
static int ex_take_snapshot(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_take_snapshot_ex(e, 5, tmp_path("connection.png"), c);
}
static int ex_create_data_stream(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    agoraish_data_stream_config config;
    int id = 0;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    return agoraish_engine_create_data_stream_ex(e, &id, &config, c);
}
static int ex_send_stream_message(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_send_stream_message_ex(e, 1, "x", 1, c);
}
static int ex_send_audio_metadata(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_send_audio_metadata_ex(e, "x", 1, c);
}
static int ex_enable_encryption(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    agoraish_encryption_config config;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.encryption_mode = AGORAISH_ENCRYPTION_MODE_AES_128_GCM;
    config.encryption_key = "bad-input-key";
    return agoraish_engine_enable_encryption_ex(e, 1, &config, c);
}
static int ex_encoder_configuration(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    agoraish_video_encoder_configuration config;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.width = 320;
    config.height = 240;
    config.frame_rate = 15;
    return agoraish_engine_set_video_encoder_configuration_ex(e, &config, c);
}
static int ex_dual_stream(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_enable_dual_stream_mode_ex(e, 1, c);
}
static int ex_simulcast_config(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    agoraish_simulcast_config config;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.configs[AGORAISH_STREAM_LOW].width = 160;
    config.configs[AGORAISH_STREAM_LOW].height = 90;
    config.configs[AGORAISH_STREAM_LOW].framerate = 15;
    config.configs[AGORAISH_STREAM_LOW].enable = 1;
    return agoraish_engine_set_simulcast_config_ex(e, &config, c);
}
static int ex_mute_local_video(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_mute_local_video_stream_ex(e, 1, c);
}
static int ex_default_stream_type(agoraish_engine_t *e, const agoraish_rtc_connection *c) {
    return agoraish_engine_set_remote_default_video_stream_type_ex(e, 1, c);
}

static const ex_function_t ex_functions[] = {
    {"update_channel_media_options_ex", ex_update_options},
    {"get_connection_state_ex", ex_get_state},
    {"get_call_id_ex", ex_get_call_id},
    {"get_user_info_by_uid_ex", ex_user_by_uid},
    {"get_user_info_by_user_account_ex", ex_user_by_account},
    {"mute_local_audio_stream_ex", ex_mute_local_audio},
    {"mute_remote_audio_stream_ex", ex_mute_remote_audio},
    {"mute_all_remote_audio_streams_ex", ex_mute_all_audio},
    {"adjust_user_playback_signal_volume_ex", ex_user_volume},
    {"mute_remote_video_stream_ex", ex_mute_remote_video},
    {"mute_all_remote_video_streams_ex", ex_mute_all_video},
    {"set_remote_video_stream_type_ex", ex_stream_type},
    {"setup_remote_video_ex", ex_setup_remote_video},
    {"take_snapshot_ex", ex_take_snapshot},
    {"create_data_stream_ex", ex_create_data_stream},
    {"send_stream_message_ex", ex_send_stream_message},
    {"send_audio_metadata_ex", ex_send_audio_metadata},
    {"enable_encryption_ex", ex_enable_encryption},
    {"set_video_encoder_configuration_ex", ex_encoder_configuration},
    {"enable_dual_stream_mode_ex", ex_dual_stream},
    {"set_simulcast_config_ex", ex_simulcast_config},
    {"mute_local_video_stream_ex", ex_mute_local_video},
    {"set_remote_default_video_stream_type_ex", ex_default_stream_type},
};

/** How an options row changes options with every field unset; `expected` for join and update. */
typedef struct {
    const char *name;
    int null_options;
    int set_size;
    uint32_t struct_size;
    void (*change)(agoraish_channel_media_options *o);
    int expected_join;   /* join_channel_with_options and join_channel_ex (never 0 here) */
    int expected_update; /* update_channel_media_options outside a call */
} options_row_t;

static void opt_role_0(agoraish_channel_media_options *o) { o->has_client_role_type = 1, o->client_role_type = 0; }
static void opt_role_3(agoraish_channel_media_options *o) { o->has_client_role_type = 1, o->client_role_type = 3; }
static void opt_role_min(agoraish_channel_media_options *o) { o->has_client_role_type = 1, o->client_role_type = INT_MIN; }
static void opt_profile_2(agoraish_channel_media_options *o) { o->has_channel_profile = 1, o->channel_profile = 2; }
static void opt_profile_neg(agoraish_channel_media_options *o) { o->has_channel_profile = 1, o->channel_profile = -1; }
static void opt_track_no_id(agoraish_channel_media_options *o) {
    o->has_publish_custom_audio_track = 1, o->publish_custom_audio_track = 1;
}
static void opt_track_99(agoraish_channel_media_options *o) {
    opt_track_no_id(o);
    o->has_publish_custom_audio_track_id = 1, o->publish_custom_audio_track_id = 99;
}
static void opt_track_0(agoraish_channel_media_options *o) {
    opt_track_no_id(o);
    o->has_publish_custom_audio_track_id = 1, o->publish_custom_audio_track_id = 0;
}
static void opt_track_neg(agoraish_channel_media_options *o) {
    opt_track_no_id(o);
    o->has_publish_custom_audio_track_id = 1, o->publish_custom_audio_track_id = -1;
}
static void opt_token_not_utf8(agoraish_channel_media_options *o) { o->token = channel_not_utf8; }
static void opt_token(agoraish_channel_media_options *o) { o->token = "a-token"; }
static void opt_video_no_id(agoraish_channel_media_options *o) {
    o->has_publish_custom_video_track = 1, o->publish_custom_video_track = 1;
}
static void opt_encoded_no_id(agoraish_channel_media_options *o) {
    o->has_publish_encoded_video_track = 1, o->publish_encoded_video_track = 1;
}
static void opt_video_99(agoraish_channel_media_options *o) {
    opt_video_no_id(o);
    o->has_custom_video_track_id = 1, o->custom_video_track_id = 99;
}
static void opt_encoded_99(agoraish_channel_media_options *o) {
    opt_encoded_no_id(o);
    o->has_custom_video_track_id = 1, o->custom_video_track_id = 99;
}
static void opt_video_0(agoraish_channel_media_options *o) {
    opt_video_no_id(o);
    o->has_custom_video_track_id = 1, o->custom_video_track_id = 0;
}
static void opt_encoded_min(agoraish_channel_media_options *o) {
    opt_encoded_no_id(o);
    o->has_custom_video_track_id = 1, o->custom_video_track_id = INT32_MIN;
}
static void opt_video_id_only(agoraish_channel_media_options *o) {
    o->has_custom_video_track_id = 1, o->custom_video_track_id = 99;
}
/* Values without their has_ flag are not read. */
static void opt_unflagged(agoraish_channel_media_options *o) {
    o->client_role_type = 99, o->channel_profile = 99, o->publish_custom_audio_track = 1;
    o->publish_custom_audio_track_id = 99, o->publish_camera_track = 1;
    o->publish_custom_video_track = 1, o->publish_encoded_video_track = 1, o->custom_video_track_id = 99;
}

static const options_row_t options_rows[] = {
    {"NULL options", 1, 0, 0, NULL, E_INVALID, E_INVALID},
    {"struct_size 0", 0, 1, 0, NULL, E_INVALID, E_INVALID},
    {"struct_size 4", 0, 1, 4, NULL, E_INVALID, E_INVALID},
    {"struct_size one byte short", 0, 1, sizeof(agoraish_channel_media_options) - 1, NULL, E_INVALID, E_INVALID},
    {"struct_size 8 bytes long", 0, 1, sizeof(agoraish_channel_media_options) + 8, NULL, E_INVALID, E_INVALID},
    {"client_role_type 0", 0, 0, 0, opt_role_0, E_INVALID, E_INVALID},
    {"client_role_type 3", 0, 0, 0, opt_role_3, E_INVALID, E_INVALID},
    {"client_role_type INT_MIN", 0, 0, 0, opt_role_min, E_INVALID, E_INVALID},
    {"channel_profile 2", 0, 0, 0, opt_profile_2, E_INVALID, E_INVALID},
    {"channel_profile -1", 0, 0, 0, opt_profile_neg, E_INVALID, E_INVALID},
    {"publish_custom_audio_track without an id", 0, 0, 0, opt_track_no_id, E_INVALID, E_INVALID},
    {"publish_custom_audio_track_id 99 (unknown)", 0, 0, 0, opt_track_99, E_INVALID, E_INVALID},
    {"publish_custom_audio_track_id 0", 0, 0, 0, opt_track_0, E_INVALID, E_INVALID},
    {"publish_custom_audio_track_id -1", 0, 0, 0, opt_track_neg, E_INVALID, E_INVALID},
    {"publish_custom_video_track without an id", 0, 0, 0, opt_video_no_id, E_INVALID, E_INVALID},
    {"publish_encoded_video_track without an id", 0, 0, 0, opt_encoded_no_id, E_INVALID, E_INVALID},
    {"publish_custom_video_track, custom_video_track_id 99 (unknown)", 0, 0, 0, opt_video_99, E_INVALID, E_INVALID},
    {"publish_encoded_video_track, custom_video_track_id 99 (unknown)", 0, 0, 0, opt_encoded_99, E_INVALID, E_INVALID},
    {"publish_custom_video_track, custom_video_track_id 0", 0, 0, 0, opt_video_0, E_INVALID, E_INVALID},
    {"publish_encoded_video_track, custom_video_track_id INT32_MIN", 0, 0, 0, opt_encoded_min, E_INVALID, E_INVALID},
    /* An id alone changes nothing while the connection publishes no custom video track. */
    {"custom_video_track_id 99 alone", 0, 0, 0, opt_video_id_only, 0, 0},
    {"token not UTF-8", 0, 0, 0, opt_token_not_utf8, E_INVALID, E_INVALID},
    {"a token outside a call", 0, 0, 0, opt_token, 0, E_NOT_IN_CHANNEL},
    {"values without their has_ flags", 0, 0, 0, opt_unflagged, 0, 0},
};

/** Custom audio track pushes: valid but for one argument. */
typedef struct {
    const char *name;
    int null_samples;
    int samples_per_channel, sample_rate, channels;
    int expected;
} track_push_row_t;

static const track_push_row_t track_push_rows[] = {
    {"NULL samples", 1, 480, 48000, 1, E_INVALID},
    {"NULL samples, none", 1, 0, 48000, 1, 0},
    {"0 samples", 0, 0, 48000, 1, 0},
    {"-1 samples", 0, -1, 48000, 1, E_INVALID},
    {"INT_MIN samples", 0, INT_MIN, 48000, 1, E_INVALID},
    {"one second and one sample", 0, 48001, 48000, 1, E_INVALID},
    {"one second", 0, 48000, 48000, 2, 0},
    {"rate 0", 0, 80, 0, 1, E_INVALID},
    {"rate 7999", 0, 80, 7999, 1, E_INVALID},
    {"rate 22050", 0, 220, 22050, 1, E_INVALID},
    {"rate 96000", 0, 960, 96000, 1, E_INVALID},
    {"rate -48000", 0, 480, -48000, 1, E_INVALID},
    {"channels 0", 0, 480, 48000, 0, E_INVALID},
    {"channels 3", 0, 480, 48000, 3, E_INVALID},
    {"channels -1", 0, 480, 48000, -1, E_INVALID},
    {"8 kHz mono", 0, 80, 8000, 1, 0},
    {"16 kHz stereo", 0, 160, 16000, 2, 0},
    {"32 kHz mono", 0, 320, 32000, 1, 0},
    {"44.1 kHz stereo", 0, 441, 44100, 2, 0},
};

static void test_connections(void) {
    static int16_t pcm[2 * 48000];
    agoraish_rtc_connection c;
    agoraish_channel_media_options o;
    agoraish_event_handler_ex table;
    int32_t track = -1, tracks[AGORAISH_MAX_CUSTOM_AUDIO_TRACKS], extra = -1;
    size_t b, f, r;
    int i, rc;

    /* Every _ex function with each malformed or unknown connection: -2 (leave: -18 when unknown). */
    for (b = 0; b < COUNT(bad_connections); b++) {
        const bad_connection_t *bad = &bad_connections[b];
        const agoraish_rtc_connection *arg = bad->null_connection ? NULL : &c;
        memset(&c, 0, sizeof c);
        c.struct_size = bad->struct_size;
        c.channel_id = bad->channel_id;
        c.local_uid = 5;
        for (f = 0; f < COUNT(ex_functions); f++) {
            rc = ex_functions[f].call(live, arg);
            CHECK(rc == E_INVALID, "%s with a %s connection: returned %d, expected %d", ex_functions[f].name, bad->name,
                  rc, E_INVALID);
        }
        CHECK_RC(agoraish_engine_leave_channel_ex(live, arg), bad->unknown ? E_LEAVE_REJECTED : E_INVALID,
                 "leave_channel_ex with a bad connection");
        if (!bad->unknown) {
            o = unset_options();
            CHECK_RC(agoraish_engine_join_channel_ex(live, NULL, arg, &o, NULL, NULL), E_INVALID,
                     "join_channel_ex with a malformed connection");
        }
    }

    /* join_channel_ex: the handler table's struct_size, channel names, the camera. */
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    c.channel_id = "bad-input";
    c.local_uid = 5;
    o = unset_options();
    {
        const uint32_t sizes[] = {0, 4, sizeof(agoraish_event_handler_ex) - 1, sizeof(agoraish_event_handler_ex) + 8};
        for (r = 0; r < COUNT(sizes); r++) {
            memset(&table, 0, sizeof table);
            table.struct_size = sizes[r];
            rc = agoraish_engine_join_channel_ex(live, NULL, &c, &o, &table, NULL);
            CHECK(rc == E_INVALID, "join_channel_ex with handler struct_size %u: returned %d", (unsigned)sizes[r], rc);
        }
    }
    c.channel_id = channel_64;
    CHECK_RC(agoraish_engine_join_channel_ex(live, NULL, &c, NULL, NULL, NULL), E_CHANNEL,
             "join_channel_ex with a 64-byte channel");
    c.channel_id = "";
    CHECK_RC(agoraish_engine_join_channel_ex(live, NULL, &c, NULL, NULL, NULL), E_CHANNEL,
             "join_channel_ex with an empty channel");
    c.channel_id = "bad-input";
    o.has_publish_camera_track = 1;
    o.publish_camera_track = 1;
    o.has_publish_custom_video_track = 1;
    o.publish_custom_video_track = 1;
    CHECK_RC(agoraish_engine_join_channel_ex(live, NULL, &c, &o, NULL, NULL), E_INVALID,
             "join_channel_ex publishing the camera and a custom video track");
    CHECK_RC(agoraish_engine_join_channel_with_options(live, NULL, NULL, 5, &o), E_INVALID,
             "join_channel_with_options(NULL channel)");
    o = unset_options();
    CHECK_RC(agoraish_engine_join_channel_with_options(live, NULL, channel_64, 5, &o), E_CHANNEL,
             "join_channel_with_options with a 64-byte channel");

    /* Media options: join (with options, and ex) and update of the engine's own connection. */
    for (r = 0; r < COUNT(options_rows); r++) {
        const options_row_t *row = &options_rows[r];
        const agoraish_channel_media_options *arg = row->null_options ? NULL : &o;
        o = unset_options();
        if (row->set_size) o.struct_size = row->struct_size;
        if (row->change) row->change(&o);
        if (row->expected_join != 0) {
            rc = agoraish_engine_join_channel_with_options(live, NULL, "bad-input", 5, arg);
            CHECK(rc == row->expected_join, "join_channel_with_options (%s): returned %d, expected %d", row->name, rc,
                  row->expected_join);
            if (!row->null_options) { /* NULL options are the defaults for join_channel_ex */
                rc = agoraish_engine_join_channel_ex(live, NULL, &c, arg, NULL, NULL);
                CHECK(rc == row->expected_join, "join_channel_ex (%s): returned %d, expected %d", row->name, rc,
                      row->expected_join);
            }
        }
        rc = agoraish_engine_update_channel_media_options(live, arg);
        CHECK(rc == row->expected_update, "update_channel_media_options (%s): returned %d, expected %d", row->name, rc,
              row->expected_update);
    }
    CHECK(agoraish_engine_get_connection_state(live) == AGORAISH_CONNECTION_STATE_DISCONNECTED,
          "the connection rows joined the live engine");
    CHECK_RC(agoraish_engine_get_connection_state_ex(live, &c), E_INVALID, "the connection rows made a connection");

    /* Custom audio tracks. */
    {
        const int types[] = {-1, 2, INT_MAX, INT_MIN};
        for (r = 0; r < COUNT(types); r++) {
            rc = agoraish_engine_create_custom_audio_track(live, types[r], &track);
            CHECK(rc == E_INVALID, "create_custom_audio_track(type %d): returned %d", types[r], rc);
        }
    }
    CHECK(track == -1, "a refused create_custom_audio_track wrote the id");
    CHECK_RC(agoraish_engine_create_custom_audio_track(live, AGORAISH_AUDIO_TRACK_MIXABLE, NULL), E_INVALID,
             "create_custom_audio_track(NULL track_id)");
    {
        const int32_t ids[] = {0, -1, 1, 99, INT32_MAX, INT32_MIN};
        for (r = 0; r < COUNT(ids); r++) {
            CHECK(agoraish_engine_destroy_custom_audio_track(live, ids[r]) == E_INVALID,
                  "destroy_custom_audio_track(%d) of no track", ids[r]);
            CHECK(agoraish_engine_adjust_custom_audio_publish_volume(live, ids[r], 50) == E_INVALID,
                  "adjust_custom_audio_publish_volume(%d) of no track", ids[r]);
            CHECK(agoraish_engine_push_external_audio_frame_by_id(live, ids[r], pcm, 480, 48000, 1) == E_INVALID,
                  "push_external_audio_frame_by_id(%d) of no track", ids[r]);
        }
    }
    CHECK_RC(agoraish_engine_create_custom_audio_track(live, AGORAISH_AUDIO_TRACK_DIRECT, &track), 0,
             "create_custom_audio_track(DIRECT)");
    CHECK(track >= 1, "the first track id is %d", track);
    {
        const int volumes[] = {-1, 101, INT_MAX, INT_MIN};
        for (r = 0; r < COUNT(volumes); r++) {
            rc = agoraish_engine_adjust_custom_audio_publish_volume(live, track, volumes[r]);
            CHECK(rc == E_INVALID, "adjust_custom_audio_publish_volume(%d): returned %d", volumes[r], rc);
        }
    }
    CHECK_RC(agoraish_engine_adjust_custom_audio_publish_volume(live, track, 0), 0, "adjust_custom_audio_publish_volume(0)");
    CHECK_RC(agoraish_engine_adjust_custom_audio_publish_volume(live, track, 100), 0,
             "adjust_custom_audio_publish_volume(100)");
    for (r = 0; r < COUNT(track_push_rows); r++) {
        const track_push_row_t *row = &track_push_rows[r];
        rc = agoraish_engine_push_external_audio_frame_by_id(live, track, row->null_samples ? NULL : pcm,
                                                             row->samples_per_channel, row->sample_rate, row->channels);
        CHECK(rc == row->expected, "push_external_audio_frame_by_id (%s): returned %d, expected %d", row->name, rc,
              row->expected);
    }
    /* AGORAISH_MAX_CUSTOM_AUDIO_TRACKS, then -5; ids are never reused while alive. */
    tracks[0] = track;
    for (i = 1; i < AGORAISH_MAX_CUSTOM_AUDIO_TRACKS; i++) {
        tracks[i] = -1;
        rc = agoraish_engine_create_custom_audio_track(live, i % 2, &tracks[i]);
        CHECK(rc == 0 && tracks[i] >= 1 && tracks[i] != tracks[i - 1], "track #%d: returned %d, id %d", i + 1, rc,
              tracks[i]);
    }
    CHECK_RC(agoraish_engine_create_custom_audio_track(live, AGORAISH_AUDIO_TRACK_MIXABLE, &extra), E_REFUSED,
             "one custom audio track more than AGORAISH_MAX_CUSTOM_AUDIO_TRACKS");
    CHECK(extra == -1, "a refused create_custom_audio_track wrote the id");
    for (i = 0; i < AGORAISH_MAX_CUSTOM_AUDIO_TRACKS; i++) {
        CHECK(agoraish_engine_destroy_custom_audio_track(live, tracks[i]) == 0, "destroy track %d", tracks[i]);
    }
    CHECK_RC(agoraish_engine_destroy_custom_audio_track(live, track), E_INVALID, "destroy a destroyed track");
    CHECK_RC(agoraish_engine_push_external_audio_frame_by_id(live, track, pcm, 480, 48000, 1), E_INVALID,
             "push into a destroyed track");
    CHECK(agoraish_engine_get_connection_state(live) == AGORAISH_CONNECTION_STATE_DISCONNECTED,
          "the custom track rows joined the live engine");
}

/* ---- Custom video tracks and encoded video (ABI 0.11) ---- */

/** Which track a row names: the raw one, the encoded one, or an id no track has. */
enum { TRACK_RAW = 1, TRACK_ENCODED, TRACK_UNKNOWN, TRACK_ZERO };

/** One push_external_encoded_video_frame call: a VP8 keyframe of 176x144 into the encoded track, but for
 *  what the row changes. `length` 0 is the frame's; set_length passes it as given. */
typedef struct {
    const char *name;
    int null_data, null_info;
    int set_length;
    size_t length;
    int set_size;
    uint32_t struct_size;
    int set_codec, codec;
    int set_type, frame_type;
    int width, height, rotation; /* 0 width and height: 176x144 */
    int set_size_fields;         /* width and height as given (0 included) */
    int track;                   /* TRACK_*; 0: the encoded track */
    int expected;
} encoded_push_row_t;

static const encoded_push_row_t encoded_push_rows[] = {
    {"a VP8 keyframe, nobody publishing", .expected = 0},
    {"NULL data", .null_data = 1, .expected = E_INVALID},
    {"NULL info", .null_info = 1, .expected = E_INVALID},
    {"NULL data, length 0", .null_data = 1, .set_length = 1, .length = 0, .expected = E_INVALID},
    {"length 0", .set_length = 1, .length = 0, .expected = E_INVALID},
    {"length AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES", .set_length = 1,
     .length = AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES, .expected = 0},
    {"length AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES + 1 (not read)", .set_length = 1,
     .length = AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES + 1, .expected = E_INVALID},
    {"length SIZE_MAX (not read)", .set_length = 1, .length = SIZE_MAX, .expected = E_INVALID},
    {"info struct_size 0", .set_size = 1, .struct_size = 0, .expected = E_INVALID},
    {"info struct_size 4", .set_size = 1, .struct_size = 4, .expected = E_INVALID},
    {"info struct_size one byte short", .set_size = 1,
     .struct_size = sizeof(agoraish_encoded_video_frame_info) - 1, .expected = E_INVALID},
    {"info struct_size 8 bytes long", .set_size = 1, .struct_size = sizeof(agoraish_encoded_video_frame_info) + 8,
     .expected = E_INVALID},
    {"info struct_size UINT32_MAX", .set_size = 1, .struct_size = UINT32_MAX, .expected = E_INVALID},
    {"codec 0", .set_codec = 1, .codec = 0, .expected = E_INVALID},
    {"codec 2 (H.264)", .set_codec = 1, .codec = 2, .expected = E_INVALID},
    {"codec 3 (H.265)", .set_codec = 1, .codec = 3, .expected = E_INVALID},
    {"codec -1", .set_codec = 1, .codec = -1, .expected = E_INVALID},
    {"codec INT_MAX", .set_codec = 1, .codec = INT_MAX, .expected = E_INVALID},
    {"codec VP9", .set_codec = 1, .codec = AGORAISH_VIDEO_CODEC_VP9, .expected = 0},
    {"frame_type 0 (blank)", .set_type = 1, .frame_type = 0, .expected = E_INVALID},
    {"frame_type 2", .set_type = 1, .frame_type = 2, .expected = E_INVALID},
    {"frame_type 5 (B)", .set_type = 1, .frame_type = 5, .expected = E_INVALID},
    {"frame_type -1", .set_type = 1, .frame_type = -1, .expected = E_INVALID},
    {"frame_type INT_MIN", .set_type = 1, .frame_type = INT_MIN, .expected = E_INVALID},
    {"frame_type DELTA", .set_type = 1, .frame_type = AGORAISH_VIDEO_FRAME_TYPE_DELTA_FRAME, .expected = 0},
    {"width -1", .set_size_fields = 1, .width = -1, .height = 144, .expected = E_INVALID},
    {"width 16385", .set_size_fields = 1, .width = 16385, .height = 144, .expected = E_INVALID},
    {"height -1", .set_size_fields = 1, .width = 176, .height = -1, .expected = E_INVALID},
    {"height INT_MAX", .set_size_fields = 1, .width = 176, .height = INT_MAX, .expected = E_INVALID},
    {"0x0 (not known)", .set_size_fields = 1, .width = 0, .height = 0, .expected = 0},
    {"16384x16384", .set_size_fields = 1, .width = 16384, .height = 16384, .expected = 0},
    {"rotation 45", .rotation = 45, .expected = E_INVALID},
    {"rotation -90", .rotation = -90, .expected = E_INVALID},
    {"rotation 360", .rotation = 360, .expected = E_INVALID},
    {"rotation 270", .rotation = 270, .expected = 0},
    {"into the raw track", .track = TRACK_RAW, .expected = E_INVALID},
    {"into an unknown track", .track = TRACK_UNKNOWN, .expected = E_INVALID},
    {"into track 0", .track = TRACK_ZERO, .expected = E_INVALID},
};

/** Media options that name the tracks: `publish_raw` / `publish_encoded` with the id of `track`. */
typedef struct {
    const char *name;
    int publish_raw, publish_encoded, publish_camera;
    int track;    /* TRACK_*; 0: no id */
    int expected; /* join_channel_with_options, join_channel_ex and update_channel_media_options */
} video_options_row_t;

static const video_options_row_t video_options_rows[] = {
    {"publish_custom_video_track of the encoded track", 1, 0, 0, TRACK_ENCODED, E_INVALID},
    {"publish_encoded_video_track of the raw track", 0, 1, 0, TRACK_RAW, E_INVALID},
    {"publish_custom_video_track of an unknown track", 1, 0, 0, TRACK_UNKNOWN, E_INVALID},
    {"publish_encoded_video_track of track 0", 0, 1, 0, TRACK_ZERO, E_INVALID},
    {"both kinds at once", 1, 1, 0, TRACK_RAW, E_INVALID},
    {"the camera and a custom video track", 1, 0, 1, TRACK_RAW, E_INVALID},
    {"the camera and a custom encoded video track", 0, 1, 1, TRACK_ENCODED, E_INVALID},
};

static int32_t track_of(int which, int32_t raw, int32_t encoded) {
    switch (which) {
    case TRACK_RAW: return raw;
    case TRACK_UNKNOWN: return 99;
    case TRACK_ZERO: return 0;
    default: return encoded;
    }
}

static void no_encoded_frame(agoraish_engine_t *e, void *ud, uint32_t uid, const uint8_t *data, size_t length,
                             const agoraish_encoded_video_frame_info *info) {
    (void)e, (void)ud, (void)uid, (void)data, (void)length, (void)info;
}

static void test_custom_video_tracks(void) {
    static uint8_t frame[AGORAISH_MAX_ENCODED_VIDEO_FRAME_BYTES];
    union {
        agoraish_video_encoded_frame_observer observer;
        unsigned char bytes[sizeof(agoraish_video_encoded_frame_observer) + 64];
    } storage;
    agoraish_rtc_connection c;
    agoraish_external_video_frame picture;
    int32_t raw = -1, encoded = -1, tracks[AGORAISH_MAX_CUSTOM_VIDEO_TRACKS], extra = -1;
    size_t r;
    int i, rc;
    /* The start of a VP8 keyframe of 176x144 (RFC 6386 9.1); it is sent unchanged, never decoded here. */
    static const uint8_t keyframe[] = {0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0xb0, 0x00, 0x90, 0x00};
    memcpy(frame, keyframe, sizeof keyframe);

    /* No track yet: NULL ids, unknown ids. */
    CHECK_RC(agoraish_engine_create_custom_video_track(live, NULL), E_INVALID, "create_custom_video_track(NULL)");
    CHECK_RC(agoraish_engine_create_custom_encoded_video_track(live, NULL), E_INVALID,
             "create_custom_encoded_video_track(NULL)");
    memset(&picture, 0, sizeof picture);
    picture.struct_size = sizeof picture;
    picture.format = AGORAISH_VIDEO_PIXEL_I420;
    picture.width = 32;
    picture.height = 16;
    picture.y_buffer = picture.u_buffer = picture.v_buffer = video_planes;
    picture.y_stride = 32;
    picture.u_stride = picture.v_stride = 16;
    {
        const int32_t ids[] = {0, -1, 1, 2, 99, INT32_MAX, INT32_MIN};
        agoraish_encoded_video_frame_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        info.codec_type = AGORAISH_VIDEO_CODEC_VP8;
        info.frame_type = AGORAISH_VIDEO_FRAME_TYPE_KEY_FRAME;
        for (r = 0; r < COUNT(ids); r++) {
            CHECK(agoraish_engine_destroy_custom_video_track(live, ids[r]) == E_INVALID,
                  "destroy_custom_video_track(%d) of no track", ids[r]);
            CHECK(agoraish_engine_push_external_video_frame_by_id(live, &picture, ids[r]) == E_INVALID,
                  "push_external_video_frame_by_id(%d) of no track", ids[r]);
            CHECK(agoraish_engine_push_external_encoded_video_frame(live, frame, sizeof keyframe, &info, ids[r]) ==
                      E_INVALID,
                  "push_external_encoded_video_frame(%d) of no track", ids[r]);
        }
    }

    CHECK_RC(agoraish_engine_create_custom_video_track(live, &raw), 0, "create_custom_video_track");
    CHECK_RC(agoraish_engine_create_custom_encoded_video_track(live, &encoded), 0, "create_custom_encoded_video_track");
    CHECK(raw >= 1 && encoded >= 1 && raw != encoded, "video track ids %d and %d", raw, encoded);

    /* Raw pushes: the encoded track is not one; the pictures are the rows of test_push_external_video_frame. */
    CHECK_RC(agoraish_engine_push_external_video_frame_by_id(live, &picture, raw), 0,
             "push_external_video_frame_by_id, nobody publishing");
    CHECK_RC(agoraish_engine_push_external_video_frame_by_id(live, &picture, encoded), E_INVALID,
             "push_external_video_frame_by_id into the encoded track");
    CHECK_RC(agoraish_engine_push_external_video_frame_by_id(live, NULL, raw), E_INVALID,
             "push_external_video_frame_by_id(NULL frame)");

    /* Encoded pushes. */
    for (r = 0; r < COUNT(encoded_push_rows); r++) {
        const encoded_push_row_t *row = &encoded_push_rows[r];
        union {
            agoraish_encoded_video_frame_info info;
            unsigned char bytes[sizeof(agoraish_encoded_video_frame_info) + 64];
        } info;
        memset(&info, 0, sizeof info);
        info.info.struct_size = row->set_size ? row->struct_size : (uint32_t)sizeof info.info;
        info.info.codec_type = row->set_codec ? row->codec : AGORAISH_VIDEO_CODEC_VP8;
        info.info.frame_type = row->set_type ? row->frame_type : AGORAISH_VIDEO_FRAME_TYPE_KEY_FRAME;
        info.info.width = row->set_size_fields ? row->width : 176;
        info.info.height = row->set_size_fields ? row->height : 144;
        info.info.rotation = row->rotation;
        info.info.capture_time_ms = 1000 + (int64_t)r;
        rc = agoraish_engine_push_external_encoded_video_frame(live, row->null_data ? NULL : frame,
                                                               row->set_length ? row->length : sizeof keyframe,
                                                               row->null_info ? NULL : &info.info,
                                                               track_of(row->track, raw, encoded));
        CHECK(rc == row->expected, "push_external_encoded_video_frame (%s): returned %d, expected %d", row->name, rc,
              row->expected);
    }

    /* Media options naming the tracks; nothing joins. */
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    c.channel_id = "bad-input";
    c.local_uid = 5;
    for (r = 0; r < COUNT(video_options_rows); r++) {
        const video_options_row_t *row = &video_options_rows[r];
        agoraish_channel_media_options o = unset_options();
        o.has_publish_custom_video_track = row->publish_raw, o.publish_custom_video_track = row->publish_raw;
        o.has_publish_encoded_video_track = row->publish_encoded, o.publish_encoded_video_track = row->publish_encoded;
        o.has_publish_camera_track = row->publish_camera, o.publish_camera_track = row->publish_camera;
        o.has_custom_video_track_id = row->track != 0;
        o.custom_video_track_id = track_of(row->track, raw, encoded);
        rc = agoraish_engine_join_channel_with_options(live, NULL, "bad-input", 5, &o);
        CHECK(rc == row->expected, "join_channel_with_options (%s): returned %d, expected %d", row->name, rc,
              row->expected);
        rc = agoraish_engine_join_channel_ex(live, NULL, &c, &o, NULL, NULL);
        CHECK(rc == row->expected, "join_channel_ex (%s): returned %d, expected %d", row->name, rc, row->expected);
        rc = agoraish_engine_update_channel_media_options(live, &o);
        CHECK(rc == row->expected, "update_channel_media_options (%s): returned %d, expected %d", row->name, rc,
              row->expected);
    }
    CHECK(agoraish_engine_get_connection_state(live) == AGORAISH_CONNECTION_STATE_DISCONNECTED,
          "the video track option rows joined the live engine");
    CHECK_RC(agoraish_engine_get_connection_state_ex(live, &c), E_INVALID, "the video track option rows made a connection");

    /* The encoded frame observer: struct_size; NULL and a NULL callback unregister. */
    {
        const uint32_t sizes[] = {0, 4, sizeof(agoraish_video_encoded_frame_observer) - 1,
                                  sizeof(agoraish_video_encoded_frame_observer) + 8, UINT32_MAX};
        for (r = 0; r < COUNT(sizes); r++) {
            memset(&storage, 0, sizeof storage);
            storage.observer.struct_size = sizes[r];
            storage.observer.on_encoded_video_frame_received = no_encoded_frame;
            rc = agoraish_engine_register_video_encoded_frame_observer(live, &storage.observer);
            CHECK(rc == E_INVALID, "register_video_encoded_frame_observer(struct_size %u): returned %d",
                  (unsigned)sizes[r], rc);
        }
    }
    memset(&storage, 0, sizeof storage);
    storage.observer.struct_size = sizeof storage.observer;
    storage.observer.on_encoded_video_frame_received = no_encoded_frame;
    CHECK_RC(agoraish_engine_register_video_encoded_frame_observer(live, &storage.observer), 0,
             "register_video_encoded_frame_observer");
    storage.observer.on_encoded_video_frame_received = NULL;
    CHECK_RC(agoraish_engine_register_video_encoded_frame_observer(live, &storage.observer), 0,
             "register_video_encoded_frame_observer(a NULL callback: off)");
    CHECK_RC(agoraish_engine_register_video_encoded_frame_observer(live, NULL), 0,
             "register_video_encoded_frame_observer(NULL)");

    /* AGORAISH_MAX_CUSTOM_VIDEO_TRACKS raw and encoded together, then -5 for either kind. */
    tracks[0] = raw;
    tracks[1] = encoded;
    for (i = 2; i < AGORAISH_MAX_CUSTOM_VIDEO_TRACKS; i++) {
        tracks[i] = -1;
        rc = i % 2 ? agoraish_engine_create_custom_encoded_video_track(live, &tracks[i])
                   : agoraish_engine_create_custom_video_track(live, &tracks[i]);
        CHECK(rc == 0 && tracks[i] >= 1 && tracks[i] != tracks[i - 1], "video track #%d: returned %d, id %d", i + 1,
              rc, tracks[i]);
    }
    CHECK_RC(agoraish_engine_create_custom_video_track(live, &extra), E_REFUSED,
             "one custom video track more than AGORAISH_MAX_CUSTOM_VIDEO_TRACKS");
    CHECK_RC(agoraish_engine_create_custom_encoded_video_track(live, &extra), E_REFUSED,
             "one custom encoded video track more than AGORAISH_MAX_CUSTOM_VIDEO_TRACKS");
    CHECK(extra == -1, "a refused create wrote the id");
    CHECK_RC(agoraish_engine_create_custom_audio_track(live, AGORAISH_AUDIO_TRACK_DIRECT, &extra), 0,
             "audio tracks are counted apart from video tracks");
    CHECK_RC(agoraish_engine_destroy_custom_audio_track(live, extra), 0, "destroy the audio track");
    for (i = 0; i < AGORAISH_MAX_CUSTOM_VIDEO_TRACKS; i++) {
        CHECK(agoraish_engine_destroy_custom_video_track(live, tracks[i]) == 0, "destroy video track %d", tracks[i]);
    }
    CHECK_RC(agoraish_engine_destroy_custom_video_track(live, raw), E_INVALID, "destroy a destroyed video track");
    CHECK_RC(agoraish_engine_push_external_video_frame_by_id(live, &picture, raw), E_INVALID,
             "push into a destroyed video track");
    CHECK(agoraish_engine_get_connection_state(live) == AGORAISH_CONNECTION_STATE_DISCONNECTED,
          "the custom video track rows joined the live engine");
}

/* ------------------------------------------------------------------------ */
/* Library functions                                                         */
/* ------------------------------------------------------------------------ */

static void test_library_functions(void) {
    static const int known[] = {
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 20, 21, 22,
        101, 102, 103, 109, 110, 111, 112, 113, 114, 115, 116, 117, 119, 120, 121, 123, 134,
    };
    static const int unknown[] = {16, 23, 100, 999, 99999, -99999, INT_MAX, INT_MIN, INT_MIN + 1};
    int build = -1, major = -1, minor = -1, patch = -1;
    const char *version = agoraish_get_version(NULL);
    size_t i;

    CHECK(version != NULL, "get_version(NULL) returned NULL");
    CHECK(agoraish_get_version(&build) == version, "get_version returns a different pointer with a build");
    CHECK(build >= 0, "get_version build %d", build);
    CHECK(version && sscanf(version, "%d.%d.%d", &major, &minor, &patch) == 3, "version \"%s\" is not major.minor.patch",
          version ? version : "(null)");

    CHECK(agoraish_get_error_description(0) != NULL, "description of 0 is NULL");
    CHECK(agoraish_get_error_description(0) && strcmp(agoraish_get_error_description(0), "unknown error") != 0,
          "description of 0 is \"unknown error\"");
    for (i = 0; i < COUNT(known); i++) {
        const char *pos = agoraish_get_error_description(known[i]);
        const char *neg = agoraish_get_error_description(-known[i]);
        CHECK(pos != NULL && neg != NULL, "description of %d is NULL", known[i]);
        if (!pos || !neg) continue;
        CHECK(strcmp(pos, neg) == 0, "descriptions of %d and -%d differ: \"%s\" / \"%s\"", known[i], known[i], pos, neg);
        CHECK(strcmp(pos, "unknown error") != 0 && pos[0] != '\0', "code %d has no description", known[i]);
    }
    for (i = 0; i < COUNT(unknown); i++) {
        const char *text = agoraish_get_error_description(unknown[i]);
        CHECK(text != NULL && strcmp(text, "unknown error") == 0, "description of unknown code %d: \"%s\"", unknown[i],
              text ? text : "(null)");
    }
}

/* ------------------------------------------------------------------------ */

/** Fills the runtime-built inputs of the tables. */
static void build_inputs(void) {
    size_t n;
    memset(app_id_128, 'a', 128);
    app_id_128[128] = '\0';
    memset(app_id_129, 'a', 129);
    app_id_129[129] = '\0';
    snprintf(bad_log_dir_path, sizeof bad_log_dir_path, "%s/no/such/dir/x.log", tmpdir);
    snprintf(log_file_bad_utf8, sizeof log_file_bad_utf8, "%s/bad-\xff.log", tmpdir);
    snprintf(path_bad_utf8, sizeof path_bad_utf8, "%s/bad-\xc3\x28.log", tmpdir);
    snprintf(path_ok, sizeof path_ok, "%s/set-log-file.log", tmpdir);
    snprintf(json_bad_utf8, sizeof json_bad_utf8, "%s", "{\"listen\": {\"host\": \"\xff\"}}");
    snprintf(host_bad_utf8, sizeof host_bad_utf8, "%s", "127.0.0.\xff");
    /* 63 bytes using every kind of allowed character; 64 is one too many. */
    n = (size_t)snprintf(channel_63, sizeof channel_63, "%s", "azAZ09 !#$%&()+-:;<=.>?@[]^_{}|~,");
    memset(channel_63 + n, 'c', sizeof channel_63 - 1 - n);
    channel_63[sizeof channel_63 - 1] = '\0';
    memset(channel_64, 'c', sizeof channel_64 - 1);
    channel_64[sizeof channel_64 - 1] = '\0';
    memset(account_255, 'a', sizeof account_255 - 1);
    account_255[sizeof account_255 - 1] = '\0';
    memset(account_256, 'a', sizeof account_256 - 1);
    account_256[sizeof account_256 - 1] = '\0';
    memset(token_2048, 't', sizeof token_2048 - 1);
    token_2048[sizeof token_2048 - 1] = '\0';
    memset(token_2049, 't', sizeof token_2049 - 1);
    token_2049[sizeof token_2049 - 1] = '\0';
    /* 4096 bytes: one over the limit. */
    n = (size_t)snprintf(path_too_long, sizeof path_too_long, "%s/", tmpdir);
    memset(path_too_long + n, 'p', sizeof path_too_long - 1 - n);
    path_too_long[sizeof path_too_long - 1] = '\0';
    /* Valid JSON padded with spaces to exactly 65536 and 65537 bytes. */
    n = (size_t)snprintf(json_max, sizeof json_max, "%s", "{\"rtc.log_size\": 300");
    memset(json_max + n, ' ', sizeof json_max - 2 - n);
    json_max[sizeof json_max - 2] = '}';
    json_max[sizeof json_max - 1] = '\0';
    n = (size_t)snprintf(json_too_long, sizeof json_too_long, "%s", "{\"rtc.log_size\": 300");
    memset(json_too_long + n, ' ', sizeof json_too_long - 2 - n);
    json_too_long[sizeof json_too_long - 2] = '}';
    json_too_long[sizeof json_too_long - 1] = '\0';
    build_audio_inputs();
    build_video_0_6_inputs();
}

/* The error detail: which argument, limit or key, per thread, cleared by the next call. */
static void test_error_detail(void) {
    agoraish_data_stream_config config;
    agoraish_server_config server;
    int stream = 0;
    CHECK(agoraish_get_last_error_detail() != NULL, "the detail is never NULL");
    CHECK_RC(agoraish_engine_leave_channel(NULL), E_NOT_INIT, "leave_channel(NULL)");
    CHECK(strcmp(agoraish_get_last_error_detail(), "agoraish_engine_leave_channel: the engine handle is NULL") == 0,
          "the detail of a NULL handle: \"%s\"", agoraish_get_last_error_detail());
    CHECK_RC(agoraish_engine_set_parameters(live, "{\"rtc.log_flie\": \"x\"}"), E_INVALID, "an unknown parameter");
    CHECK(strstr(agoraish_get_last_error_detail(), "unknown parameter \"rtc.log_flie\"") != NULL,
          "the detail names the unknown key: \"%s\"", agoraish_get_last_error_detail());
    memset(&config, 0, sizeof config);
    config.struct_size = 3;
    CHECK_RC(agoraish_engine_create_data_stream_with_config(live, &stream, &config), E_INVALID, "struct_size 3");
    CHECK(strstr(agoraish_get_last_error_detail(), "struct_size 3") != NULL,
          "the detail names the struct_size: \"%s\"", agoraish_get_last_error_detail());
    memset(&server, 0, sizeof server);
    server.struct_size = sizeof server;
    server.config_json = "{\"limits\": {\"max_conections\": 5}}";
    CHECK(agoraish_server_create(&server) == NULL, "a misspelt server setting is refused");
    CHECK(strstr(agoraish_get_last_error_detail(), "max_conections") != NULL,
          "the detail names the misspelt key: \"%s\"", agoraish_get_last_error_detail());
    CHECK_RC(agoraish_engine_set_parameters(live, "{\"rtc.log_size\": 256}"), 0, "a good parameter");
    CHECK(agoraish_get_last_error_detail()[0] == 0, "a call that succeeds clears the detail");
}

int main(void) {
    if (!make_tmpdir("agoraish-bad-input")) return 1;
    build_inputs();
    CHECK(strlen(json_max) == 65536 && strlen(json_too_long) == 65537 && strlen(path_too_long) == 4096 &&
              strlen(channel_63) == 63 && strlen(channel_64) == 64 && strlen(account_255) == 255 &&
              strlen(account_256) == 256 && strlen(token_2048) == 2048 && strlen(token_2049) == 2049,
          "test inputs have the wrong sizes");

    live = create_with_log("bad-input-live", "live.log");
    CHECK(live != NULL, "create the live engine: last error %d", agoraish_get_last_error());
    if (live) {
        test_handles();
        test_create();
        test_last_error_is_per_thread();
        test_error_detail();
        test_set_parameters();
        test_set_log_file();
        test_set_log_filter();
        test_set_log_level();
        test_set_log_file_size();
        test_get_parameter();
        test_server_handles();
        test_server_create();
        test_server_states();
        test_channel_rows_not_joined();
        test_preload_insecure_server();
        test_channel_rows_with_server();
        test_audio_rows();
        test_audio_device_buffers();
        test_get_audio_device();
        test_register_observer();
        test_start_audio_recording();
        test_device_tests();
        test_video_switches();
        test_video_encoder_configuration();
        test_push_external_video_frame();
        run_canvas_rows(live, "in no call", canvas_rows, COUNT(canvas_rows));
        run_video_mute_rows(live, "in no call");
        run_local_canvas_rows(live, "in no call");
        run_render_mode_rows(live, "in no call");
        test_preview();
        test_register_video_frame_observer();
        run_stream_type_rows(live, "in no call");
        run_simulcast_rows(live, NULL, "in no call");
        run_fallback_rows(live, "in no call");
        test_take_snapshot_in_no_call();
        test_add_video_watermark();
        test_video_devices();
        test_video_in_a_call();
        test_echo_test();
        test_lastmile();
        test_data_streams();
        test_connections();
        test_custom_video_tracks();
        test_library_functions();
        test_empty_ogg_recordings(); /* last: see there */
        CHECK(agoraish_engine_release(live, 1) == 0, "release the live engine");
    }
    remove_tmpdir();
    return test_summary();
}
