package provider

// A destination's registration record (issue 39): Kratix's Destination object in its store,
// under the registry (layout.RegistryDir), for other workspaces to find (package registry says
// what it holds). The destination's `registration` attribute is {record path => MD5 of what
// was written}: the plan shows the path, with the MD5 known after apply when the record is
// (re)written, since the record carries the time it was written. Read takes the record's MD5
// from the store's shared listing (no GET), and a record missing or not what was written
// empties the attribute, so the next plan writes it again.
//
// Where each write goes:
//   - create: a Put in the destination's own Change (one commit on git with its canaries; on a
//     bucket one PUT of one object, which S3 makes visible whole or not at all);
//   - update (a change of what the record says: labels, weight, taints, cleanup, ...; or a
//     record missing or edited in the store): the record alone, after the canaries' write,
//     best-effort: a change of labels, weight or taints writes nothing else (issue 37 point 5:
//     a drain must work while a store is down), so a failure is a warning, state keeps the
//     path with an empty MD5, and the next plan writes it again. On git it is a commit of its
//     own ("Update from: <record path>"). A record the store holds already, this owner's and
//     saying the same (an import of a destination this owner registered), is adopted without
//     a write, its instance_id with it;
//   - destroy: removed when the record is still this destination's (the same owner and
//     instance_id; a replacement's record has a new instance_id, another owner's is never
//     deleted), best-effort: a destination moved away from a store that is down must go, so
//     a store that cannot be reached leaves the record with the warning "Registration Not
//     Removed".
//
// A create whose record exists with another owner is refused at plan, and at apply when the
// record appeared since.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/promise-platform/terraform-provider-kratix/internal/memo"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/registry"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// registrationOf is what destination m's record says, written by owner at the given time; ok is
// false while an input is unknown.
func registrationOf(ctx context.Context, m destinationModel, owner string, at time.Time) (registry.Destination, bool) {
	member, ok, _ := m.member()
	taints, okTaints := schedattr.TaintsFromList(m.Taints)
	weight, okWeight := schedattr.WeightOf(m.Weight)
	if !ok || !okTaints || !okWeight || m.Labels.IsUnknown() || m.StrictMatchLabels.IsUnknown() || m.Cleanup.IsUnknown() ||
		m.InstanceID.IsUnknown() {
		return registry.Destination{}, false
	}
	kind := registry.BucketStateStore
	if member.Store.Git != nil {
		kind = registry.GitStateStore
	}
	return registry.Destination{
		Name: m.Name.ValueString(), Labels: tfvalue.StringMap(ctx, m.Labels), Path: m.Path.ValueString(),
		StoreKind: kind, StoreName: member.Store.Name.ValueString(), Mode: member.Target.Mode,
		AggregatedFilename: m.AggregatedFilename.ValueString(), StrictMatchLabels: m.StrictMatchLabels.ValueBool(),
		InitWorkloads: m.InitWorkloads.ValueBool(), Cleanup: m.Cleanup.ValueString(), Taints: taints, Weight: weight,
		Instance: m.InstanceID.ValueString(), Owner: owner, WrittenAt: at,
	}, true
}

// registrationPath is where destination m's record lives.
func registrationPath(m poolMember) string {
	return registry.DestinationPath(m.Target.StorePath, m.Name)
}

// plannedRegistration is the plan's `registration`: the state's while the record says what it
// said and the store held what was written; else the path, its MD5 known after apply.
func plannedRegistration(ctx context.Context, d *providerData, m poolMember, plan destinationModel, state *destinationModel) types.Map {
	p := registrationPath(m)
	if state != nil {
		held := tfvalue.StringMap(ctx, state.Registration)
		was, okWas := registrationOf(ctx, *state, d.ownerName(), time.Time{})
		now, okNow := registrationOf(ctx, plan, d.ownerName(), time.Time{})
		if held[p] != "" && len(held) == 1 && okWas && okNow && was.Same(now) {
			return state.Registration
		}
	}
	return types.MapValueMust(types.StringType, map[string]attr.Value{p: types.StringUnknown()})
}

// rewritesRegistration reports whether a plan's registration (a destination's or a promise's) is
// to be written by the apply: some MD5 is known only after it.
func rewritesRegistration(planned types.Map) bool {
	for _, v := range planned.Elements() {
		if v.IsUnknown() {
			return true
		}
	}
	return planned.IsUnknown()
}

