//go:build !(linux && amd64)

package oneproc

// EntrySymbol is empty: only Linux on amd64 has the entry point.
const EntrySymbol = ""

// restore has nothing to give back.
func restore() {}
