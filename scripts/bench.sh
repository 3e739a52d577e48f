#!/usr/bin/env bash
# Benchmarks, all in one run so the figures are comparable:
#   1. Go benchmarks (rule evaluation at 10/1000/10000 rules, shell analysis,
#      the engine's own cost per request of a long-lived front end).
#   2. Whole-process wall time with hyperfine: an empty static C program,
#      bare /bin/true, an empty Go program built as gatedexec is (no cgo),
#      with and without gatedexec's entry point, cobra alone, the sandbox
#      helper's own start and `gatedexec version` (the start-up floors),
#      gatedexec
#      sandbox under each built-in profile, one without a mount plan (only
#      the PID namespace) and one without namespaces, beside bwrap with
#      the equivalent policies (--unshare-pid --proc /proc), workspace-write
#      again beside bwrap with the output read through a pipe (as agents
#      read it), gatedexec run and check with a 1000-rule file (warm rules cache,
#      then uncached), and codex execpolicy check (scripts/codex.sh installs it);
#      then workloads, and a sandboxed /bin/true on a workspace of 22 000
#      entries (the git scan's cost, warm and with caches off) beside bwrap.
#   3. The agent front ends: `gatedexec hook claude-code` on the 1000-rule
#      file beside `gatedexec check` of the same script (hyperfine), and
#      the per-command cost of /bin/true through the warm MCP server beside
#      bare /bin/true, `gatedexec sandbox` and a one-shot `gatedexec run`
#      (Go benchmarks in test/, against this build).
#   4. Peak RSS of gatedexec.
#   5. gatedexec audit --summary over 1 000 000 records: time and peak RSS.
# Medians, the ratios issue 17 sets targets for (with the floor beside
# each one not met) are printed at the end and kept in bench/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=$root/bin/gatedexec
out=$PWD/bench/results
mkdir -p "$out"
runs=${RUNS:-300}

need=()
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v bwrap >/dev/null || need+=(bubblewrap)
[ -x /usr/bin/time ] || need+=(time)
command -v python3 >/dev/null || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then echo "bench needs: ${need[*]} (apt-get install -y ${need[*]})" >&2; exit 1; fi
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

echo "== Go benchmarks"
go test -run '^$' -bench . -benchmem -count 1 ./execpolicy/ ./auditlog/ ./sandbox/egress/ ./gate/ | tee "$out/go-bench.txt"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ws=$tmp/ws
mkdir -p "$ws"
git -C "$ws" init -q
cat >"$tmp/nomount.toml" <<TOML
description = "workspace-write without protect/hide/private tmp: no mount plan, only the PID namespace and its /proc"
extends = "workspace-write"
[filesystem]
protect = []
hide = []
private_tmp = false
TOML
cat >"$tmp/nons.toml" <<TOML
description = "workspace-write without protect/hide, private tmp or PID namespace: Landlock + seccomp, no mount namespace"
extends = "workspace-write"
[filesystem]
protect = []
hide = []
private_tmp = false
[process]
pid_namespace = false
TOML
python3 - "$tmp/1000.rules" <<'PY'
import sys
progs = ["git", "npm", "cargo", "go", "make", "python3", "docker", "kubectl", "ls", "cat"]
with open(sys.argv[1], "w") as f:
    for i in range(1000):
        p = progs[i % len(progs)]
        d = ["allow", "prompt", "forbidden"][i % 3]
        f.write(f'prefix_rule(pattern=["{p}", "sub{i}"], decision="{d}")\n')
    f.write('prefix_rule(pattern=["true"], decision="allow")\n')
PY

