package provider

// A promise replaced in the middle of a rollout (`-replace`, a tainted object): Terraform plans
// the replacement as a create, with no prior state and, in the apply's own plan of it, no
// private state either, which wrote the configured revision everywhere at once, past the waves
// and the gate that the plan of the same change as an update honours. So the plan of a new
// promise with a rollout looks in its pool's folders as the first plan after an import does
// (adoptPromise, adoptRollout): when they hold it mid-rollout, it goes on from where the stores
// say it stands. Both plans Terraform makes of the create see the same files (the delete that
// comes first leaves those of the destinations waiting for their wave: placement.SuccessorHolding),
// so they decide alike; the times the stores do not say (when the last wave went, when the next
// may) are the apply's: the gate's settle counts from the replacement. The create keeps the
// waiting destinations' records as its plan made them (keptPrior), writing nothing there, and
// keeps the completed revision's dependencies for a rollback as a rollout in flight does.

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/rollout"
)

// adoptReplaced, for the plan of a new promise with a rollout, looks for it in its pool's
// folders and, when they hold it mid-rollout, returns the prior state to plan from (as an
// import's first plan does). known is whether the promise's inputs are known.
func (r *promiseResource) adoptReplaced(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan, state promiseModel, schedule promiseSchedule, known bool) (bool, promiseModel) {
	if !req.State.Raw.IsNull() || plan.Rollout.IsNull() || !known || r.data == nil || r.data.isOffline() {
		return false, state
	}
	var diags diag.Diagnostics
	a, ok := r.adoptPromise(ctx, plan, adoption{}, schedule, &diags)
	if !ok || a.Rollout == nil {
		// Nothing found mid-rollout (or it could not be read: the create writes, as before,
		// and its own write reports a store that fails).
		return false, state
	}
	resp.Diagnostics.Append(diags...)
	state.ID, state.Name = plan.Name, plan.Name
	return true, a.promisePrior(plan, state)
}

// replacedReport is the rollout_status a replacement's plan records: the times the stores do not
// say are left to the apply (last_wave_at, the replacement's write) or unset
// (next_wave_not_before), so that the apply's own plan of the create, made later, agrees.
func replacedReport(obj types.Object) types.Object {
	if obj.IsNull() || obj.IsUnknown() {
		return obj
	}
	attrs := obj.Attributes()
	out := make(map[string]attr.Value, len(attrs))
	for k, v := range attrs {
		out[k] = v
	}
	if v, ok := out["waves_done"].(types.Int64); ok && v.ValueInt64() > 0 {
		out["last_wave_at"] = stampValue(rollout.Stamp{AtApply: true})
	}
	out["next_wave_not_before"] = stampValue(rollout.Stamp{})
	return types.ObjectValueMust(rolloutStatusAttrTypes, out)
}

// keptPrior is, for the create of a replacement, what its plan recorded of the destinations that
// keep what they hold (their revision is not the configured one): the apply keeps those records
// and writes nothing there, as the plan said. Without a rollout in flight it is empty.
func (m promiseModel) keptPrior(ctx context.Context) promiseModel {
	if m.Revisions.IsNull() || m.Revisions.IsUnknown() || m.Placements.IsNull() || m.Placements.IsUnknown() {
		return promiseModel{}
	}
	deps, ok := m.dependencies()
	if !ok {
		return promiseModel{}
	}
	configured := rollout.Revision(deps.All)
	revisions := tfvalue.StringMap(ctx, m.Revisions)
	kept := map[string]placement.Record{}
	for dest, rec := range recordsFromModel(ctx, m.Placements) {
		if rev, ok := revisions[dest]; ok && rev != configured {
			kept[dest] = rec
		}
	}
	if len(kept) == 0 {
		return promiseModel{}
	}
	return promiseModel{Name: m.Name, Destinations: m.Destinations, Placements: recordsToModel(kept)}
}

// keepReplacedBase keeps, after the create of a replacement mid-rollout, the completed
// revision's dependencies in private state, read back from the stores, as a rollout in flight
// keeps them: a gate that fails can then roll back.
func (r *promiseResource) keepReplacedBase(ctx context.Context, plan promiseModel, out privateWriter) diag.Diagnostics {
	in, _, ok, _ := plan.input(ctx, promiseModel{})
	if !ok {
		return nil
	}
	var diags diag.Diagnostics
	a, ok := r.adoptPromise(ctx, plan, adoption{}, scheduleFor(in), &diags)
	if !ok || a.Rollout == nil || a.Rollout.Completed.Dependencies == "" {
		return nil // no rollback then: a failed gate stops the rollout, and the plan says so
	}
	b, err := json.Marshal(a.Rollout.Completed)
	if err != nil {
		return nil
	}
	return out.SetKey(ctx, rolloutBaseKey, b)
}
