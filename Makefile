# gatedexec — build, test, bench, lint, demo.
# `make demo` and `make test` do all the set-up on a fresh Debian/Ubuntu machine.

GO        ?= go
BIN       := bin/gatedexec
# The MCP server's binary (`gatedexec mcp` becomes it): the same command
# with the MCP SDK, kept out of gatedexec, whose every start and every
# sandboxed command's helper would pay for the SDK's initialisation.
MCPBIN    := bin/gatedexec-mcp
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# -R 0x200000 starts each segment on a 2 MB boundary (build, below, says
# why). ONEPROC starts the Go runtime, as scripts/depatch patches it,
# with one processor; on Linux amd64, ENTRY makes the process start at
# an entry point that binds run and sandbox to one CPU as well
# (internal/oneproc says why). make bench links its Go floors with
# LINKFLAGS, and ENTRY and ONEPROC where it says so.
LINKFLAGS := -s -w -R 0x200000
ENTRY     := $(if $(filter linux/amd64,$(shell $(GO) env GOOS GOARCH | paste -sd/)),-E github.com/gatedexec/gatedexec/internal/oneproc.entry)
ONEPROC   := -X runtime.oneProcStart=1
LDFLAGS   := $(LINKFLAGS) $(ENTRY) $(ONEPROC) -X main.version=$(VERSION)
# An execution count, not a duration: Go 1.26's fuzz coordinator can fail
# a duration-bounded run with a spurious "context deadline exceeded" when
# the deadline lands mid-execution (golang/go#75804, fixed in Go 1.27).
FUZZTIME  ?= 100000x

.PHONY: all deps build test unit fuzz bench lint demo clean

all: build

# deps installs the C compiler and the static C library the sandbox
# helper is built with when they are missing, or says exactly what to
# install when not root.
deps:
	@scripts/deps.sh

# HELPER is the sandbox helper (sandbox/linux/helper/*.c): a small static
# C program gatedexec carries inside its binary and runs from a sealed
# memfd for every sandboxed command (scripts/helper.sh says how it is
# linked).
HELPER    := sandbox/linux/helperbin/gatedexec-helper
HELPER_SRC := $(wildcard sandbox/linux/helper/*.c sandbox/linux/helper/*.h) scripts/helper.sh

$(HELPER): $(HELPER_SRC) | deps
	@scripts/helper.sh $@

# build makes gatedexec and gatedexec-mcp without cgo: the cgo runtime's
# start cost as much as the rest of `gatedexec version`, and nothing in
# them needs C but the helper, which is embedded as a program of its own.
# `go build` without make compiles too; such a binary refuses to sandbox
# (it says how to build the helper).
#
# It builds against go.mod with three dependencies patched so that they
# do no work at start that gatedexec's start does not need, and with the
# Go standard library patched, through an overlay, for a start with one
# processor, as ONEPROC starts it, and without work no start needs
# (scripts/depatch says which and why); a plain `go build` gets the
# originals, which behave the same and start slower.
#
# The binaries are linked elsewhere and installed into bin/ by scripts/
# install.sh, which copies a file in writes of 64 MB: how a file was
# written decides how the kernel caches it, and so what every exec of it
# costs. The Go linker writes through a shared mapping, which leaves
# single pages; a copy made by cp or install is cached in larger folios
# (`gatedexec version` 1.46 -> 1.33 ms); written whole, in 2 MB ones,
# and the kernel maps most of gatedexec's code and read-only data with
# three 2 MB pages (page faults of `version` 326 -> 246; against the
# install copy, in turns run by run: `version` 1.60 -> 1.38 ms, a cached
# `check` on 1 000 rules 1.99 -> 1.82, `sandbox -p workspace-write` 5.54
# -> 5.07). The page cache keeps the state until the file is evicted and
# read back.
#
# A 2 MB page maps only a 2 MB block of the address space that one
# segment covers whole. At the linker's default 4 KB rounding, read-only
# data began right after the code, inside the code's last block, and the
# data segment inside read-only data's: those blocks were faulted in 4 KB
# at a time (about 30 faults of code and read-only data a `version`, 35 a
# sandboxed /bin/true). Rounded to 2 MB (-R 0x200000), 13 and 23; in
# turns run by run, `version` -0.019 ms, `sandbox -p workspace-write`
# -0.043 ms. The padding makes the file 4.7 MB larger.
GOBUILD   := CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)'
build: $(HELPER)
	@depatch=$$($(GO) run ./scripts/depatch) && \
	modfile=$$(printf '%s\n' "$$depatch" | sed -n 1p) && overlay=$$(printf '%s\n' "$$depatch" | sed -n 2p) && \
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	echo "$(GOBUILD) -modfile $$modfile -overlay $$overlay ./cmd/gatedexec, installed as $(BIN)" && \
	$(GOBUILD) -modfile "$$modfile" -overlay "$$overlay" -o "$$tmp/gatedexec" ./cmd/gatedexec && \
	$(GOBUILD) -modfile "$$modfile" -overlay "$$overlay" -tags gatedexec_mcp -o "$$tmp/gatedexec-mcp" ./cmd/gatedexec && \
	scripts/install.sh "$$tmp/gatedexec" $(BIN) && \
	scripts/install.sh "$$tmp/gatedexec-mcp" $(MCPBIN)

# test runs everything: unit tests, the bypass corpus, CLI scripts, the
# sandbox escape suite, then each fuzz target for $(FUZZTIME) executions.
# The end-to-end tests in test/ run the binary `make build` made
# (GATEDEXEC_BIN), so they test what is shipped and benchmarked.
test: unit
	$(MAKE) --no-print-directory fuzz

# The concurrent tests run again under the race detector: the engine
# serving many requests, the policy's shared pools, the network proxy, a
# long-lived runner's shared holders and cgroups.
# GATEDEXEC_CODEX is Codex's own binary (scripts/codex.sh installs it with
# npm), the reference `check --format codex` is compared with. test/ runs
# the built binary thousands of times: on a loaded machine it outlasts go
# test's default 10 minutes, and CI allows 90.
unit: build
	@scripts/deps.sh test
	GATEDEXEC_BIN=$(CURDIR)/$(BIN) GATEDEXEC_CODEX=$$(scripts/codex.sh) $(GO) test -count=1 -timeout 40m ./...
	$(GO) test -race -count=1 -run 'Concurrent|TestEndpoint|TestDNSAnswer|TestLargeTransfer' ./execpolicy ./gate ./sandbox/egress ./sandbox/linux

# FuzzAnalyseVsBash (test/) runs scripts in the sandbox of the binary
# `make build` made.
fuzz: build
	@GATEDEXEC_BIN=$(CURDIR)/$(BIN) scripts/fuzz.sh $(FUZZTIME)

# bench installs hyperfine and bubblewrap when missing, then runs the Go
# benchmarks and the whole-process timings side by side.
bench: build
	@FLOOR_LDFLAGS='$(LINKFLAGS)' FLOOR_ENTRY='$(ENTRY) $(ONEPROC)' scripts/bench.sh

lint: $(HELPER)
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags gatedexec_mcp ./cmd/gatedexec
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) vet ./...
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) vet -tags gatedexec_mcp ./cmd/gatedexec
	GOOS=darwin GOARCH=amd64 CGO_ENABLED=0 $(GO) vet ./...

demo: build
	@scripts/demo.sh $(BIN)

clean:
	rm -rf bin $(HELPER)
