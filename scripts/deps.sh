#!/usr/bin/env bash
# Installs the C pieces cgo needs for libseccomp when they are missing;
# with "test", also what the end-to-end tests run inside the sandbox:
# terminals (less, script), processes (ps, taskset) and the workload
# suite's toolchains (cc, python3 with venv, npm).
set -euo pipefail
need=()
if [ "${1:-}" = test ]; then
	command -v less >/dev/null || need+=(less)
	command -v ps >/dev/null || need+=(procps)
	command -v script >/dev/null || need+=(bsdutils)
	command -v taskset >/dev/null || need+=(util-linux)
	command -v python3 >/dev/null || need+=(python3 python3-venv)
	command -v npm >/dev/null || need+=(nodejs npm)
fi
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
