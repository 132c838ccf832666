package provider

// A promise's published record (issue 39): Kratix's Promise object with its selectors and the
// pool it was scheduled over, in every store its pool spans, at
// `<store path>/.kratix-registry/promises/<name>/<owner>.yaml` (package registry says what it
// holds), for `data "kratix_promise"` in other workspaces: a request there is placed over the
// same pool with the same selectors, so it lands where it would in the promise's own workspace.
//
// The promise's `registration` attribute is {"<store name>:<record path>" => MD5 of what was
// written}. The plan keeps the state's value while the record says what it said (name,
// selectors, pool) and the store held what was written; otherwise the MD5s are known after apply
// (a record carries the time it was written). The record is written in the promise's own change
// at each store (on git, in the same commit as its files); a store whose write fails leaves an
// empty MD5, so the next plan writes it again. A record this owner's, of this instance and
// saying the same, found in the store (an apply after an interrupted one) is adopted without a
// write. Read takes the MD5s from the store's shared listing: a record deleted or edited in the
// store empties its MD5. A destroy removes the records when they are still this instance's (a
// create_before_destroy successor's stays); so does an apply for the records its plan no longer
// keeps: a store the pool left, or the record of the owner's old name after `owner` changed.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/memo"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/registry"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// publishPromise prepares the apply's record writes and removals: the record goes into the
// promise's own change at a store where the promise writes anything else (one write, one commit
// with its files), and is written on its own, best-effort, where it does not (a change of a
// destination's labels, weight or taints rewrites the record and nothing else: issue 37 point 5,
// a drain must work while a store is down). The records the plan no longer keeps (leftStores) are
// removed the same way. It returns ops with the records merged, and what to write alone.
func (d *providerData) publishPromise(ctx context.Context, plan, state promiseModel, pool []poolMember, instance string, ops []placement.Op, diags *diag.Diagnostics) ([]placement.Op, promisePublication) {
	pub := promisePublication{held: plan.Registration}
	if d == nil {
		return ops, pub
	}
	writes := func(loc string) bool {
		return slices.ContainsFunc(ops, func(op placement.Op) bool { return op.Location.String() == loc && !op.Change.Empty() })
	}
	for _, s := range d.withoutOwnRecords(ctx, plan.Name.ValueString(), d.leftStores(ctx, state, pool), instance, diags) {
		if writes(s.member.Location.String()) {
			ops = withRecordDelete(ops, s.member, s.path)
		} else {
			pub.removeAlone = append(pub.removeAlone, s)
		}
	}
	if !rewritesRegistration(plan.Registration) {
		return ops, pub
	}
	rec, ok := promiseRecordOf(ctx, plan, pool, d.owner)
	if !ok {
		return ops, pub
	}
	rec.Instance, rec.WrittenAt = instance, d.clock()
	pub.content = registry.RenderPromise(rec)
	pub.sums, pub.stores = map[string]string{}, promiseRecordStores(rec.Name, d.owner, pool)
	for _, s := range pub.stores {
		switch sum := d.adoptPromiseRecord(ctx, s, rec); {
		case sum != "":
			pub.sums[s.key] = sum
		case writes(s.member.Location.String()):
			ops = withRegistration(ops, s.member, s.path, pub.content)
			pub.sums[s.key] = memo.MD5(pub.content)
		default:
			pub.writeAlone = append(pub.writeAlone, s)
			pub.sums[s.key] = memo.MD5(pub.content)
		}
	}
	return ops, pub
}

// promisePublication is what an apply does with the promise's records.
type promisePublication struct {
	held        types.Map // the plan's registration: kept when nothing is written
	stores      []promiseRecordStore
	sums        map[string]string // per key, the MD5 the store holds once the operations are made
	content     []byte
	writeAlone  []promiseRecordStore // written on their own, best-effort (writeAlone)
	removeAlone []promiseRecordStore // removed on their own, best-effort
	missed      map[string]bool      // keys of the records the best-effort writes and removals missed
}

// members are the destinations through which the records' stores are reached.
func (p promisePublication) members() []poolMember {
	var out []poolMember
	for _, group := range [][]promiseRecordStore{p.stores, p.removeAlone} {
		for _, s := range group {
			out = append(out, s.member)
		}
	}
	return out
}

