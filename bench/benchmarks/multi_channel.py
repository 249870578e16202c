"""Several channels per engine (ABI 0.11 connections): CPU per connection, and a cold join and a quick switch
between preloaded channels (ABI 0.12 preload_channel) to first audio, from C.

- multi_channel_cpu_ms_per_s_per_connection_1 / _2 / _4 and
  multi_channel_cpu_ms_per_s_per_connection (the value at 4): bench/multi_channel.c.
  An embedded server process (per-address join rate limit lifted), and for
  1, 2 and 4 connections in turn: one sender process per channel (an engine
  with an external source pushing a 48 kHz mono speech-like signal 10 ms
  every 10 ms, default profile, as audio_cpu) and one receiving process whose
  engine joins the first channel with join_channel_with_options and the
  others with join_channel_ex, publishing nothing (publish_microphone_track
  = 0), recording and playing on ALSA's "null" PCM, so that its audio device
  thread decodes and mixes every connection's remote audio each 10 ms. Once
  every connection has had on_first_remote_audio_decoded (the engine's
  handler for its own channel, the _ex handlers for the others) and 1 s more
  has passed, the receiver's CPU time (CLOCK_PROCESS_CPUTIME_ID: every
  thread, user and system) is read over a SECONDS window of CLOCK_MONOTONIC;
  the figure is that CPU in ms per second of wall time divided by the number
  of connections. The counts run one after another, each with only its own
  processes and the server, over windows of the same length. The notes give
  the process's total, its thread count, and the audio every connection
  played in the window (on_remote_audio_stats).
- multi_channel_idle_cpu_ms_per_s: the same receiving process with one
  connection in a channel with no sender, same window: the fixed cost.
- join_first_audio_ms_p50 / join_first_audio_ms_p99: a sender process
  already pushing the same signal in a channel; a measuring process whose
  engine (ALSA "null" recording and playback, nothing published) calls
  agoraish_engine_join_channel with a fresh uid JOINS times after 2
  uncounted joins, each followed by leave_channel, a wait for
  on_leave_channel and a pause drawn uniformly from 0..20 ms (back to back,
  the joins would meet the sender's 20 ms packets at one phase, and the time
  to first audio steps by 20 ms with that phase). A join is timed from right before the join call on the
  calling thread to the entry of on_first_remote_audio_decoded on the
  engine's event thread, with CLOCK_MONOTONIC; nearest-rank quantiles.
- quick_switch_first_audio_ms_p50 / quick_switch_first_audio_ms_p99: Agora's
  QuickSwitchChannel (an audience preloads the channels it may hop to, then
  switches with leave and join). Two sender processes pushing the same
  signal, each in a channel of its own; a measuring process whose engine
  (the same settings as above) preloads both channels with
  agoraish_engine_preload_channel for one uid, waits 300 ms for the server
  to accept the preloads, joins the first channel (uncounted), then switches
  to the other channel JOINS times after 2 uncounted switches: leave_channel,
  a wait for on_leave_channel, a pause drawn uniformly from 0..20 ms (as
  between the joins), and agoraish_engine_join_channel of the other channel
  with the same uid. Each switch follows first audio in the channel left at
  once. A switch is timed as a join, from right before the join call to the
  entry of on_first_remote_audio_decoded, with CLOCK_MONOTONIC; nearest-rank
  quantiles.

Each engine logs to a file in the run's scratch directory.
"""

from __future__ import annotations

from typing import List

from ._common import Figure

SECONDS = 6
JOINS = 30


def run(ctx) -> List[Figure]:
    seconds = 3 if ctx.quick else SECONDS
    joins = ctx.repeats(JOINS)
    program = ctx.compile_c("multi_channel.c", "-ldl", "-lpthread", "-lm")
    return ctx.run_figures([program, ctx.library, ctx.scratch, seconds, joins],
                           timeout=4 * (seconds + 30) + 2 * joins + 60)
