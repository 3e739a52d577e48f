package egress

import "sort"

// Presets are the host lists that allow_hosts entries such as ":npm"
// stand for: a service's own hosts and those its downloads come from, and
// no general storage host (storage.googleapis.com, S3) that would serve
// anyone's bucket. A registry serves what its users publish, so allowing
// one lets a command fetch that, and send what a request can carry.
var Presets = map[string][]string{
	// npm: the registry and its tarball host.
	":npm": {"registry.npmjs.org", "registry.yarnpkg.com"},
	// PyPI: the index and the file host.
	":pypi": {"pypi.org", "files.pythonhosted.org"},
	// Go: the module proxy and the checksum database.
	":go": {"proxy.golang.org", "sum.golang.org"},
	// crates.io: the index, the API and the download CDN.
	":crates": {"crates.io", "index.crates.io", "static.crates.io"},
	// GitHub: git over HTTPS, the API, and release and raw downloads.
	":github": {"github.com", "api.github.com", "codeload.github.com", "objects.githubusercontent.com",
		"raw.githubusercontent.com", "release-assets.githubusercontent.com"},
	// RubyGems: the index and its download host.
	":rubygems": {"rubygems.org", "index.rubygems.org"},
}

// PresetNames returns the preset names, sorted.
func PresetNames() []string {
	out := make([]string, 0, len(Presets))
	for n := range Presets {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
