package execpolicy

import "strings"

// fdExecLong are fd's long options whose values are a command it runs for
// the files found (--exec) or once for all of them (--exec-batch).
var fdExecLong = []string{"--exec", "--exec-batch"}

// fdValued are fd's short options that take a value (-e EXT, -tf): in a
// cluster, the rest of the word is that value, so an x there is no -x. A
// letter not listed is read as a flag, which can only find an -x more.
const fdValued = "dEteSocj"

// unwrapFd returns the commands of fd's (fdfind's) -x/--exec and
// -X/--exec-batch: the words after the option up to a ";" (clap's value
// terminator), as find's -exec. A command attached to the option
// (--exec=CMD, -xCMD) is the option's one value for clap as fd 8.6 builds
// it, the words after being fd's own; a reading where the words after it
// continue the command is judged too, so that neither hides what runs.
//
// fd names a file found as "./NAME" (fd 8.6, and fd 9 and later with
// -x/-X), which no program reads as an option; --strip-cwd-prefix drops
// the "./", and the placeholders {/} and {/.} are the base name, so a file
// named "-delete" reaches the command as an option ("fd --strip-cwd-prefix
// -x find" runs "find -delete", which deletes every file under "."). The
// file names are then the command's input, as xargs adds them
// (inputArgsTo): only a program that takes any arguments may run so.
func unwrapFd(ws []word) (out unwrapped) {
	strip := false
	defer func() {
		for _, argv := range out.argvs {
			if (strip || fdBaseNames(argv)) && (out.inputArgsTo == nil || takesAnyArguments(out.inputArgsTo)) {
				out.inputArgsTo = &argv[0]
			}
		}
	}()
	// upTo returns the end of the command that starts at i: the index of
	// its ";", or len(ws).
	upTo := func(i int) int {
		for i < len(ws) && !(ws[i].static && ws[i].value == ";") {
			i++
		}
		return i
	}
	// found adds the command of an -x option at ws[i]; attached is its
	// attached value, if any. It returns where the scan goes on.
	found := func(i int, attached string, hasAttached bool) int {
		if !hasAttached {
			end := upTo(i + 1)
			if end > i+1 {
				out.argvs = append(out.argvs, ws[i+1:end])
			}
			return end
		}
		first := word{value: attached, src: attached, static: true, literal: ws[i].literal}
		end := upTo(i + 1)
		out.argvs = append(out.argvs, []word{first})
		if end > i+1 {
			out.argvs = append(out.argvs, append([]word{first}, ws[i+1:end]...))
		}
		return i
	}
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		if !w.static {
			continue // the command is not plain already
		}
		v := w.value
		switch {
		case v == "--":
			return out // the rest are the pattern and paths
		case strings.HasPrefix(v, "--"):
			name, val, hasEq := strings.Cut(v, "=")
			// fd 9 takes --strip-cwd-prefix=always|never|auto.
			if name == "--strip-cwd-prefix" && !(hasEq && val == "never") {
				strip = true
			}
			for _, l := range fdExecLong {
				if name == l {
					i = found(i, val, hasEq)
					break
				}
			}
		case strings.HasPrefix(v, "-") && len(v) > 1:
			for j := 1; j < len(v); j++ {
				c := v[j]
				if c == 'x' || c == 'X' {
					i = found(i, v[j+1:], j+1 < len(v))
					break
				}
				if strings.IndexByte(fdValued, c) >= 0 {
					break
				}
			}
		}
	}
	return out
}

// fdBaseNames says whether a word of argv, a command of fd's -x or -X,
// starts with the placeholder of a file's base name ({/}, {/.}), which
// holds no "./" before a name that starts with "-". A word not plain
// already counts: it may be one.
func fdBaseNames(argv []word) bool {
	for _, w := range argv {
		if !w.static || strings.HasPrefix(w.value, "{/}") || strings.HasPrefix(w.value, "{/.}") {
			return true
		}
	}
	return false
}
