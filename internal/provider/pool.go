package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// poolMemberModel is a destination as promises, requests and the placement data source receive
// it: `destinations = values(kratix_destination.workers)`. Its attributes are a subset of
// kratix_destination's, so the resources convert; the destination's own computed attributes are
// dropped and recomputed here.
type poolMemberModel struct {
	Name               types.String `tfsdk:"name"`
	Labels             types.Map    `tfsdk:"labels"`
	StateStore         types.Object `tfsdk:"state_store"`
	Path               types.String `tfsdk:"path"`
	StrictMatchLabels  types.Bool   `tfsdk:"strict_match_labels"`
	FilepathMode       types.String `tfsdk:"filepath_mode"`
	AggregatedFilename types.String `tfsdk:"aggregated_filename"`
}

func poolSchema(description string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Required:            true,
		MarkdownDescription: description,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			// Optional here, checked in poolFromModel: Terraform validates a list built from resources
			// ([kratix_destination.a]) before their values are known, and would call them missing.
			"name":   schema.StringAttribute{Optional: true, MarkdownDescription: "Destination name (required)."},
			"labels": schema.MapAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: "Destination labels."},
			"state_store": schema.SingleNestedAttribute{
				Optional: true, MarkdownDescription: "The destination's store (required).", Attributes: storeRefAttributes(),
			},
			"path":                schema.StringAttribute{Optional: true, MarkdownDescription: "The destination's path in its store (required)."},
			"strict_match_labels": schema.BoolAttribute{Optional: true, MarkdownDescription: "See kratix_destination."},
			"filepath_mode":       schema.StringAttribute{Optional: true, MarkdownDescription: "See kratix_destination; `nestedByMetadata` when unset."},
			"aggregated_filename": schema.StringAttribute{Optional: true, MarkdownDescription: "See kratix_destination; `aggregated.yaml` when unset."},
		}},
	}
}

// poolMember is a destination of a pool, in domain terms.
type poolMember struct {
	scheduling.Destination
	Store  storeRefModel
	Target layout.Target
}

// poolFromModel converts a pool and checks it: duplicate names and two destinations sharing a
// store folder are errors, attached to the offending element. ok is false while any of it is
// unknown.
func poolFromModel(ctx context.Context, at path.Path, models []poolMemberModel) (pool []poolMember, ok bool, diags diag.Diagnostics) {
	names := map[string]int{}
	folders := map[string]int{}
	for i, m := range models {
		el := at.AtListIndex(i)
		if m.Name.IsUnknown() || m.Labels.IsUnknown() || m.Path.IsUnknown() || m.StrictMatchLabels.IsUnknown() ||
			m.FilepathMode.IsUnknown() || m.AggregatedFilename.IsUnknown() {
			return nil, false, diags
		}
		if m.StateStore.IsUnknown() {
			return nil, false, diags
		}
		if m.Name.IsNull() || m.Path.IsNull() || m.StateStore.IsNull() {
			diags.AddAttributeError(el, "Incomplete Destination",
				fmt.Sprintf("%s: a destination needs name, path and state_store; pass the destination resources, e.g. destinations = values(kratix_destination.workers).", el))
			continue
		}
		ref, known := storeRefFromObject(ctx, m.StateStore)
		if !known {
			return nil, false, diags
		}
		labels := map[string]string{}
		if !m.Labels.IsNull() {
			diags.Append(m.Labels.ElementsAs(ctx, &labels, false)...)
			for _, v := range m.Labels.Elements() {
				if v.IsUnknown() {
					return nil, false, diags
				}
			}
		}
		root, err := layout.Root(ref.Path.ValueString(), m.Path.ValueString())
		if err != nil {
			diags.AddAttributeError(el.AtName("path"), "Invalid Path", fmt.Sprintf("%s: destination %q: %s.", el.AtName("path"), m.Name.ValueString(), err))
			continue
		}
		name := m.Name.ValueString()
		if j, dup := names[name]; dup {
			diags.AddAttributeError(el.AtName("name"), "Duplicate Destination",
				fmt.Sprintf("%s: destination %q is listed twice (also at index %d). Each destination may appear once in a pool.", el.AtName("name"), name, j))
			continue
		}
		names[name] = i
		folder := ref.location() + "|" + root
		if j, dup := folders[folder]; dup {
			diags.AddAttributeError(el.AtName("path"), "Duplicate Store Path",
				fmt.Sprintf("%s: destination %q writes to folder %q of store %q, as the destination at index %d does. Two destinations cannot share a folder.",
					el.AtName("path"), name, root, ref.Name.ValueString(), j))
			continue
		}
		folders[folder] = i
		mode := layout.Mode(m.FilepathMode.ValueString())
		if mode == "" {
			mode = layout.ModeNestedByMetadata
		}
		pool = append(pool, poolMember{
			Destination: scheduling.Destination{Name: name, Labels: labels, StrictMatchLabels: m.StrictMatchLabels.ValueBool()},
			Store:       ref,
			Target: layout.Target{
				Destination: name, Mode: mode, StorePath: ref.Path.ValueString(), Root: root,
				AggregatedFilename: m.AggregatedFilename.ValueString(),
			},
		})
	}
	return pool, !diags.HasError(), diags
}

func destinationsOf(pool []poolMember) []scheduling.Destination {
	out := make([]scheduling.Destination, len(pool))
	for i, m := range pool {
		out[i] = m.Destination
	}
	return out
}
