"""The built-in media encryption per packet: ns to build and encrypt one RTP packet in each of Agora's eight modes.

- encrypt_<mode>_ns_per_packet (mode: aes_128_xts, aes_128_ecb, aes_256_xts,
  sm4_128_ecb, aes_128_gcm, aes_256_gcm, aes_128_gcm2, aes_256_gcm2) and
  encrypt_none_ns_per_packet: `agoraish-bench encryption`, a Swift
  executable of this package (Sources/agoraish-bench) that calls MediaCipher
  (AgoraishWire, docs/encryption.md) directly, since the cipher is internal
  and the C ABI only turns it on for whole calls. A video-sized 1000-byte
  payload, built into an RTP packet as the video send path does: none = the
  20-byte header (fixed header and the transport-wide number's extension
  word) and the payload copied into a new array; a mode = encrypt(_:) of the
  payload, then the same building with the 24-byte header whose extension 4
  names the mode. So a mode's figure minus none is what encryption adds per
  packet. PACKETS packets per round, ROUNDS rounds after one warm-up, the
  modes interleaved round by round; the median round's mean.
- decrypt_<mode>_ns_per_packet, decrypt_none_ns_per_packet: the receiving
  side, the encrypted payload copied out of its packet and decrypt(_:) (none:
  the copy alone).
- encrypt_<mode>_ns_per_audio_packet, encrypt_none_ns_per_audio_packet: the
  same as the first, with a 100-byte (audio-sized) payload.
- encrypt_bare_openssl_aes_128_gcm_ns_per_packet (and _per_audio_packet):
  bench/cipher_bare.c, OpenSSL's EVP AES-128-GCM alone on the same payloads,
  key set once and only the IV per packet; ..._rekey_... resets the context and
  sets key and IV for every packet, as MediaCipher does. MediaCipher's
  aes_128_gcm minus none minus this is the wrapper's own cost.

agoraish-bench is built from the sources of this checkout, in release with
the configuration of `make dist` (its scratch path, so AgoraishWire is
already compiled there), when it is missing or older than its sources; it
measures those sources, not the library in $AGORAISH_LIBRARY. One thread each;
CPU time is wall time here (no waiting), so the machine's other load shows
as spread between rounds (min..max in the notes).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import List

from ._common import BenchError, Figure, figure

PACKETS = 20000
ROUNDS = 7
SCRATCH = Path(".build") / "dist"
PRODUCT = "agoraish-bench"


def build_flags() -> List[str]:
    """`make dist`'s configuration (Makefile DIST_FLAGS) for the bench product alone."""
    return ["-c", "release", "--scratch-path", str(SCRATCH), "-Xswiftc", "-static-stdlib", "--product", PRODUCT]


def program(ctx) -> Path:
    """The agoraish-bench binary, built first when missing or older than a source it is made of."""
    root = ctx.root
    binary = root / SCRATCH / "release" / PRODUCT
    sources = [root / "Package.swift",
               *(root / "Sources" / PRODUCT).rglob("*.swift"),
               *(root / "Sources" / "AgoraishWire").rglob("*.swift")]
    if binary.exists() and binary.stat().st_mtime >= max(p.stat().st_mtime for p in sources):
        return binary
    swift = os.environ.get("SWIFT", "swift")
    done = subprocess.run([swift, "build", *build_flags()], cwd=root, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        detail = (done.stderr or done.stdout).strip().splitlines()
        raise BenchError(f"cannot build {PRODUCT}: {detail[-1] if detail else 'no output'}")
    if not binary.exists():
        raise BenchError(f"{PRODUCT} built but not found at {binary}")
    return binary


def bare_figures(ctx, packets: int, rounds: int) -> List[Figure]:
    bare = ctx.compile_c("cipher_bare.c", "-lcrypto")
    data = ctx.run_json([bare, packets, rounds], timeout=300)
    figures: List[Figure] = []
    for case in data["cases"]:
        suffix = "audio_packet" if case["bytes"] < 500 else "packet"
        rekey = "_rekey" if case["rekey"] else ""
        setup = ("EVP_CIPHER_CTX_reset and EVP_CipherInit_ex2 with key and IV for every packet (MediaCipher's way: the "
                 "key schedule runs each time)" if case["rekey"] else
                 "key set once, only the IV per packet (EVP_EncryptInit_ex2 with the IV)")
        figures.append(figure(
            f"encrypt_bare_openssl_aes_128_gcm{rekey}_ns_per_{suffix}", case["median_ns"], "ns/packet",
            f"bench/cipher_bare.c: {data['openssl']} EVP AES-128-GCM of a {case['bytes']}-byte payload into a buffer "
            f"allocated once, 12-byte IV (4 fixed + 8-byte counter), EncryptUpdate + EncryptFinal_ex + the 16-byte "
            f"tag read back; {setup}; no packet building; median of {data['rounds']} rounds of {data['packets']} "
            f"packets [{case['min_ns']:.1f}..{case['max_ns']:.1f}], interleaved with the other cases; one thread"))
    return figures


def run(ctx) -> List[Figure]:
    packets = 5000 if ctx.quick else PACKETS
    rounds = 3 if ctx.quick else ROUNDS
    figures = ctx.run_figures([program(ctx), "encryption", packets, rounds], timeout=600)
    return figures + bare_figures(ctx, packets, rounds)
