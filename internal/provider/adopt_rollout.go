package provider

// Adopting a rollout in flight: a promise imported while some destinations wait for their wave
// holds different revisions in different folders. A state that never lost the promise would
// know, per destination, the revision it holds, the completed revision's YAML (what the waiting
// destinations keep) and which waves are done; the first plan after the import reads all three
// back from the stores, so that the rollout goes on where it stands rather than writing the
// configured revision everywhere at once. A promise replaced mid-rollout is found in its folders
// the same way (adoptReplaced, below).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/health"
	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/manifestattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/privstate"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/rollout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// adoptedRollout is where an imported promise's rollout stands, as the first plan read it.
type adoptedRollout struct {
	// Revisions maps the destinations found holding the promise to the revision they hold; one
	// whose files could not be read back as dependencies is left out (it is then taken to hold
	// the completed revision, and a waiting one is repaired to it, as in a rollout kept in state).
	Revisions map[string]string `json:"revisions"`
	// Completed is the revision the destinations not yet reached hold, and its canonical YAML.
	Completed rolloutBase `json:"completed"`
	Target    string      `json:"target"`
	WavesDone int         `json:"waves_done"`
	LastWave  string      `json:"last_wave,omitempty"` // RFC 3339; the adoption's time (see rollout.Adopt)
	// Failed is the configured revision when the health records say its gate failed and rolled
	// it back (rollout.Rejudge).
	Failed string `json:"failed,omitempty"`
}

// adoptedHealth reads, for a gate, the latest health records of the scheduled destinations
// through the promise's observe (nil without a gate or observe, or when they cannot be read: the
// plan then warns, as a refresh does).
func (d *providerData) adoptedHealth(ctx context.Context, plan promiseModel, policy *rollout.Policy, byName map[string]poolMember, scheduled []rollout.Destination, diags *diag.Diagnostics) map[string]rollout.Health {
	if policy.Gate == nil {
		return nil
	}
	obs, ok, _ := observeOf(ctx, plan.Observe)
	if !ok || obs == nil {
		return nil
	}
	targets := map[string]*poolMember{}
	for _, dest := range scheduled {
		if m, ok := byName[dest.Name]; ok {
			targets[dest.Name] = &m
		}
	}
	name := plan.Name.ValueString()
	views, read := d.readHealth(ctx, fmt.Sprintf("Promise %q", name), *obs, health.Subject{Promise: name}, targets, nil, diags)
	if !read {
		return nil
	}
	return gateHealth(ctx, policy.Gate, healthValue(views))
}

// adoptRollout reads, for a promise with a rollout scheduled by decisions (nil when they are not
// known yet), the revision each destination found holding it holds, and decides where its
// rollout stands. It returns nil when there is no rollout or
// every scheduled destination holds the configured dependencies: the adoption then plans as
// before. Destinations that hold exactly the configured files are not read again.
func (d *providerData) adoptRollout(ctx context.Context, plan promiseModel, pool []poolMember, deps layout.Dependencies, found map[string]placement.Record, decisions []scheduling.Decision, now time.Time, diags *diag.Diagnostics) *adoptedRollout {
	policy, known, _ := rolloutPolicy(ctx, path.Root("rollout"), plan.Rollout)
	if policy == nil || !known || decisions == nil {
		return nil // no rollout, or not known yet: the plan reports what is wrong
	}
	byName := map[string]poolMember{}
	for _, m := range pool {
		byName[m.Name] = m
	}
	var scheduled []rollout.Destination
	for _, name := range placement.Selected(decisions) {
		scheduled = append(scheduled, rollout.Destination{Name: name, Labels: byName[name].Labels})
	}
	configured := rollout.Revision(deps.All)
	held, yamls := map[string]string{}, map[string]string{}
	for _, dest := range tfvalue.SortedKeys(found) {
		m, inPool := byName[dest]
		if !inPool {
			continue
		}
		if f, err := layout.DependencyFiles(m.Target, deps); err == nil && placement.HoldsExactly(f, found[dest]) {
			held[dest] = configured
			continue
		}
		yaml, ok := d.heldDependencies(ctx, plan.Name.ValueString(), dest, m, diags)
		if diags.HasError() {
			return nil
		}
		if ok {
			rev := rollout.Revision(yaml.All)
			held[dest], yamls[rev] = rev, string(yaml.All)
		}
	}
	a := rollout.Adopt(policy.Waves, configured, scheduled, held, now)
	if a.Complete {
		return nil
	}
	// A gate that rolled the configured revision back leaves the stores as a rollout not started
	// yet does: the health records tell them apart (rollout.Rejudge).
	a, failing := rollout.Rejudge(a, *policy, configured, scheduled, d.adoptedHealth(ctx, plan, policy, byName, scheduled, diags))
	if len(failing) > 0 {
		diags.AddAttributeWarning(path.Root("dependencies"), "Rolled-Back Revision Recovered", fmt.Sprintf(
			"Promise %q was imported with revision %s configured, which no destination holds while the fleet holds %s, and "+
				"the latest health records of %s, in the first wave, report a state the gate does not pass: this is what a gate "+
				"that failed and rolled %s back leaves. The import records it as failed (rollout_status.failed_revision), as the "+
				"state that was lost did: nothing is written until the dependencies change. If it never failed, change the "+
				"dependencies (or fix %s and import again) to roll it out.",
			plan.Name.ValueString(), configured, a.Status.Completed, strings.Join(failing, ", "), configured, strings.Join(failing, ", ")))
	}
	out := &adoptedRollout{
		Revisions: held, Completed: rolloutBase{Revision: a.Status.Completed, Dependencies: yamls[a.Status.Completed]},
		Target: a.Status.Target, WavesDone: a.Status.WavesDone, Failed: a.Status.Failed,
	}
	if !a.Status.LastWave.IsZero() {
		out.LastWave = a.Status.LastWave.UTC().Format(time.RFC3339)
	}
	return out
}

