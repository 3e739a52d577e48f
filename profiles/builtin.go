package profiles

import (
	"embed"
	"path"
	"slices"
	"strings"
)

// builtinFS holds the built-in profiles: read-only, workspace-write and
// full-access.
//
//go:embed builtin/*.toml
var builtinFS embed.FS

// DefaultProfile is the profile used when none is named.
const DefaultProfile = "workspace-write"

// builtinSource is the Source of a built-in profile in Info.
const builtinSource = "built-in"

// BuiltinNames returns the names of the built-in profiles, sorted.
func BuiltinNames() []string {
	ents, _ := builtinFS.ReadDir("builtin")
	var names []string
	for _, e := range ents {
		names = append(names, strings.TrimSuffix(e.Name(), ".toml"))
	}
	slices.Sort(names)
	return names
}

// builtinSrc returns the source of the built-in profile name.
func builtinSrc(name string) ([]byte, bool) {
	if !validName(name) {
		return nil, false
	}
	src, err := builtinFS.ReadFile(path.Join("builtin", name+".toml"))
	return src, err == nil
}
