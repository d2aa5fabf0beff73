package hookproc

import _ "unsafe" // go:linkname

// The baton command never pluralizes: its main sets bun's table-name
// inflector to keep a model's name (every model names its table), and bun's
// table names are jinzhu/inflection's only use in the binary. Yet inflection
// compiles its English rules, some hundred regular expressions, in its init,
// before main can say so: 1-2 ms of CPU and 560 KB in 5,700 allocations in
// every process, every hook event included. hookproc initializes before
// inflection (see the package comment), so its init empties the four rule
// lists inflection's init compiles, reaching them by go:linkname: the lists
// are static data the linker lays out, so inflection's own variable
// initialization does not fill them again, and its init compiles nothing.
// inflection.Plural and Singular then return a word as it is, which is what
// the binary's inflector does anyway.
//
// A list renamed by a later version of inflection fails the link; one
// retyped fails TestInflectionLists, which pins each list's type to the
// version in go.sum, and TestInflectionInitIsEmpty (package main) checks
// that inflection's init allocates nothing in the built command.

//go:linkname pluralInflections github.com/jinzhu/inflection.pluralInflections
var pluralInflections []regular

//go:linkname singularInflections github.com/jinzhu/inflection.singularInflections
var singularInflections []regular

//go:linkname irregularInflections github.com/jinzhu/inflection.irregularInflections
var irregularInflections []irregular

//go:linkname uncountableInflections github.com/jinzhu/inflection.uncountableInflections
var uncountableInflections []string

// regular and irregular have the layouts of inflection's Regular and
// Irregular.
type (
	regular   struct{ find, replace string }
	irregular struct{ singular, plural string }
)

// dropInflections empties inflection's rule lists.
func dropInflections() {
	pluralInflections = nil
	singularInflections = nil
	irregularInflections = nil
	uncountableInflections = nil
}
