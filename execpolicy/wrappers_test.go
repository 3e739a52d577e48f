package execpolicy

import (
	"slices"
	"strings"
	"testing"
)

func TestUnwrap(t *testing.T) {
	tests := []struct {
		argv    string
		inner   string // first inner argv, joined
		script  string // first script
		none    bool   // nothing runs
		unknown bool
	}{
		{argv: "sudo -u root -E rm -rf /", inner: "rm -rf /"},
		{argv: "sudo --user=root -- rm x", inner: "rm x"},
		{argv: "sudo -l", none: true},
		{argv: "doas -u bob rm x", inner: "rm x"},
		{argv: "env -i -u HOME -C /tmp A=1 B=2 rm x", inner: "rm x"},
		{argv: "env - rm", inner: "rm"},
		{argv: "env -S 'rm x'", script: "rm x"},
		{argv: "nice -n 19 rm", inner: "rm"},
		{argv: "nice -19 rm", inner: "rm"},
		{argv: "nice -n19 rm", inner: "rm"},
		{argv: "nohup rm", inner: "rm"},
		{argv: "timeout -k 5 -s KILL 10 rm x", inner: "rm x"},
		{argv: "timeout 10s rm", inner: "rm"},
		{argv: "stdbuf -oL -e 0 rm", inner: "rm"},
		{argv: "/usr/bin/time -p rm", inner: "rm"},
		{argv: "setsid -f rm", inner: "rm"},
		{argv: "command -p rm", inner: "rm"},
		{argv: "command -v rm", none: true},
		{argv: "command -V rm", none: true},
		{argv: "exec -a foo rm", inner: "rm"},
		{argv: "exec -cl rm", inner: "rm"},
		{argv: "builtin rm", inner: "rm"},
		{argv: "busybox rm -rf /", inner: "rm -rf /"},
		{argv: "busybox --list", none: true},
		{argv: "xargs -0 -n 1 -I {} rm {}", inner: "rm {}"},
		{argv: "xargs --max-args=1 rm", inner: "rm"},
		{argv: "xargs", none: true},
		{argv: "ionice -c3 rm", inner: "rm"},
		{argv: "ionice -c 2 -n 7 rm", inner: "rm"},
		{argv: "ionice -p 123", none: true},
		{argv: "watch -n 1 rm x", script: "rm x"},
		{argv: "watch -x rm x", inner: "rm x"},
		{argv: "eval rm x", script: "rm x"},
		{argv: "bash -c 'rm x' sh a", script: "rm x"},
		{argv: "sh -ec rm", script: "rm"},
		{argv: "bash -o pipefail -c rm", script: "rm"},
		{argv: "bash -x script.sh", none: true},
		{argv: "zsh -l", none: true},
		{argv: "su -c 'rm x' root", script: "rm x"},
		{argv: "su --command=rm root", script: "rm"},
		{argv: "su root", none: true},
		{argv: `find . -name x -exec rm {} \;`, inner: "rm {}"},
		{argv: "find . -execdir rm {} +", inner: "rm {}"},
		{argv: `find . -okdir rm \;`, inner: "rm"},
		{argv: "find . -delete", none: true},
		{argv: "sudo --bogus rm", unknown: true},
		{argv: "timeout --bogus 1 rm", unknown: true},
	}
	for _, tt := range tests {
		ws := splitWords(tt.argv)
		spec, ok := lookupWrapper(ws[0].value)
		if !ok {
			t.Errorf("%q: not a wrapper", tt.argv)
			continue
		}
		u := unwrap(spec, ws)
		switch {
		case tt.unknown:
			if u.uncertain == "" {
				t.Errorf("%q: want an unknown option, got %+v", tt.argv, u)
			}
		case tt.none:
			if len(u.argvs)+len(u.scripts) != 0 || u.uncertain != "" {
				t.Errorf("%q: want nothing run, got %+v", tt.argv, u)
			}
		case tt.inner != "":
			if len(u.argvs) == 0 || joinText(u.argvs[0]) != tt.inner {
				t.Errorf("%q: inner %+v, want %q", tt.argv, u, tt.inner)
			}
		case tt.script != "":
			if len(u.scripts) == 0 || u.scripts[0].value != tt.script {
				t.Errorf("%q: scripts %+v, want %q", tt.argv, u.scripts, tt.script)
			}
		}
	}
}

func TestWrapperTableListsMandatory(t *testing.T) {
	for _, name := range []string{"sudo", "doas", "env", "nice", "nohup", "timeout", "stdbuf", "time", "setsid", "command", "exec", "builtin", "busybox", "xargs", "find", "eval", "bash", "sh", "dash", "zsh", "ksh", "ash"} {
		if _, ok := lookupWrapper("/usr/bin/" + name); !ok {
			t.Errorf("%s is not a wrapper", name)
		}
	}
	if _, ok := lookupWrapper("ls"); ok {
		t.Error("ls is a wrapper")
	}
}

func joinText(ws []word) string {
	return strings.Join(slices.Collect(func(yield func(string) bool) {
		for _, w := range ws {
			if !yield(w.text()) {
				return
			}
		}
	}), " ")
}

// TestShortOpt checks shortOpt for every byte, and that it allocates
// nothing for the letters and digits options are made of.
func TestShortOpt(t *testing.T) {
	for _, sign := range []byte{'-', '+'} {
		for c := range 256 {
			if got, want := shortOpt(sign, byte(c)), string([]byte{sign, byte(c)}); got != want {
				t.Errorf("shortOpt(%q, %#x) = %q, want %q", sign, c, got, want)
			}
		}
	}
	if n := testing.AllocsPerRun(10, func() {
		for _, c := range []byte("09AZaz") {
			_ = shortOpt('-', c)
			_ = shortOpt('+', c)
		}
	}); n != 0 {
		t.Errorf("shortOpt allocates %v times for letters and digits", n)
	}
}
