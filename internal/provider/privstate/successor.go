package privstate

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// The plan of an object that does not exist yet records, in its private state, what it will
// write (placement.Successor). Terraform hands that private state to the delete of the object
// it replaces, when there is one (a tainted promise whose first apply failed somewhere, a
// changed name, `-replace`): the delete then leaves alone every file the successor puts back
// a moment later, instead of removing it for a GitOps agent to prune. A plain create never
// reads it, and it does not outlive the plan: the framework starts a create's private state
// empty, so no later destroy can mistake it for a replacement's.
// (The key is SuccessorKey, keys.go.)

// successorData is the private state's value: a gzip of the JSON of the Successor, since a
// large fleet lists many paths that share long prefixes.
type successorData struct {
	Z string `json:"z"`
}

func WriteSuccessor(ctx context.Context, p Writer, s placement.Successor) diag.Diagnostics {
	if p == nil {
		return nil
	}
	if len(s) == 0 {
		return p.SetKey(ctx, SuccessorKey, nil)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(s); err != nil {
		return nil // an encoding that cannot fail; without the list the delete removes as before
	}
	if err := zw.Close(); err != nil {
		return nil
	}
	b, _ := json.Marshal(successorData{Z: base64.StdEncoding.EncodeToString(buf.Bytes())})
	return p.SetKey(ctx, SuccessorKey, b)
}

// ReadSuccessor returns what the successor of the object being deleted will write; nil when it
// is not being replaced (or the plan could not say).
func ReadSuccessor(ctx context.Context, p Reader) placement.Successor {
	if p == nil {
		return nil
	}
	b, d := p.GetKey(ctx, SuccessorKey)
	if d.HasError() || len(b) == 0 {
		return nil
	}
	var sd successorData
	if json.Unmarshal(b, &sd) != nil {
		return nil
	}
	z, err := base64.StdEncoding.DecodeString(sd.Z)
	if err != nil {
		return nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil
	}
	var s placement.Successor
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return s
}
