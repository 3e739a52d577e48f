#!/bin/sh
# install.sh SRC DST: installs the executable SRC as DST, replacing DST in
# one rename (a running DST keeps its file), written in writes of 64 MB.
# Written whole, a file can be cached in 2 MB folios (when the kernel has
# free 2 MB blocks at hand; it takes smaller ones otherwise, and does not
# compact memory for it), which it maps with 2 MB pages where the
# executable's segments allow: every exec of it faults less (the
# Makefile's build says how much). A file the Go linker wrote, or one
# copied in small writes, is cached in small pieces.
set -eu
src=$1 dst=$2
mkdir -p "$(dirname "$dst")"
tmp=$dst.new.$$
trap 'rm -f "$tmp"' EXIT
dd if="$src" of="$tmp" bs=64M status=none
chmod 0755 "$tmp"
mv -f "$tmp" "$dst"
trap - EXIT
