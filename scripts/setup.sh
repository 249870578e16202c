#!/usr/bin/env bash
# Installs what building and testing agoraish needs on Debian 12 and is
# missing. Idempotent, and quick when nothing is missing.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

DEBS=(
  pkg-config gcc g++ make valgrind openssl
  libopus-dev libvpx-dev libsrtp2-dev libasound2-dev libv4l-dev libssl-dev zlib1g-dev libspeexdsp-dev libopusenc-dev libyuv-dev ffmpeg
  libturbojpeg0-dev libpng-dev libusrsctp-dev
  libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libswscale-dev librubberband-dev
  libwebrtc-audio-processing-dev libsox-dev libmysofa-dev libmysofa1 espeak-ng
  nginx libnginx-mod-rtmp
  iproute2 util-linux chromium
)
PY_MODULES=(pytest websockets pylibsrtp clang numpy scipy pesq)    # import names
PY_PACKAGES=(pytest websockets pylibsrtp clang==21.1.7 numpy scipy pesq)  # the matching PyPI names (clang: the bindings of the toolchain's libclang 21)

missing=()
for pkg in "${DEBS[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  # Update the package lists once per machine state, not on every run.
  if ! $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
fi

PYTHON=${PYTHON:-python3}
pymissing=()
for i in "${!PY_MODULES[@]}"; do
  "$PYTHON" -c "import ${PY_MODULES[$i]}" 2>/dev/null || pymissing+=("${PY_PACKAGES[$i]}")
done
if [ ${#pymissing[@]} -gt 0 ]; then
  echo "setup: pip installing ${pymissing[*]}"
  "$PYTHON" -m pip install -q "${pymissing[@]}"
fi

command -v swift >/dev/null || { echo "setup: the Swift toolchain (swift) is not on PATH" >&2; exit 1; }
