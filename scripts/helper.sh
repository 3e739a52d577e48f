#!/usr/bin/env bash
# Builds the sandbox helper (sandbox/linux/helper/*.c) into $1: a static
# program gatedexec embeds and runs for every sandboxed command.
#
# With musl (musl-tools) when it is installed: a static musl helper is
# 75 KB and starts in about a sixth of the time of a static glibc one,
# whose start-up (CPU feature and cache probing, IRELATIVE relocations)
# costs 0.5 ms on a VM. musl ships no kernel headers, so the host's
# linux/ and asm/ headers are offered to it, alone, from a directory of
# links. Otherwise (or with HELPER_CC set, e.g. HELPER_CC=cc) the system
# compiler links glibc statically.
set -euo pipefail
out=$1
src=(sandbox/linux/helper/helper_linux.c sandbox/linux/helper/helper_egress_linux.c)
flags=(-O2 -Wall -Wextra -Werror -static -s)
if [ -z "${HELPER_CC:-}" ] && command -v musl-gcc >/dev/null 2>&1; then
	kh=$(mktemp -d)
	trap 'rm -rf "$kh"' EXIT
	multiarch=$(cc -print-multiarch 2>/dev/null || true)
	ln -s /usr/include/linux "$kh/linux"
	ln -s /usr/include/asm-generic "$kh/asm-generic"
	if [ -n "$multiarch" ] && [ -d "/usr/include/$multiarch/asm" ]; then
		ln -s "/usr/include/$multiarch/asm" "$kh/asm"
	else
		ln -s /usr/include/asm "$kh/asm"
	fi
	set -x
	musl-gcc "${flags[@]}" -isystem "$kh" -o "$out.tmp" "${src[@]}"
else
	set -x
	${HELPER_CC:-${CC:-cc}} "${flags[@]}" -o "$out.tmp" "${src[@]}"
fi
mv "$out.tmp" "$out"