// writeAlone makes the record writes and removals that go on their own, each a write of its own
// named for the record ("Update from: <path>", "Delete from: <path>"), best-effort: a failure is
// a warning, and the next plan tries again.
func (d *providerData) writeAlone(ctx context.Context, name, writer string, p *promisePublication, refs storeRefs, diags *diag.Diagnostics) {
	p.missed = map[string]bool{}
	do := func(s promiseRecordStore, message string, change placement.Change, what string) {
		var wd diag.Diagnostics
		op := placement.Op{Location: s.member.Location, Member: s.member.Member, Destinations: []string{s.member.Name}, Change: change}
		if failed := d.writeOps(ctx, "Promise", fmt.Sprintf("Promise %q", name), message, writer, []placement.Op{op}, refs, &wd); len(failed) > 0 {
			p.missed[s.key] = true
		}
		for _, w := range wd {
			if w.Severity() != diag.SeverityError {
				diags.Append(w)
				continue
			}
			diags.AddAttributeWarning(path.Root("registration"), "Promise Record Not "+what, fmt.Sprintf("Promise %q: its record %s "+
				"could not be %s (%s). %s\n\nThe promise's other changes are applied (they write nothing else in this store); "+
				"other workspaces read the record as it was (data.kratix_promise) until the next apply, whose plan shows it.",
				name, s.path, strings.ToLower(what), strings.ToLower(w.Summary()), w.Detail()))
		}
	}
	for _, s := range p.writeAlone {
		do(s, "Update from: "+s.path, placement.Change{Put: map[string][]byte{s.path: p.content}}, "Written")
	}
	for _, s := range p.removeAlone {
		do(s, "Delete from: "+s.path, placement.Change{Delete: []string{s.path}}, "Removed")
	}
}

// settle is the `registration` after the operations, failed naming the locations whose write
// failed: their records were not written, so their MD5 is empty and the next plan writes them.
// A record that could not be removed stays in it with an empty MD5, so the next apply tries again.
func (p promisePublication) settle(failed map[string]bool) types.Map {
	out := map[string]string{}
	if p.sums == nil {
		if len(p.missed) == 0 || p.held.IsUnknown() {
			return p.held
		}
		for k, v := range p.held.Elements() {
			if s, ok := v.(types.String); ok {
				out[k] = s.ValueString()
			}
		}
	}
	for _, s := range p.stores {
		out[s.key] = p.sums[s.key]
		if failed[s.member.Location.String()] || p.missed[s.key] {
			out[s.key] = ""
		}
	}
	for _, s := range p.removeAlone {
		if p.missed[s.key] {
			out[s.key] = ""
		}
	}
	return tfvalue.StringMapValue(out)
}

// adoptPromiseRecord returns the MD5 of the record the store holds at s when it says what rec
// does (owner and instance included): nothing to write. Else "", and a store that cannot be read
// says nothing here: the write that follows reports it.
func (d *providerData) adoptPromiseRecord(ctx context.Context, s promiseRecordStore, rec registry.Promise) string {
	store, err := d.open(s.member.Store, false)
	if err != nil {
		return ""
	}
	sums, err := writingView(store, s.member.Target.StorePath).Hashes(ctx, []string{s.path})
	if err != nil || sums[s.path] == "" {
		return ""
	}
	content, err := store.Read(ctx, s.path)
	if err != nil {
		return ""
	}
	held, err := registry.ParsePromise(content)
	if err != nil || !held.Same(rec) {
		return ""
	}
	return memo.MD5(content)
}

// refreshPromiseRegistration is Read's look at the promise's records: their MD5s from the shared
// listing. A record missing or other than what was written empties its MD5, so the next plan
// writes it again. State saved before records existed (null) adopts the records the stores
// hold already, this owner's and saying what this promise would (one read each, once). A store
// that cannot be read leaves the attribute as it is.
func (d *providerData) refreshPromiseRegistration(ctx context.Context, state promiseModel, members []poolMember, instance string) types.Map {
	held := state.Registration
	if held.IsUnknown() || d == nil || d.isOffline() {
		return held
	}
	var stores []promiseRecordStore
	var pool []poolMember
	if held.IsNull() {
		// State saved before records existed: the whole pool says where they would be (once).
		var ok bool
		if pool, ok, _ = poolFromList(path.Root("destinations"), state.Destinations); !ok {
			return held
		}
		stores = promiseRecordStores(state.Name.ValueString(), d.owner, pool)
	} else {
		// Where they were written, whatever the owner is now, reached through the destinations
		// Read looks at anyway: no second reading of the pool.
		stores = recordedStores(ctx, held, members)
	}
	was := tfvalue.StringMap(ctx, held)
	out := map[string]string{}
	for key, sum := range was {
		out[key] = sum // a record whose store Read does not reach stays as it is
	}
	for _, s := range stores {
		store, err := d.open(s.member.Store, false)
		if err != nil {
			return held
		}
		sums, err := sharedView(store, s.member.Target.StorePath).Hashes(ctx, []string{s.path})
		if err != nil {
			return held
		}
		switch {
		case held.IsNull():
			rec, ok := promiseRecordOf(ctx, state, pool, d.owner)
			rec.Instance = instance
			if !ok || sums[s.path] == "" || d.adoptPromiseRecord(ctx, s, rec) != sums[s.path] {
				return held
			}
			out[s.key] = sums[s.path]
		case was[s.key] != "" && sums[s.path] == was[s.key]:
		default:
			out[s.key] = ""
		}
	}
	if held.IsNull() && len(out) == 0 {
		return held
	}
	return tfvalue.StringMapValue(out)
}

