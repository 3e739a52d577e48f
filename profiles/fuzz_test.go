package profiles

import (
	"testing"
)

// FuzzProfile checks that no profile source makes the parser or resolver
// panic, and that a source that resolves once resolves the same way again.
func FuzzProfile(f *testing.F) {
	for _, n := range BuiltinNames() {
		src, _ := builtinSrc(n)
		f.Add(src)
	}
	f.Add([]byte("[limits]\nfsize = \"1G\"\ntimeout = \"10m\"\n[filesystem]\nread = [\"$HOME/x\", \"${X}\", \"~\", \":tmp/a\"]\n"))
	f.Add([]byte("extends = \"read-only\"\n[network]\nmode = \"isolated\"\n"))
	v := Vars{Workspace: "/nonexistent-ws", Cwd: "/nonexistent-cwd", Home: "/nonexistent-home", TmpDir: "/tmp",
		Getenv: func(k string) string { return map[string]string{"HOME": "/nonexistent-home", "X": "rel"}[k] }}
	l := &Loader{Vars: v}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("fuzz.toml", src)
		if err != nil {
			return
		}
		p1, err1 := l.resolveFile("fuzz", file, where{layer: 0, path: "fuzz.toml"})
		p2, err2 := l.resolveFile("fuzz", file, where{layer: 0, path: "fuzz.toml"})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("resolve not deterministic: %v vs %v", err1, err2)
		}
		if err1 == nil && (p1.ReadAll != p2.ReadAll || len(p1.Write) != len(p2.Write)) {
			t.Fatalf("resolve not deterministic")
		}
	})
}
