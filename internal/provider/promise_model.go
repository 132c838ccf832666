package provider

import (
	"context"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/manifestattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/registry"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

const (
	onUnscheduleKeep   = "keep"
	onUnscheduleDelete = "delete"
)

type promiseModel struct {
	ID                       types.String       `tfsdk:"id"`
	Name                     types.String       `tfsdk:"name"`
	DestinationSelectors     types.List         `tfsdk:"destination_selectors"` // of schedattr.SelectorModel; may be unknown at plan
	Dependencies             manifestattr.Value `tfsdk:"dependencies"`
	Destinations             types.List         `tfsdk:"destinations"` // of poolMemberModel; may be unknown at plan
	Tolerations              types.List         `tfsdk:"tolerations"`
	OnUnschedule             types.String       `tfsdk:"on_unschedule"`
	ScheduledDestinations    types.List         `tfsdk:"scheduled_destinations"`
	MisscheduledDestinations types.List         `tfsdk:"misscheduled_destinations"`
	Placements               types.Map          `tfsdk:"placements"`
	Rollout                  types.Object       `tfsdk:"rollout"`        // rolloutModel; null without one
	Revisions                types.Map          `tfsdk:"revisions"`      // null without rollout
	RolloutStatus            types.Object       `tfsdk:"rollout_status"` // rolloutStatusModel; null without rollout
	Guard                    types.Object       `tfsdk:"guard"`          // guardattr.Model
	Observe                  types.Object       `tfsdk:"observe"`        // observeModel; see observe.go
	Health                   types.Map          `tfsdk:"health"`         // of healthAttrTypes; null without observe
	Registration             types.Map          `tfsdk:"registration"`   // see promise_record.go

	Timeouts timeouts.Value `tfsdk:"timeouts"`

	// left are the destinations as they were for placements a move left behind, read from
	// private state (left_behind.go); never in state.
	left map[string]poolMember
	// imported is set, on the plan an import's first apply makes, before that apply forgets the
	// import: its writes take the placements over on purpose (placement.Stake.TakeOver).
	imported bool
}

type placementModel struct {
	Store        types.String `tfsdk:"store"`
	Location     types.String `tfsdk:"location"`
	Root         types.String `tfsdk:"root"`
	Misscheduled types.Bool   `tfsdk:"misscheduled"`
	Files        types.Map    `tfsdk:"files"`
}

var placementAttrTypes = map[string]attr.Type{
	"store": types.StringType, "location": types.StringType, "root": types.StringType, "misscheduled": types.BoolType,
	"files": types.MapType{ElemType: types.StringType},
}

// dependencies are the promise's documents, serialised canonically; ok is false while they are
// unknown or invalid (the attribute's validation reports why).
func (m promiseModel) dependencies() (layout.Dependencies, bool) {
	if m.Dependencies.IsUnknown() || m.Dependencies.IsNull() {
		return layout.Dependencies{Promise: m.Name.ValueString()}, false
	}
	return dependenciesOf(m.Name.ValueString(), m.Dependencies.ValueString())
}

// input is what the placement engine plans the promise from: the configuration, and what state
// says the promise held. ok is false while some input is unknown.
func (m promiseModel) input(ctx context.Context, state promiseModel) (placement.Promise, []poolMember, bool, diag.Diagnostics) {
	entries, okSel, diags := schedattr.SelectorsFromList(ctx, path.Root("destination_selectors"), m.DestinationSelectors)
	pool, okPool, d := poolFromList(path.Root("destinations"), m.Destinations)
	diags.Append(d...)
	deps, okDeps := m.dependencies()
	tolerations, okTol := schedattr.TolerationsFromList(m.Tolerations)
	if !okSel || !okPool || !okDeps || !okTol || m.Name.IsUnknown() || m.OnUnschedule.IsUnknown() || diags.HasError() {
		return placement.Promise{}, nil, false, diags
	}
	return placement.Promise{
		Name: m.Name.ValueString(), Selector: scheduling.Merge(entries), Tolerations: tolerations, Dependencies: deps, Pool: members(pool),
		Prior: priorsOf(state.prior(ctx)), DeleteUnscheduled: m.OnUnschedule.ValueString() == onUnscheduleDelete,
	}, pool, true, diags
}

// planPromise runs the placement engine; a promise it cannot lay out is an error diagnostic.
func planPromise(in placement.Promise) (placement.Plan, diag.Diagnostics) {
	return placePromise(in, placement.SchedulePromise(in))
}

// placePromise runs the placement engine on a schedule made before (placement.SchedulePromise).
func placePromise(in placement.Promise, decisions []scheduling.Decision) (placement.Plan, diag.Diagnostics) {
	var diags diag.Diagnostics
	p, err := placement.PlacePromise(in, decisions)
	if err != nil {
		diags.Append(cannotLayOut("Promise", err))
	}
	return p, diags
}

// dependenciesOf lays out a promise's YAML, serialised canonically; ok is false when it does not
// parse (the attribute's validation reports why).
func dependenciesOf(name, yaml string) (layout.Dependencies, bool) {
	r := manifestattr.Read(yaml)
	if r.Err != nil {
		return layout.Dependencies{Promise: name}, false
	}
	return layout.Dependencies{Promise: name, All: r.All, CRDs: r.CRDs, Others: r.Others}, true
}

// record sets the computed attributes from an outcome.
func (m *promiseModel) record(o placement.Outcome) {
	m.ScheduledDestinations = tfvalue.StringList(o.Scheduled)
	m.MisscheduledDestinations = tfvalue.StringList(o.Misscheduled)
	m.Placements = recordsToModel(o.Records)
}

// sameComputed reports whether the attributes ModifyPlan sets hold the same values in m and o.
func (m promiseModel) sameComputed(o promiseModel) bool {
	return m.Dependencies.Equal(o.Dependencies) && m.ScheduledDestinations.Equal(o.ScheduledDestinations) &&
		m.MisscheduledDestinations.Equal(o.MisscheduledDestinations) && m.Placements.Equal(o.Placements) &&
		m.Revisions.Equal(o.Revisions) && m.RolloutStatus.Equal(o.RolloutStatus) && m.Health.Equal(o.Health) &&
		m.Registration.Equal(o.Registration)
}

// priorPlacement is what state says a resource held in a destination, and the destination as
// the resource saw it then (nil when it is not in the recorded pool).
type priorPlacement struct {
	placement.Record
	member *poolMember
}

func (m promiseModel) prior(ctx context.Context) map[string]priorPlacement {
	out := map[string]priorPlacement{}
	records := recordsFromModel(ctx, m.Placements)
	if len(records) == 0 {
		return out
	}
	pool := lenientPool(m.Destinations)
	for dest, rec := range records {
		pr := priorPlacement{Record: rec}
		if mem, ok := pool[dest]; ok {
			pr.member = &mem
		}
		if mem, ok := m.left[dest]; ok && placement.RecordedAt(rec, mem.Member) {
			pr.member = &mem // a move's removal left to do: see left_behind.go
		}
		out[dest] = pr
	}
	return out
}

func priorsOf(prior map[string]priorPlacement) map[string]placement.Prior {
	out := make(map[string]placement.Prior, len(prior))
	for dest, pr := range prior {
		p := placement.Prior{Record: pr.Record}
		if pr.member != nil {
			mem := pr.member.Member
			p.Member = &mem
		}
		out[dest] = p
	}
	return out
}

func refsOf(prior map[string]priorPlacement) storeRefs {
	refs := storeRefs{}
	for _, pr := range prior {
		if pr.member != nil {
			refs.add(*pr.member)
		}
	}
	return refs
}

func recordsFromModel(ctx context.Context, m types.Map) map[string]placement.Record {
	out := map[string]placement.Record{}
	if m.IsNull() || m.IsUnknown() {
		return out
	}
	var models map[string]placementModel
	if d := m.ElementsAs(ctx, &models, false); d.HasError() {
		return out
	}
	for dest, pm := range models {
		out[dest] = placement.Record{
			Store: pm.Store.ValueString(), Location: pm.Location.ValueString(), Root: pm.Root.ValueString(),
			Misscheduled: pm.Misscheduled.ValueBool(), Files: tfvalue.StringMap(ctx, pm.Files),
		}
	}
	return out
}

func recordsToModel(records map[string]placement.Record) types.Map {
	elems := map[string]attr.Value{}
	for dest, r := range records {
		elems[dest] = types.ObjectValueMust(placementAttrTypes, map[string]attr.Value{
			"store": types.StringValue(r.Store), "location": types.StringValue(r.Location), "root": types.StringValue(r.Root),
			"misscheduled": types.BoolValue(r.Misscheduled), "files": tfvalue.StringMapValue(r.Files),
		})
	}
	return types.MapValueMust(types.ObjectType{AttrTypes: placementAttrTypes}, elems)
}

// promiseSchedule schedules a promise as if it held what prior says (placement.SchedulePromise):
// an import's adoption schedules over what it found.
type promiseSchedule func(prior map[string]placement.Prior) []scheduling.Decision

func scheduleFor(in placement.Promise) promiseSchedule {
	return func(prior map[string]placement.Prior) []scheduling.Decision {
		in.Prior = prior
		return placement.SchedulePromise(in)
	}
}

// The promise's published record, as the plan sees it (promise_record.go says what it is).

// promiseRecordStore is one store a promise's record is written to.
type promiseRecordStore struct {
	key    string     // "<store name>:<record path>", the key of `registration`
	path   string     // the record's path in the store
	member poolMember // a destination of the pool in that store: how the writes reach it
}

// promiseRecordStores are the stores of a pool (one per location and store path), sorted by key.
func promiseRecordStores(name, owner string, pool []poolMember) []promiseRecordStore {
	seen := map[string]bool{}
	var out []promiseRecordStore
	for _, m := range pool {
		where := m.Location.String() + "|" + m.Target.StorePath
		if seen[where] {
			continue
		}
		seen[where] = true
		p := registry.PromisePath(m.Target.StorePath, name, owner)
		out = append(out, promiseRecordStore{key: m.Store.Name.ValueString() + ":" + p, path: p, member: m})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// promiseRecordOf is what promise m's record says, over pool (m's destinations, converted),
// for owner; ok is false while an input is unknown.
func promiseRecordOf(ctx context.Context, m promiseModel, pool []poolMember, owner string) (registry.Promise, bool) {
	selectors, ok, _ := schedattr.SelectorsFromList(ctx, path.Root("destination_selectors"), m.DestinationSelectors)
	models, known := poolModelsFromList(m.Destinations)
	if !ok || !known || len(models) != len(pool) || m.Name.IsUnknown() {
		return registry.Promise{}, false
	}
	rec := registry.Promise{Name: m.Name.ValueString(), Selectors: selectors, Owner: owner, Pool: make([]registry.PoolMember, len(pool))}
	for i, mem := range pool {
		kind := registry.BucketStateStore
		if mem.Store.Git != nil {
			kind = registry.GitStateStore
		}
		rec.Pool[i] = registry.PoolMember{
			Name: mem.Name, Labels: mem.Labels, Path: models[i].Path.ValueString(), Mode: string(mem.Target.Mode),
			AggregatedFilename: mem.Target.AggregatedFilename, StrictMatchLabels: mem.StrictMatchLabels, Weight: mem.Weight,
			Instance: mem.Instance, StoreKind: kind, StoreName: mem.Store.Name.ValueString(),
			StoreLocation: mem.Location.String(), StorePath: mem.Target.StorePath,
		}.WithTaints(mem.Taints)
		if mem.Instance == "" && !models[i].InstanceID.IsNull() {
			return registry.Promise{}, false // a destination being replaced: its new instance_id is not known yet
		}
	}
	return rec, true
}

// plannedPromiseRegistration is the plan's `registration`: the state's while the record would say
// what it said and every store held what was written; else one entry per store of the pool, its
// MD5 known after apply. Unknown while the pool is.
func plannedPromiseRegistration(ctx context.Context, d *providerData, plan promiseModel, pool []poolMember, state *promiseModel) types.Map {
	if state != nil && keepsRegistration(ctx, d, plan, pool, *state) {
		return state.Registration // the usual plan: no need to render two records of the whole pool to compare
	}
	now, ok := promiseRecordOf(ctx, plan, pool, d.ownerName())
	if !ok {
		return types.MapUnknown(types.StringType)
	}
	stores := promiseRecordStores(now.Name, d.ownerName(), pool)
	if state != nil && !state.Registration.IsNull() && !state.Registration.IsUnknown() {
		statePool, okPool, _ := poolFromList(path.Root("destinations"), state.Destinations)
		was, okWas := promiseRecordOf(ctx, *state, statePool, d.ownerName())
		held := tfvalue.StringMap(ctx, state.Registration)
		same := okPool && okWas && was.Same(now) && len(held) == len(stores)
		for _, s := range stores {
			same = same && held[s.key] != ""
		}
		if same {
			return state.Registration
		}
	}
	out := make(map[string]attr.Value, len(stores))
	for _, s := range stores {
		out[s.key] = types.StringUnknown()
	}
	return types.MapValueMust(types.StringType, out)
}

// keepsRegistration reports, cheaply, that the plan's record is the state's: the same name,
// selectors and pool as written, every record written, at the paths this owner writes.
func keepsRegistration(ctx context.Context, d *providerData, plan promiseModel, pool []poolMember, state promiseModel) bool {
	if state.Registration.IsNull() || state.Registration.IsUnknown() || !plan.Name.Equal(state.Name) ||
		!plan.DestinationSelectors.Equal(state.DestinationSelectors) || !plan.Destinations.Equal(state.Destinations) {
		return false
	}
	held := tfvalue.StringMap(ctx, state.Registration)
	stores := promiseRecordStores(plan.Name.ValueString(), d.ownerName(), pool)
	if len(held) != len(stores) {
		return false
	}
	for _, s := range stores {
		if held[s.key] == "" {
			return false
		}
	}
	return true
}
