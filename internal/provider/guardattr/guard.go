package guardattr

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	provschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// The blast-radius guard of kratix_promise and kratix_resource_request (see placement.Guard):
// the attribute, its conversion, and the check ModifyPlan makes once the placement plan is
// known. The attributes have no default and no plan modifier: a promise's no-change plan is
// answered without the framework (internal/tfserver), which applies only the schema's one
// default.

type Model struct {
	MaxDestinationsRemoved types.Int64  `tfsdk:"max_destinations_removed"`
	Protect                types.List   `tfsdk:"protect"`
	Acknowledge            types.String `tfsdk:"acknowledge"`
}

var Path = path.Root("guard")

// text is what a resource's guard attribute says about that resource: the change it
// refuses, what loses nothing, and the meaning of max_destinations_removed and protect there.
type text struct {
	refuses, losesNothing, maxRemoved, protect string
}

// PromiseSchema is kratix_promise's guard: the promise writes to many destinations, any of
// which can lose files.
func PromiseSchema() schema.SingleNestedAttribute {
	return schemaOf(text{
		refuses: "remove files from more than `max_destinations_removed` destinations, or delete any " +
			"file on a destination `protect` selects",
		losesNothing: "Files already misscheduled (`on_unschedule = \"keep\"`) and destinations that leave the " +
			"pool (their files stay) lose nothing.",
		maxRemoved: "How many destinations may lose files in one plan: a placement removed, moved to " +
			"another store or folder (its files are taken from where they were), or some of its files " +
			"deleted. Unset: any number.",
		protect: "Destinations where nothing may be deleted, in the form of " +
			"`destination_selectors`: a plan that deletes any file on a destination these select is refused. " +
			"A destination is judged by its labels before the change (as the promise last saw them) and after " +
			"it, and is protected when either matches: relabelling a protected destination, or moving it to " +
			"another store, cannot take files from it unacknowledged. It is also judged by " +
			"the labels it had when the promise's files there were last written, so a relabel under " +
			"`on_unschedule = \"keep\"` followed by a switch to `\"delete\"` is refused too. " +
			"Entries combine with AND; an empty list protects every destination.",
	})
}

// RequestSchema is kratix_resource_request's guard: a request lives on one destination, so
// the guard counts that destination only, and a move off it is refused whenever a guard is set.
func RequestSchema() schema.SingleNestedAttribute {
	return schemaOf(text{
		refuses: "move the request off its destination (to another destination when its destination leaves " +
			"the promise's `destinations` or is drained by a `NoExecute` taint, to none, or to another store or folder of the same destination: refused " +
			"whenever a guard is set, even `guard = {}`), or delete any of its files there that " +
			"`max_destinations_removed = 0` or `protect` forbids",
		losesNothing: "Only the request's own destination is counted: what the request writes is on one " +
			"destination at a time.",
		maxRemoved: "`0` refuses a plan that deletes any file the request holds on its destination (a file it no " +
			"longer produces, a stray file in its folder); `1` or more, or unset, lets such deletions through. " +
			"A move off the destination is refused whatever this value.",
		protect: "Destinations where the request may delete nothing, in the form of `destination_selectors`: " +
			"a plan that deletes any of the request's files on a destination these select is refused. The " +
			"destination is judged by its labels before the change (as the request last saw them) and after it, " +
			"and is protected when either matches: a request that stays on a destination relabelled out of " +
			"protection (misscheduled) still cannot lose a file there in that plan unacknowledged. Entries " +
			"combine with AND; an empty list protects every destination.",
	})
}

