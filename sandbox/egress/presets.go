package egress

import "sort"

// presets are the host lists that allow_hosts entries such as ":npm"
// stand for: a service's own hosts and those its downloads come from, and
// no general storage host (storage.googleapis.com, S3) that would serve
// anyone's bucket. A registry serves what its users publish, so allowing
// one lets a command fetch that, and send what a request can carry. A
// slice of constants rather than a map, so that no gatedexec start builds
// it.
var presets = []struct {
	name  string
	hosts []string
}{
	// npm: the registry and its tarball host.
	{":npm", []string{"registry.npmjs.org", "registry.yarnpkg.com"}},
	// PyPI: the index and the file host.
	{":pypi", []string{"pypi.org", "files.pythonhosted.org"}},
	// Go: the module proxy and the checksum database.
	{":go", []string{"proxy.golang.org", "sum.golang.org"}},
	// crates.io: the index, the API and the download CDN.
	{":crates", []string{"crates.io", "index.crates.io", "static.crates.io"}},
	// GitHub: git over HTTPS, the API, and release and raw downloads.
	{":github", []string{"github.com", "api.github.com", "codeload.github.com", "objects.githubusercontent.com",
		"raw.githubusercontent.com", "release-assets.githubusercontent.com"}},
	// RubyGems: the index and its download host.
	{":rubygems", []string{"rubygems.org", "index.rubygems.org"}},
}

// Preset returns the hosts the preset name (":npm") stands for, and
// whether there is such a preset.
func Preset(name string) ([]string, bool) {
	for _, p := range presets {
		if p.name == name {
			return p.hosts, true
		}
	}
	return nil, false
}

// PresetNames returns the preset names, sorted.
func PresetNames() []string {
	out := make([]string, 0, len(presets))
	for _, p := range presets {
		out = append(out, p.name)
	}
	sort.Strings(out)
	return out
}
