#!/usr/bin/env bash
# Runs every fuzz target in the module for a fixed time each ($1, e.g. 10s).
set -euo pipefail
t=${1:-10s}
go=${GO:-go}
# Each "package Fuzz..." pair; go test -fuzz takes one target at a time.
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r f; do
	pkg=./$(dirname "${f#./}")
	grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //' | while read -r name; do
		echo "fuzz $pkg $name ($t)"
		$go test -run='^$' -fuzz="^${name}\$" -fuzztime="$t" "$pkg"
	done
done
