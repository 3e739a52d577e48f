package execpolicy

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestTablesStatic: the compiler lays out every table of the package
// statically (statictables.go). A package-level initialiser that calls a
// function or appends turns the copies after it into code run at every
// start, which the compiler reports under -d=staticcopy.
func TestTablesStatic(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the package")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to compile the package: %v", err)
	}
	out, err := exec.Command(goTool, "build", "-gcflags=-d=staticcopy=1", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if strings.Contains(string(out), "skipping static copy") {
		t.Errorf("package-level tables are built at run time; move what calls or appends into an init function:\n%s", out)
	}
}

// TestWrittenOutLists: the lists statictables.go has written out instead
// of computing are what they stand for.
func TestWrittenOutLists(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want []string
	}{
		{"emacsclientLong", emacsclientLong, slices.Concat(emacsclientFlags, emacsclientValuedLong)},
		{"lessOptions.long", lessOptions.long, append([]string{"--pattern"}, lessKeyLong...)},
		{"toolbox run", toolboxRunners[1].val.value, append(slices.Clip(toolboxValue), "--preserve-fds")},
		{"srunValue", srunValue, append(slices.Clip(slurmValue), "-W", "--wait", "-T", "--threads", "-r", "--relative")},
		{"srunFlag", srunFlag, append(slices.Clip(slurmFlag), "-l", "--label", "-u", "--unbuffered", "--pty", "--overlap", "--exact", "-X", "--disable-status")},
		{"sallocFlag", sallocFlag, append(slices.Clip(slurmFlag), "--bell", "--no-bell")},
		{"sallocNoExec", sallocNoExec, append(slices.Clip(slurmNoExec), "--no-shell")},
		{"sbatchValue", sbatchValue, append(slices.Clip(slurmValue), "-a", "--array")},
		{"sbatchFlag", sbatchFlag, append(slices.Clip(slurmFlag), "-W", "--wait", "--parsable")},
	} {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
