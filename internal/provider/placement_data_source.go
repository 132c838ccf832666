package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schemautil"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/rollout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

var _ datasource.DataSource = (*placementDataSource)(nil)

// NewPlacementDataSource is the kratix_placement data source.
func NewPlacementDataSource() datasource.DataSource { return &placementDataSource{} }

type placementDataSource struct{}

type placementInputDestination struct {
	Name              types.String `tfsdk:"name"`
	Labels            types.Map    `tfsdk:"labels"`
	StateStore        types.Object `tfsdk:"state_store"` // storeNameModel
	Path              types.String `tfsdk:"path"`
	StrictMatchLabels types.Bool   `tfsdk:"strict_match_labels"`
	Taints            types.List   `tfsdk:"taints"`
	Weight            types.Int64  `tfsdk:"weight"`
}

// storeNameModel is all the placement needs of a store: where the destination's folder is.
type storeNameModel struct {
	Name types.String `tfsdk:"name"`
	Path types.String `tfsdk:"path"`
}

type placementDataModel struct {
	// The inputs are lists of objects in types.List: Terraform validates configurations whose
	// lists are not known yet (a Read, deferred to apply by Terraform, sees them known).
	Destinations         types.List   `tfsdk:"destinations"`          // of placementInputDestination
	DestinationSelectors types.List   `tfsdk:"destination_selectors"` // of schedattr.SelectorModel
	ResourceSelectors    types.List   `tfsdk:"resource_selectors"`    // of schedattr.SelectorModel
	Match                types.String `tfsdk:"match"`
	Mode                 types.String `tfsdk:"mode"`
	Key                  types.String `tfsdk:"key"`
	Request              types.String `tfsdk:"request"`
	Tolerations          types.List   `tfsdk:"tolerations"`
	Replicas             types.Int64  `tfsdk:"replicas"`
	Spread               types.Object `tfsdk:"spread"`
	RolloutWaves         types.List   `tfsdk:"rollout_waves"` // of waveModel
	Selected             types.List   `tfsdk:"selected"`
	Names                types.List   `tfsdk:"names"`
	Decisions            types.List   `tfsdk:"decisions"`
}

var (
	selectedAttrTypes = map[string]attr.Type{
		"name": types.StringType, "labels": types.MapType{ElemType: types.StringType},
		"store": types.StringType, "path": types.StringType, "full_path": types.StringType,
	}
	decisionAttrTypes = map[string]attr.Type{
		"destination": types.StringType, "selected": types.BoolType, "reason": types.StringType, "wave": types.StringType,
	}
)

func (d *placementDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_placement"
}

func dataSelectorsSchema(description string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional:            true,
		MarkdownDescription: description,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"match_labels": schema.MapAttribute{ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Labels a destination must carry, with these values. A null value puts no requirement on its key.", Validators: []validator.Map{schemautil.LabelsValidator{}}},
			"match_expressions": schema.ListNestedAttribute{
				Optional: true, MarkdownDescription: "Kubernetes set-based requirements.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key": schema.StringAttribute{Required: true, MarkdownDescription: "Label key."},
					"operator": schema.StringAttribute{Required: true, MarkdownDescription: "`In`, `NotIn`, `Exists` or `DoesNotExist`.",
						Validators: []validator.String{stringvalidator.OneOf(schedattr.Operators...)}},
					"values": schema.ListAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: "Values for `In` and `NotIn`."},
				}},
			},
		}},
	}
}