func schemaOf(text text) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "A blast-radius guard: refuse, during plan, a change that would " + text.refuses + ". " +
			"The error lists the destinations and prints the `acknowledge` value that lets exactly that change " +
			"through. " + text.losesNothing + " Destroying the resource is judged the same way, as a change that " +
			"takes every file it holds away (`terraform destroy`, the resource removed from the configuration, " +
			"`-target` of a destination it depends on): a refused destroy stops at plan, and goes through once the " +
			"resource's state holds its `acknowledge` (set it and apply, which changes no file, then destroy).",
		Attributes: map[string]schema.Attribute{
			"max_destinations_removed": schema.Int64Attribute{
				Optional:            true,
				MarkdownDescription: text.maxRemoved,
				Validators:          []validator.Int64{int64validator.AtLeast(0)},
			},
			"protect": schedattr.SelectorsResourceSchema(text.protect),
			"acknowledge": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "The value a refused plan prints (`ack-` and 16 hex digits) to let that exact " +
					"change through. It stands for this resource and the exact set of destinations with what each " +
					"loses: any other change is refused again with another value, so a value left in the " +
					"configuration lets nothing else through. Remove it after the apply.",
			},
		},
	}
}

// From converts the guard. It returns nil when there is none, or while some of it is
// unknown (the plan is not final; the next one checks).
func From(ctx context.Context, obj types.Object) (*placement.Guard, diag.Diagnostics) {
	if obj.IsNull() || obj.IsUnknown() {
		return nil, nil
	}
	var m Model
	diags := obj.As(ctx, &m, basetypes.ObjectAsOptions{})
	if diags.HasError() || m.MaxDestinationsRemoved.IsUnknown() || m.Protect.IsUnknown() || m.Acknowledge.IsUnknown() {
		return nil, diags
	}
	g := &placement.Guard{MaxRemoved: -1, Acknowledge: m.Acknowledge.ValueString()}
	if !m.MaxDestinationsRemoved.IsNull() {
		g.MaxRemoved = int(m.MaxDestinationsRemoved.ValueInt64())
	}
	if !m.Protect.IsNull() {
		entries, ok, d := schedattr.SelectorsFromList(ctx, Path.AtName("protect"), m.Protect)
		diags.Append(d...)
		if !ok {
			return nil, diags
		}
		sel := scheduling.Merge(entries)
		g.Protect = &sel
	}
	return g, diags
}

// CheckDestroy judges the destroy of a resource by what it does, as Check judges a
// change: every destination it holds files on loses them (losses). Terraform plans a destroy
// through the provider too, so a destroy the guard refuses stops at plan, whether it comes from
// `terraform destroy`, a resource removed from the configuration, `-target` of a destination the
// resource depends on, or a replacement. A refused destroy is let through by an acknowledge the
// resource's state already holds: set it in the configuration and apply (which changes no file),
// then destroy.
func CheckDestroy(ctx context.Context, obj types.Object, providerAcks map[string]bool, kind, name, who string, losses []placement.Loss) diag.Diagnostics {
	g, diags := From(ctx, obj)
	if g == nil || diags.HasError() {
		return diags
	}
	v := g.Check(kind, name, losses)
	if len(v.Rules) == 0 {
		return diags
	}
	by := fmt.Sprintf("the acknowledge = %q its state holds", v.Ack)
	if !v.Acknowledged && providerAcks[v.Ack] {
		v.Acknowledged, by = true, fmt.Sprintf("%q in the provider's destroy_acknowledgements", v.Ack)
	}
	files := 0
	for _, l := range losses {
		files += l.Files
	}
	list := lossList(losses)
	if v.Acknowledged {
		diags.AddWarning("Acknowledged Destroy Proceeds", fmt.Sprintf(
			"%s: destroying it deletes %d file(s) on %d destination(s), which the guard would refuse (%s); "+
				"%s lets it through. Destinations that lose files:\n\n%s",
			who, files, len(losses), strings.Join(v.Rules, "; "), by, list))
		return diags
	}
	diags.AddError("Destroy Refused by the Guard", fmt.Sprintf(
		"%s: destroying it deletes %d file(s) on %d destination(s) and breaks the guard:\n\n  - %s\n\n"+
			"Destinations that lose files:\n\n%s\n"+
			"A destroy is judged like any change that takes files away: `terraform destroy`, a resource removed "+
			"from the configuration, or `-target` of a destination the resource depends on. To destroy it, set\n\n"+
			"  guard = { ..., acknowledge = %q }\n\n"+
			"in the configuration and apply (that apply changes no file), then destroy again; or remove the guard "+
			"and apply first. An object whose state an apply cannot change (a deposed object left by an interrupted "+
			"create_before_destroy) is let through by the same value in the provider block's "+
			"destroy_acknowledgements = [%q]. Nothing was deleted.",
		who, files, len(losses), strings.Join(v.Rules, "\n  - "), list, v.Ack, v.Ack))
	return diags
}

