package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
)

// replaceIfSet forces replacement when a value changes, except when the prior value is null:
// an imported resource knows only its name, and filling in the rest from the configuration must
// be an in-place update, not a replacement.
func replaceIfSet() planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(
		func(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
			resp.RequiresReplace = !req.StateValue.IsNull()
		},
		"Changing this value replaces the resource.",
		"Changing this value replaces the resource.",
	)
}

// replaceIfStoreMoves forces replacement when the store object now points at another place
// (endpoint, bucket, repository, branch or path). Credentials, TLS options and the commit author
// change in place.
func replaceIfStoreMoves() planmodifier.Object {
	return objectplanmodifier.RequiresReplaceIf(
		func(ctx context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
			if req.StateValue.IsNull() || req.PlanValue.IsUnknown() {
				// Imported, or not known yet: an unknown store could be anywhere, so Terraform will
				// ask again once it is known.
				resp.RequiresReplace = req.PlanValue.IsUnknown() && !req.StateValue.IsNull()
				return
			}
			prior, okPrior := storeRefFromObject(ctx, req.StateValue)
			planned, okPlan := storeRefFromObject(ctx, req.PlanValue)
			if !okPrior || !okPlan {
				resp.RequiresReplace = true
				return
			}
			resp.RequiresReplace = prior.location() != planned.location()
		},
		"Moving the destination to another store, bucket, repository, branch or store path replaces it.",
		"Moving the destination to another store, bucket, repository, branch or store path replaces it.",
	)
}
