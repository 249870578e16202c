"""How fast the sender's rate follows a change of the path's capacity.

- bwe_convergence_s: not measured yet: the engine has no bandwidth
  estimator (no transport-wide congestion control or REMB; the encoder keeps
  the configured bitrate whatever the network does, docs/video.md). The
  figure stays null, with the reason, until there is one; the measurement
  will then cap the receiver's path with the engine's simulated network
  ({"rtc.network_simulation": {"bandwidth_kbps": ..., "queue_ms": ...}})
  and time the sender's rate settling at the cap.
"""

from __future__ import annotations

from typing import List

from ._common import Figure, figure


def run(ctx) -> List[Figure]:
    return [figure("bwe_convergence_s", None, "s",
                   "not measured: the engine has no bandwidth estimator yet (no transport-wide congestion control "
                   "or REMB; the video encoder keeps its configured bitrate whatever the network does), so there "
                   "is nothing to converge")]
