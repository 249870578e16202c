"""Data streams: delivery latency of stream messages (clean and at 20 % loss) and throughput at Agora's limits, from C.

- data_stream_delivery_p50_ms, data_stream_delivery_p99_ms: bench/data_stream.c.
  An embedded server and two engines in one process and one channel, no
  audio or video flowing (external audio source and sink, nothing pushed).
  The sender creates a reliable ordered stream
  (agoraish_engine_create_data_stream(.., 1, 1)) and, after a warm-up (one
  message through, then 1.1 s so the engine's one-second rate window is
  empty), sends 20 messages a second of 100 bytes for SECONDS s on absolute
  CLOCK_MONOTONIC deadlines. Each message carries CLOCK_MONOTONIC in ns taken
  just before agoraish_engine_send_stream_message; the receiver's
  on_stream_message takes CLOCK_MONOTONIC at entry (on the engine's event
  thread), and the latency is the difference: sender -> server -> receiver
  over loopback UDP with SRTP on each hop, the engine's threads and the event
  thread included. Nearest-rank quantiles over every delivered message.
- data_stream_delivery_p50_ms_loss_20, data_stream_delivery_p99_ms_loss_20:
  the same call with the receiver's simulated network,
  {"rtc.network_simulation": {"loss_percent": 20, "seed": 7}}, set before it
  joins: 20 % of the RTP the receiver gets (data, retransmissions and
  keepalives alike) is dropped at random, and the reliable stream repairs it
  (NACK, RTX from the server's cache); an ordered stream holds the messages
  after a gap until it is filled. The receiver sees a gap only when a later
  packet arrives: the sender's keepalive (due 30 ms after its last message,
  sent on the data path's 20 ms timer) or the next message (50 ms); a lost
  retransmission is asked for again after max(20 ms, RTT). The note counts
  the messages later than SLOW_MS.
- data_stream_throughput_msgs_per_s, data_stream_throughput_bytes_per_s: the
  same clean call at the limits, 30 messages a second of 200 bytes (6000 B/s
  of the 6144 allowed): messages (bytes) delivered / SECONDS. A send refused
  with -115 (the limits) is tried again every 1 ms with a new time stamp; the
  note counts them, and the messages lost (sent but never delivered; 0 for a
  reliable stream). The engine counts the messages of the last second as a
  sliding window (those sent less than 1 s ago), so at exactly 30/s a message
  is refused whenever it goes out even slightly less than 1 s after the one
  30 before it; a retried message then sits later in the window and pushes
  the one 30 after it later too, so the retry delays add up, about once a
  second (the note gives the longest).
- data_stream_bare_udp_p50_ms, data_stream_bare_udp_p99_ms: before the calls,
  UDP_PINGS round trips of one 100-byte datagram between two sockets of this
  process on 127.0.0.1 (an echo thread), one every 50 ms like the 20/s
  messages: the kernel's loopback alone, twice, as a message crosses it
  twice (sender -> server -> receiver).

The notes also give the quantiles from the callback's sent_ts (the sender's
wall clock in ms: resolution 1 ms) as a check.
"""

from __future__ import annotations

from typing import Any, Dict, List

from ._common import BenchError, Figure, figure, median

SECONDS = 10
UDP_PINGS = 200
LATENCY = "20:100:0"
LOSSY = "20:100:20"
LIMITS = "30:200:0"
#: Clean deliveries on loopback take a few ms at most; a message later than this waited for a repair.
SLOW_MS = 10.0


def setup(run: Dict[str, Any]) -> str:
    network = (f"the receiver's rtc.network_simulation dropping {run['loss']}% of the RTP it receives at random "
               f"(seed {run['seed']}; data, RTX and keepalives alike; no added delay)" if run["loss"] else
               "no simulated loss")
    return (f"reliable ordered stream, {run['rate']} messages/s of {run['bytes']} bytes for {run['seconds']:.0f} s on "
            f"absolute deadlines; two engines and an embedded server in one process on loopback (SRTP each hop), "
            f"no audio or video flowing; {network}")


def repaired(run: Dict[str, Any]) -> str:
    """The messages that waited for a repair (or behind one): later than SLOW_MS."""
    slow = [x for x in run["samples_ms"] if x > SLOW_MS]
    if not slow:
        return f"none later than {SLOW_MS:.0f} ms"
    return (f"{len(slow)} later than {SLOW_MS:.0f} ms (a loss repaired, or waiting behind one), median "
            f"{median(slow):.1f} ms [{min(slow):.1f}..{max(slow):.1f}]")