// readRegistration reads the record at p; found is false when there is none. A record that does
// not parse is returned as an error of its own kind (badRecord).
func readRegistration(ctx context.Context, store statestore.Store, p string) (rec registry.Destination, found bool, err error) {
	content, err := store.Read(ctx, p)
	if statestore.IsNotFound(err) {
		return registry.Destination{}, false, nil
	}
	if err != nil {
		return registry.Destination{}, false, err
	}
	rec, err = registry.ParseDestination(content)
	if err != nil {
		return registry.Destination{}, true, badRecord{path: p, err: err}
	}
	return rec, true, nil
}

type badRecord struct {
	path string
	err  error
}

func (e badRecord) Error() string {
	return fmt.Sprintf("the record %s cannot be read: %v", e.path, e.err)
}

// checkRegistrationFree refuses, at `name`, a new destination whose record exists with another
// owner. atPlan: a store that cannot be read says nothing here (the apply checks again).
func (d *providerData) checkRegistrationFree(ctx context.Context, m poolMember, atPlan bool, diags *diag.Diagnostics) {
	if d == nil || d.isOffline() {
		return
	}
	store, err := d.open(m.Store, false)
	if err != nil {
		return // reported where the store is opened for the write
	}
	p := registrationPath(m)
	// The writes' shared listing (the one the plan's take-over warning and the apply's writes
	// use) says whether there is a record at all: no request of its own, no GET for a free name.
	sums, err := writingView(store, m.Target.StorePath).Hashes(ctx, []string{p})
	switch {
	case err != nil && atPlan:
		tflog.Debug(ctx, "the registry could not be read at plan", map[string]any{"path": p, "error": err.Error()})
		return
	case err != nil:
		addStoreError(diags, "Cannot Register Destination", fmt.Sprintf("Destination %q: looking for its record %s in %s failed", m.Name, p, store.Describe()), err)
		return
	}
	if _, ok := sums[p]; !ok {
		return
	}
	rec, found, err := readRegistration(ctx, store, p)
	var bad badRecord
	switch {
	case err != nil && errors.As(err, &bad):
		diags.AddAttributeError(path.Root("name"), "Destination Registered Elsewhere", fmt.Sprintf(
			"Destination %q: %s holds %s, which is not a Destination record this provider can read (%v), so its owner is "+
				"unknown. Remove or repair the file if no workspace registers this destination, or give the destination "+
				"another name.", m.Name, store.Describe(), p, bad.err))
		return
	case err != nil && atPlan:
		tflog.Debug(ctx, "the registry could not be read at plan", map[string]any{"path": p, "error": err.Error()})
		return
	case err != nil:
		addStoreError(diags, "Cannot Register Destination", fmt.Sprintf("Destination %q: reading its record %s in %s failed", m.Name, p, store.Describe()), err)
		return
	case !found:
		return
	}
	if rec.Owner != d.owner {
		diags.AddAttributeError(path.Root("name"), "Destination Registered By Another Owner", fmt.Sprintf(
			"Destination %q is registered in %s (%s) by owner %s; this configuration's owner is %s. A destination is "+
				"registered by one owner: give this one another name, or destroy it in the workspace of owner %s first. "+
				"Taking it over on purpose is an import (terraform import kratix_destination.<name> %s).",
			m.Name, store.Describe(), p, ownerText(rec.Owner), ownerText(d.owner), ownerText(rec.Owner), m.Name))
	}
}

// ownerText spells an owner in messages: "fleet" quoted, or the unnamed owner.
func ownerText(owner string) string {
	if owner == "" {
		return "the unnamed owner (no provider owner set)"
	}
	return fmt.Sprintf("%q", owner)
}

// withRegistration adds the record's Put to the destination's own Change at its location, or,
// when the operation has none there, makes an Op of it alone.
func withRegistration(ops []placement.Op, m poolMember, p string, content []byte) []placement.Op {
	for i, op := range ops {
		if op.Location.String() == m.Location.String() {
			put := map[string][]byte{p: content}
			for k, v := range op.Change.Put {
				put[k] = v
			}
			ops[i].Change.Put = put
			return ops
		}
	}
	return append(ops, placement.Op{Location: m.Location, Member: m.Member, Destinations: []string{m.Name},
		Change: placement.Change{Put: map[string][]byte{p: content}}})
}

