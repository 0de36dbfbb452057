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

# The SARIF 2.1.0 schema (OASIS, final: rtm.5), which no Debian package ships: from the npm
# package of Microsoft's SARIF SDK for JavaScript (MIT), pinned by hash, unpacked into the user's
# cache; tests/analysis/validate_outputs.py validates vkleak's SARIF against it.
sarif_schema() {
  local dir=${XDG_CACHE_HOME:-$HOME/.cache}/vkleak/sarif-schema
  local file=$dir/sarif-2.1.0-rtm.5.json
  [ -s "$file" ] && return 0
  local tgz=sarif-matcher-utils-1.0.0-beta.0.tgz
  local sha=2dba0dc3f886e8fe7ee89c31ebfea1a86916f520caf4b0df3ba40e3091edcfda
  local tmp
  tmp=$(mktemp -d)
  echo "vkleak: fetching the SARIF 2.1.0 schema (npm @microsoft/sarif-matcher-utils)" >&2
  (cd "$tmp" && npm pack --silent @microsoft/sarif-matcher-utils@1.0.0-beta.0 >/dev/null)
  echo "$sha  $tmp/microsoft-$tgz" | sha256sum -c --quiet - >&2
  mkdir -p "$dir"
  tar xzf "$tmp/microsoft-$tgz" -C "$tmp" package/lib/schemas/sarif-2.1.0-rtm.5.json
  mv "$tmp/package/lib/schemas/sarif-2.1.0-rtm.5.json" "$file"
  rm -rf "$tmp"
}

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm (for the SARIF schema): Debian's, unless another Node.js already brings it.
case "${1:-build}" in
  test | bench) command -v npm >/dev/null || missing+=(npm) ;;
esac
if [ ${#missing[@]} -gt 0 ]; then
  echo "vkleak: installing missing packages: ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
case "${1:-build}" in
  test | bench) sarif_schema ;;
esac
