package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// Schema versions of the resources. Terraform saves each instance's state with the version of the
// schema that wrote it and, when the provider's version is newer, asks the provider to convert
// the saved JSON before anything else. A change that old state cannot be read as (an attribute
// renamed, removed, or of another type, or a value that now means something else) bumps the
// resource's version and adds an upgrader from the previous one; adding an optional or computed
// attribute does not (state saved without it reads as null). See DESIGN.md, "Changing a
// schema's shape", and state_upgrade_test.go.
const (
	stateStoreSchemaVersion  = 0
	destinationSchemaVersion = 0
	promiseSchemaVersion     = 0
	requestSchemaVersion     = 0
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
