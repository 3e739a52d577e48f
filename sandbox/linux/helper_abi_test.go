//go:build linux

package linux

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestHelperABI holds the Go side of the helper's contract (helper_abi.go,
// the mount kinds) to the header the C helper is built from: gatedexec has
// no cgo to read it, and a drift would hand the helper records it reads
// as something else.
func TestHelperABI(t *testing.T) {
	src, err := os.ReadFile("helper/helper_linux.h")
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^#define (GX_[A-Z0-9_]+) (\S+)`).FindAllSubmatch(src, -1) {
		defs[string(m[1])] = string(m[2])
	}
	chr := func(b byte) string { return "'" + string(rune(b)) + "'" }
	quoted := strconv.Quote
	want := map[string]string{
		"GX_HELPER_ARG":          quoted(HelperArg),
		"GX_PRESTART_ARG":        quoted(prestartArg),
		"GX_PRESTART_FDS":        strconv.Itoa(prestartFDs),
		"GX_PRESTART_EGRESS":     fmt.Sprintf("%#x", prestartEgress),
		"GX_PRESTART_MNTNS":      chr(prestartMountNS),
		"GX_PRESTART_CGROUPS":    chr(prestartCgroups),
		"GX_PRESTART_CGROUP_FDS": strconv.Itoa(prestartCgroupFDs),
		"GX_SPEC_FD":             strconv.Itoa(specFD),
		"GX_GO_AHEAD":            chr(goAheadByte),
		"GX_REPORT_FD":           strconv.Itoa(errFD),
		"GX_RULESET_FD":          strconv.Itoa(rulesetFD),
		"GX_EGRESS_FD":           strconv.Itoa(egressFD),
		"GX_SELF_FD":             strconv.Itoa(selfFD),
		"GX_NETNS_FD":            strconv.Itoa(netnsFD),
		"GX_KEPT_NETNS_ARG":      quoted(keptNetNSArg),
		"GX_KEPT_NETNS_MAX":      strconv.Itoa(keptNetNSMax),
		"GX_SPIN_ARG":            quoted(spinArg),
		"GX_SECCOMP_AHEAD_ARG":   quoted(seccompAheadArg),
		"GX_HELPER_FAIL":         strconv.Itoa(helperFail),
		"GX_REPORT_NS":           quoted(reportNamespaces),
		"GX_REPORT_NOTFOUND":     quoted(reportNotFound),
		"GX_REPORT_CANNOTEXEC":   quoted(reportCannotExec),
		"GX_REPORT_SIGNAL":       quoted(reportSignal),
		"GX_REPORT_END":          quoted(reportEnd),
		"GX_SPEC_MAGIC":          quoted(specMagic),
		"GX_TAG_PATH":            chr(tagPath),
		"GX_TAG_FALLBACK_PATH":   chr(tagFallbackPath),
		"GX_TAG_FALLBACK_ARG":    chr(tagFallbackArg),
		"GX_TAG_ARG":             chr(tagArg),
		"GX_TAG_ENV":             chr(tagEnv),
		"GX_TAG_DIR":             chr(tagDir),
		"GX_TAG_MOUNT":           chr(tagMount),
		"GX_TAG_PARENT_MNTNS":    chr(tagParentMntNS),
		"GX_TAG_LOOPBACK":        chr(tagLoopback),
		"GX_TAG_RLIMIT":          chr(tagRlimit),
		"GX_TAG_LANDLOCK":        chr(tagLandlock),
		"GX_TAG_BPF":             chr(tagBPF),
		"GX_TAG_UNSHARE":         chr(tagUnshare),
		"GX_TAG_CLOSE_FDS":       chr(tagCloseFDs),
		"GX_TAG_DROP_CAPS":       chr(tagDropCaps),
		"GX_TAG_DEV":             chr(tagDev),
		"GX_TAG_REOPEN":          chr(tagReopen),
		"GX_TAG_TMP":             chr(tagTmp),
		"GX_TAG_KEEP":            chr(tagKeep),
		"GX_TAG_CTTY":            chr(tagCtty),
		"GX_TAG_EGRESS":          chr(tagEgress),
		"GX_TAG_AFFINITY":        chr(tagAffinity),
		"GX_MOUNT_PIN":           strconv.Itoa(int(mountPin)),
		"GX_MOUNT_READONLY":      strconv.Itoa(int(mountReadOnly)),
		"GX_MOUNT_EMPTYDIR":      strconv.Itoa(int(mountEmptyDir)),
		"GX_MOUNT_NULLFILE":      strconv.Itoa(int(mountNullFile)),
		"GX_MOUNT_WRITABLE":      strconv.Itoa(int(mountWritable)),
		"GX_MOUNT_TREE_READONLY": strconv.Itoa(int(mountTreeReadOnly)),
		"GX_MOUNT_PIN_LINK":      strconv.Itoa(int(mountPinLink)),
	}
	for name, w := range want {
		if got, ok := defs[name]; !ok {
			t.Errorf("%s: not defined in helper_linux.h", name)
		} else if got != w {
			t.Errorf("%s = %s in helper_linux.h, %s in Go", name, got, w)
		}
	}
	// Every tag and mount kind the header defines is known here, so a
	// record added on one side only fails this test.
	for name := range defs {
		if _, ok := want[name]; !ok && regexp.MustCompile(`^GX_(TAG|MOUNT)_`).MatchString(name) {
			t.Errorf("%s: defined in helper_linux.h, unknown to the Go side", name)
		}
	}
	if got := defs["GX_MAX_SPEC"]; got != "(64" { // "(64 << 20)"
		t.Errorf("GX_MAX_SPEC %s..., want (64 << 20) as maxSpec", got)
	}
	if maxSpec != 64<<20 {
		t.Errorf("maxSpec %d, want 64 MiB as helper_linux.h", maxSpec)
	}
}