// recordedStores are the records a registration names ("<store name>:<path>"), each reached
// through the destination of pool in the store of that name; a key whose store is not in the
// pool is left out.
func recordedStores(ctx context.Context, registration types.Map, pool []poolMember) []promiseRecordStore {
	byStore := map[string]poolMember{}
	for _, m := range pool {
		if _, had := byStore[m.Store.Name.ValueString()]; !had {
			byStore[m.Store.Name.ValueString()] = m
		}
	}
	var out []promiseRecordStore
	for _, key := range tfvalue.SortedKeys(tfvalue.StringMap(ctx, registration)) {
		storeName, p, found := strings.Cut(key, ":")
		if m, known := byStore[storeName]; found && known {
			out = append(out, promiseRecordStore{key: key, path: p, member: m})
		}
	}
	return out
}

// unpublishPromise adds to a promise's destroy the removal of its records (see withoutOwnRecords),
// and returns the destinations through which their stores are reached.
func (d *providerData) unpublishPromise(ctx context.Context, state promiseModel, instance string, ops []placement.Op, diags *diag.Diagnostics) ([]placement.Op, []poolMember) {
	if d == nil {
		return ops, nil
	}
	var members []poolMember
	for _, s := range d.withoutOwnRecords(ctx, state.Name.ValueString(), d.leftStores(ctx, state, nil), instance, diags) {
		ops = withRecordDelete(ops, s.member, s.path)
		members = append(members, s.member)
	}
	return ops, members
}

// leftStores are the records the state says the promise wrote (its registration, or, in state
// saved before records existed, where its pool would have them) that a plan over pool no longer
// keeps: a store the pool left, or a record of another owner name (the provider's owner was
// changed). They go, or they would go on offering destinations the promise no longer manages.
func (d *providerData) leftStores(ctx context.Context, state promiseModel, pool []poolMember) []promiseRecordStore {
	prior, ok, _ := poolFromList(path.Root("destinations"), state.Destinations)
	if !ok || state.Registration.IsUnknown() {
		return nil
	}
	name := state.Name.ValueString()
	if state.Registration.IsNull() {
		if pool != nil {
			return nil // nothing was published: nothing is left behind
		}
		return promiseRecordStores(name, d.owner, prior)
	}
	kept := map[string]bool{}
	for _, s := range promiseRecordStores(name, d.owner, pool) {
		kept[s.member.Location.String()+"|"+s.path] = true
	}
	var left []promiseRecordStore
	for _, s := range recordedStores(ctx, state.Registration, prior) {
		if !kept[s.member.Location.String()+"|"+s.path] {
			left = append(left, s)
		}
	}
	return left
}

// withoutOwnRecords are the records of stores that are still this instance's, to remove (read now: a create_before_destroy successor wrote its own since; a record
// without an instance, when it is this owner's). A record that cannot be read stays, with a
// warning.
func (d *providerData) withoutOwnRecords(ctx context.Context, name string, stores []promiseRecordStore, instance string, diags *diag.Diagnostics) []promiseRecordStore {
	var own []promiseRecordStore
	for _, s := range stores {
		store, err := d.open(s.member.Store, false)
		if err != nil {
			continue // the write at this store reports it
		}
		content, err := store.Read(ctx, s.path)
		if err != nil {
			if !statestore.IsNotFound(err) {
				diags.AddWarning("Promise Record Not Removed", fmt.Sprintf("Promise %q no longer places anything in %s, but its "+
					"record %s there could not be read, so it stays: other workspaces still find the promise there "+
					"(data.kratix_promise) until the file is removed.\n\n%s", name, store.Describe(), s.path,
					storeErrorDetail("The record: reading it failed", err)))
			}
			continue
		}
		rec, err := registry.ParsePromise(content)
		if err != nil || rec.Instance != instance && (rec.Instance != "" || rec.Owner != d.owner) {
			continue // not this promise's record any more: another instance's, or edited by hand
		}
		own = append(own, s)
	}
	return own
}

// withRecordDelete adds the removal of the record at p to the operation at m's location, or
// makes an operation of it alone.
func withRecordDelete(ops []placement.Op, m poolMember, p string) []placement.Op {
	for i, op := range ops {
		if op.Location.String() == m.Location.String() {
			ops[i].Change.Delete = append(append([]string{}, op.Change.Delete...), p)
			return ops
		}
	}
	return append(ops, placement.Op{Location: m.Location, Member: m.Member, Destinations: []string{m.Name},
		Change: placement.Change{Delete: []string{p}}})
}