# The floors, built here: an empty static C program (exec + libc start)
# and empty Go programs built as gatedexec is (no cgo, -trimpath, -s
# -w: the Go runtime's start; and with its entry point). The sandbox
# helper run without its
# arguments refuses at once: exec + its libc's start, what every
# sandboxed command pays before the helper does anything.
#
# Each is linked aside and installed by scripts/install.sh, as `make
# build` installs gatedexec, and Codex is copied here the same way: how a
# file was written decides how the kernel caches it and what each exec of
# it costs (the Makefile's build says how much), so every large program
# below is measured in the same state. /bin/true and bwrap are left where
# they are: too small for it to matter (copies measured +0.03 and +0.01
# ms).
mkdir -p "$tmp/empty" "$tmp/linked"
printf 'int main(void) { return 0; }\n' >"$tmp/c-empty.c"
cc -O2 -static -o "$tmp/linked/c-empty" "$tmp/c-empty.c"
printf 'package main\n\nfunc main() {}\n' >"$tmp/empty/main.go"
printf 'module empty\n\ngo 1.21\n' >"$tmp/empty/go.mod"
# Linked as gatedexec is, from make bench: FLOOR_LDFLAGS are the
# Makefile's LINKFLAGS, FLOOR_ENTRY its entry point where it has one and
# its ONEPROC. The 2 MB segment rounding changes nothing measurable for
# a program this small (+0.002 / +0.004 ms, in turns run by run).
# go-empty has neither: the Go runtime's start alone. Every Go floor is
# built with the standard library gatedexec is built with (scripts/
# depatch's overlay): go-empty takes those of its patches that do not
# depend on one processor (fewer CPUIDs, the pointer masks and the
# linker's itabs left to first need, no walk of the function table), not
# the populated heap.
ldflags=${FLOOR_LDFLAGS:--s -w}
entry=${FLOOR_ENTRY:-}
depatch=$(go run ./scripts/depatch)
modfile=$(printf '%s\n' "$depatch" | sed -n 1p)
overlay=$(printf '%s\n' "$depatch" | sed -n 2p)
(cd "$tmp/empty" && CGO_ENABLED=0 go build -overlay "$overlay" -trimpath -ldflags "$ldflags" -o "$tmp/linked/go-empty" .)
# The same empty program started as gatedexec starts a command other
# than run and sandbox: with one processor (ONEPROC), through its entry
# point, which binds nothing for such a command, and with the package
# that binds run and sandbox (internal/oneproc), whose initialisation it
# then pays for.
CGO_ENABLED=0 go build -overlay "$overlay" -trimpath -ldflags "$ldflags $entry" -modfile "$modfile" -o "$tmp/linked/go-empty-entry" ./bench/floors/empty
# The floor of `gatedexec version`: cobra running one version command,
# built against the same patched cobra as gatedexec (scripts/depatch),
# started as gatedexec starts.
CGO_ENABLED=0 go build -overlay "$overlay" -trimpath -ldflags "$ldflags $entry" -modfile "$modfile" -o "$tmp/linked/go-cobra" ./bench/floors/cobra
# A file written whole gets 2 MB folios only when the kernel has free
# 2 MB blocks at hand (it does not compact memory for a write), which a
# run that wrote hundreds of MB just before may have used up: compacted
# first (as root), every large program timed here is installed, gatedexec
# again too, and how many 2 MB pages one start of each maps is printed.
[ -w /proc/sys/vm/compact_memory ] && echo 1 >/proc/sys/vm/compact_memory
for f in c-empty go-empty go-empty-entry go-cobra; do scripts/install.sh "$tmp/linked/$f" "$tmp/$f"; done
scripts/install.sh "$bin" "$bin"
scripts/install.sh "$bin-mcp" "$bin-mcp"
helper=$root/sandbox/linux/helperbin/gatedexec-helper
# codex execpolicy check, the reference for check: Codex's own binary,
# installed with npm by scripts/codex.sh (its Node.js launcher left out).
codex=()
if cx=$(scripts/codex.sh); then
	scripts/install.sh "$cx" "$tmp/codex"
	codex_check="$tmp/codex execpolicy check --rules $tmp/1000.rules -- git status"
	codex=(-n codex-check-1000-rules "$codex_check")
