package execpolicy

import (
	"slices"
	"strings"
)

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

// sedArgs judges the commands a sed command's script runs, in each way
// sed may read its arguments (see readSedArgs).
func sedArgs(a *analysis, ws []word, depth int) Decision {
	gnu, unsure := readSedArgs(ws, false)
	if unsure != "" {
		return a.unanalysable("sed: " + unsure)
	}
	posix, unsure := readSedArgs(ws, true)
	if unsure != "" {
		return a.unanalysable("sed: " + unsure)
	}
	d := a.sedReading(gnu, depth)
	if !slices.Equal(gnu, posix) {
		d = Max(d, a.sedReading(posix, depth))
	}
	return d
}

// sedReading judges the commands of chunks, the scripts of one reading of
// a sed command in the order sed compiles them. sed joins them by
// newlines, so that the text of a\ or e at the end of one goes on in the
// next; from the first one after --sandbox on, it refuses e (and r and w):
// what those hold runs nothing, but the text of a command begun before
// may run on into them.
func (a *analysis) sedReading(chunks []sedChunk, depth int) Decision {
	var b strings.Builder
	end := -1 // where the first chunk after --sandbox starts
	for i, c := range chunks {
		if i > 0 {
			b.WriteByte('\n')
		}
		if c.sandbox && end < 0 {
			end = b.Len()
		}
		switch {
		case c.file && c.sandbox:
			// Not read, but an e's text may run on into it: a NUL, which
			// no argument holds, marks it in that text.
			b.WriteString(sedFileMark)
		case c.file:
			return a.unanalysable("sed: runs the script file " + c.text)
		default:
			b.WriteString(c.text)
		}
	}
	if end == 0 || len(chunks) == 0 {
		return 0
	}
	if end < 0 {
		end = b.Len()
	}
	runs := readSedPrefix(b.String(), end)
	if runs.unsure != "" {
		return a.unanalysable(runs.unsure)
	}
	d := Decision(0)
	if runs.patternSpace {
		d = a.unanalysable("sed runs the text it edits as a command (e)")
	}
	for _, cmd := range runs.commands {
		if strings.Contains(cmd, sedFileMark) {
			d = Max(d, a.unanalysable("sed e runs text from a script file"))
			cmd = strings.ReplaceAll(cmd, sedFileMark, "")
		}
		d = Max(d, a.unanalysable("sed e runs "+cmd))
		d = Max(d, a.forbiddenIn(cmd, depth))
	}
	return d
}

// sedFileMark stands in the joined script for a script file sed reads
// after --sandbox.
const sedFileMark = "\x00"

// sedChunk is one script of a sed command: an -e or -f value, or the
// operand taken for the script.
type sedChunk struct {
	text    string // the script, or the -f file's name
	file    bool   // a -f script file, whose content the analysis does not read and which may change before sed runs
	sandbox bool   // --sandbox came before it: sed refuses its e, r and w
}

// readSedArgs returns the scripts of a sed command in the order sed
// compiles them, reading its arguments as GNU getopt does, options mixed
// with operands, or, with posix, as under POSIXLY_CORRECT, where the first
// operand ends the options. GNU sed compiles each -e and -f script when
// getopt reaches it, so --sandbox guards only those after it; the first
// operand is the script when no -e or -f came before the options ended,
// compiled after them all. Each reading is judged on its own: joining
// both would build a script no sed builds, where an operand's a\ swallows
// an -e script. unsure is an option not understood.
func readSedArgs(ws []word, posix bool) (chunks []sedChunk, unsure string) {
	sandbox := false
	operand := -1 // the first static operand
	// A dynamic script is not read: the command is not plain already.
	add := func(w word, file bool) {
		if w.static {
			text := w.value
			if file {
				text = w.src
			}
			chunks = append(chunks, sedChunk{text: text, file: file, sandbox: sandbox})
		}
	}
	i := 1
options:
	for ; i < len(ws); i++ {
		w := ws[i]
		v := w.value
		switch {
		case !w.static:
			// Maybe an option ("-n"), maybe an operand.
		case v == "-" || !strings.HasPrefix(v, "-"):
			if operand < 0 {
				operand = i
			}
			if posix {
				break options
			}
		case v == "--":
			i++
			break options
		case strings.HasPrefix(v, "--"):
			name, val, hasEq := strings.Cut(v, "=")
			full := sedLongOption(name)
			switch full {
			case "":
				return chunks, "unknown option " + v
			case "--expression", "--file":
				value := word{value: val, src: val, static: true}
				if !hasEq {
					if i+1 >= len(ws) {
						break options
					}
					i++
					value = ws[i]
				}
				add(value, full == "--file")
			case "--line-length":
				if !hasEq {
					i++
				}
			case "--sandbox":
				sandbox = true
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
					return chunks, "unknown option -" + string(c)
				}
				value := word{value: v[j+1:], src: v[j+1:], static: true}
				if j+1 == len(v) {
					if i+1 >= len(ws) {
						break options
					}
					i++
					value = ws[i]
				}
				if c != 'l' {
					add(value, c == 'f')
				}
				break
			}
		}
	}
	if len(chunks) > 0 {
		return chunks, ""
	}
	// No -e or -f: the first operand is the script, compiled after every
	// option, --sandbox among them.
	if operand < 0 && i < len(ws) {
		operand = i
	}
	if operand >= 0 {
		add(ws[operand], false)
	}
	return chunks, ""
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
