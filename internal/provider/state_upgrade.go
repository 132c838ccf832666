package provider

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// Schema versions of the resources. Terraform saves each instance's state with the version of the
// schema that wrote it and, when the provider's version is newer, asks the provider to convert
// the saved JSON before anything else. A change that old state cannot be read as (an attribute
// renamed, removed, or of another type, or a value that now means something else) bumps the
// resource's version and adds an upgrader from the previous one; adding an optional or computed
// attribute does not (state saved without it reads as null). See the package doc, "Changing
// a schema's shape", and state_upgrade_test.go.
const (
	stateStoreSchemaVersion  = 0
	destinationSchemaVersion = 0
	promiseSchemaVersion     = 0
	requestSchemaVersion     = 1
)

var _ resource.ResourceWithUpgradeState = (*stateStoreResource)(nil)

// UpgradeState converts kratix_state_store state saved under an earlier schema version. There is
// none yet: version 0 is read by the framework itself, and state saved before the `timeouts`
// block existed comes back with timeouts null, which plans no change.
//
// The next shape change adds, keyed by the version it upgrades from:
//
//	0: {
//		PriorSchema:   &stateStoreSchemaV0, // a frozen copy of today's schema, never edited again
//		StateUpgrader: upgradeStateStoreV0, // reads req.State (a V0 model), sets resp.State (today's model)
//	},
//
// with the version bumped to 1, and a case in TestUpgradeState holding a version-0 state JSON.
// An upgrader goes straight to the current version; a later bump rewrites the earlier upgraders'
// targets rather than chaining them, as the framework calls only the one for the saved version.
func (r *stateStoreResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{}
}

var _ resource.ResourceWithUpgradeState = (*requestResource)(nil)

// UpgradeState converts kratix_resource_request state saved under an earlier schema version.
//
// 0 to 1: `destinations` (every destination the request is on) was added when requests took
// replicas. State saved before has one destination or none, so the list is that one, or empty:
// without this, the first plan after an upgrade would show the list appear on every request.
// The JSON is edited as it is, attribute by attribute, rather than read through a frozen copy of
// the version-0 schema: the only change is a new top-level attribute, and every attribute the
// saved JSON lacks (those added since without a bump) reads as null, as the framework reads them.
func (r *requestResource) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	return map[int64]resource.StateUpgrader{0: {StateUpgrader: upgradeRequestV0}}
}

func upgradeRequestV0(_ context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	if req.RawState == nil {
		resp.Diagnostics.AddError("Unable to Upgrade State", "kratix_resource_request: the saved state is empty.")
		return
	}
	var attrs map[string]json.RawMessage
	if err := json.Unmarshal(req.RawState.JSON, &attrs); err != nil || attrs == nil {
		resp.Diagnostics.AddError("Unable to Upgrade State", fmt.Sprintf("kratix_resource_request: the saved state is not a JSON object: %v", err))
		return
	}
	placed := []string{}
	var dest *string
	if err := json.Unmarshal(attrs["destination"], &dest); err == nil && dest != nil {
		placed = append(placed, *dest)
	}
	list, _ := json.Marshal(placed)
	attrs["destinations"] = list
	out, err := json.Marshal(attrs)
	if err != nil {
		resp.Diagnostics.AddError("Unable to Upgrade State", fmt.Sprintf("kratix_resource_request: %v", err))
		return
	}
	resp.DynamicValue = &tfprotov6.DynamicValue{JSON: out}
}