func (d *placementDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The placement preview: which destinations of a pool a set of selectors selects, with " +
			"the reason for every \"no\", using the same matcher as `kratix_promise`. With `match = \"any\"` it is " +
			"also KubeStellar's placement slice (any entry selects), and with `mode = \"one\"` it picks one " +
			"destination the way a resource request does.",
		Attributes: map[string]schema.Attribute{
			"destinations": schema.ListNestedAttribute{
				Required:            true,
				MarkdownDescription: "The candidate pool, usually `values(kratix_destination.workers)`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					// Optional here, checked in Read: Terraform validates a list built from resources
					// ([kratix_destination.a]) before their values are known, and would call them missing.
					"name":   schema.StringAttribute{Optional: true, MarkdownDescription: "Destination name (required)."},
					"labels": schema.MapAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: "Destination labels; a null value is no label."},
					"state_store": schema.SingleNestedAttribute{Optional: true, MarkdownDescription: "The destination's store (only its name and path are used).",
						Attributes: map[string]schema.Attribute{
							"name": schema.StringAttribute{Optional: true, MarkdownDescription: "Store name."},
							"path": schema.StringAttribute{Optional: true, MarkdownDescription: "Store path."},
						}},
					"path":                schema.StringAttribute{Optional: true, MarkdownDescription: "The destination's path in its store."},
					"strict_match_labels": schema.BoolAttribute{Optional: true, MarkdownDescription: "See kratix_destination."},
					"taints": schema.ListNestedAttribute{Optional: true, MarkdownDescription: "See kratix_destination.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"key":    schema.StringAttribute{Optional: true, MarkdownDescription: "The taint's key."},
							"value":  schema.StringAttribute{Optional: true, MarkdownDescription: "The taint's value."},
							"effect": schema.StringAttribute{Optional: true, MarkdownDescription: "`NoSchedule`, `PreferNoSchedule` or `NoExecute`."},
						}}},
					"weight": schema.Int64Attribute{Optional: true, MarkdownDescription: "See kratix_destination; 1 when unset."},
				}},
			},
			"tolerations": schema.ListNestedAttribute{Optional: true,
				MarkdownDescription: "Tolerations, as a promise's or a request's. With `mode = \"all\"` a destination tainted " +
					"`NoSchedule` or `NoExecute` that they do not tolerate is not selected (as for a promise placed for the first " +
					"time); with `mode = \"one\"` the choice is a new request's (`NoSchedule` and `NoExecute` skipped, " +
					"`PreferNoSchedule` only when nothing else is left, weights counted).",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"key":      schema.StringAttribute{Optional: true, MarkdownDescription: "The taint key matched."},
					"operator": schema.StringAttribute{Optional: true, MarkdownDescription: "`Equal` (default) or `Exists`."},
					"value":    schema.StringAttribute{Optional: true, MarkdownDescription: "The value matched with `Equal`."},
					"effect":   schema.StringAttribute{Optional: true, MarkdownDescription: "The effect matched; unset matches every effect."},
				}}},
			"destination_selectors": dataSelectorsSchema(schedattr.SelectorsDescription("The selectors, as a promise's `destination_selectors`.")),
			"resource_selectors": dataSelectorsSchema("Second-tier selectors, as a resource request's: added to " +
				"`destination_selectors`, which win a key given in both (a warning names it)."),
			"match": schema.StringAttribute{Optional: true, MarkdownDescription: "`all` (default: every entry must hold, as in Kratix) or `any` (any entry, as KubeStellar and OCM placements).",
				Validators: []validator.String{stringvalidator.OneOf("all", "any")}},
			"mode": schema.StringAttribute{Optional: true, MarkdownDescription: "`all` (default: every match, like dependencies) or `one` (one destination, chosen by rendezvous hashing as a resource request's is: see `request`).",
				Validators: []validator.String{stringvalidator.OneOf("all", "one")}},
			"request": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "With `mode = \"one\"`: a resource request's id, `<promise>/<namespace>/<name>` (its `id` and " +
					"import id, and how plan messages name it). The destination chosen is the one `kratix_resource_request` " +
					"chooses for that request.",
				Validators: []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("key"))},
			},
			"key": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "With `mode = \"one\"`: a string hashed as it is given. Use `request` to choose as a resource request does.",
				DeprecationMessage: "Use request = \"<promise>/<namespace>/<name>\", the request's id. key is hashed as given, " +
					"and agrees with a request only when spelled <namespace>/<promise>/<name>, an order nothing else uses.",
			},
			"replicas": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "With `mode = \"one\"`: how many destinations, as a resource request's `replicas` (unset: one). " +
					"The request is taken as placed for the first time.",
				Validators: []validator.Int64{int64validator.Between(1, maxReplicas)},
			},
			"spread": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "With `mode = \"one\"`: as a resource request's `spread`, one destination per value of the label `topology_key` first.",
				Attributes: map[string]schema.Attribute{
					"topology_key": schema.StringAttribute{Required: true, MarkdownDescription: "The label key whose values are the domains.",
						Validators: []validator.String{schemautil.LabelKey()}},
				},
			},
			"rollout_waves": schema.ListNestedAttribute{
				Optional: true,
				MarkdownDescription: "A promise's `rollout.waves`, to see which wave each selected destination belongs to " +
					"(`decisions[].wave`), by the same rules as `kratix_promise`.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":                  schema.StringAttribute{Required: true, MarkdownDescription: "The wave's name."},
					"destination_selectors": dataSelectorsSchema("Which selected destinations the wave takes."),
					"max_destinations": schema.Int64Attribute{Optional: true, MarkdownDescription: "At most this many destinations.",
						Validators: []validator.Int64{int64validator.AtLeast(1)}},
					"max_percent": schema.Int64Attribute{Optional: true, MarkdownDescription: "At most this share, rounded up, of the destinations the selectors match that no earlier wave took.",
						Validators: []validator.Int64{int64validator.Between(1, 100)}},
				}},
			},
			"selected": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "The selected destinations, sorted by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":      schema.StringAttribute{Computed: true, MarkdownDescription: "Destination name."},
					"labels":    schema.MapAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "Its labels."},
					"store":     schema.StringAttribute{Computed: true, MarkdownDescription: "Its store's name."},
					"path":      schema.StringAttribute{Computed: true, MarkdownDescription: "Its path in the store."},
					"full_path": schema.StringAttribute{Computed: true, MarkdownDescription: "Its folder from the bucket or repository root."},
				}}},
			"names": schema.ListAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "Names of the selected destinations, sorted."},
			"decisions": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "One entry per candidate, in pool order, with the reason for the decision.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"destination": schema.StringAttribute{Computed: true, MarkdownDescription: "Destination name."},
					"selected":    schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether it is selected."},
					"reason":      schema.StringAttribute{Computed: true, MarkdownDescription: "Why, e.g. \"missing label environment=dev\"."},
					"wave":        schema.StringAttribute{Computed: true, MarkdownDescription: "With `rollout_waves`, the wave a selected destination belongs to; null otherwise."},
				}}},
		},
	}
}

