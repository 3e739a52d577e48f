#!/usr/bin/env bash
# Prints the path of the native binary behind `codex execpolicy check`,
# the reference `gatedexec check --format codex` must match byte for byte
# (test/codex_diff_test.go) and the peer `make bench` times check against.
# Installs @openai/codex, pinned, with npm into the user's cache when it is
# not there. The binary is called directly: the package's `codex` command
# is a Node.js launcher that would add Node's start to every call.
set -euo pipefail
version=${CODEX_VERSION:-0.171.0}
dir=${XDG_CACHE_HOME:-$HOME/.cache}/gatedexec-dev/codex-$version
find_bin() {
	[ -d "$dir/node_modules/@openai" ] || return 0
	find "$dir/node_modules/@openai" -path '*/vendor/*/bin/codex' -type f -perm -u+x | head -n1
}
bin=$(find_bin)
if [ -z "$bin" ]; then
	if ! command -v npm >/dev/null; then
		echo "codex.sh: npm is needed to install @openai/codex@$version" >&2
		exit 1
	fi
	npm install --silent --no-audit --no-fund --prefix "$dir" "@openai/codex@$version" >&2
	bin=$(find_bin)
fi
if [ -z "$bin" ]; then
	echo "codex.sh: @openai/codex@$version has no native binary for $(uname -m)" >&2
	exit 1
fi
echo "$bin"
