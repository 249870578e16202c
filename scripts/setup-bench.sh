#!/usr/bin/env bash
# Installs what the audio and video benchmarks need beyond scripts/setup.sh, on Debian 12,
# when missing: GStreamer (the comparison pipelines in bench/audio_delay.c,
# bench/audio_cpu.c, bench/video_cpu.c and bench/video_delay.c; vp8enc, vp9enc,
# vp8dec and vp9dec come with plugins-good), espeak-ng (the speech of bench/benchmarks/audio_pesq.py)
# and PyPI's pesq, numpy and scipy. Idempotent, and quick when nothing is
# missing. `make bench` runs it; `make test` does not.
#
# A failed install is not fatal: the benchmark that needs the missing piece
# records null with the reason instead of a figure.
set -uo pipefail
export DEBIAN_FRONTEND=noninteractive

DEBS=(
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  espeak-ng
)
PY_MODULES=(numpy scipy pesq)          # import names
PY_PACKAGES=(numpy scipy pesq)         # the matching PyPI names

missing=()
for pkg in "${DEBS[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-bench: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  # Update the package lists only when the install fails without it.
  if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    $SUDO apt-get update -qq || true
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" \
      || echo "setup-bench: could not install ${missing[*]} (the benchmarks that need them report null)" >&2
  fi
fi

PYTHON=${PYTHON:-python3}
pymissing=()
for i in "${!PY_MODULES[@]}"; do
  "$PYTHON" -c "import ${PY_MODULES[$i]}" 2>/dev/null || pymissing+=("${PY_PACKAGES[$i]}")
done
if [ ${#pymissing[@]} -gt 0 ]; then
  echo "setup-bench: pip installing ${pymissing[*]}"
  # pesq builds from source and needs numpy (and Cython) at build time.
  "$PYTHON" -m pip install -q numpy cython >/dev/null 2>&1 || true
  "$PYTHON" -m pip install -q "${pymissing[@]}" \
    || echo "setup-bench: could not pip install ${pymissing[*]} (the benchmarks that need them report null)" >&2
fi
exit 0
