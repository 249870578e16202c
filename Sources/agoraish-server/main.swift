import AgoraishWire
import Glibc

// agoraish-server: the channel server (signaling, tokens, SFU).
let usage = """
usage: agoraish-server [--version] [--help]
"""
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "--version":
    print("agoraish-server \(Version.string) (build \(Version.build))")
case "--help", "-h":
    print(usage)
default:
    print(usage)
    exit(2)
}
