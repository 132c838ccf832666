package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schemautil"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/registry"
)

var (
	_ datasource.DataSource              = (*promiseDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*promiseDataSource)(nil)
)

// NewPromiseDataSource is the kratix_promise data source: a promise as the workspaces that
// manage it published it (promise_record.go), for a request in another workspace.
func NewPromiseDataSource() datasource.DataSource { return &promiseDataSource{} }

type promiseDataSource struct{ data *providerData }

type promiseDataModel struct {
	Name                 types.String `tfsdk:"name"`
	StateStores          types.List   `tfsdk:"state_stores"`
	DestinationSelectors types.List   `tfsdk:"destination_selectors"`
	Destinations         types.List   `tfsdk:"destinations"`
	Owners               types.List   `tfsdk:"owners"`
}

func (d *promiseDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_promise"
}

func (d *promiseDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A promise as the workspaces that manage it published it: each `kratix_promise` writes " +
			"a record in every store its pool spans (see its `registration`), with its selectors and the pool it was " +
			"scheduled over. A request in another workspace takes this data source where it would take the resource, " +
			"`promise = data.kratix_promise.postgres`, and is placed exactly as it would be in the promise's own " +
			"workspace: over the same destinations, with the same selectors.\n\n" +
			"When several owners publish the promise, each over its own shard of the fleet, their pools are joined; " +
			"they must agree on the selectors and on every destination two of them name, or the read fails naming " +
			"them. Of one owner's records (one per store), the one written last counts.\n\n" +
			"Reading costs one listing of each store's path (shared with the plan's other reads of the store; one " +
			"fetch on git) and one read of each record.",
		Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{
				Required: true, MarkdownDescription: "The promise's name.",
				Validators: []validator.String{schemautil.DNSName()},
			},
			"state_stores": schema.ListAttribute{
				Required:    true,
				ElementType: poolElementType().AttrTypes[storeconfig.AttributeName],
				MarkdownDescription: "The stores to read the promise's records from, as `state_store` takes them: " +
					"`state_stores = [kratix_state_store.gitops]`. They must include the store of every destination " +
					"of the promise's pool: each destination is given the store object of this list with its location, " +
					"so this workspace reaches it with its own credentials.",
			},
			"destination_selectors": schema.ListNestedAttribute{
				Computed: true, NestedObject: publishedSelectorsObject(),
				MarkdownDescription: "The promise's `destination_selectors`, as published.",
			},
			"destinations": schema.ListAttribute{
				Computed: true, ElementType: poolElementType(),
				MarkdownDescription: "The pool the promise was scheduled over, sorted by name, in the shape of its " +
					"`destinations`.",
			},
			"owners": schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "The owners (the provider's `owner` of each workspace) whose records were read, " +
					"sorted; `\"\"` is the unnamed owner.",
			},
		},
	}
}

// publishedSelectorsObject is a selector entry as data sources return it (computed), of the type
// the resources' selectors take.
func publishedSelectorsObject() schema.NestedAttributeObject {
	return schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
		"match_labels": schema.MapAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "Labels a destination must carry."},
		"match_expressions": schema.ListNestedAttribute{
			Computed: true, MarkdownDescription: "Kubernetes set-based requirements.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"key":      schema.StringAttribute{Computed: true, MarkdownDescription: "Label key."},
				"operator": schema.StringAttribute{Computed: true, MarkdownDescription: "`In`, `NotIn`, `Exists` or `DoesNotExist`."},
				"values":   schema.ListAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "Values for `In` and `NotIn`."},
			}},
		},
	}}
}

