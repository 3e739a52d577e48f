package main

import (
	"github.com/spf13/pflag"

	"github.com/gatedexec/gatedexec/gate"
	"github.com/gatedexec/gatedexec/profiles"
)

// placeFlags are the -C/--cwd and -w/--workspace flags shared by the
// commands that run or judge a command somewhere.
type placeFlags struct {
	cwd       string
	workspace string
}

func (f *placeFlags) register(fs *pflag.FlagSet) {
	fs.StringVarP(&f.cwd, "cwd", "C", "", "directory to run the command in (default: current directory)")
	fs.StringVarP(&f.workspace, "workspace", "w", "", "workspace directory (default: git top-level of cwd, else cwd)")
}

// resolve turns the flags into absolute, symlink-free directories.
func (f *placeFlags) resolve() (gate.Place, error) {
	pl, err := gate.ResolvePlace(f.cwd, f.workspace)
	return pl, engineExit(err)
}

// profileLoaderOf reads the configuration layers of pl and builds its
// profile loader, so that every command sees the same profiles as run.
func profileLoaderOf(pl gate.Place) (*profiles.Loader, error) {
	l, err := gate.ProfileLoader(pl)
	return l, engineExit(err)
}