// adoptRegistration returns the MD5 of the record the store holds for destination m when it is
// this owner's and says what the plan's record would (with plan's instance_id, or, while that is
// unknown, as after an import, the record's, which plan then takes): nothing to write. Else "".
// A store that cannot be read says nothing here: the write that follows reports it.
func (d *providerData) adoptRegistration(ctx context.Context, m poolMember, plan *destinationModel) string {
	if d == nil {
		return ""
	}
	store, err := d.open(m.Store, false)
	if err != nil {
		return ""
	}
	p := registrationPath(m)
	sums, err := writingView(store, m.Target.StorePath).Hashes(ctx, []string{p})
	if err != nil || sums[p] == "" {
		return ""
	}
	held, found, err := readRegistration(ctx, store, p)
	if err != nil || !found || held.Owner != d.owner {
		return ""
	}
	candidate := *plan
	if candidate.InstanceID.IsUnknown() || candidate.InstanceID.IsNull() {
		if held.Instance == "" {
			return ""
		}
		candidate.InstanceID = types.StringValue(held.Instance)
	}
	want, ok := registrationOf(ctx, candidate, d.owner, time.Time{})
	if !ok || !want.Same(held) {
		return ""
	}
	plan.InstanceID = candidate.InstanceID
	return sums[p]
}

// registrationValue is the `registration` of a record written with content, or, when it was not
// written, the path with an empty MD5 (the plan promised the path; the next plan writes it).
func registrationValue(p string, content []byte) types.Map {
	if content == nil {
		return tfvalue.StringMapValue(map[string]string{p: ""})
	}
	return tfvalue.StringMapValue(map[string]string{p: memo.MD5(content)})
}

// refreshRegistration is Read's look at the record of the destination in state: its MD5 from
// the shared listing. A record missing, or other than what was written, leaves the registration
// empty, so the next plan writes it again. State saved before registration existed (null) adopts
// a record the store holds already, this owner's and saying what this destination would (one
// read, once): nothing to write. A store that cannot be read leaves it as it is (the canaries'
// refresh reports the store).
func (d *providerData) refreshRegistration(ctx context.Context, m poolMember, state destinationModel) types.Map {
	held := state.Registration
	if held.IsUnknown() || d == nil {
		return held
	}
	store, err := d.open(m.Store, false)
	if err != nil {
		return held
	}
	p := registrationPath(m)
	sums, err := sharedView(store, m.Target.StorePath).Hashes(ctx, []string{p})
	if err != nil {
		return held
	}
	if held.IsNull() {
		if sums[p] == "" {
			return held
		}
		rec, found, err := readRegistration(ctx, store, p)
		want, ok := registrationOf(ctx, state, d.owner, time.Time{})
		if err != nil || !found || !ok || rec.Owner != d.owner || !want.Same(rec) {
			return held
		}
		return tfvalue.StringMapValue(map[string]string{p: sums[p]})
	}
	if want := tfvalue.StringMap(ctx, held)[p]; want != "" && sums[p] == want {
		return held
	}
	return tfvalue.StringMapValue(map[string]string{})
}

// registrationLeft is the warning of a destroy that could not remove the destination's record:
// a destroy never fails for it (a destination moved away from a store that is down must go, as
// its canaries stay with cleanup = "none"), so the record stays, out of date, until removed.
func registrationLeft(name, p, what string, err error) diag.Diagnostic {
	return diag.NewWarningDiagnostic("Registration Not Removed", fmt.Sprintf("Destination %q is destroyed, but its record %s "+
		"stays in the store. Other workspaces still find the destination there (data.kratix_destinations) until the file "+
		"is removed: delete it by hand once the store is back, or create the destination again, which takes it over.\n\n%s",
		name, p, storeErrorDetail("The record: "+what, err)))
}

// deregister removes destination m's record, written by instance, when it is still this
// owner's and this instance's: from the change a cleanup makes (c non-nil), else in a write of
// its own. A record of another owner or another instance (a replacement's) stays.
func (d *providerData) deregister(ctx context.Context, store statestore.Store, m poolMember, instance string, diags *diag.Diagnostics) (remove bool) {
	p := registrationPath(m)
	rec, found, err := readRegistration(ctx, store, p)
	if err != nil {
		var bad badRecord
		if errors.As(err, &bad) {
			diags.AddWarning("Registration Kept", fmt.Sprintf("Destination %q: %s in %s is not a record this provider can read (%v); "+
				"it is left as it is.", m.Name, p, store.Describe(), bad.err))
			return false
		}
		diags.Append(registrationLeft(m.Name, p, "reading it failed", err))
		return false
	}
	if !found {
		return false
	}
	if rec.Owner != d.owner {
		diags.AddWarning("Registration Kept", fmt.Sprintf("Destination %q: its record %s in %s is owner %s's now, not %s's; "+
			"it is left as it is.", m.Name, p, store.Describe(), ownerText(rec.Owner), ownerText(d.owner)))
		return false
	}
	return rec.Instance == instance || rec.Instance == ""
}
