// stream_encryption.cpp — Agora's StreamEncryption case in C++: media and
// data encrypted end to end, with the built-in cipher and with the host's own
// packet observer.
//
//   enableEncryption(true, {AES_128_GCM2, key, 32-byte KDF salt})   (before joining; the
//                                           same mode, key and salt for every user)
//   -> registerPacketObserver(&observer)    (the host's own transform of each payload)
//   -> joinChannel -> audio, video and data flow encrypted; the server forwards
//      what it cannot read
//   -> onEncryptionError(type) when a payload cannot be decrypted (another key ...)
//   -> leaveChannel -> registerPacketObserver(nullptr) -> release
//
// Both users enable AES-128-GCM2 with the same key and salt (a real app gets
// them from its own server, the salt from 32 random bytes). Both also register
// a packet observer, the way Agora's case shows custom encryption: it XORs
// each audio payload with a key byte on the way out and again on the way in.
// On the way out the observer runs first and the cipher encrypts what it
// made; on the way in the cipher decrypts first and the observer undoes its
// XOR. "local" pushes two seconds of a 440 Hz tone through an external
// source; "remote", a second engine in the same process, pulls what it hears
// through an external sink. Each sends the other a message on a data stream
// (data payloads are encrypted too). The example checks that remote heard the
// tone, that both messages crossed, that both observers saw the audio, and
// that no encryption error was reported.
//
//   make hosts && build/examples/stream_encryption_cpp
#include "agoraish.hpp"
#include "example_support.hpp"

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using example::Clock;
using example::fail;
using example::say;
using namespace std::chrono_literals;

const char* const kChannel = "stream-encryption";
const char* const kKey = "3f8a61c2d95e4b07a1c6e2f0b8d4973a";
constexpr unsigned char kXorKey = 0x55;
constexpr int kRate = 48000;
constexpr int kFrame = kRate / 100;  // 10 ms
constexpr double kToneHz = 440.0;
constexpr int kPushMs = 2000;
constexpr int kListenMs = kPushMs + 600;
constexpr double kPi = 3.14159265358979323846;

const char* errorTypeName(agoraish::ENCRYPTION_ERROR_TYPE type) {
    switch (type) {
    case agoraish::ENCRYPTION_ERROR_INTERNAL_FAILURE: return "INTERNAL_FAILURE";
    case agoraish::ENCRYPTION_ERROR_DECRYPTION_FAILURE: return "DECRYPTION_FAILURE";
    case agoraish::ENCRYPTION_ERROR_ENCRYPTION_FAILURE: return "ENCRYPTION_FAILURE";
    case agoraish::ENCRYPTION_ERROR_DATASTREAM_DECRYPTION_FAILURE: return "DATASTREAM_DECRYPTION_FAILURE";
    case agoraish::ENCRYPTION_ERROR_DATASTREAM_ENCRYPTION_FAILURE: return "DATASTREAM_ENCRYPTION_FAILURE";
    }
    return "?";
}

// A user's channel, data and encryption events, remembered so main can wait for them.
class User : public example::User {
public:
    using example::User::User;

    void onFirstRemoteAudioDecoded(agoraish::uid_t uid, int elapsed) override {
        say(name_, "onFirstRemoteAudioDecoded uid ", uid, ", ", elapsed, " ms");
    }
    // A payload could not be encrypted or decrypted (at most once a second per type).
    void onEncryptionError(agoraish::ENCRYPTION_ERROR_TYPE errorType) override {
        say(name_, "onEncryptionError ", errorTypeName(errorType));
        update([&] { ++encryptionErrors_; });
    }
    void onStreamMessage(agoraish::uid_t userId, int streamId, const char* data, std::size_t length,
                         std::uint64_t) override {
        std::string text(data, length);
        say(name_, "onStreamMessage uid ", userId, ", stream ", streamId, ": \"", text, "\"");
        update([&] { message_ = text; });
    }

    bool waitMessage() { return waitUntil([&] { return !message_.empty(); }); }
    std::string message() { return locked([&] { return message_; }); }
    int encryptionErrors() { return locked([&] { return encryptionErrors_; }); }

private:
    std::string message_;
    int encryptionErrors_ = 0;
};

// XORs each audio payload with kXorKey on the way out (before the built-in
// cipher) and again on the way in (after it); video passes unchanged (the
// defaults). The library reads a replaced payload after the callback returns:
// each direction has a buffer of its own (callbacks of one kind never overlap).
class XorObserver : public agoraish::IPacketObserver {
public:
    // The thread that encodes audio (here: the one that pushes it).
    bool onSendAudioPacket(Packet& packet) override {
        xorInto(packet, send_);
        std::lock_guard<std::mutex> lock(mutex_);
        ++sent_;
        return true;
    }
    // The engine's network thread.
    bool onReceiveAudioPacket(Packet& packet) override {
        xorInto(packet, receive_);
        std::lock_guard<std::mutex> lock(mutex_);
        ++received_;
        return true;
    }

    int sent() {
        std::lock_guard<std::mutex> lock(mutex_);
        return sent_;
    }
    int received() {
        std::lock_guard<std::mutex> lock(mutex_);
        return received_;
    }

private:
    static void xorInto(Packet& packet, std::vector<unsigned char>& buffer) {
        buffer.resize(packet.size);
        for (unsigned int i = 0; i < packet.size; ++i) buffer[i] = packet.buffer[i] ^ kXorKey;
        packet.buffer = buffer.data();
    }

