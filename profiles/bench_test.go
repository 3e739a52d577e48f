package profiles

import "testing"

// BenchmarkResolveBuiltin measures resolving the default profile, which
// every run does before starting the command.
func BenchmarkResolveBuiltin(b *testing.B) {
	dir := b.TempDir()
	l := &Loader{Dirs: []string{dir + "/sys", dir + "/user"},
		Vars: Vars{Workspace: dir, Cwd: dir, Home: dir, TmpDir: "/tmp"}}
	for b.Loop() {
		if _, err := l.Resolve(DefaultProfile); err != nil {
			b.Fatal(err)
		}
	}
}
