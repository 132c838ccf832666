package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/privstate"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/tfserver"
)

// A promise or a request keeps, in its private state, the destinations as they were for placements that a
// move left behind (placement.LeftBehind): the destination moved to another store, folder or
// layout, the files were written where it is now, and their removal from where it was failed.
// State's pool says only where the destination is now, so without these the next plan would
// never know where the old files are and they would stay for good; with them the next plan
// takes the files from there (placement.Resume) and its apply finishes the move. Each value is
// the pool element as the promise last received it (connection details only, never a secret),
// encoded as Terraform encodes values (MessagePack) in the pool element's type.
// The record is privstate.LeftBehind (key privstate.LeftBehindKey); the pool's reader decodes
// its destinations (leftBehindMembers, pool.go); its warnings are warnLeftBehind (the plan's) and
// warnMoveNotFinished (the apply's), in diagnostics.go. This file is what the apply keeps.

// encodePoolElement is the element of pool (a pool attribute) that names dest, encoded as
// privstate.LeftBehind keeps it.
func encodePoolElement(ctx context.Context, pool types.List, dest string) ([]byte, error) {
	for _, e := range pool.Elements() {
		obj, ok := e.(types.Object)
		if !ok || obj.IsNull() || obj.IsUnknown() || storeconfig.Attr[types.String](obj.Attributes(), "name").ValueString() != dest {
			continue
		}
		v, err := obj.ToTerraformValue(ctx)
		if err != nil {
			return nil, err
		}
		return tfserver.EncodeValue(poolElementType().TerraformType(ctx), v)
	}
	return nil, fmt.Errorf("destination %q is not in the pool", dest)
}

// keepLeftBehind returns what a promise keeps after an apply: for each placement the outcome
// leaves where its destination was (placement.LeftBehind), that destination as the apply knew it,
// from the kept moves (before) when it came from there, else from the prior state's pool.
func keepLeftBehind(ctx context.Context, prior map[string]placement.Prior, records map[string]placement.Record, pool []placement.Member,
	statePool types.List, before privstate.LeftBehind) privstate.LeftBehind {
	out := privstate.LeftBehind{}
	for dest, m := range placement.LeftBehind(prior, records, pool) {
		if raw, ok := before[dest]; ok {
			if kept, ok := leftBehindMembers(ctx, before)[dest]; ok && kept.Folder() == m.Folder() {
				out[dest] = raw
				continue
			}
		}
		if raw, err := encodePoolElement(ctx, statePool, dest); err == nil {
			out[dest] = raw
		}
	}
	return out
}
