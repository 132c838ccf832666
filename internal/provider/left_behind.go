package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/privstate"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
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
// (The key is privstate.LeftBehindKey.)

// leftBehind is what a promise keeps of its unfinished moves: by destination, the pool element.
type leftBehind map[string][]byte

func readLeftBehind(ctx context.Context, p privstate.Reader) leftBehind {
	if p == nil {
		return nil
	}
	b, d := p.GetKey(ctx, privstate.LeftBehindKey)
	if d.HasError() || len(b) == 0 {
		return nil
	}
	var out leftBehind
	if json.Unmarshal(b, &out) != nil {
		return nil
	}
	return out
}

func writeLeftBehind(ctx context.Context, p privstate.Writer, l leftBehind) diag.Diagnostics {
	if p == nil {
		return nil
	}
	if len(l) == 0 {
		return p.SetKey(ctx, privstate.LeftBehindKey, nil)
	}
	b, err := json.Marshal(l)
	if err != nil {
		return nil // byte slices always encode
	}
	return p.SetKey(ctx, privstate.LeftBehindKey, b)
}

// poolElementType is the type of one destination of a pool attribute.
func poolElementType() types.ObjectType {
	obj, _ := poolSchema("").NestedObject.Type().(types.ObjectType) // a nested object's type is always one
	return types.ObjectType{AttrTypes: obj.AttrTypes}
}

// members decodes the destinations kept; one that no longer decodes (a provider whose pool
// schema changed since) is left out.
func (l leftBehind) members(ctx context.Context) map[string]poolMember {
	out := map[string]poolMember{}
	typ := poolElementType()
	for dest, raw := range l {
		v, err := tfserver.DecodeValue(raw, typ.TerraformType(ctx))
		if err != nil {
			continue
		}
		obj, err := typ.ValueFromTerraform(ctx, v)
		if err != nil {
			continue
		}
		list, d := types.ListValue(typ, []attr.Value{obj})
		if d.HasError() {
			continue
		}
		if m, ok := lenientPool(list)[dest]; ok {
			out[dest] = m
		}
	}
	return out
}

// encodePoolElement is the element of pool (a pool attribute) that names dest, encoded as
// leftBehind keeps it.
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
	statePool types.List, before leftBehind) leftBehind {
	out := leftBehind{}
	for dest, m := range placement.LeftBehind(prior, records, pool) {
		if raw, ok := before[dest]; ok {
			if kept, ok := before.members(ctx)[dest]; ok && kept.Folder() == m.Folder() {
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

// warnMoveNotFinished says, after an apply, which of a promise's or request's moves (who names
// it) left its files where the destination was (left: what it keeps of them), and that the next
// apply finishes them.
func warnMoveNotFinished(who string, prior map[string]placement.Prior, left leftBehind, diags *diag.Diagnostics) {
	for _, dest := range tfvalue.SortedKeys(left) {
		pr := prior[dest]
		diags.AddWarning("Move Not Finished", fmt.Sprintf("%s stays on destination %q where it was (%s, folder %q): "+
			"its files could not be taken from there. The next plan shows the removal left to do, and the next apply makes it.",
			who, dest, pr.Record.Location, pr.Record.Root))
	}
}

// warnLeftBehind says, in a plan, which placements an earlier move left where their destination
// was and that this apply takes them from there (records: the plan's).
func warnLeftBehind(who string, prior map[string]placement.Prior, left map[string]poolMember, records map[string]placement.Record, diags *diag.Diagnostics) {
	for _, dest := range tfvalue.SortedKeys(left) {
		pr, held := prior[dest]
		r, planned := records[dest]
		if !held || !planned || !placement.RecordedAt(pr.Record, left[dest].Member) || placement.RecordedAt(r, left[dest].Member) {
			continue
		}
		diags.AddWarning("Move Not Finished", fmt.Sprintf("%s still has files on destination %q where it was (%s, folder %q), "+
			"left by a move whose removal failed: this apply takes them from there.", who, dest, pr.Record.Location, pr.Record.Root))
	}
}