// heldDependencies reads back the dependencies destination dest's folder holds, from the files
// they are laid out in there. ok is false when there are none, or they do not parse (a file
// edited by hand).
func (d *providerData) heldDependencies(ctx context.Context, promise, dest string, m poolMember, diags *diag.Diagnostics) (layout.Dependencies, bool) {
	paths, err := layout.DependencyDocuments(m.Target, promise)
	if err != nil {
		return layout.Dependencies{}, false
	}
	who := fmt.Sprintf("Promise %q", promise)
	store, err := d.openRef(storeRefs{}.add(m), m.Location.String(), m.Member.Store)
	if errors.Is(err, storeconfig.ErrSecretsUnknown) {
		return layout.Dependencies{}, false // cannot be read in this plan
	}
	if err != nil {
		diags.Append(storeNotUsable(who, m.Member.Store, err))
		return layout.Dependencies{}, false
	}
	var docs []string
	for _, p := range paths {
		content, err := store.Read(ctx, p)
		if statestore.IsNotFound(err) {
			continue
		}
		if err != nil {
			addStoreError(diags, "Cannot Read Promise", fmt.Sprintf(
				"%s was imported with a rollout, and reading the dependencies destination %q holds (%s) failed", who, dest, p), err)
			return layout.Dependencies{}, false
		}
		docs = append(docs, string(content))
	}
	if len(docs) == 0 {
		return layout.Dependencies{}, false
	}
	deps, ok := dependenciesOf(promise, strings.Join(docs, "\n---\n"))
	return deps, ok && len(deps.All) > 0
}

// prior sets, on the prior state an adopted promise plans from, what a state that kept the
// rollout would hold: the completed revision's dependencies (the rollout's base, kept in private
// state by the plan as a rollout in flight keeps it), the revision of every destination, and
// the status.
func (r *adoptedRollout) prior(state promiseModel) promiseModel {
	if r == nil {
		return state
	}
	state.Dependencies = manifestattr.Value{StringValue: types.StringValue(r.Completed.Dependencies)}
	state.Revisions = tfvalue.StringMapValue(r.Revisions)
	revision := r.Target
	if r.Failed != "" {
		revision = r.Failed
	}
	state.RolloutStatus = reportValue(rollout.Report{
		Revision: revision, Completed: r.Completed.Revision, WavesDone: r.WavesDone,
		LastWaveAt: rollout.Stamp{Text: r.LastWave}, Failed: r.Failed,
	})
	return state
}

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
func (r *promiseResource) keepReplacedBase(ctx context.Context, plan promiseModel, out privstate.Writer) diag.Diagnostics {
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
	return out.SetKey(ctx, privstate.RolloutBaseKey, b)
}