// lossList is one line per destination and what it loses, as the guard's messages list them.
func lossList(losses []placement.Loss) string {
	var list strings.Builder
	for _, l := range losses {
		fmt.Fprintf(&list, "  - %s: %s\n", l.Destination, l.What())
	}
	return list.String()
}

// DestroyAcksSchema is the provider block's destroy_acknowledgements: acknowledgements of destroys
// that the destroyed object's own state cannot hold. Terraform plans a destroy from the state
// alone, and some states cannot be changed by an apply first: the deposed object an interrupted
// create_before_destroy leaves behind is destroyed by the next plan, and nothing can set its
// guard's acknowledge.
func DestroyAcksSchema() provschema.Attribute {
	return provschema.SetAttribute{
		ElementType: types.StringType,
		Optional:    true,
		MarkdownDescription: "Acknowledgements (`ack-` values printed by a \"Destroy Refused by the Guard\" error) of " +
			"destroys a resource's `guard` would refuse, for objects whose own `guard.acknowledge` cannot be set " +
			"first: the deposed object an interrupted `create_before_destroy` leaves (`(deposed object ...)` in the " +
			"plan), or a teardown that must not change the configuration. Each value lets through exactly one " +
			"resource's destroy with exactly the losses it was printed for. Remove it once the destroy is applied.",
	}
}

// DestroyAcksFrom reads destroy_acknowledgements; unknown values acknowledge nothing (a plan that
// needs them is refused until they are known).
func DestroyAcksFrom(ctx context.Context, v types.Set, diags *diag.Diagnostics) map[string]bool {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	var acks []types.String
	diags.Append(v.ElementsAs(ctx, &acks, false)...)
	out := map[string]bool{}
	for _, a := range acks {
		if !a.IsNull() && !a.IsUnknown() {
			out[a.ValueString()] = true
		}
	}
	return out
}

// Check applies the resource's guard, if any, to the losses of its plan: an error at
// `guard` that lists the destinations and prints the acknowledgement, or a warning when the
// change was acknowledged. who is "Promise \"jenkins\"" or "Request postgres/default/db".
func Check(ctx context.Context, obj types.Object, kind, name, who string, losses []placement.Loss) diag.Diagnostics {
	g, diags := From(ctx, obj)
	if g == nil || diags.HasError() {
		return diags
	}
	v := g.Check(kind, name, losses)
	if len(v.Rules) == 0 {
		return diags
	}
	list := lossList(v.Losses)
	if v.Acknowledged {
		diags.AddAttributeWarning(Path, "Acknowledged Change Proceeds", fmt.Sprintf(
			"%s: the guard would refuse this change (%s), and acknowledge = %q lets it through. Destinations that lose files:\n\n%s\n"+
				"Remove acknowledge after the apply: it lets nothing else through.",
			who, strings.Join(v.Rules, "; "), v.Ack, list))
		return diags
	}
	stale := ""
	if g.Acknowledge != "" {
		stale = fmt.Sprintf("\n\nacknowledge = %q stands for another change, not this one.", g.Acknowledge)
	}
	diags.AddAttributeError(Path, "Change Refused by the Guard", fmt.Sprintf(
		"%s: this plan breaks the guard:\n\n  - %s\n\nDestinations that lose files:\n\n%s\n"+
			"To make exactly this change, set\n\n  guard = { ..., acknowledge = %q }\n\n"+
			"(keeping the guard's other settings). The value is valid only for this exact set of destinations and "+
			"what each loses: any other change is refused again with another value.%s",
		who, strings.Join(v.Rules, "\n  - "), list, v.Ack, stale))
	return diags
}
