package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/registry"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

var (
	_ datasource.DataSource              = (*destinationsDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*destinationsDataSource)(nil)
)

// NewDestinationsDataSource is the kratix_destinations data source: the destinations registered
// in stores (see registration.go), as a pool.
func NewDestinationsDataSource() datasource.DataSource { return &destinationsDataSource{} }

type destinationsDataSource struct{ data *providerData }

type destinationsDataModel struct {
	StateStores          types.List `tfsdk:"state_stores"`          // of the pool's state_store object
	DestinationSelectors types.List `tfsdk:"destination_selectors"` // of schedattr.SelectorModel
	Destinations         types.List `tfsdk:"destinations"`          // of poolElementType
}

func (d *destinationsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_destinations"
}

func (d *destinationsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The destinations registered in one or more state stores, by any workspace: each " +
			"`kratix_destination` publishes a record in its store (see its `registration`), and this data source " +
			"reads them back as a pool, in the shape `destinations` of `kratix_promise`, `kratix_resource_request` and " +
			"`data.kratix_placement` take. A destination registered in another workspace appears in the next plan " +
			"here with no change to this configuration; one destroyed there leaves the pool, and a promise over the " +
			"pool treats it as a destination that left (its `on_unschedule`, the guard and misscheduling apply).\n\n" +
			"Reading costs one listing of each store's path (shared with the plan's other reads of the store; one " +
			"fetch on git) and one read of each record. A record that cannot be read is skipped with a warning " +
			"naming its file.",
		Attributes: map[string]schema.Attribute{
			"state_stores": schema.ListAttribute{
				Required:    true,
				ElementType: poolElementType().AttrTypes[storeconfig.AttributeName],
				MarkdownDescription: "The stores whose registries to read, as `state_store` takes them: " +
					"`state_stores = [kratix_state_store.a, kratix_state_store.b]`. Each destination found is given the " +
					"store object it was found in. A name registered in two stores is taken from the first.",
			},
			"destination_selectors": dataSelectorsSchema(schedattr.SelectorsDescription("Only the destinations these " +
				"select, by a promise's rules (entries merged; with `strict_match_labels` and Kratix's dry-run label " +
				"as for a promise). Unset: every destination registered. Taints do not filter: a tainted destination " +
				"stays in the pool, where the promise's tolerations decide.")),
			"destinations": schema.ListAttribute{
				Computed: true, ElementType: poolElementType(),
				MarkdownDescription: "The destinations, sorted by name, each with `name`, `labels`, `state_store`, `path`, " +
					"`filepath_mode`, `aggregated_filename`, `strict_match_labels`, `taints`, `weight` and `instance_id` as " +
					"its `kratix_destination` has them: `destinations = data.kratix_destinations.fleet.destinations`.",
			},
		},
	}
}

