package privstate

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// A promise or a request keeps, in its private state, the destinations as they were for
// placements that a move left behind (internal/provider's left_behind.go says why and how each
// is encoded). (The key is LeftBehindKey, keys.go.)

// LeftBehind is what a promise keeps of its unfinished moves: by destination, the pool element.
type LeftBehind map[string][]byte

// ReadLeftBehind returns what the last apply kept; nil when it kept nothing.
func ReadLeftBehind(ctx context.Context, p Reader) LeftBehind {
	if p == nil {
		return nil
	}
	b, d := p.GetKey(ctx, LeftBehindKey)
	if d.HasError() || len(b) == 0 {
		return nil
	}
	var out LeftBehind
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

// WriteLeftBehind keeps l; an empty l removes the record.
func WriteLeftBehind(ctx context.Context, p Writer, l LeftBehind) diag.Diagnostics {
	if p == nil {
		return nil
	}
	if len(l) == 0 {
		return p.SetKey(ctx, LeftBehindKey, nil)
	}
	b, err := json.Marshal(l)
	if err != nil {
		return nil // byte slices always encode
	}
	return p.SetKey(ctx, LeftBehindKey, b)
}
