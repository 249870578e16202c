// agoraish-server: the channel server (signaling, tokens, membership).
// Configuration: docs/server.md. Runs until SIGINT or SIGTERM.
import AgoraishServer
import AgoraishWire
import Glibc

let usage = """
usage: agoraish-server [--config FILE] [--host H] [--port P] [--http-port P|off]
                       [--http-host H] [--admin-token TOKEN]
                       [--app APP_ID[:CERTIFICATE]]... [--accept-unknown-apps]
                       [--keepalive-ms N] [--drop-timeout-ms N] [--max-channels N]
                       [--max-users-per-channel N] [--max-message-bytes N] [--joins-per-second N]
                       [--media-port P] [--media-host H] [--media-workers N]
                       [--srtp-profile AEAD_AES_128_GCM|AES_CM_128_HMAC_SHA1_80]
                       [--tls-cert FILE --tls-key FILE]
       agoraish-server --version | --help | -h
Flags apply left to right; --tls-cert and --tls-key (PEM) together serve wss://.
Environment: AGORAISH_SERVER_CONFIG, AGORAISH_SERVER_HOST, AGORAISH_SERVER_PORT,
AGORAISH_SERVER_HTTP_PORT, AGORAISH_APPS, AGORAISH_SERVER_ADMIN_TOKEN (flags win
over the environment, which wins over the file named by AGORAISH_SERVER_CONFIG).
See docs/server.md.
"""

func writeErr(_ text: String) { _ = (text + "\n").withCString { write(2, $0, strlen($0)) } }
/// Writes a line to standard output at once (unbuffered, so log collectors see it live).
func writeOut(_ text: String) { _ = (text + "\n").withCString { write(1, $0, strlen($0)) } }

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--version" {
    print("agoraish-server \(Version.string) (build \(Version.build))")
    exit(0)
}
if arguments.first == "--help" || arguments.first == "-h" {
    print(usage)
    exit(0)
}

var config = ServerConfig()
do {
    try config.applyEnvironment()
    try config.apply(arguments: arguments)
    try config.validate()
} catch {
    writeErr("agoraish-server: \(error)\n\n\(usage)")
    exit(2)
}

let server = ChannelServer(config: config) { line in
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    writeOut("ts=\(ts.tv_sec).\(String(ts.tv_nsec / 1_000_000).leftPadded(3)) \(line)")
}

// Block SIGINT/SIGTERM and wait for them on this thread.
var signals = sigset_t()
sigemptyset(&signals)
sigaddset(&signals, SIGINT)
sigaddset(&signals, SIGTERM)
pthread_sigmask(SIG_BLOCK, &signals, nil)

do {
    try server.start()
} catch {
    writeErr("agoraish-server: \(error)")
    exit(1)
}
writeOut("agoraish-server \(Version.string) listening on \(server.url) (signaling /v1/signal), "
         + (server.httpURL.map { "HTTP \($0)/metrics" } ?? "HTTP off"))
var received: Int32 = 0
sigwait(&signals, &received)
server.stop()

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
