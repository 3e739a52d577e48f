#!/usr/bin/env bash
# Installs the C compiler and static C library the sandbox helper is
# built with (and the tests' cgo hooks use) when they are missing;
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
command -v gcc >/dev/null 2>&1 || need+=(gcc)
# musl links the sandbox helper small and quick to start (scripts/helper.sh).
command -v musl-gcc >/dev/null 2>&1 || need+=(musl-tools)
[ -e /usr/include/linux/landlock.h ] || need+=(linux-libc-dev)
# Debian's libc6-dev ships libc.a, which the static helper links.
[ -e /usr/lib/x86_64-linux-gnu/libc.a ] || [ -e /usr/lib/aarch64-linux-gnu/libc.a ] || [ -e /usr/lib/libc.a ] || need+=(libc6-dev)
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