fi
# pmd2m CMD...: the 2 MB file pages one run of CMD maps (thp_file_mapped).
pmd2m() {
	local a b
	a=$(awk '$1 == "thp_file_mapped" {print $2}' /proc/vmstat)
	"$@" >/dev/null 2>&1 || true
	b=$(awk '$1 == "thp_file_mapped" {print $2}' /proc/vmstat)
	echo $((b - a))
}
echo "== 2 MB pages one start maps: gatedexec version $(pmd2m "$bin" version), go-cobra $(pmd2m "$tmp/go-cobra" version)," \
	"go-empty $(pmd2m "$tmp/go-empty")${codex:+, codex $(pmd2m "$tmp/codex" execpolicy check --rules "$tmp/1000.rules" -- git status)}" | tee "$out/pmd.txt"
# The agent benchmarks' test binary, built with the other floors, not
# between two measurements.
(cd "$root" && go test -c -o "$tmp/agents.test" ./test/)
# Fill the compiled-rules cache, so the warm figures below are warm.
"$bin" check -r "$tmp/1000.rules" -- git status >/dev/null

cd "$ws"
# The commands of the targets, timed in hyperfine's rows and alternated
# below; bwrap with the policy of workspace-write is the reference of two.
sandbox_ww="$bin sandbox -p workspace-write -- /bin/true"
sandbox_nomount="$bin sandbox -p $tmp/nomount.toml -- /bin/true"
check_1000="$bin check -r $tmp/1000.rules -- git status"
bwrap_ww="bwrap --ro-bind / / --dev /dev --proc /proc --bind $ws $ws --bind /tmp /tmp --ro-bind $ws/.git/hooks $ws/.git/hooks --ro-bind $ws/.git/config $ws/.git/config --unshare-pid --unshare-ipc --unshare-net -- /bin/true"
echo "== whole-process wall time (hyperfine, $runs runs each)"
hyperfine -N --warmup 30 --runs "$runs" --export-json "$out/hyperfine.json" \
	-n c-empty "$tmp/c-empty" \
	-n bare "/bin/true" \
	-n go-empty "$tmp/go-empty" \
	-n go-empty-entry "$tmp/go-empty-entry" \
	-n go-cobra-version "$tmp/go-cobra version" \
	-n gatedexec-version "$bin version" \
	-n sandbox-full-access "$bin sandbox -p full-access -- /bin/true" \
	-n sandbox-read-only "$bin sandbox -p read-only -- /bin/true" \
	-n sandbox-workspace-write "$sandbox_ww" \
	-n sandbox-workspace-dev "$bin sandbox -p workspace-dev -- /bin/true" \
	-n sandbox-workspace-net "$bin sandbox -p workspace-net -- /bin/true" \
	-n sandbox-nomount "$sandbox_nomount" \
	-n sandbox-nons "$bin sandbox -p $tmp/nons.toml -- /bin/true" \
	-n bwrap-read-only "bwrap --ro-bind / / --dev /dev --proc /proc --unshare-pid --unshare-ipc --unshare-net -- /bin/true" \
	-n bwrap-workspace-write "$bwrap_ww" \
	-n bwrap-pid "bwrap --bind / / --dev /dev --proc /proc --unshare-pid -- /bin/true" \
	-n run-1000-rules "$bin run -r $tmp/1000.rules -- /bin/true" \
	-n check-1000-rules "$check_1000" \
	"${codex[@]}"
