package provider

// Offline placement: with `offline = true` in the provider block, a plan computes everything it
// computes online (schedules, decisions, files and hashes) from the configuration alone, so that
// a `terraform test` suite or a CI job can assert placement with no store reachable and no
// credentials. What a plan would otherwise learn from the stores is skipped: the credential
// checks, the drift reads of Read and the first plan's look for an imported object. Apply
// refuses: its writes are what the stores are for, and a partial apply would record state that
// no store holds.

import (
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func offlineSchema() schema.Attribute {
	return schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "Plan placement without reaching any state store and without credentials, for " +
			"`terraform test` suites and CI checks (default `false`). A plan still computes every schedule, decision, " +
			"file and hash from the configuration, but checks no credentials, reads no store for drift and does not " +
			"look up imported objects. `terraform apply` refuses every create, update and delete and writes nothing; " +
			"remove `offline` (or set it to `false`) to apply. A request with write-only content still needs " +
			"`content_hash_key` for its planned hashes; without it they are unknown.",
	}
}

// offlineFrom reads the provider's offline attribute. A value not known yet (a variable fed by a
// resource) counts as offline: the plan reaches no store it was perhaps not meant to, and apply,
// which always sees the value known, decides.
func offlineFrom(v types.Bool) bool {
	return v.ValueBool() || v.IsUnknown()
}

// errOffline is what opening a store returns when the provider is offline: nothing may reach a
// store then, whichever path asked.
var errOffline = errors.New("the provider is offline (offline = true in the provider block) and reaches no store")

// refuseOffline adds the error that stops an apply of an offline provider and returns true; it
// returns false when the provider is online. op is "create", "update" or "delete".
func (d *providerData) refuseOffline(typeName, op string, diags *diag.Diagnostics) bool {
	if !d.isOffline() {
		return false
	}
	diags.AddError("Provider Is Offline",
		fmt.Sprintf("Cannot %s this %s: the kratix provider is configured with offline = true, which plans placement "+
			"(schedules, decisions, files and hashes) without reaching any state store or checking credentials, and "+
			"applies nothing. Nothing was written to any store and the state is unchanged. To apply, remove offline "+
			"from the provider block or set it to false, give the provider the stores' credentials, and run "+
			"terraform apply again.", op, typeName))
	return true
}

// offlineNotice is the warning every command of an offline provider prints once: a plan that
// looks like any other, but saw no store, should say so where the user reads it.
func offlineNotice(v types.Bool, diags *diag.Diagnostics) {
	why := "offline = true in the provider block"
	if v.IsUnknown() {
		why = "the provider block's offline is not known yet, which counts as offline until apply"
	}
	diags.AddWarning("Provider Is Offline",
		fmt.Sprintf("The kratix provider plans without its state stores (%s): schedules, files and hashes come from "+
			"the configuration alone. No credential was checked, no store was read for drift or for files another "+
			"writer holds, and no imported object was looked up, so this plan does not show what the stores hold. "+
			"terraform apply refuses to write while the provider is offline.", why))
}
