// Package privstate is what the provider's resources keep in private state, where users never
// see it: every key, in one list (Keys, keys.go), the interfaces the framework's requests and
// responses satisfy (Reader, Writer, State), and the records whose reading and writing need
// nothing of the resources: what a replacement will write (WriteSuccessor, ReadSuccessor) and
// the labels each destination had when a promise last wrote there (ReadWrittenLabels,
// WriteWrittenLabels, WithWrittenLabels), and the destinations of unfinished moves as they were
// (LeftBehind, ReadLeftBehind, WriteLeftBehind).
//
// It is Terraform glue, like internal/provider, of one concern: the bookkeeping one operation
// leaves for the next. internal/provider's resources, its fast path (which copies a private
// state whole, by Keys) and its other records (adopt.go, writelog.go, left_behind.go, observe.go,
// promise_rollout.go) use it; what a successor spares is internal/placement's.
package privstate