def delivery(run: Dict[str, Any]) -> str:
    lost = run["accepted"] - run["delivered"]
    lat = run["latency_ms"] or {}
    gaps = (f"; on_stream_message_error {run['error_events']}x (code {run['error_code']}, {run['missed']} missed, "
            f"{run['cached']} cached)" if run["error_events"] else "; no on_stream_message_error")
    refused = (f"; {run['refused_messages']} sends refused with -115 at first ({run['refusals']} refusals), through on "
               f"a retry within {run['max_retry_ms']:.1f} ms" if run["refusals"] else "")
    failed = f"; {run['failures']} sends never accepted (last code {run['last_failure']})" if run["failures"] else ""
    return (f"{run['delivered']} of {run['accepted']} sent messages delivered ({lost} lost, {run['duplicates']} "
            f"duplicates, {run['out_of_order']} out of order){gaps}{refused}{failed}; latency min {lat.get('min')} p50 "
            f"{lat.get('p50')} p90 {lat.get('p90')} p99 {lat.get('p99')} max {lat.get('max')} ms; {repaired(run)}; "
            f"{run['late_100'] * 100:.1f}% later than 100 ms; from sent_ts (1 ms resolution) p50 "
            f"{run['sent_ts_latency_ms']['p50']} p99 {run['sent_ts_latency_ms']['p99']} ms")


def latency_figures(run: Dict[str, Any], suffix: str) -> List[Figure]:
    names = [f"data_stream_delivery_p50_ms{suffix}", f"data_stream_delivery_p99_ms{suffix}"]
    lat = run["latency_ms"]
    if not lat:
        why = f"not measured: no message delivered; {setup(run)}; {delivery(run)}"
        return [figure(n, None, "ms", why) for n in names]
    rank = f"nearest rank over {run['delivered']} messages"
    return [
        figure(names[0], lat["p50"], "ms",
               f"median of CLOCK_MONOTONIC at on_stream_message - at send_stream_message ({rank}); {setup(run)}; "
               f"{delivery(run)}"),
        figure(names[1], lat["p99"], "ms",
               f"99th percentile ({rank}) of the same; {setup(run)}; {delivery(run)}"),
    ]


def throughput_figures(run: Dict[str, Any]) -> List[Figure]:
    seconds = run["seconds"]
    lost = run["accepted"] - run["delivered"]
    note = (f"{lost} messages lost; {run['delivered']} messages delivered / {seconds:.0f} s of sending "
            f"({run['count']} attempted at {run['rate']}/s, the last delivered {run['last_delivery_ms'] / 1e3:.2f} s "
            f"after the first send); {setup(run)}; {delivery(run)}")
    return [
        figure("data_stream_throughput_msgs_per_s", round(run["delivered"] / seconds, 2), "msgs/s", note),
        figure("data_stream_throughput_bytes_per_s", round(run["delivered"] * run["bytes"] / seconds, 1), "B/s",
               f"{run['bytes']} bytes x {note}"),
    ]


def udp_figures(udp: Dict[str, Any]) -> List[Figure]:
    names = ["data_stream_bare_udp_p50_ms", "data_stream_bare_udp_p99_ms"]
    rtt = udp["rtt_ms"]
    if not rtt:
        return [figure(n, None, "ms", "not measured: no datagram came back") for n in names]
    note = (f"round trip of one {udp['bytes']}-byte UDP datagram between two sockets of one process on 127.0.0.1 "
            f"(an echo thread, blocking calls), one every {udp['interval_ms']:.0f} ms like the 20/s messages; "
            f"{udp['answered']} of {udp['pings']} answered; min {rtt['min']} p50 {rtt['p50']} p90 {rtt['p90']} p99 "
            f"{rtt['p99']} max {rtt['max']} ms; the kernel's loopback twice, as a message crosses it twice "
            f"(sender -> server -> receiver), without SRTP, threads or the engine")
    return [figure(names[0], rtt["p50"], "ms", f"median {note}"),
            figure(names[1], rtt["p99"], "ms", f"99th percentile (nearest rank) {note}")]


def run(ctx) -> List[Figure]:
    seconds = 3 if ctx.quick else SECONDS
    pings = 40 if ctx.quick else UDP_PINGS
    program = ctx.compile_c("data_stream.c", "-ldl", "-lpthread", "-lm")
    runs = [LATENCY, LOSSY, LIMITS]
    data = ctx.run_json([program, ctx.library, ctx.scratch, seconds, pings, *runs],
                        timeout=pings * 0.05 + len(runs) * (seconds + 30) + 30)
    by_spec = {f"{r['rate']}:{r['bytes']}:{r['loss']}": r for r in data["runs"]}
    if set(by_spec) != set(runs):
        raise BenchError(f"data_stream reported runs {sorted(by_spec)}, expected {runs}")
    return [
        *latency_figures(by_spec[LATENCY], ""),
        *latency_figures(by_spec[LOSSY], "_loss_20"),
        *throughput_figures(by_spec[LIMITS]),
        *udp_figures(data["udp"]),
    ]
