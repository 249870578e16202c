#!/usr/bin/env python3
"""stream_encryption.py — Agora's StreamEncryption case in Python: media and
data encrypted end to end, with the built-in cipher and with the host's own
packet observer.

    enable_encryption(True, EncryptionMode.AES_128_GCM2, key, salt)   (before joining; the
                                          same mode, key and salt for every user)
    -> register_packet_observer(observer)  (the host's own transform of each payload)
    -> join_channel -> audio, video and data flow encrypted; the server forwards
       what it cannot read
    -> on_encryption_error(type) when a payload cannot be decrypted (another key ...)
    -> leave_channel -> register_packet_observer(None) -> release

Both users enable AES-128-GCM2 with the same key and salt (a real app gets
them from its own server, the salt from 32 random bytes). Both also register
a packet observer, the way Agora's case shows custom encryption: it XORs
each audio payload with a key byte on the way out and again on the way in.
On the way out the observer runs first and the cipher encrypts what it made;
on the way in the cipher decrypts first and the observer undoes its XOR.
"local" pushes two seconds of a 440 Hz tone through an external source;
"remote", a second engine in the same process, pulls what it hears through
an external sink. Each sends the other a message on a data stream (data
payloads are encrypted too). The example checks that remote heard the tone,
that both messages crossed, that both observers saw the audio, and that no
encryption error was reported.

The Python version of examples/c/stream_encryption.c. Runs from a checkout:
it imports bindings/python and, unless AGORAISH_LIBRARY says otherwise, uses
the checkout's dist/lib (`make dist`):

    python3 examples/python/stream_encryption.py
"""
import array
import math
import sys
import threading
import time
from typing import Optional

import _checkout  # noqa: F401  (bindings/python and dist/lib of this checkout; see _checkout.py)
import agoraish
from example_support import ExampleUser, frequency, meet, name_of, part, run_call, say, sleep_until

CHANNEL = "stream-encryption"
KEY = "3f8a61c2d95e4b07a1c6e2f0b8d4973a"
SALT = bytes((0xA5 ^ (i * 29)) & 0xFF for i in range(32))  # 32 bytes, not all zero
XOR_KEY = 0x55
RATE = 48000
FRAME = RATE // 100  # 10 ms
TONE_HZ = 440.0
PUSH_MS = 2000
LISTEN_MS = PUSH_MS + 600

_XOR_TABLE = bytes(b ^ XOR_KEY for b in range(256))


# ---- one user's events --------------------------------------------------------------


class User(ExampleUser):
    """A user's events, on its engine's event thread."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        # Guarded by `changed`.
        self.message = b""
        self.encryption_errors = 0

    def on_first_remote_audio_decoded(self, uid: int, elapsed: int) -> None:
        say(self.name, f"on_first_remote_audio_decoded uid {uid}, {elapsed} ms")

    def on_encryption_error(self, error_type: agoraish.EncryptionErrorType) -> None:
        # A payload could not be encrypted or decrypted (at most once a second per type).
        say(self.name, f"on_encryption_error {name_of(error_type)}")
        with self.changed:
            self.encryption_errors += 1

    def on_stream_message(self, uid: int, stream_id: int, data: bytes, sent_ts: int) -> None:
        say(self.name, f'on_stream_message uid {uid}, stream {stream_id}: "{data.decode("utf-8", "replace")}"')
        with self.changed:
            self.message = data
            self.changed.notify_all()


def has_message(u: User) -> bool:
    return bool(u.message)


# ---- the packet observer: XOR of each audio payload --------------------------------


class XorObserver(agoraish.PacketObserver):
    """XORs each audio payload with XOR_KEY on the way out (before the built-in
    cipher) and again on the way in (after it). Video is left alone: only the
    callbacks overridden here are installed."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()
        # Guarded by `lock`.
        self.sent = 0
        self.received = 0

    def on_send_audio_packet(self, payload: bytes) -> Optional[bytes]:
        # The thread that encodes audio (here: the one that pushes it).
        with self.lock:
            self.sent += 1
        return payload.translate(_XOR_TABLE)

    def on_receive_audio_packet(self, payload: bytes) -> Optional[bytes]:
        # The engine's network thread.
        with self.lock:
            self.received += 1
        return payload.translate(_XOR_TABLE)