# The targets again, their commands alternated call by call: the rows
# above run one after the other, each on the machine the rows before it
# left (a VM's speed drifts by more than the targets' margins between two
# rows); alternating, all meet the same machine. Each timed call follows
# an untimed one of the same command, as in hyperfine's rows: a command
# leaves work to the kernel past its exit (bwrap the teardown of its
# network namespace, gatedexec its address space and mount namespace to
# its exit holder), which lands on whatever runs next, and alternated
# singly every bwrap call followed a sandboxed gatedexec (0.1-0.2 ms on
# the next command, measured pair by pair). Each argument is
# NAME=COMMAND.
alt=(
	"go-empty=$tmp/go-empty"
	"go-empty-entry=$tmp/go-empty-entry"
	"go-cobra-version=$tmp/go-cobra version"
	"gatedexec-version=$bin version"
	"sandbox-workspace-write=$sandbox_ww"
	"bwrap-workspace-write=$bwrap_ww"
	"sandbox-nomount=$sandbox_nomount"
	"check-1000-rules=$check_1000"
)
[ ${#codex[@]} -gt 0 ] && alt+=("codex-check-1000-rules=$codex_check")
python3 - "$runs" "$out/alternated.json" "${alt[@]}" <<'PY'
import json, os, shlex, statistics, sys, time
runs, out = int(sys.argv[1]), sys.argv[2]
names, cmds = zip(*((a.split("=", 1)[0], shlex.split(a.split("=", 1)[1])) for a in sys.argv[3:]))
null = os.open(os.devnull, os.O_WRONLY)
acts = [(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
times = [[] for _ in cmds]
for i in range(runs + 10):
    # Each round in turn forward and backward: none always follows another.
    for j in (range(len(cmds)) if i % 2 == 0 else reversed(range(len(cmds)))):
        for timed in (False, True):
            t = time.perf_counter()
            pid = os.posix_spawnp(cmds[j][0], cmds[j], os.environ, file_actions=acts)
            _, st = os.waitpid(pid, 0)
            if st != 0:
                sys.exit(f"{names[j]}: exit status {st}")
            if timed and i >= 10:  # the first rounds warm up
                times[j].append((time.perf_counter() - t) * 1000)
json.dump({"rounds": runs, "medians": {n: statistics.median(t) for n, t in zip(names, times)}}, open(out, "w"))
PY
# The helper refusing (exit 125, hence -i), beside the C floor again.
hyperfine -N -i --warmup 30 --runs "$runs" --export-json "$out/hyperfine-helper.json" \
	-n c-empty-again "$tmp/c-empty" \
	-n helper-start "$helper"
# As an agent runs a command: its output read through a pipe (the rows
# above send it to /dev/null), workspace-write beside bwrap. gatedexec's
# run ends when every process of the command's PID namespace is gone,
# not when its helper has exited; the pipe ends when every copy of its
# write end is closed.
hyperfine -N --warmup 30 --runs "$runs" --output=pipe --export-json "$out/hyperfine-pipe.json" \
	-n sandbox-workspace-write-piped "$sandbox_ww" \
	-n bwrap-workspace-write-piped "$bwrap_ww"
# The same two with the rules cache off: the first run after an edit.
GATEDEXEC_NO_RULES_CACHE=1 hyperfine -N --warmup 10 --runs "$runs" --export-json "$out/hyperfine-nocache.json" \
	-n run-1000-rules-uncached "$bin run -r $tmp/1000.rules -- /bin/true" \
	-n check-1000-rules-uncached "$check_1000"

# The sandbox's cost on real work: each workload bare, under gatedexec run
# and under bwrap with the equivalent policy, side by side.
wl=$tmp/wl
mkdir -p "$wl/gomod" "$wl/repo"
printf 'module example.com/b\n\ngo 1.21\n' >"$wl/gomod/go.mod"
printf 'package b\n\nfunc Add(a, b int) int { return a + b }\n' >"$wl/gomod/b.go"
printf 'package b\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal()\n\t}\n}\n' >"$wl/gomod/b_test.go"
git -C "$wl/repo" init -q
gocache=$(go env GOCACHE)
mkdir -p "$gocache"
bw="bwrap --ro-bind / / --dev /dev --proc /proc --bind $wl $wl --bind /tmp /tmp --unshare-pid --unshare-ipc --unshare-net"
gx="$bin run -p workspace-dev -w $wl --approval-policy never --"
commit="cd $wl/repo && git add -A && git -c user.name=b -c user.email=b@b commit -qm x"
# New content every time (sh is dash here: no $RANDOM), so every commit has 1000 changed files.
newfiles="cd $wl/repo && n=\$(date +%s%N) && for i in \$(seq 1000); do echo \$n\$i > f\$i; done"
cd "$wl"
echo "== workloads (hyperfine, ${WLRUNS:-10} runs each)"
# hyperfine takes one --prepare for all its commands: one run per workload.
hyperfine -N --warmup 2 --runs "${WLRUNS:-10}" --export-json "$out/wl-go.json" \
	-n go-test-bare "sh -c 'cd $wl/gomod && go test -count=1 ./...'" \
	-n go-test-gatedexec "$gx sh -c 'cd $wl/gomod && go test -count=1 ./...'" \
	-n go-test-bwrap "$bw --bind $gocache $gocache -- sh -c 'cd $wl/gomod && go test -count=1 ./...'"
hyperfine -N --warmup 2 --runs "${WLRUNS:-10}" --export-json "$out/wl-venv.json" --prepare "rm -rf $wl/venv" \
	-n venv-bare "python3 -m venv --without-pip $wl/venv" \
	-n venv-gatedexec "$gx python3 -m venv --without-pip $wl/venv" \
	-n venv-bwrap "$bw -- python3 -m venv --without-pip $wl/venv"
hyperfine -N --warmup 2 --runs "${WLRUNS:-10}" --export-json "$out/wl-commit.json" --prepare "sh -c '$newfiles'" \
	-n commit1000-bare "sh -c '$commit'" \
	-n commit1000-gatedexec "$gx sh -c '$commit'" \
	-n commit1000-bwrap "$bw -- sh -c '$commit'"

# A workspace of 22 000 entries in 2 000 directories: what the scan for
# changed git control files costs a sandboxed start on a real tree, with
# the scan's listings kept from the run before (warm) and with every
# cache off (the first run), beside bwrap with the same policy.
big=$tmp/big
python3 - "$big" <<'PY'
import os, sys
for i in range(2000):
    d = os.path.join(sys.argv[1], "src", f"m{i // 100}", f"p{i}")
    os.makedirs(d, exist_ok=True)
    for j in range(10):
        open(os.path.join(d, f"f{j}.go"), "w").write("x")
PY
git -C "$big" init -q
"$bin" sandbox -C "$big" -w "$big" -p workspace-write -- /bin/true
echo "== a workspace of 22 000 entries (hyperfine, ${BIGRUNS:-50} runs each)"
hyperfine -N --warmup 5 --runs "${BIGRUNS:-50}" --export-json "$out/hyperfine-big.json" \
	-n big-sandbox-workspace-write "$bin sandbox -C $big -w $big -p workspace-write -- /bin/true" \
	-n big-sandbox-workspace-write-nocache "env GATEDEXEC_NO_CACHE=1 $bin sandbox -C $big -w $big -p workspace-write -- /bin/true" \
	-n big-bwrap-workspace-write "bwrap --ro-bind / / --dev /dev --proc /proc --bind $big $big --bind /tmp /tmp --ro-bind $big/.git/hooks $big/.git/hooks --ro-bind $big/.git/config $big/.git/config --unshare-pid --unshare-ipc --unshare-net -- /bin/true"
python3 - "$out/hyperfine-big.json" <<'PY' | tee "$out/big.txt"
import json, sys
med = {r["command"]: r["median"] * 1000 for r in json.load(open(sys.argv[1]))["results"]}
b = med["big-bwrap-workspace-write"]
for k, v in med.items():
    print(f"{k:40} {v:8.2f} ms  {v / b:5.2f}x bwrap")
PY

echo "== agent front ends"
# The event as Claude Code sends it; hyperfine 1.15 has no --input, so both
# commands go through its shell, whose start it subtracts.
printf '{"session_id":"bench","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status && make test"}}' "$ws" >"$tmp/event.json"
(cd "$ws" && hyperfine --warmup 30 --runs "$runs" --export-json "$out/hyperfine-hook.json" \
	-n hook-1000-rules "$bin hook claude-code -r $tmp/1000.rules < $tmp/event.json" \
	-n check-shell-1000-rules "$bin check --shell -r $tmp/1000.rules -- 'git status && make test'")
(cd "$root/test" && GATEDEXEC_BIN=$bin "$tmp/agents.test" -test.run '^$' -test.bench 'BenchmarkAgent' -test.benchtime "${AGENTRUNS:-300}x" -test.count 1) | tee "$out/go-bench-agents.txt"
python3 - "$out/hyperfine-hook.json" "$out/go-bench-agents.txt" <<'PY' | tee "$out/agents.txt"
import json, re, sys
med = {x["command"]: x["median"] * 1000 for x in json.load(open(sys.argv[1]))["results"]}
print(f"hook on 1000 rules {med['hook-1000-rules']:.3f} ms (target < 10 ms), check {med['check-shell-1000-rules']:.3f} ms")
# Medians (median-ms): a mean takes in every stall of the VM.
ns = {m.group(1): float(m.group(2)) for m in re.finditer(r"BenchmarkAgentTrue/(\S+?)-\d+\s+\d+\s+[\d.]+ ns/op\s+([\d.]+) median-ms", open(sys.argv[2]).read())}
if ns:
    print("/bin/true, medians: " + ", ".join(f"{k} {v:.2f} ms" for k, v in ns.items()))
    # The MCP tool runs its command as a bash script, as run --shell
    # does: that is the one-shot run of the same work. A plain command
    # runs without bash on both paths, any other script with it (-bash).
    print(f"mcp-warm / run-oneshot-shell: {ns['mcp-warm'] / ns['run-oneshot-shell']:.2f}x (target <= 0.5x); "
          f"mcp-warm / run-oneshot: {ns['mcp-warm'] / ns['run-oneshot']:.2f}x; "
          f"a script bash runs: mcp-warm-bash / run-oneshot-shell-bash: {ns['mcp-warm-bash'] / ns['run-oneshot-shell-bash']:.2f}x")
    # An agent's calls come seconds apart: between them the server starts
    # the next call's helper (its namespaces), as it cannot back to back.
    print(f"calls 5 ms apart, as an agent's are: mcp-warm-spaced / run-oneshot-shell-spaced: "
          f"{ns['mcp-warm-spaced'] / ns['run-oneshot-shell-spaced']:.2f}x ({ns['mcp-warm-spaced']:.2f} / {ns['run-oneshot-shell-spaced']:.2f} ms)")
    # The same two paths alternated call by call (BenchmarkAgentInterleaved):
    # the rows above run one after the other, each on the machine the rows
    # before it left; alternating, both meet the same machine.
    il = re.search(r"BenchmarkAgentInterleaved-\d+\s+\d+\s+[\d.]+ ns/op\s+([\d.]+) oneshot-ms\s+([\d.]+) warm-ms\s+([\d.]+) warm/oneshot", open(sys.argv[2]).read())
    if il:
        print(f"alternated call by call: mcp-warm / run-oneshot-shell: {float(il.group(3)):.2f}x ({float(il.group(2)):.2f} / {float(il.group(1)):.2f} ms, medians)")
    if "bwrap" in ns:
        # The warm path still runs one sandboxed start: bwrap's kernel
        # work (bwrap less a C program's start, bare) is its floor.
        floor = ns["bwrap"] - ns["bare"]
        print(f"floor of the warm path: bwrap - bare = {floor:.2f} ms = {floor / ns['run-oneshot-shell']:.2f}x run-oneshot-shell")
PY

echo "== peak RSS"
for c in "sandbox -p workspace-write -- /bin/true" "run -r $tmp/1000.rules -- /bin/true" "check -r $tmp/1000.rules -- git status"; do
	kb=$(/usr/bin/time -f %M -o "$tmp/rss" $bin $c >/dev/null 2>&1; cat "$tmp/rss")
	echo "gatedexec $c: ${kb} KB" | sed "s|$tmp/||g"
done | tee "$out/rss.txt"

echo "== audit --summary over 1 000 000 records"
python3 - "$tmp/audit.jsonl" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1_000_000):
        after = "true" if i % 2 else "false"
        f.write('{"time":"2026-01-01T00:00:00Z","session":"s%d","kind":"exec","argv":["tool%d","sub","--n=%d"],"cwd":"/w",'
                '"rules_matched":[],"decision":"%s","outcome":"approved","profile":"workspace-write","exit":0,'
                '"denials":[{"kind":"fs-write","path":"/p/%d"}],"after_run":%s}\n' % (i % 7, i % 5000, i, ["allow", "prompt", "forbidden"][i % 3], i % 20000, after))
PY
/usr/bin/time -f "%e s, %M KB peak RSS" -o "$tmp/audit-time" $bin audit --summary "$tmp/audit.jsonl" >/dev/null
echo "gatedexec audit --summary, 1000000 records ($(du -m "$tmp/audit.jsonl" | cut -f1) MB): $(cat "$tmp/audit-time")" | tee "$out/audit.txt"

python3 - "$out/wl-go.json" "$out/wl-venv.json" "$out/wl-commit.json" <<'PY' | tee "$out/workloads.txt"
import json, sys
med = {x["command"]: x["median"] * 1000 for f in sys.argv[1:] for x in json.load(open(f))["results"]}
for w in ("go-test", "venv", "commit1000"):
    b, g, bw = med[w + "-bare"], med[w + "-gatedexec"], med[w + "-bwrap"]
    print(f"{w:12} bare {b:8.1f} ms  gatedexec run {g:8.1f} ms ({g/b:.2f}x)  bwrap {bw:8.1f} ms ({bw/b:.2f}x)")
PY

python3 - "$out/hyperfine.json" "$out/hyperfine-nocache.json" "$out/hyperfine-helper.json" "$out/rss.txt" "$out/alternated.json" "$out/hyperfine-pipe.json" <<'PY' | tee "$out/summary.txt"
import json, re, sys
r = {x["command"]: x for f in sys.argv[1:4] + sys.argv[6:7] for x in json.load(open(f))["results"]}
med = {k: v["median"] * 1000 for k, v in r.items()}
print(f"{'command':28} {'median ms':>10} {'x go-empty':>11}")
for k, v in med.items():
    print(f"{k:28} {v:10.3f} {v/med['go-empty']:10.2f}x")
med["go-bwrap-pid"] = med["go-empty"] + med["bwrap-pid"] - med["bare"]
print()
print("targets (issue 17), each a ratio of two medians of the one run above:")
def ratio(a, b, target=None, floor=None, m=med, label=""):
    """Prints a / b of the medians m; against a target, whether it is
    met, and when it is not, the floor measured beside it (a program that
    does less than a can, in the same ratio to b) or by how much it is
    missed."""
    if a not in m or b not in m:
        print(f"{label}{a} / {b}: not measured ({b if b not in m else a} missing)")
        return
    x = m[a] / m[b]
    verdict = ""
    if target is not None and x <= target:
        verdict = "  met"
    elif target is not None and floor in m:
        f = m[floor] / m[b]
        verdict = f"  NOT met; its floor, {floor} / {b}, is {f:.3f}x" + (" (above the target)" if f > target else "")
    elif target is not None and floor is not None:
        verdict = f"  NOT met; its floor, {floor} / {b}, is in the rows above only"
    elif target is not None:
        verdict = f"  NOT met by {m[a] - target * m[b]:.3f} ms; no floor measured here stands in the way"
    # Three places: a ratio a hair over its target must not read as on it.
    print(f"{label}{a} / {b}: {x:.3f}x" + (f" (target <= {target}x){verdict}" if target is not None else ""))
# version against both empty programs: the runtime's start alone, and
# started as gatedexec starts (its entry point and what gives the CPUs
# back), the one built the same way.
targets = (("gatedexec-version", "go-empty", 1.3, "go-cobra-version"),
           ("gatedexec-version", "go-empty-entry", 1.3, "go-cobra-version"),
           ("sandbox-workspace-write", "bwrap-workspace-write", 0.8, None),
           ("sandbox-nomount", "bwrap-workspace-write", 0.6, "go-bwrap-pid"),
           ("check-1000-rules", "codex-check-1000-rules", 0.12, "gatedexec-version"),
           ("check-1000-rules", "go-empty", 2.5, None))
for a, b, target, floor in targets:
    ratio(a, b, target, floor)
alt = json.load(open(sys.argv[5]))
amed = alt["medians"]
print(f"alternated call by call, each after itself, {alt['rounds']} rounds (medians): " + ", ".join(f"{n} {v:.3f} ms" for n, v in amed.items()))
for a, b, target, floor in targets + (("go-cobra-version", "go-empty", None, None),):
    ratio(a, b, target, floor, m=amed, label="alternated: ")
rss = [int(m) for m in re.findall(r"(\d+) KB", open(sys.argv[4]).read())]
print(f"peak RSS of run: {max(rss)/1024:.1f} MB (target <= 12 MB)" + ("  met" if max(rss) <= 12 * 1024 else "  NOT met"))
print()
print("floors and parts, same run:")
ratio("go-empty", "c-empty")
ratio("go-empty-entry", "go-empty")
ratio("helper-start", "c-empty-again")
ratio("go-cobra-version", "go-empty")
# What check / codex can be at best: a Go program that does nothing.
ratio("go-empty", "codex-check-1000-rules")
ratio("gatedexec-version", "codex-check-1000-rules")
ratio("gatedexec-version", "go-cobra-version")
# A Go start, then the kernel work bwrap does (bwrap less /bin/true's
# own run). For the profile without a mount plan it is a floor: a PID
# namespace and its /proc are what that profile needs at least. For
# workspace-write it is only a reference: gatedexec's Landlock rules and
# mount plan are other work than bwrap's binds, and can cost less.
ref = med["go-empty"] + med["bwrap-workspace-write"] - med["bare"]
print(f"reference for workspace-write: go-empty + (bwrap-workspace-write - bare) = {ref:.3f} ms "
      f"= {ref / med['bwrap-workspace-write']:.2f}x bwrap-workspace-write")
print(f"floor for nomount (go-bwrap-pid): go-empty + (bwrap-pid - bare) = {med['go-bwrap-pid']:.3f} ms "
      f"= {med['go-bwrap-pid'] / med['bwrap-workspace-write']:.2f}x bwrap-workspace-write")
for p in ("full-access", "read-only", "workspace-write", "workspace-dev", "workspace-net", "nomount", "nons"):
    ratio("sandbox-" + p, "gatedexec-version")
# The egress proxy's part of a start (bwrap has none to compare with).
ratio("sandbox-workspace-net", "sandbox-workspace-write")
ratio("sandbox-read-only", "bwrap-read-only")
ratio("sandbox-workspace-write-piped", "bwrap-workspace-write-piped")
ratio("sandbox-nomount", "bwrap-pid")
print(f"PID namespace + /proc: {med['sandbox-nomount'] - med['sandbox-nons']:.3f} ms (nomount - nons)")
print(f"sandbox-workspace-write - gatedexec-version: {med['sandbox-workspace-write'] - med['gatedexec-version']:.3f} ms "
      f"(the run's own work; bwrap-workspace-write - c-empty: {med['bwrap-workspace-write'] - med['c-empty']:.3f} ms)")
ratio("run-1000-rules", "bare")
print(f"check-1000-rules median: {med['check-1000-rules']:.3f} ms warm cache, "
      f"{med['check-1000-rules-uncached']:.3f} ms uncached")
PY