func (d *placementDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m placementDataModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	in, byName, known, diags := m.previewInput(ctx)
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	if !known {
		// Terraform reads a data source whose configuration is not wholly known at apply, once it is.
		resp.Diagnostics.Append(notKnown("Placement Not Known", "The inputs of kratix_placement are"))
		return
	}
	preview, err := placement.PreviewPlacement(in)
	if errors.Is(err, placement.ErrAnyWithSecond) {
		resp.Diagnostics.AddAttributeError(path.Root("resource_selectors"), "Unsupported Combination",
			"resource_selectors: with match = \"any\" every entry is a whole selector; put the entries in destination_selectors.")
		return
	}
	for _, c := range preview.Ignored {
		resp.Diagnostics.AddAttributeWarning(path.Root("resource_selectors"), "Selector Ignored",
			fmt.Sprintf("resource_selectors: %s=%s is ignored: destination_selectors already select %s=%s, and they win.",
				c.Key, c.RequestValue, c.Key, c.PromiseValue))
	}
	waveOf, diags := m.waves(ctx, in.Pool, preview.Selected)
	if resp.Diagnostics.Append(diags...); diags.HasError() {
		return
	}
	m.Selected = selectedList(ctx, preview.Selected, byName)
	m.Names = tfvalue.StringList(preview.Selected)
	m.Decisions = decisionList(preview.Decisions, waveOf)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// previewInput reads the data source's inputs; known is false while some are not known yet.
// byName are the destinations given, by name.
func (m placementDataModel) previewInput(ctx context.Context) (in placement.PreviewInput, byName map[string]placementInputDestination, known bool, diags diag.Diagnostics) {
	entries, okSel, d := schedattr.SelectorsFromList(ctx, path.Root("destination_selectors"), m.DestinationSelectors)
	diags.Append(d...)
	second, okSecond, d := schedattr.SelectorsFromList(ctx, path.Root("resource_selectors"), m.ResourceSelectors)
	diags.Append(d...)
	dests, okDests, d := tfvalue.ObjectsAs[placementInputDestination](ctx, m.Destinations)
	diags.Append(d...)
	if diags.HasError() || !okSel || !okSecond || !okDests {
		return in, nil, false, diags
	}
	byName = map[string]placementInputDestination{}
	for i, dest := range dests {
		at := path.Root("destinations").AtListIndex(i).AtName("name")
		if dest.Name.IsNull() {
			diags.Append(incompleteDestination(at, "a name"))
			continue
		}
		name := dest.Name.ValueString()
		if _, dup := byName[name]; dup {
			diags.Append(duplicateDestination(at, name))
			continue
		}
		byName[name] = dest
		labels, _ := schedattr.LabelsFromMap(dest.Labels) // known: Terraform reads a data source once its configuration is
		taints, _ := schedattr.TaintsFromList(dest.Taints)
		weight, _ := schedattr.WeightOf(dest.Weight)
		in.Pool = append(in.Pool, scheduling.Destination{Name: name, Labels: labels, StrictMatchLabels: dest.StrictMatchLabels.ValueBool(),
			Taints: taints, Weight: weight})
	}
	in.Selectors, in.Second, in.MatchAny = entries, second, m.Match.ValueString() == "any"
	in.Tolerations, _ = schedattr.TolerationsFromList(m.Tolerations)
	if m.Mode.ValueString() == "one" {
		in.One, in.Key, in.By = true, m.Key.ValueString(), fmt.Sprintf("key %q", m.Key.ValueString())
		in.Replicas = int(m.Replicas.ValueInt64())
		if !m.Spread.IsNull() {
			if k, ok := m.Spread.Attributes()["topology_key"].(types.String); ok {
				in.SpreadKey = k.ValueString()
			}
		}
		if !m.Request.IsNull() {
			parts := strings.Split(m.Request.ValueString(), "/")
			if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
				diags.AddAttributeError(path.Root("request"), "Invalid Request ID", fmt.Sprintf(
					"request: %q is not a request's id. Give it as <promise>/<namespace>/<name>, as kratix_resource_request's id "+
						"and the plan's messages spell it, e.g. \"jenkins/default/dev-instance\".", m.Request.ValueString()))
				return in, byName, true, diags
			}
			in.Key, in.By = placement.RequestKey(parts[0], parts[1], parts[2]), fmt.Sprintf("request %s", m.Request.ValueString())
		}
	}
	return in, byName, true, diags
}

