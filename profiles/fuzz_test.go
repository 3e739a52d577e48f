package profiles

import (
	"crypto/sha256"
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
	f.Add([]byte("limits = {memory = \"75%\", nofile = 0x40}\nnetwork.unix_sockets = [':docker', \"/run/x.sock\"]\n"))
	f.Add([]byte("[limits.memory]\nx = 1\n[limits]\ntimeout = 1979-05-27\ncpu.x = 1\n"))
	v := Vars{Workspace: "/nonexistent-ws", Cwd: "/nonexistent-cwd", Home: "/nonexistent-home", TmpDir: "/tmp",
		Getenv: func(k string) string { return map[string]string{"HOME": "/nonexistent-home", "X": "rel"}[k] }}
	l := &Loader{Vars: v}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("fuzz.toml", src)
		if err != nil {
			return
		}
		p1, err1 := l.resolveFile("fuzz", file, where{layer: 0, path: "fuzz.toml"}, nil)
		p2, err2 := l.resolveFile("fuzz", file, where{layer: 0, path: "fuzz.toml"}, nil)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("resolve not deterministic: %v vs %v", err1, err2)
		}
		if err1 == nil && (p1.ReadAll != p2.ReadAll || len(p1.Write) != len(p2.Write)) {
			t.Fatalf("resolve not deterministic")
		}
	})
}

// FuzzDecodeParseEntry feeds the parse cache decoder arbitrary entries
// (under the key they claim, with their checksum fixed up, so that the
// body is reached): it never panics, and what it accepts encodes back to
// the same entry.
func FuzzDecodeParseEntry(f *testing.F) {
	var key [sha256.Size]byte
	copy(key[:], "fuzz key")
	for _, name := range BuiltinNames() {
		src, _ := builtinSrc(name)
		p, err := Parse(name, src)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(encodeParseEntry(key, []memoFile{{idOf(name, src), encodeFile(p)}}))
	}
	f.Add(encodeParseEntry(key, nil))
	f.Fuzz(func(t *testing.T, entry []byte) {
		head := len(parseCacheMagic) + len(key)
		if len(entry) < head+sha256.Size {
			if _, err := decodeParseEntry(key, entry); err == nil {
				t.Fatal("a truncated entry decoded")
			}
			return
		}
		e := append([]byte(parseCacheMagic), key[:]...)
		e = append(e, entry[head:len(entry)-sha256.Size]...)
		sum := sha256.Sum256(e)
		e = append(e, sum[:]...)
		files, err := decodeParseEntry(key, e)
		if err != nil {
			return
		}
		for id, enc := range files {
			file, err := decodeFile(enc)
			if err != nil {
				continue
			}
			if again := encodeFile(file); again != enc {
				t.Fatalf("file %x: decoded and encoded again differs:\n%q\n%q", id, enc, again)
			}
		}
	})
}
