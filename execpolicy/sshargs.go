package execpolicy

import "strings"

// sshSpec is how one of OpenSSH's clients reads its options.
type sshSpec struct {
	// valued are the short options that take a value, attached or in the
	// next word.
	valued string
	// runs are those of valued whose value is a program the client runs
	// here (scp -S, sftp -D): an allow rule for the client says nothing
	// about it.
	runs string
	// remote: after the host, the operands are a command the server runs
	// (ssh host CMD).
	remote bool
	// stdin: given a host and no command, the client runs the commands
	// its stdin holds: ssh's a shell on the host (which may be this one),
	// sftp's its own, whose "!CMD" runs CMD here. noStdin are the options
	// after which it does not (ssh -N); reads those whose value is a file
	// of such commands (sftp -b).
	stdin          bool
	noStdin, reads string
}

var (
	sshClient  = sshSpec{valued: "BbcDEeFIiJLlmOoPpQRSWw", remote: true, stdin: true, noStdin: "NWOGQV"}
	scpClient  = sshSpec{valued: "cDFiJloPSX", runs: "SD"}
	sftpClient = sshSpec{valued: "BbcDFiJloPRSsX", runs: "SD", stdin: true, reads: "b"}
)

// sshCommandKeys are the ssh_config keywords, lower-cased, whose value is
// a command ssh runs here (XAuthLocation is a program, the providers
// libraries it loads) or the server runs (RemoteCommand).
var sshCommandKeys = []string{"proxycommand", "localcommand", "knownhostscommand", "remotecommand",
	"xauthlocation", "pkcs11provider", "securitykeyprovider", "include", "match"}

func sshArgs(a *analysis, ws []word, depth int) Decision {
	return sshClientArgs(a, ws, depth, &sshClient)
}

func scpArgs(a *analysis, ws []word, depth int) Decision {
	return sshClientArgs(a, ws, depth, &scpClient)
}

func sftpArgs(a *analysis, ws []word, depth int) Decision {
	return sshClientArgs(a, ws, depth, &sftpClient)
}

// sshClientArgs judges an OpenSSH client's arguments
// (execOptions.script): -o settings that are commands (ProxyCommand,
// LocalCommand, ...), -F (a configuration, which may hold them), scp's
// and sftp's -S and -D programs, and ssh's remote command, which runs on
// a host that may be this one (ssh localhost rm x). Each is at least
// unanalysable, and a command given is searched for forbidden ones.
func sshClientArgs(a *analysis, ws []word, depth int, spec *sshSpec) Decision {
	d := Decision(0)
	prog := ws[0].value
	runs := func(what string, cmd *word) {
		d = Max(d, a.unanalysable(prog+" "+what+" runs a command"))
		if cmd != nil && cmd.static {
			d = Max(d, a.forbiddenIn(cmd.value, depth))
		}
	}
	option := func(v *word) {
		if v == nil || !v.static {
			d = Max(d, a.unanalysable(prog+" -o with a dynamic setting"))
			return
		}
		// "Key=Value" or "Key Value", the key in any case.
		set := strings.TrimLeft(v.value, " \t")
		k := strings.IndexAny(set, "= \t")
		if k < 0 {
			return
		}
		key, val := strings.ToLower(set[:k]), strings.TrimLeft(set[k:], "= \t")
		for _, k := range sshCommandKeys {
			if key == k {
				runs("-o "+k, &word{value: val, src: val, static: true})
			}
		}
	}
	operands, terminated, stdin := 0, false, spec.stdin
	// ssh reads options after the host too (ssh host -o ProxyCommand=...
	// runs it here), up to the first word of the remote command.
	optionsAt := func() bool { return !terminated && (operands == 0 || spec.remote && operands == 1) }
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		switch {
		case !w.static:
			if operands > 0 || !spec.remote {
				operands++
				continue
			}
			d = Max(d, a.unanalysable(prog+" with a dynamic argument"))
			continue
		case optionsAt() && v == "--":
			terminated = true // what follows are operands
			continue
		case optionsAt() && strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				c := v[j]
				if strings.IndexByte(spec.noStdin, c) >= 0 {
					stdin = false
				}
				if strings.IndexByte(spec.valued, c) < 0 {
					continue
				}
				value := shortValue(ws, &i, v, j)
				switch {
				case strings.IndexByte(spec.reads, c) >= 0:
					stdin = false
					d = Max(d, a.unanalysable(prog+" -"+string(c)+" reads commands of its own, which may run commands here"))
				case c == 'o':
					option(value)
				case c == 'F':
					d = Max(d, a.unanalysable(prog+" -F reads a configuration, which may name commands"))
				case strings.IndexByte(spec.runs, c) >= 0:
					runs("-"+string(c), value)
				}
				break
			}
			continue
		}
		operands++
		if spec.remote && operands == 2 {
			rest := joinWords(ws[i:])
			runs("HOST COMMAND (on that host)", &rest)
			return d
		}
	}
	if stdin && operands > 0 {
		d = Max(d, a.unanalysable(prog+": reads its commands from stdin"))
	}
	return d
}
