// swift-tools-version:6.0
//
// agoraish: an open real-time voice, video and data stack for Linux with the
// programming surface of the Agora RTC SDK. Layout and layering: docs/architecture.md.
//
// The `dependencies:` below are the layering's arrows. `make check-layering`
// (tools/check_layering.py) checks that every file imports only its target's
// direct dependencies, that docs/architecture.md draws the same arrows, and
// that AgoraishWire, AgoraishMedia and AgoraishSession stay sans-IO.
import PackageDescription

/// A system library reached through pkg-config, with its module map in Sources/<name>.
func systemLibrary(_ name: String, _ pkgConfig: String, _ apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "agoraish",
    products: [
        // The distributable: libagoraish.so with the C ABI of include/agoraish.h.
        .library(name: "agoraish", type: .dynamic, targets: ["agoraish"]),
        .executable(name: "agoraish-server", targets: ["agoraish-server"]),
        .executable(name: "agoraish-token", targets: ["agoraish-token"]),
    ],
    targets: [
        // C libraries (module maps only).
        systemLibrary("COpus", "opus", "libopus-dev"),
        systemLibrary("CVpx", "vpx", "libvpx-dev"),
        systemLibrary("CSrtp", "libsrtp2", "libsrtp2-dev"),
        systemLibrary("CAlsa", "alsa", "libasound2-dev"),
        systemLibrary("CV4L2", "libv4l2", "libv4l-dev"),
        systemLibrary("COpenSSL", "openssl", "libssl-dev"),
        systemLibrary("CZlib", "zlib", "zlib1g-dev"),
        systemLibrary("CSpeexDSP", "speexdsp", "libspeexdsp-dev"),
        systemLibrary("COpusEnc", "libopusenc", "libopusenc-dev"),
        systemLibrary("CJpeg", "libturbojpeg", "libturbojpeg0-dev"),
        systemLibrary("CPng", "libpng", "libpng-dev"),
        // FFmpeg's libraries: media files and URLs (player, audio mixing, effects, recorder).
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev", "libswscale-dev"])]),
        // Rubber Band: every change of pitch or speed.
        systemLibrary("CRubberBand", "rubberband", "librubberband-dev"),
        // SoX's effects: equalizer, reverb, chorus (voice effects).
        systemLibrary("CSox", "sox", "libsox-dev"),
        // libmysofa: the HRTF set of spatial audio.
        systemLibrary("CMysofa", "libmysofa", "libmysofa-dev"),
        // Debian's usrsctp.pc adds -DINET -DINET6, which SwiftPM refuses with a warning
        // on every build; usrsctp.h needs neither, and the library is on the default path.
        .systemLibrary(name: "CUsrsctp", providers: [.apt(["libusrsctp-dev"])]),
        // Debian's libyuv ships no pkg-config file.
        .systemLibrary(name: "CYuv", providers: [.apt(["libyuv-dev"])]),
        // What Swift cannot call directly: variadic *_ctl functions, function-like
        // macros, epoll/eventfd/timerfd, and *mmsg compiled with _GNU_SOURCE.
        .target(
            name: "CAgoraishShim",
            // DWARF 4: valgrind 3.19 (Debian 12) cannot read clang's default DWARF 5.
            // libopusenc's header includes <opus.h> from its own directory.
            cSettings: [.unsafeFlags(["-gdwarf-4", "-I/usr/include/opus"])],
            linkerSettings: [
                .linkedLibrary("opus"), .linkedLibrary("opusenc"), .linkedLibrary("asound"), .linkedLibrary("vpx"), .linkedLibrary("v4l2"), .linkedLibrary("ssl"),
            ]
        ),
        // The WebRTC AudioProcessing module (echo cancellation, noise suppression,
        // gain control, high-pass, voice activity): a C++ API behind a C shim. Its
        // .pc file's -D flags are refused by SwiftPM, so they are restated here.
        .target(
            name: "CAudioProcessing",
            cxxSettings: [
                .define("WEBRTC_POSIX"), .define("WEBRTC_AUDIO_PROCESSING_ONLY_BUILD"),
                .unsafeFlags(["-I/usr/include/webrtc_audio_processing", "-gdwarf-4"]),
            ],
            linkerSettings: [.linkedLibrary("webrtc_audio_processing")]
        ),
        // include/agoraish.h as a Clang module, so the C ABI layer is checked
        // against the header at compile time.
        .target(name: "CAgoraishABI", cSettings: [.unsafeFlags(["-gdwarf-4"])]),

        // Sans-IO formats: wire types, tokens, WebSocket framing, SRTP, congestion
        // control values. No threads, sockets, clocks or files.
        .target(name: "AgoraishWire", dependencies: ["COpenSSL", "CZlib", "CSrtp"]),
        // Media processing, pure: codecs, jitter buffers, mixing, picture coding.
        // Buffers in, buffers out; no threads, sockets, clocks or files (the shim
        // only for the codecs' variadic *_ctl calls).
        .target(name: "AgoraishMedia", dependencies: ["AgoraishWire", "COpus", "CSpeexDSP", "CVpx", "CYuv", "CJpeg", "CPng", "CRubberBand", "CSox", "CMysofa", "CAudioProcessing", "CAgoraishShim"]),
        // Sans-IO state machines: the client's life in channels. Events and `now`
        // in, transmits, timers and events out.
        .target(name: "AgoraishSession", dependencies: ["AgoraishWire"]),
        // Threads, sockets, timers, the clock, files, TLS: the only home of the
        // outside world. Knows no RTC semantics and neither half of the stack.
        .target(name: "AgoraishIO", dependencies: ["AgoraishWire", "CAgoraishShim", "COpenSSL", "CUsrsctp"]),
        // The engine: public Swift API named after the documented surface. Drives
        // Session and Media on IO's loops and threads; owns devices (ALSA, V4L2
        // through the shim) and media files. Never imports the server.
        .target(name: "AgoraishEngine", dependencies: ["AgoraishWire", "AgoraishSession", "AgoraishMedia", "AgoraishIO", "CAlsa", "COpusEnc", "CAgoraishShim", "CFFmpeg"]),
        // The @_cdecl C ABI layer -> libagoraish.so. Links the engine and the
        // embedded server; validates, converts, calls, maps errors.
        .target(
            name: "agoraish",
            dependencies: ["AgoraishEngine", "AgoraishServer", "AgoraishSession", "AgoraishWire", "AgoraishIO", "AgoraishMedia", "CAgoraishABI", "CAgoraishShim"],
            exclude: ["agoraish.map"],
            linkerSettings: [
                .unsafeFlags([
                    "-Xlinker", "-soname=libagoraish.so.0",
                    "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/agoraish/agoraish.map",
                ])
            ]
        ),
        // Test support: latches, temporary files; later the virtual clock and simulated network.
        .target(name: "AgoraishTesting"),
        // The channel server: signaling, membership, tokens, the SFU media plane
        // (the shim for *mmsg batches). Never imports the engine.
        .target(name: "AgoraishServer", dependencies: ["AgoraishWire", "AgoraishIO", "CAgoraishShim"],
                // The web client and pages the server serves (docs/web.md), compiled in as bytes.
                resources: [.embedInCode("Web/agoraish.js"), .embedInCode("Web/call.html"), .embedInCode("Web/status.html")]),
        .executableTarget(name: "agoraish-server", dependencies: ["AgoraishServer", "AgoraishWire"]),
        .executableTarget(name: "agoraish-token", dependencies: ["AgoraishWire"]),
        // Fuzz entries for every parser of untrusted input (docs/fuzzing.md).
        .executableTarget(name: "agoraish-fuzz", dependencies: ["AgoraishWire", "AgoraishServer", "AgoraishSession", "AgoraishIO"]),
        // Measurements of internal code the C ABI does not reach, for bench/ (bench/benchmarks/encryption.py).
        .executableTarget(name: "agoraish-bench", dependencies: ["AgoraishWire"]),

        .testTarget(name: "AgoraishIOTests", dependencies: ["AgoraishIO", "AgoraishWire", "CAgoraishShim", "AgoraishTesting"]),
        .testTarget(name: "AgoraishEngineTests",
                    dependencies: ["AgoraishEngine", "AgoraishIO", "AgoraishMedia", "AgoraishWire", "AgoraishTesting", "CAgoraishShim"]),
        .testTarget(name: "AgoraishMediaTests", dependencies: ["AgoraishMedia", "AgoraishWire", "CJpeg"]),
        .testTarget(name: "AgoraishServerTests", dependencies: ["AgoraishServer", "AgoraishWire", "AgoraishTesting"]),
        .testTarget(name: "AgoraishSessionTests", dependencies: ["AgoraishSession", "AgoraishServer", "AgoraishWire"]),
        .testTarget(name: "AgoraishIntegrationTests",
                    dependencies: ["AgoraishEngine", "AgoraishServer", "AgoraishSession", "AgoraishIO", "AgoraishMedia", "AgoraishWire",
                                   "AgoraishTesting"]),
        .testTarget(name: "AgoraishABITests", dependencies: ["CAgoraishABI"]),
        .testTarget(name: "AgoraishWireTests", dependencies: ["AgoraishWire"], exclude: ["Fixtures"]),
    ]
)