    std::vector<unsigned char> send_, receive_;
    std::mutex mutex_;
    int sent_ = 0, received_ = 0;
};

// The built-in encryption and the packet observer, before joining.
int protect(const char* who, agoraish::RtcEngine& engine, XorObserver& observer) {
    agoraish::EncryptionConfig config;
    config.encryptionMode = agoraish::AES_128_GCM2;
    config.encryptionKey = kKey;
    for (int i = 0; i < 32; ++i) config.encryptionKdfSalt[i] = std::uint8_t(0xA5 ^ (i * 29));  // not all zero
    int rc = engine.enableEncryption(true, config);
    say(who, "enableEncryption(AES_128_GCM2, key of ", std::strlen(kKey), " bytes, 32-byte salt) = ", rc);
    if (rc != 0) return rc;
    rc = engine.registerPacketObserver(&observer);
    say(who, "registerPacketObserver(XOR 0x55 on audio) = ", rc);
    return rc;
}

int sendMessage(const char* who, agoraish::RtcEngine& engine, const std::string& text) {
    int stream = 0;
    int rc = engine.createDataStream(&stream, true, true);
    if (rc == 0) rc = engine.sendStreamMessage(stream, text.data(), text.size());
    say(who, "createDataStream, sendStreamMessage(", stream, ", \"", text, "\") = ", rc);
    return rc;
}

}  // namespace

int main() {
    // Declared first so they outlive the engines (destroyed in reverse order).
    agoraish::ChannelServer server;
    User local("local"), remote("remote");
    XorObserver localXor, remoteXor;
    agoraish::RtcEngine localEngine, remoteEngine;
    if (int rc = example::startServer(server); rc != 0) return rc;
    if (int rc = example::createEngine(localEngine, local, server); rc != 0) return rc;
    if (int rc = example::createEngine(remoteEngine, remote, server); rc != 0) return rc;
    if (int rc = protect("local", localEngine, localXor); rc != 0) return fail("protecting local", rc);
    if (int rc = protect("remote", remoteEngine, remoteXor); rc != 0) return fail("protecting remote", rc);

    // local sends a pushed tone and hears nothing; remote pulls what it hears and sends no audio.
    localEngine.setExternalAudioSource(true, kRate, 1);
    localEngine.setPlaybackDevice("null");
    remoteEngine.setExternalAudioSink(true, kRate, 1);
    remoteEngine.enableLocalAudio(false);

    if (int rc = example::meet(kChannel, localEngine, local, remoteEngine, remote); rc != 0) return rc;

    // A message each way, encrypted like the audio.
    if (int rc = sendMessage("local", localEngine, "hello from local"); rc != 0) return fail("sendMessage", rc);
    if (int rc = sendMessage("remote", remoteEngine, "hello from remote"); rc != 0) return fail("sendMessage", rc);

    // 10 ms of the tone pushed, 10 ms pulled, every 10 ms.
    say("local", "pushing ", kPushMs, " ms of ", kToneHz, " Hz");
    std::array<std::int16_t, kFrame> tone{};
    std::vector<std::int16_t> heard(std::size_t(kListenMs / 10) * kFrame);
    const auto start = Clock::now();
    for (int k = 0; k < kListenMs / 10; ++k) {
        if (k < kPushMs / 10) {
            for (int i = 0; i < kFrame; ++i) {
                tone[std::size_t(i)] = std::int16_t(8000 * std::sin(2 * kPi * kToneHz * (k * kFrame + i) / kRate));
            }
            localEngine.pushExternalAudioFrame(tone.data(), kFrame);
        }
        remoteEngine.pullPlaybackAudioFrame(heard.data() + std::size_t(k) * kFrame, kFrame);
        std::this_thread::sleep_until(start + (k + 1) * 10ms);
    }
    if (!remote.waitMessage() || !local.waitMessage()) return fail("waiting for the messages", -AGORAISH_ERR_TIMEDOUT);

    if (int rc = example::part(localEngine, local, remoteEngine, remote); rc != 0) return rc;
    localEngine.registerPacketObserver(nullptr);
    remoteEngine.registerPacketObserver(nullptr);

    // What remote heard: one second from 150 ms after the sound began.
    std::size_t onset = 0;
    while (onset < heard.size() && std::abs(heard[onset]) < 500) ++onset;
    double hz = 0;
    if (onset + kRate * 115 / 100 <= heard.size()) {
        hz = example::analyzeTone(heard.data() + onset + kRate * 15 / 100, kRate, kRate).hz;
    }
    say("remote", "heard ", int(std::lround(hz)), " Hz (local pushed ", kToneHz, " Hz)");
    say("local", "observer: ", localXor.sent(), " audio payloads XORed before encryption; message \"",
        local.message(), "\"; ", local.encryptionErrors(), " encryption errors");
    say("remote", "observer: ", remoteXor.received(), " audio payloads XORed back after decryption; message \"",
        remote.message(), "\"; ", remote.encryptionErrors(), " encryption errors");
    const bool ok = std::fabs(hz - kToneHz) < 10 && localXor.sent() >= kPushMs / 20 / 2 &&
                    remoteXor.received() >= kPushMs / 20 / 2 && local.message() == "hello from remote" &&
                    remote.message() == "hello from local" && local.encryptionErrors() == 0 &&
                    remote.encryptionErrors() == 0;

    remoteEngine.release();
    localEngine.release();
    std::cout << (ok ? "done: the tone and a message each way crossed encrypted, through both packet observers"
                     : "the call did not go as expected")
              << '\n';
    return ok ? 0 : 1;
}
