package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Private state: what a resource keeps from one operation to the next beside its state, where
// users never see it. Each concern keeps its own key, read and written in its own file; these
// are all of them, and privateKeys lists them for the code that copies a private state whole
// (the fast path's answers, fast_path.go). TestPrivateKeysAreAllListed finds every key passed to SetKey or GetKey here.
// The framework's request and response types satisfy the interfaces below.
const (
	// adoptKey: what an import found in the store, set by ImportState and the first plan after
	// it, removed by the first apply (adopt.go).
	adoptKey = "adopt"
	// rolloutBaseKey: a promise's rollout base, the completed revision's files, kept for
	// rollback and revert (promise_rollout.go).
	rolloutBaseKey = "rollout_base"
	// successorKey: the paths a replacement will write, set by its plan and read by the delete
	// of the object it replaces (successor.go).
	successorKey = "successor"
	// instanceKey: the object's instance token, under which its writes are logged
	// (writelog.go).
	instanceKey = "instance"
	// writtenLabelsKey: the labels each destination had when a promise last wrote there, for
	// the guard (written_labels.go).
	writtenLabelsKey = "written_labels"
	// writtenAtKey: when the provider last wrote each destination of an object with `observe`
	// (RFC 3339); a health record older than that is not fresh (observe.go).
	writtenAtKey = "written_at"
	// leftBehindKey: the destinations, as they were, of a promise's moves whose removal from
	// the old place failed, so that the next apply finishes them (left_behind.go).
	leftBehindKey = "left_behind"
)

// privateKeys are the keys above, each once.
var privateKeys = []string{adoptKey, rolloutBaseKey, successorKey, instanceKey, writtenLabelsKey, writtenAtKey, leftBehindKey}

// privateReader reads a resource operation's private state.
type privateReader interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// privateWriter writes it.
type privateWriter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// privateState reads and writes a resource operation's private state.
type privateState interface {
	privateReader
	privateWriter
}
