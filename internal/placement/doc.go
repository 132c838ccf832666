// Package placement decides what every resource that writes to a State Store puts there and
// deletes: a destination's canaries, a promise's dependencies, a resource request's files.
//
// Given the scheduling result, the layout of each target, what the resource placed before (its
// records, from state) and the pool it saw then, it returns one Change per store location and
// the records to keep when those changes are made, or when some of them fail. It is the only
// place that says what a writer may put and delete, and it is pure: no Terraform, no I/O.
//
// Store locations are normalised identities (see Location), never a destination's name: a
// destination that moves to another store takes its files with it, and a cosmetic edit of a
// store (a path of "." for none, a ".git" suffix) moves nothing.
//
// The Changes are declarative: every file the placement must hold, the folders and files it owns
// (whatever is there and not wanted goes), and the aggregates to rebuild. The store realises a
// Change against what it holds at the moment of the write, so an apply never trusts state for
// what is in the store: a destination replaced or cleaned up earlier in the same apply still ends
// with every planned file.
package placement
