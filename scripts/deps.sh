#!/usr/bin/env bash
# Installs the C pieces cgo needs for libseccomp when they are missing.
set -euo pipefail
need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libseccomp 2>/dev/null; then
	need+=(libseccomp-dev)
fi
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "gatedexec needs: ${need[*]}" >&2
	echo "install them with: sudo apt-get install -y ${need[*]}" >&2
	exit 1
fi
echo "installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${need[@]}" >/dev/null
