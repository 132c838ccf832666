package provider

import (
	"context"

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
		m.Revisions.Equal(o.Revisions) && m.RolloutStatus.Equal(o.RolloutStatus) && m.Health.Equal(o.Health)
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