def protect(name: str, engine: agoraish.RtcEngine, observer: XorObserver) -> None:
    """The built-in encryption and the packet observer, before joining."""
    engine.enable_encryption(True, agoraish.EncryptionMode.AES_128_GCM2, KEY, SALT)
    say(name, f"enable_encryption(AES_128_GCM2, key of {len(KEY)} bytes, {len(SALT)}-byte salt)")
    engine.register_packet_observer(observer)
    say(name, f"register_packet_observer(XOR 0x{XOR_KEY:02X} on audio)")


# ---- the tone and what remote heard -------------------------------------------------


def tone_frame(k: int) -> array.array:
    """The k-th 10 ms of the tone, 48 kHz mono."""
    return array.array("h", (int(8000 * math.sin(2 * math.pi * TONE_HZ * (k * FRAME + i) / RATE))
                             for i in range(FRAME)))


def send_message(name: str, engine: agoraish.RtcEngine, text: str) -> None:
    stream = engine.create_data_stream(reliable=True, ordered=True)
    engine.send_stream_message(stream, text.encode())
    say(name, f'create_data_stream, send_stream_message({stream}, "{text}")')


# ---- the call ---------------------------------------------------------------------------


def call(local_engine: agoraish.RtcEngine, remote_engine: agoraish.RtcEngine, local: User, remote: User) -> bool:
    local_xor, remote_xor = XorObserver(), XorObserver()
    protect("local", local_engine, local_xor)
    protect("remote", remote_engine, remote_xor)

    # local sends a pushed tone and hears nothing; remote pulls what it hears and sends no audio.
    local_engine.set_external_audio_source(True, RATE, 1)
    local_engine.set_playback_device("null")
    remote_engine.set_external_audio_sink(True, RATE, 1)
    remote_engine.enable_local_audio(False)

    if not meet(CHANNEL, local_engine, local, remote_engine, remote):
        return False

    # A message each way, encrypted like the audio.
    send_message("local", local_engine, "hello from local")
    send_message("remote", remote_engine, "hello from remote")

    # 10 ms of the tone pushed, 10 ms pulled, every 10 ms.
    say("local", f"pushing {PUSH_MS} ms of {TONE_HZ:.0f} Hz")
    frames = [tone_frame(k) for k in range(PUSH_MS // 10)]
    heard = array.array("h")
    start = time.monotonic()
    for k in range(LISTEN_MS // 10):
        if k < len(frames):
            local_engine.push_external_audio_frame(frames[k])
        heard.frombytes(remote_engine.pull_playback_audio_frame(FRAME))
        sleep_until(start, (k + 1) * 10)
    if not (remote.wait_until(has_message, "message") and local.wait_until(has_message, "message")):
        return False

    if not part(local_engine, local, remote_engine, remote):
        return False
    local_engine.register_packet_observer(None)
    remote_engine.register_packet_observer(None)

    # What remote heard: one second from 150 ms after the sound began.
    onset = next((i for i, s in enumerate(heard) if abs(s) >= 500), None)
    hz = 0.0
    if onset is not None and onset + RATE * 115 // 100 <= len(heard):
        begin = onset + RATE * 15 // 100
        hz = frequency(heard[begin:begin + RATE].tolist())
    say("remote", f"heard {hz:.0f} Hz (local pushed {TONE_HZ:.0f} Hz)")

    with local_xor.lock, remote_xor.lock:
        sent, received = local_xor.sent, remote_xor.received
    with local.changed, remote.changed:
        say("local", f"observer: {sent} audio payloads XORed before encryption; message "
                     f'"{local.message.decode()}"; {local.encryption_errors} encryption errors')
        say("remote", f"observer: {received} audio payloads XORed back after decryption; message "
                      f'"{remote.message.decode()}"; {remote.encryption_errors} encryption errors')
        return (abs(hz - TONE_HZ) < 10 and sent >= PUSH_MS // 20 // 2 and received >= PUSH_MS // 20 // 2
                and local.message == b"hello from remote" and remote.message == b"hello from local"
                and local.encryption_errors == 0 and remote.encryption_errors == 0)


def main() -> int:
    local, remote = User("local"), User("remote")
    return run_call("stream_encryption", [local, remote], lambda engines: call(*engines, local, remote),
                    "done: the tone and a message each way crossed encrypted, through both packet observers")


if __name__ == "__main__":
    sys.exit(main())