func (d *destinationsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *destinationsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m destinationsDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if d.data == nil {
		resp.Diagnostics.Append(providerNotConfigured())
		return
	}
	if d.data.isOffline() {
		resp.Diagnostics.AddWarning("Registry Not Read", "The provider is offline: data.kratix_destinations reads no store, "+
			"and its destinations are empty in this plan.")
		m.Destinations = types.ListValueMust(poolElementType(), []attr.Value{})
		resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
		return
	}
	var selectors []scheduling.Selector
	if !m.DestinationSelectors.IsNull() {
		entries, ok, diags := schedattr.SelectorsFromList(ctx, path.Root("destination_selectors"), m.DestinationSelectors)
		resp.Diagnostics.Append(diags...)
		if !ok || resp.Diagnostics.HasError() {
			return
		}
		selectors = append([]scheduling.Selector{}, entries...)
	}
	stores, refs := m.StateStores.Elements(), []storeconfig.Ref{}
	var found []registry.Found
	for i, el := range stores {
		at := path.Root("state_stores").AtListIndex(i)
		obj, isObject := el.(types.Object)
		ref, ok := storeconfig.Ref{}, false
		if isObject {
			ref, ok = storeconfig.FromObject(obj)
		}
		if !ok || ref.Bucket == nil && ref.Git == nil {
			resp.Diagnostics.AddAttributeError(at, "Invalid State Store", "The store object is null or has neither bucket nor git. "+
				"Pass the store resource: state_stores = [kratix_state_store.<name>].")
			return
		}
		refs = append(refs, ref)
		resp.Diagnostics.Append(d.data.checkCredentials(ref, at)...)
		if resp.Diagnostics.HasError() {
			return
		}
		store, err := d.data.open(ref, false)
		if err != nil {
			resp.Diagnostics.Append(storeNotUsableAt(at, fmt.Sprintf("The registry of state store %q cannot be read", ref.Name.ValueString()), err))
			return
		}
		storePath := placement.CleanStorePath(ref.Path.ValueString())
		files, err := sharedView(store, storePath).ReadUnder(ctx, registry.DestinationsPrefix(storePath), func(p string) bool {
			_, ok := registry.IsDestinationPath(storePath, p)
			return ok
		})
		if err != nil {
			addStoreError(&resp.Diagnostics, "Cannot Read Registry", fmt.Sprintf("Reading the destinations registered in state store %q (%s) failed",
				ref.Name.ValueString(), registry.DestinationsPrefix(storePath)), err)
			return
		}
		for p, content := range files {
			found = append(found, registry.Found{Store: i, Path: p, Content: content})
		}
	}
	listed, skipped := registry.Discover(found, selectors)
	for _, s := range skipped {
		resp.Diagnostics.AddAttributeWarning(path.Root("state_stores").AtListIndex(s.Store), "Registration Skipped",
			fmt.Sprintf("%s in state store %q is left out of the destinations: %s.", s.Path, refs[s.Store].Name.ValueString(), s.Why))
	}
	elems := make([]attr.Value, 0, len(listed))
	for _, l := range listed {
		v, diags := poolElementOf(l.Destination, stores[l.Store])
		resp.Diagnostics.Append(diags...)
		elems = append(elems, v)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	list, diags := types.ListValue(poolElementType(), elems)
	resp.Diagnostics.Append(diags...)
	m.Destinations = list
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// poolElementOf is a registered destination as a pool element, with store as its state_store.
func poolElementOf(d registry.Destination, store attr.Value) (types.Object, diag.Diagnostics) {
	typ := poolElementType()
	taintType, _ := typ.AttrTypes["taints"].(types.ListType)
	taintObj, _ := taintType.ElemType.(types.ObjectType)
	labels := types.MapNull(types.StringType)
	if len(d.Labels) > 0 {
		vals := map[string]attr.Value{}
		for k, v := range d.Labels {
			vals[k] = types.StringValue(v)
		}
		labels = types.MapValueMust(types.StringType, vals)
	}
	taints := types.ListNull(taintObj)
	if len(d.Taints) > 0 {
		vals := make([]attr.Value, len(d.Taints))
		for i, t := range d.Taints {
			value := types.StringNull()
			if t.Value != "" {
				value = types.StringValue(t.Value)
			}
			vals[i] = types.ObjectValueMust(taintObj.AttrTypes, map[string]attr.Value{
				"key": types.StringValue(t.Key), "value": value, "effect": types.StringValue(t.Effect)})
		}
		taints = types.ListValueMust(taintObj, vals)
	}
	weight := types.Int64Null()
	if d.Weight > 0 {
		weight = types.Int64Value(int64(d.Weight))
	}
	instance := types.StringNull()
	if d.Instance != "" {
		instance = types.StringValue(d.Instance)
	}
	mode := d.Mode
	if mode == "" {
		mode = layout.ModeNestedByMetadata
	}
	return types.ObjectValue(typ.AttrTypes, map[string]attr.Value{
		"instance_id": instance, "name": types.StringValue(d.Name), "labels": labels, "state_store": store,
		"path": types.StringValue(d.Path), "strict_match_labels": types.BoolValue(d.StrictMatchLabels),
		"taints": taints, "weight": weight, "filepath_mode": types.StringValue(string(mode)),
		"aggregated_filename": types.StringValue(d.AggregatedFilename),
	})
}
