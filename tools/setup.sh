#!/usr/bin/env bash
# Installs what horde needs on a fresh Debian/Ubuntu machine: the Vulkan loader,
# Mesa's lavapipe (a CPU Vulkan driver, so no GPU is required), the Khronos
# validation layers, shaderc with glslang and SPIRV-Tools, Xvfb, and the npm
# packages of the glTF validator the tests use. Safe to run again: it installs
# only what is missing. Rust itself comes from rustup.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(mesa-vulkan-drivers libvulkan-dev vulkan-validationlayers vulkan-tools
          libshaderc-dev glslang-dev spirv-tools xvfb xauth pkg-config)
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo is missing; install Rust from https://rustup.rs and run this again" >&2
  exit 1
fi

if [ -f tests/gltf-validator/package-lock.json ] && [ ! -d tests/gltf-validator/node_modules ]; then
  echo "setup: installing the glTF validator (npm ci)"
  npm ci --prefix tests/gltf-validator --no-audit --no-fund --loglevel=error
fi
echo "setup: done"
