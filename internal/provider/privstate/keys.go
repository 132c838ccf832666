package privstate

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Private state: what a resource keeps from one operation to the next beside its state, where
// users never see it. Each concern keeps its own key, read and written in its own file; these
// are all of them, and Keys lists them for the code that copies a private state whole
// (the fast path's answers, internal/provider's fast_path.go). TestPrivateKeysAreAllListed finds
// every key passed to SetKey or GetKey here.
// The framework's request and response types satisfy the interfaces below.
const (
	// AdoptKey: what an import found in the store, set by ImportState and the first plan after
	// it, removed by the first apply (internal/provider's adopt.go).
	AdoptKey = "adopt"
	// RolloutBaseKey: a promise's rollout base, the completed revision's files, kept for
	// rollback and revert (internal/provider's promise_rollout.go).
	RolloutBaseKey = "rollout_base"
	// SuccessorKey: the paths a replacement will write, set by its plan and read by the delete
	// of the object it replaces (successor.go).
	SuccessorKey = "successor"
	// InstanceKey: the object's instance token, under which its writes are logged
	// (internal/provider's writelog.go).
	InstanceKey = "instance"
	// WrittenLabelsKey: the labels each destination had when a promise last wrote there, for
	// the guard (written_labels.go).
	WrittenLabelsKey = "written_labels"
	// WrittenAtKey: when the provider last wrote each destination of an object with `observe`
	// (RFC 3339); a health record older than that is not fresh (internal/provider's observe.go).
	WrittenAtKey = "written_at"
	// LeftBehindKey: the destinations, as they were, of a promise's moves whose removal from
	// the old place failed, so that the next apply finishes them (internal/provider's left_behind.go).
	LeftBehindKey = "left_behind"
)

// Keys are the keys above, each once.
var Keys = []string{AdoptKey, RolloutBaseKey, SuccessorKey, InstanceKey, WrittenLabelsKey, WrittenAtKey, LeftBehindKey}

// Reader reads a resource operation's private state.
type Reader interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

// Writer writes it.
type Writer interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// State reads and writes a resource operation's private state.
type State interface {
	Reader
	Writer
}
