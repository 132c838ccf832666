package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
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
// (endpoint, bucket, repository, branch or path, compared in normalised form). Credentials, TLS
// options, the commit author and cosmetic spellings (a ".git" suffix, a trailing "/", a path of
// "." for none, endpoint case) change in place, even while they are unknown.
func replaceIfStoreMoves() planmodifier.Object {
	return objectplanmodifier.RequiresReplaceIf(
		func(ctx context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
			if req.StateValue.IsNull() {
				return // imported: filling in the rest from the configuration is an update
			}
			prior, okPrior := storeLocationOf(ctx, req.StateValue)
			planned, okPlan := storeLocationOf(ctx, req.PlanValue)
			// A location not known yet could be anywhere: Terraform asks again once it is known.
			resp.RequiresReplace = !okPrior || !okPlan || prior != planned
		},
		"Moving the destination to another store, bucket, repository, branch or store path replaces it.",
		"Moving the destination to another store, bucket, repository, branch or store path replaces it.",
	)
}

// replaceIfPathMoves forces replacement when a destination's path changes in meaning: "." and
// "/" are both the store's root, and "a/" is "a".
func replaceIfPathMoves() planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(
		func(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
			if req.StateValue.IsNull() {
				return
			}
			resp.RequiresReplace = req.PlanValue.IsUnknown() ||
				placement.CleanStorePath(req.StateValue.ValueString()) != placement.CleanStorePath(req.PlanValue.ValueString())
		},
		"Changing this value replaces the resource.",
		"Changing this value replaces the resource.",
	)
}
