package provider

// An import names an object by its id, the configuration by its attributes. Were they to
// differ, the first plan would replace what the import had just adopted: to Terraform a promise
// named otherwise is another promise, and a request in another namespace another request (placed
// anew, perhaps on another destination). So the first plan after an import, which sees the mark
// the import left in private state until the first apply (see adopt.go), compares the two, and a
// difference fails that plan, naming both values, before anything is written.

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

const importMismatch = "Import ID Does Not Match Configuration"

// checkImportedName compares the name an import gave a state store, destination or promise (its
// import id) with the configured name. kind is "State store", "Destination" or "Promise".
func checkImportedName(ctx context.Context, req resource.ModifyPlanRequest, kind string, diags *diag.Diagnostics) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	if _, imported := readAdoption(ctx, req.Private); !imported {
		return
	}
	var imported, configured types.String
	if d := req.State.GetAttribute(ctx, path.Root("name"), &imported); d.HasError() {
		return
	}
	if d := req.Plan.GetAttribute(ctx, path.Root("name"), &configured); d.HasError() {
		return
	}
	if imported.IsNull() || configured.IsNull() || configured.IsUnknown() || imported.ValueString() == configured.ValueString() {
		return
	}
	diags.AddAttributeError(path.Root("name"), importMismatch, fmt.Sprintf(
		"name: %s was imported as %q, but the configuration names it %q. Planned as it is, this would replace the "+
			"imported %s with another one. If %q is the one to adopt, import it under its configured name: correct the "+
			"import block's id to %q, or run `terraform state rm` on this resource and `terraform import` it as %q. "+
			"If the configuration is wrong, set name = %q. Nothing was written.",
		kind, imported.ValueString(), configured.ValueString(), strings.ToLower(kind), configured.ValueString(),
		configured.ValueString(), configured.ValueString(), imported.ValueString()))
}

// checkImportedRequest compares a request's import id, <promise>/<namespace>/<name> (kept as its
// id until the first apply), with its configured promise, namespace and name; each part that
// differs is an error at the attribute that configures it. A part not known yet is not compared.
func checkImportedRequest(plan, state requestModel, diags *diag.Diagnostics) {
	_, parts, _, err := placement.ParseRequestImportID(state.ID.ValueString())
	if err != nil {
		return // ImportState refused it
	}
	importedID := state.ID.ValueString()
	configured := []types.String{types.StringUnknown(), plan.Namespace, plan.Name}
	if p := plan.promise(); p != nil {
		configured[0] = p.Name
	}
	attrs := []struct {
		what string
		at   path.Path
	}{
		// Not promise.name: the configuration sets promise as a whole (promise = kratix_promise.p),
		// and Terraform shows the line of the attribute the path names.
		{"promise", path.Root("promise")},
		{"namespace", path.Root("namespace")},
		{"name", path.Root("name")},
	}
	suggested := plan.id()
	if configured[0].IsUnknown() {
		suggested = placement.RequestID("<promise>", plan.Namespace.ValueString(), plan.Name.ValueString())
	}
	swapped := ""
	if configured[0].ValueString() == parts[1] && configured[1].ValueString() == parts[0] {
		swapped = " The promise and the namespace are swapped: a request's id names the promise first."
	}
	for i, a := range attrs {
		c := configured[i]
		if c.IsUnknown() || c.IsNull() || c.ValueString() == parts[i] {
			continue
		}
		diags.AddAttributeError(a.at, importMismatch, fmt.Sprintf(
			"%s: request %s was imported with %s %q (the id is <promise>/<namespace>/<name>), but the configuration "+
				"gives %s %q.%s Planned as it is, this would replace the imported request with another one. To adopt "+
				"the configured request, import it as %s: correct the import block's id, or run `terraform state rm` on "+
				"this resource and `terraform import` it again. Nothing was written.",
			a.at, importedID, a.what, parts[i], a.what, c.ValueString(), swapped, suggested))
	}
}
