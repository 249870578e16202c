/*
 * Prints the size and field offsets of every struct in include/agoraish.h as
 * JSON: {"struct": {"__size__": n, "field": offset, ...}, ...}.
 * The Swift test (Tests/AgoraishABITests) and the Python test
 * (Tests/python/test_abi.py) compare their own view of the structs with it.
 * A struct added to the header is added here, in LayoutTests.swift and in
 * bindings/python/agoraish/_ffi.py; test_abi.py fails until all three know it.
 */
#include <stdio.h>
#include <stddef.h>
#include "agoraish.h"

static int first_struct = 1;
static int first_field;

static void begin(const char *name, size_t size) {
    printf("%s\n  \"%s\": {\"__size__\": %zu", first_struct ? "{" : ",", name, size);
    first_struct = 0;
    first_field = 0;
}
static void field(const char *name, size_t offset) { printf(", \"%s\": %zu", name, offset); }
static void end(void) { printf("}"); (void)first_field; }

#define BEGIN(T) begin(#T, sizeof(T))
#define FIELD(T, f) field(#f, offsetof(T, f))

int main(void) {
    BEGIN(agoraish_event_handler);
    FIELD(agoraish_event_handler, struct_size);
    FIELD(agoraish_event_handler, user_data);
    FIELD(agoraish_event_handler, on_api_call_executed);
    end();

    BEGIN(agoraish_engine_config);
    FIELD(agoraish_engine_config, struct_size);
    FIELD(agoraish_engine_config, app_id);
    FIELD(agoraish_engine_config, event_handler);
    FIELD(agoraish_engine_config, server_url);
    FIELD(agoraish_engine_config, log_file);
    FIELD(agoraish_engine_config, log_file_size_kb);
    FIELD(agoraish_engine_config, log_level);
    FIELD(agoraish_engine_config, area_code);
    end();

    printf("\n}\n");
    return 0;
}
