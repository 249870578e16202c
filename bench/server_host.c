/*
 * server_host.c — a process that only runs the channel server embedded in
 * the library under test (agoraish_server_create), so that a benchmark can
 * measure the server of that very build by the CPU time of this process.
 * HTTP (/metrics) listens on a free port.
 *
 *   server_host LIBRARY CONFIG_JSON
 *     prints "URL HTTP_PORT" on one line once the server listens, serves
 *     until its standard input closes, then stops the server and exits.
 *
 * This process does nothing else while it waits (one blocking read), so its
 * CPU time is the server's threads'.
 */
#define _POSIX_C_SOURCE 200809L

#include <string.h>
#include <unistd.h>

#include "agoraish.h"
#include "bench_support.h"

int main(int argc, char **argv) {
    agoraish_server_t *(*server_create)(const agoraish_server_config *);
    int (*server_start)(agoraish_server_t *);
    int (*server_get_url)(agoraish_server_t *, char *, size_t *);
    int (*server_get_http_port)(agoraish_server_t *);
    int (*server_release)(agoraish_server_t *);
    int (*get_last_error)(void);
    agoraish_server_config config;
    agoraish_server_t *server;
    char url[256], c;
    size_t len = sizeof url;
    void *lib;

    if (argc != 3) {
        fprintf(stderr, "usage: server_host LIBRARY CONFIG_JSON\n");
        return 2;
    }
    if (!(lib = open_library(argv[1]))) return 1;
    LOOKUP(lib, server_create, "agoraish_server_create");
    LOOKUP(lib, server_start, "agoraish_server_start");
    LOOKUP(lib, server_get_url, "agoraish_server_get_url");
    LOOKUP(lib, server_get_http_port, "agoraish_server_get_http_port");
    LOOKUP(lib, server_release, "agoraish_server_release");
    LOOKUP(lib, get_last_error, "agoraish_get_last_error");
    memset(&config, 0, sizeof config);
    config.struct_size = sizeof config;
    config.http_port = -1;
    config.config_json = argv[2];
    if (!(server = server_create(&config))) {
        fprintf(stderr, "server_create failed (%d)\n", get_last_error());
        return 1;
    }
    if (server_start(server) != 0 || server_get_url(server, url, &len) != 0) {
        fprintf(stderr, "cannot start the embedded server\n");
        server_release(server);
        return 1;
    }
    printf("%s %d\n", url, server_get_http_port(server));
    fflush(stdout);
    while (read(STDIN_FILENO, &c, 1) > 0) {}
    server_release(server);
    return 0;
}
