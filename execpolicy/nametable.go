package execpolicy

// lookupProgram, the one lookup of a program in all the tables, is a
// switch written from them: after an edit of a table, go generate
// rewrites it, and TestProgramsGen fails until then.
//go:generate go test -run ^TestProgramsGen$ -args -update

// nameTable is a read-only table of facts by name (a program's basename,
// a subcommand), sorted by name so that lookup is a binary search. Written
// as a literal of constants, strings, functions, &T{...} and nested
// literals of those, such a table is laid out by the compiler in the
// binary's data: no gatedexec start builds it or allocates for it, and
// the kernel maps in only the pages a lookup reads. A map literal, by
// contrast, is built at run time. TestNameTablesSorted checks that every
// table is sorted, without a name twice.
type nameTable[T any] []nameRow[T]

// nameRow is one row of a nameTable.
type nameRow[T any] struct {
	name string
	val  T
}

// lookup returns the value of the row named name, or the zero value and
// false. The search is written out: slices.BinarySearchFunc calls its
// comparison indirectly here, which makes it three times as slow.
func (t nameTable[T]) lookup(name string) (T, bool) {
	i, j := 0, len(t)
	for i < j {
		h := int(uint(i+j) >> 1)
		if t[h].name < name {
			i = h + 1
		} else {
			j = h
		}
	}
	if i < len(t) && t[i].name == name {
		return t[i].val, true
	}
	var zero T
	return zero, false
}
