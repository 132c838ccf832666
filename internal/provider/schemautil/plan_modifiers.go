package schemautil

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// ReplaceIfSet forces replacement when a value changes, except when the prior value is null:
// an imported resource knows only its name, and filling in the rest from the configuration must
// be an in-place update, not a replacement.
func ReplaceIfSet() planmodifier.String {
	return stringplanmodifier.RequiresReplaceIf(
		func(_ context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
			resp.RequiresReplace = !req.StateValue.IsNull()
		},
		"Changing this value replaces the resource.",
		"Changing this value replaces the resource.",
	)
}

// ReplaceIfPathMoves forces replacement when a destination's path changes in meaning: "." and
// "/" are both the store's root, and "a/" is "a".
func ReplaceIfPathMoves() planmodifier.String {
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
