#!/usr/bin/env bash
# Installs the Debian 12 packages vkleak needs, only those missing. Sourced or run by demo.sh and
# test.sh. Usage: tools/deps.sh [build|test|bench]
set -euo pipefail

build_pkgs=(cmake g++ make python3 pkg-config libunwind-dev
  libvulkan-dev libvulkan1 mesa-vulkan-drivers vulkan-validationlayers glslang-tools
  nlohmann-json3-dev libspdlog-dev libfmt-dev libcli11-dev libdw-dev
  libxcb1-dev libx11-dev libx11-xcb-dev libxrandr-dev libwayland-dev)
test_pkgs=(googletest libgtest-dev libbenchmark-dev python3-jsonschema vulkan-tools xvfb xauth glmark2-x11
  qml-qt6 qml6-module-qtquick qml6-module-qtquick-window qml6-module-qtqml qml6-module-qtqml-models
  qml6-module-qtqml-workerscript libsdl2-tests qtbase5-examples
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-bad
  mpv ffmpeg gfxreconstruct mangohud vkbasalt cmark-gfm
  mesa-utils libgl1-mesa-dri clang libclang-rt-14-dev chromium firefox-esr)
bench_pkgs=(libbenchmark-dev hyperfine)

want=("${build_pkgs[@]}")
case "${1:-build}" in
  test) want+=("${test_pkgs[@]}") ;;
  bench) want+=("${test_pkgs[@]}" "${bench_pkgs[@]}") ;;
esac

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "vkleak: installing missing packages: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq >&2
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
