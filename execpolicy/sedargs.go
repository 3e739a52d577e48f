package execpolicy

import "strings"

// GNU sed runs commands from its script: e COMMAND runs COMMAND, and e
// alone or the e flag of s runs the text being edited. An allow rule for
// sed (sed -n is a common one) says nothing about those, so sedArgs reads
// the script for them, and leaves the command unanalysable when it finds
// one or cannot read the script: a script file (-f), whose content the
// analysis does not read and which may change before sed runs, as a
// shell's script file is.

// sedLong are GNU sed 4.9's long options; getopt takes any unambiguous
// prefix of one.
var sedLong = []string{
	"--binary", "--debug", "--expression", "--file", "--follow-symlinks", "--help", "--in-place", "--line-length",
	"--null-data", "--posix", "--quiet", "--regexp-extended", "--sandbox", "--separate", "--silent", "--unbuffered",
	"--version", "--zero-terminated",
}

// sedArgs judges the commands a sed command's script runs. --sandbox,
// given before the script, makes sed refuse e (and r and w): nothing runs.
func sedArgs(a *analysis, ws []word, depth int) Decision {
	o := readSedOptions(ws)
	if o.sandbox {
		return 0
	}
	if o.unsure != "" {
		return a.unanalysable("sed: " + o.unsure)
	}
	if o.file != nil {
		return a.unanalysable("sed: runs the script file " + o.file.src)
	}
	runs := readSedScript(strings.Join(o.scripts, "\n"))
	if runs.unsure != "" {
		return a.unanalysable(runs.unsure)
	}
	d := Decision(0)
	if runs.patternSpace {
		d = a.unanalysable("sed runs the text it edits as a command (e)")
	}
	for _, cmd := range runs.commands {
		d = Max(d, a.unanalysable("sed e runs "+cmd))
		d = Max(d, a.forbiddenIn(cmd, depth))
	}
	return d
}

// sedOptions is what readSedOptions finds in a sed command.
type sedOptions struct {
	scripts []string // the static -e scripts and the operand that may be one
	file    *word    // a -f script file
	sandbox bool     // --sandbox before the first operand
	unsure  string   // an option not understood
}

// readSedOptions reads sed's arguments as GNU getopt does, options mixed
// with operands, and, for POSIXLY_CORRECT, also as ending at the first
// operand: its scripts are every -e value and, when no -e or -f comes
// before it, the first operand. The union is judged, so that neither
// reading hides a script.
func readSedOptions(ws []word) sedOptions {
	var o sedOptions
	explicit := false // an -e or -f before the first operand
	operands := 0
	// A dynamic script is not read: the command is not plain already.
	script := func(w word) {
		if w.static {
			o.scripts = append(o.scripts, w.value)
		}
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		switch {
		case !w.static:
			// Maybe an option ("-n"), maybe the script: the operands
			// after it are read as the script too.
		case v == "-" || !strings.HasPrefix(v, "-"):
			operands++
			if operands == 1 && !explicit {
				script(w)
			}
		case v == "--":
			if i+1 < len(ws) && operands == 0 && !explicit {
				script(ws[i+1])
			}
			return o
		case strings.HasPrefix(v, "--"):
			name, val, hasEq := strings.Cut(v, "=")
			full := sedLongOption(name)
			switch full {
			case "":
				o.unsure = "unknown option " + v
				return o
			case "--expression", "--file":
				value := word{value: val, src: val, static: true}
				if !hasEq {
					if i+1 >= len(ws) {
						return o
					}
					i++
					value = ws[i]
				}
				if full == "--file" {
					o.file = &value
				} else {
					script(value)
				}
				explicit = explicit || operands == 0
			case "--line-length":
				if !hasEq {
					i++
				}
			case "--sandbox":
				o.sandbox = o.sandbox || operands == 0
			}
		default:
			// A cluster of short options: -ne SCRIPT, -nf FILE, -i.bak.
			for j := 1; j < len(v); j++ {
				c := v[j]
				if strings.IndexByte("bnrsuzE", c) >= 0 {
					continue
				}
				if c == 'i' {
					break // -i[SUFFIX]: the rest is its suffix
				}
				if strings.IndexByte("efl", c) < 0 {
					o.unsure = "unknown option -" + string(c)
					return o
				}
				value := word{value: v[j+1:], src: v[j+1:], static: true}
				if j+1 == len(v) {
					if i+1 >= len(ws) {
						return o
					}
					i++
					value = ws[i]
				}
				switch c {
				case 'e':
					script(value)
					explicit = explicit || operands == 0
				case 'f':
					o.file = &value
					explicit = explicit || operands == 0
				}
				break
			}
		}
	}
	return o
}

// sedLongOption returns the long option of sed that name is or
// abbreviates without ambiguity, or "".
func sedLongOption(name string) string {
	full := ""
	for _, l := range sedLong {
		if l == name {
			return l
		}
		if strings.HasPrefix(l, name) && len(name) > 2 {
			if full != "" {
				return ""
			}
			full = l
		}
	}
	return full
}
