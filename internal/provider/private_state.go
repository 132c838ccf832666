package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// Private state, read and written by the concerns that keep something there, each under its own
// key and in its own file: the import being adopted (adopt.go), the rollout's base
// (promise_rollout.go), the successor's paths (successor.go), the instance token (writelog.go),
// the labels files were written under (written_labels.go) and the destinations as they were for
// a promise's unfinished moves (left_behind.go). The framework's request and
// response types satisfy these.

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
