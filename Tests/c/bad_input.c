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
 * Exit status 0 when every check passes; otherwise one line per failed check
 * on stderr and exit status 1.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agoraish.h"

/* ------------------------------------------------------------------------ */
/* Checks                                                                    */
/* ------------------------------------------------------------------------ */

static int failures;
static int checks;

static void check_(int ok, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void check_(int ok, int line, const char *fmt, ...) {
    va_list ap;
    checks++;
    if (ok) return;
    failures++;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL bad_input.c:%d: ", line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

#define CHECK(cond, ...) check_((cond) != 0, __LINE__, __VA_ARGS__)

enum {
    E_FAILED = -AGORAISH_ERR_FAILED,
    E_INVALID = -AGORAISH_ERR_INVALID_ARGUMENT,
    E_REFUSED = -AGORAISH_ERR_REFUSED,
    E_TOO_SMALL = -AGORAISH_ERR_BUFFER_TOO_SMALL,
    E_NOT_INIT = -AGORAISH_ERR_NOT_INITIALIZED,
    E_APP_ID = -AGORAISH_ERR_INVALID_APP_ID
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define HANDLE(bits) ((agoraish_engine_t *)(uintptr_t)(bits))

/* ------------------------------------------------------------------------ */
/* Fixture: a temporary directory and one live engine                       */
/* ------------------------------------------------------------------------ */

static char tmpdir[64];
static agoraish_engine_t *live;

static char *tmp_path(const char *name) {
    static char paths[16][256];
    static int next;
    char *p = paths[next++ % 16];
    snprintf(p, sizeof paths[0], "%s/%s", tmpdir, name);
    return p;
}

static agoraish_engine_t *create_with_log(const char *app_id, const char *log_name) {
    agoraish_engine_config config;
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.app_id = app_id;
    config.log_file = tmp_path(log_name);
    return agoraish_engine_create(&config);
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

static int get_param(agoraish_engine_t *engine, const char *key, char *out, size_t size) {
    size_t len = size;
    out[0] = '\0';
    return agoraish_engine_get_parameter(engine, key, out, &len);
}

/** Runs a setter row on the live engine: checks the code, and that a rejection changed nothing. */
static void check_setter(int line, const char *what, int rc, int expected, const char *before) {
    char after[2048];
    check_(rc == expected, line, "%s: returned %d, expected %d", what, rc, expected);
    if (expected != 0) {
        snapshot(live, after, sizeof after);
        check_(strcmp(before, after) == 0, line, "%s: rejected but changed parameters:\n  before %s\n  after  %s",
               what, before, after);
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

typedef struct {
    const char *name;
    int (*call)(agoraish_engine_t *engine);
    int is_release;
} handle_call_t;

static int call_release_sync(agoraish_engine_t *e) { return agoraish_engine_release(e, 1); }
static int call_release_async(agoraish_engine_t *e) { return agoraish_engine_release(e, 0); }
static int call_set_parameters(agoraish_engine_t *e) { return agoraish_engine_set_parameters(e, "{\"rtc.log_size\": 256}"); }
static int call_get_parameter(agoraish_engine_t *e) {
    char buf[64];
    size_t len = sizeof buf;
    return agoraish_engine_get_parameter(e, "rtc.log_size", buf, &len);
}
static int call_set_log_file(agoraish_engine_t *e) { return agoraish_engine_set_log_file(e, tmp_path("handle.log")); }
static int call_set_log_filter(agoraish_engine_t *e) { return agoraish_engine_set_log_filter(e, AGORAISH_LOG_FILTER_INFO); }
static int call_set_log_level(agoraish_engine_t *e) { return agoraish_engine_set_log_level(e, AGORAISH_LOG_LEVEL_INFO); }
static int call_set_log_file_size(agoraish_engine_t *e) { return agoraish_engine_set_log_file_size(e, 256); }

static const handle_call_t handle_calls[] = {
    {"agoraish_engine_set_parameters", call_set_parameters, 0},
    {"agoraish_engine_get_parameter", call_get_parameter, 0},
    {"agoraish_engine_set_log_file", call_set_log_file, 0},
    {"agoraish_engine_set_log_filter", call_set_log_filter, 0},
    {"agoraish_engine_set_log_level", call_set_log_level, 0},
    {"agoraish_engine_set_log_file_size", call_set_log_file_size, 0},
    {"agoraish_engine_release(sync=1)", call_release_sync, 1},
    {"agoraish_engine_release(sync=0)", call_release_async, 1},
};

static void test_handles(void) {
    agoraish_engine_t *stale = create_with_log("bad-input-stale", "stale.log");
    size_t h, c;
    bad_handle_t handles[] = {
        {"NULL", NULL, E_NOT_INIT, E_NOT_INIT},
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
        for (c = 0; c < COUNT(handle_calls); c++) {
            char before[2048];
            int expected = handle_calls[c].is_release ? handles[h].expected_release : handles[h].expected;
            int rc;
            snapshot(live, before, sizeof before);
            rc = handle_calls[c].call(handles[h].handle);
            CHECK(rc == expected, "%s with a %s handle: returned %d, expected %d", handle_calls[c].name,
                  handles[h].name, rc, expected);
            {
                char after[2048];
                snapshot(live, after, sizeof after);
                CHECK(strcmp(before, after) == 0, "%s with a %s handle changed the live engine", handle_calls[c].name,
                      handles[h].name);
            }
        }
    }
    /* The live engine survived all of that. */
    CHECK(call_get_parameter(live) == 0, "the live engine answers after the bad-handle calls");
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
        {.name = "event handler struct_size one byte short", HANDLER_SIZE(HANDLER_STRUCT_SIZE - 1), .expected = E_INVALID},
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
        {.name = "struct_size larger than this header's", STRUCT_SIZE(CONFIG_SIZE + 64)},
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
        check_setter(__LINE__, what, agoraish_engine_set_parameters(live, rows[i].json), rows[i].expected, before);
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
        check_setter(__LINE__, what, agoraish_engine_set_log_file(live, rows[i].path), rows[i].expected, before);
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
        check_setter(__LINE__, what, agoraish_engine_set_log_filter(live, rows[i].value), rows[i].expected, before);
        if (rows[i].expected == 0 && rows[i].read_back) {
            get_param(live, "rtc.log_filter", value, sizeof value);
            CHECK(strcmp(value, rows[i].read_back) == 0, "%s: rtc.log_filter is %s, expected %s", what, value,
                  rows[i].read_back);
        }
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
        char before[2048], what[64], value[64];
        snapshot(live, before, sizeof before);
        snprintf(what, sizeof what, "set_log_level(%d)", rows[i].value);
        check_setter(__LINE__, what, agoraish_engine_set_log_level(live, rows[i].value), rows[i].expected, before);
        if (rows[i].expected == 0 && rows[i].read_back) {
            get_param(live, "rtc.log_level", value, sizeof value);
            CHECK(strcmp(value, rows[i].read_back) == 0, "%s: rtc.log_level is %s, expected %s", what, value,
                  rows[i].read_back);
        }
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
        char before[2048], what[64], value[64];
        snapshot(live, before, sizeof before);
        snprintf(what, sizeof what, "set_log_file_size(%u)", rows[i].value);
        check_setter(__LINE__, what, agoraish_engine_set_log_file_size(live, rows[i].value), rows[i].expected, before);
        if (rows[i].expected == 0 && rows[i].read_back) {
            get_param(live, "rtc.log_size", value, sizeof value);
            CHECK(strcmp(value, rows[i].read_back) == 0, "%s: rtc.log_size is %s, expected %s", what, value,
                  rows[i].read_back);
        }
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

static void remove_tmpdir(void) {
    DIR *dir = opendir(tmpdir);
    struct dirent *entry;
    char path[512];
    if (!dir) return;
    while ((entry = readdir(dir)) != NULL) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", tmpdir, entry->d_name);
        unlink(path);
    }
    closedir(dir);
    rmdir(tmpdir);
}

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
}

int main(void) {
    snprintf(tmpdir, sizeof tmpdir, "%s", "/tmp/agoraish-bad-input-XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    build_inputs();
    CHECK(strlen(json_max) == 65536 && strlen(json_too_long) == 65537 && strlen(path_too_long) == 4096,
          "test inputs have the wrong sizes");

    live = create_with_log("bad-input-live", "live.log");
    CHECK(live != NULL, "create the live engine: last error %d", agoraish_get_last_error());
    if (live) {
        test_handles();
        test_create();
        test_last_error_is_per_thread();
        test_set_parameters();
        test_set_log_file();
        test_set_log_filter();
        test_set_log_level();
        test_set_log_file_size();
        test_get_parameter();
        test_library_functions();
        CHECK(agoraish_engine_release(live, 1) == 0, "release the live engine");
    }
    remove_tmpdir();
    if (failures) {
        fprintf(stderr, "bad_input: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("bad_input: all %d checks passed\n", checks);
    return 0;
}
