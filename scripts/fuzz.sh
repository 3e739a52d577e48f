#!/usr/bin/env bash
# Runs every fuzz target in the module for a fixed budget each: $1 is an
# execution count ("100000x", the default) or a duration ("30s") for longer
# local runs. Counts avoid Go 1.26's spurious "context deadline exceeded"
# at the end of a duration-bounded run (golang/go#75804).
set -euo pipefail
t=${1:-100000x}
go=${GO:-go}
# Each "package Fuzz..." pair; go test -fuzz takes one target at a time.
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r f; do
	pkg=./$(dirname "${f#./}")
	grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //' | while read -r name; do
		echo "fuzz $pkg $name ($t)"
		$go test -run='^$' -fuzz="^${name}\$" -fuzztime="$t" "$pkg"
	done
done
