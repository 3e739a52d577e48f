#!/usr/bin/env bash
# Runs every fuzz target in the module for a fixed budget each: $1 is an
# execution count ("100000x", the default) or a duration ("30s") for longer
# local runs. Counts avoid Go 1.26's spurious "context deadline exceeded"
# at the end of a duration-bounded run (golang/go#75804). FuzzAnalyseVsBash
# gets $ORACLE_FUZZTIME (2000x) instead.
set -euo pipefail
t=${1:-100000x}
go=${GO:-go}
# Each "package Fuzz..." pair; go test -fuzz takes one target at a time.
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r f; do
	pkg=./$(dirname "${f#./}")
	grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed 's/^func //' | while read -r name; do
		budget=$t
		# The execution oracle runs bash in a sandbox for every input,
		# thousands of times slower than the analysis alone.
		[ "$name" = FuzzAnalyseVsBash ] && budget=${ORACLE_FUZZTIME:-2000x}
		echo "fuzz $pkg $name ($budget)"
		$go test -run='^$' -fuzz="^${name}\$" -fuzztime="$budget" "$pkg"
	done
done