// waves assigns the selected destinations to the rollout waves given, by name: destination =>
// wave name (empty without rollout_waves).
func (m placementDataModel) waves(ctx context.Context, pool []scheduling.Destination, selected []string) (map[string]string, diag.Diagnostics) {
	waveOf := map[string]string{}
	if m.RolloutWaves.IsNull() {
		return waveOf, nil
	}
	waves, waveNames, ok, diags := wavesFromList(ctx, path.Root("rollout_waves"), m.RolloutWaves)
	if !ok && !diags.HasError() {
		diags.Append(notKnown("Placement Not Known", "The rollout waves of kratix_placement are"))
	}
	if !ok || diags.HasError() {
		return nil, diags
	}
	labels := map[string]map[string]string{}
	for _, d := range pool {
		labels[d.Name] = d.Labels
	}
	var chosen []rollout.Destination
	for _, n := range selected {
		chosen = append(chosen, rollout.Destination{Name: n, Labels: labels[n]})
	}
	for dest, w := range rollout.Assign(waves, chosen) {
		waveOf[dest] = waveNames[w]
	}
	return waveOf, diags
}

// selectedList is the data source's `selected`: each destination selected, with where its folder is.
func selectedList(ctx context.Context, names []string, byName map[string]placementInputDestination) types.List {
	var selected []attr.Value
	for _, n := range names {
		dest := byName[n]
		storeName, storePath := "", ""
		var store storeNameModel
		if !dest.StateStore.IsNull() && !dest.StateStore.As(ctx, &store, basetypes.ObjectAsOptions{}).HasError() {
			storeName, storePath = store.Name.ValueString(), store.Path.ValueString()
		}
		full, err := layout.Root(storePath, dest.Path.ValueString())
		if err != nil {
			full = ""
		}
		selected = append(selected, types.ObjectValueMust(selectedAttrTypes, map[string]attr.Value{
			"name": types.StringValue(n), "labels": dest.Labels, "store": types.StringValue(storeName),
			"path": dest.Path, "full_path": types.StringValue(full),
		}))
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: selectedAttrTypes}, selected)
}

// decisionList is the data source's `decisions`: one per destination, with the wave of each
// selected one.
func decisionList(decisions []scheduling.Decision, waveOf map[string]string) types.List {
	var decided []attr.Value
	for _, dcs := range decisions {
		wave := types.StringNull()
		if w, ok := waveOf[dcs.Destination]; ok && dcs.Selected {
			wave = types.StringValue(w)
		}
		decided = append(decided, types.ObjectValueMust(decisionAttrTypes, map[string]attr.Value{
			"destination": types.StringValue(dcs.Destination), "selected": types.BoolValue(dcs.Selected), "reason": types.StringValue(dcs.Reason()),
			"wave": wave,
		}))
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: decisionAttrTypes}, decided)
}