func (d *promiseDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *promiseDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m promiseDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if d.data == nil {
		resp.Diagnostics.Append(providerNotConfigured())
		return
	}
	if d.data.isOffline() {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Promise Not Read", "The provider is offline: "+
			"data.kratix_promise reads no store, and a request placed over an empty pool would be placed nowhere.")
		return
	}
	name := m.Name.ValueString()
	stores := m.StateStores.Elements()
	refs := make([]storeconfig.Ref, len(stores))
	var records []registry.Promise
	var described []string
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
		refs[i] = ref
		if resp.Diagnostics.Append(d.data.checkCredentials(ref, at)...); resp.Diagnostics.HasError() {
			return
		}
		store, err := d.data.open(ref, false)
		if err != nil {
			resp.Diagnostics.Append(storeNotUsableAt(at, fmt.Sprintf("The records of state store %q cannot be read", ref.Name.ValueString()), err))
			return
		}
		storePath := placement.CleanStorePath(ref.Path.ValueString())
		prefix := registry.PromisesPrefix(storePath) + name + "/"
		described = append(described, fmt.Sprintf("%s (%s)", store.Describe(), prefix))
		files, err := sharedView(store, storePath).ReadUnder(ctx, prefix, func(p string) bool {
			rest := strings.TrimPrefix(p, prefix)
			return !strings.Contains(rest, "/") && strings.HasSuffix(rest, ".yaml")
		})
		if err != nil {
			addStoreError(&resp.Diagnostics, "Cannot Read Promise", fmt.Sprintf("Reading the records of promise %q in state store %q (%s) failed",
				name, ref.Name.ValueString(), prefix), err)
			return
		}
		for _, p := range tfvalue.SortedKeys(files) {
			rec, err := registry.ParsePromise(files[p])
			if err == nil && rec.Name != name {
				err = fmt.Errorf("it is the record of promise %q", rec.Name)
			}
			if err != nil {
				resp.Diagnostics.AddAttributeError(at, "Promise Record Not Readable", fmt.Sprintf("%s in state store %q is not a "+
					"record of promise %q this provider can read: %v. Remove or repair the file; a request placed without it "+
					"could land elsewhere than in the promise's own workspace.", p, ref.Name.ValueString(), name, err))
				return
			}
			records = append(records, rec)
		}
	}
	if len(records) == 0 {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Promise Not Published", fmt.Sprintf("No workspace has published "+
			"promise %q in %s. A kratix_promise publishes its record when it is applied (see its registration), in every "+
			"store its destinations are in: check the name, apply the promise's workspace, or add the store its "+
			"destinations are in to state_stores.", name, strings.Join(described, ", ")))
		return
	}
	latest := registry.Latest(records)
	merged, err := registry.MergePromises(latest)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Promise Published Inconsistently", fmt.Sprintf("Promise %q: %v. "+
			"The workspaces that publish one promise over shards of a fleet must give it the same destination_selectors "+
			"and split the destinations between them.", name, err))
		return
	}
	elems := make([]attr.Value, 0, len(merged.Pool))
	for _, member := range merged.Pool {
		j := storeAt(refs, member)
		if j < 0 {
			resp.Diagnostics.AddAttributeError(path.Root("state_stores"), "Promise Store Not Given", fmt.Sprintf(
				"Promise %q is scheduled over destination %q, which is in state store %q at %s (path %q), and none of "+
					"state_stores is there. Add a kratix_state_store for it (this workspace's own, with its own credentials) "+
					"to state_stores.", name, member.Name, member.StoreName, member.StoreLocation, member.StorePath))
			continue
		}
		v, diags := poolElementOf(registry.Destination{
			Name: member.Name, Labels: member.Labels, Path: member.Path, Mode: layout.Mode(member.Mode),
			AggregatedFilename: member.AggregatedFilename, StrictMatchLabels: member.StrictMatchLabels,
			Taints: member.TaintList(), Weight: member.Weight, Instance: member.Instance,
		}, stores[j])
		resp.Diagnostics.Append(diags...)
		elems = append(elems, v)
	}
	if resp.Diagnostics.HasError() {
		return
	}
	owners := make([]string, len(latest))
	for i, r := range latest {
		owners[i] = r.Owner
	}
	m.DestinationSelectors = schedattr.SelectorsValue(merged.Selectors)
	m.Destinations = types.ListValueMust(poolElementType(), elems)
	m.Owners = tfvalue.StringList(owners)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// storeAt is the index of the store of refs where member is (its location and store path), or -1.
func storeAt(refs []storeconfig.Ref, member registry.PoolMember) int {
	for i, r := range refs {
		if r.Place().String() == member.StoreLocation && placement.CleanStorePath(r.Path.ValueString()) == member.StorePath {
			return i
		}
	}
	return -1
}
