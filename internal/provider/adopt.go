package provider

// Adoption: a promise or request imported from a store that Kratix (or a lost Terraform state)
// wrote is taken over where it is, never moved. Neither the import nor the Read after it has the
// configuration, so neither knows the pool; the first plan has both, looks in every pool member's
// folder, and plans from what it finds as if it were the prior state. What it found travels to the
// apply in private state, so that the apply starts from the same prior without reading again.
// That first plan also checks that the import id names the configured object (checkImportedName,
// checkImportedRequest, at the end of this file).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/privstate"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// adoption is what an import leaves for the first plan, and what that plan found for the apply.
type adoption struct {
	// Destination is the destination the import id named (`<promise>/<namespace>/<name>@<destination>`);
	// "" to look for it.
	Destination string `json:"destination,omitempty"`
	// Observed is set once a plan has looked; Found is then what it found, per destination.
	Observed bool                        `json:"observed,omitempty"`
	Found    map[string]placement.Record `json:"found,omitempty"`
	// ImportedAt (RFC 3339) is when the import ran: an adopted rollout counts its last wave from
	// it. Every plan of the import, the apply's included, reads the same value, where a clock
	// read in each would differ by the seconds between them.
	ImportedAt string `json:"imported_at,omitempty"`
	// Rollout is, for a promise imported while its rollout was in flight, where it stands (see
	// adopt_rollout.go); nil otherwise.
	Rollout *adoptedRollout `json:"rollout,omitempty"`
}

// readAdoption returns the adoption an import left, if any.
func readAdoption(ctx context.Context, p privstate.Reader) (adoption, bool) {
	if p == nil {
		return adoption{}, false
	}
	b, d := p.GetKey(ctx, privstate.AdoptKey)
	if d.HasError() || len(b) == 0 {
		return adoption{}, false
	}
	var a adoption
	if err := json.Unmarshal(b, &a); err != nil {
		return adoption{}, false
	}
	return a, true
}

func writeAdoption(ctx context.Context, p privstate.Writer, a adoption) diag.Diagnostics {
	b, err := json.Marshal(a)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Cannot Record Import", err.Error())
		return diags
	}
	return p.SetKey(ctx, privstate.AdoptKey, b)
}

// forgetAdoption removes the adoption once an apply has started from it.
func forgetAdoption(ctx context.Context, p privstate.Writer) diag.Diagnostics {
	if p == nil {
		return nil
	}
	return p.SetKey(ctx, privstate.AdoptKey, nil)
}

// kratixForms recognises a placement as Kratix itself lays it out in modes none and
// aggregatedYAML, where this provider's names differ from Kratix's: the index files Kratix names
// after its WorkPlacements, and an aggregate Kratix wrote with no part of this provider.
type kratixForms struct {
	index    func(layout.Target) layout.KratixIndex
	contents [][]byte // the placement's content, compared with an aggregate's documents
	// hashKey, for a request with write-only content, is the key its records hash with: what a
	// probe finds is recorded as keyed hashes, never as MD5s, since the adoption travels to the
	// apply in private state, which a saved plan file holds (see placement.KeyedMark).
	hashKey []byte
}

// probed is what probe found: what each folder holds of the placement, and the destinations whose
// folders hold it, in this provider's layout or in Kratix's own (see kratixForms).
type probed struct {
	found   map[string]placement.Record
	holders []string
}

// probe looks in the folder of each member for a placement laid out there by filesAt.
func (d *providerData) probe(ctx context.Context, kind, who string, at path.Path, pool []poolMember, filesAt func(layout.Target) (layout.Files, error), kratix kratixForms, diags *diag.Diagnostics) probed {
	files := map[string]layout.Files{}
	targets := map[string]observed{}
	for _, m := range pool {
		f, err := filesAt(m.Target)
		if err != nil {
			continue // the plan reports it
		}
		files[m.Name] = f
		targets[m.Name] = observed{member: m, files: f, record: placement.Probe(m.Member, f), hashKey: kratix.hashKey}
	}
	p := probed{found: d.refresh(ctx, kind, who, targets, diags)}
	if diags.HasError() {
		return p
	}
	p.holders = placement.Holders(files, p.found)
	held := map[string]bool{}
	for _, dest := range p.holders {
		held[dest] = true
	}
	for _, dest := range tfvalue.SortedKeys(targets) {
		o := targets[dest]
		// A folder that holds the placement in this provider's layout is looked at again only
		// in mode none without the provider's index file: its files were found (a promise's
		// static file has the same path in both layouts), but Kratix's index file for them is
		// what records them there, and becomes the placement's own.
		if held[dest] && (o.member.Target.Mode != layout.ModeNone || ownIndexFound(o.files, p.found[dest])) {
			continue
		}
		rec, ok := d.probeKratix(ctx, kind, who, at, dest, o, p.found[dest], kratix, diags)
		if diags.HasError() {
			return p
		}
		if ok {
			p.found[dest] = rec
			if !held[dest] {
				p.holders = append(p.holders, dest)
			}
		}
	}
	sort.Strings(p.holders)
	return p
}

// ownIndexFound reports whether a folder holds the index file of mode none that this provider
// names for the placement laid out as f.
func ownIndexFound(f layout.Files, r placement.Record) bool {
	for _, c := range f.Claims {
		if _, ok := r.Files[c]; ok && strings.Contains("/"+c, "/"+layout.IndexDir+"/") {
			return true
		}
	}
	return false
}

// probeKratix looks in one member's folder for the placement as Kratix lays it out: in mode
// none, an index file named after its WorkPlacement (any random suffix) whose files are all
// there, recorded with the files it lists and the index file itself, which the placement keeps
// as its own (layout's Kept: no second index file is written); in mode aggregatedYAML, an aggregate with no
// part of this provider, or the remainder part that keeps the documents of such a file that no
// part holds yet (layout.RemainderPart: the first part written adds it), that holds every
// document of the placement, recorded as stale, so that the plan shows the part written and the
// file rebuilt. ok says whether it is there.
func (d *providerData) probeKratix(ctx context.Context, kind, who string, at path.Path, dest string, o observed, rec placement.Record, kratix kratixForms, diags *diag.Diagnostics) (placement.Record, bool) {
	t := o.member.Target
	if t.Mode != layout.ModeNone && t.Mode != layout.ModeAggregatedYAML {
		return rec, false
	}
	store, err := d.openRef(storeRefs{}.add(o.member), o.member.Location.String(), o.member.Member.Store)
	if errors.Is(err, storeconfig.ErrSecretsUnknown) {
		return rec, false // cannot be read in this plan; a later plan looks
	}
	if err != nil {
		diags.Append(storeNotUsable(who, o.member.Member.Store, err))
		return rec, false
	}
	var ok bool
	if t.Mode == layout.ModeAggregatedYAML {
		ok, err = probeKratixAggregate(ctx, store, o, kratix)
	} else {
		rec, ok, err = probeKratixIndex(ctx, store, kind, who, at, dest, o, rec, kratix, diags)
	}
	if err != nil {
		addStoreError(diags, "Cannot Read "+kind, fmt.Sprintf("%s: reading destination %q failed", who, dest), err)
		return rec, false
	}
	return rec, ok
}

// probeKratixAggregate reports whether the aggregatedYAML file Kratix wrote in o's folder (or
// the remainder part that keeps its documents) holds the placement.
func probeKratixAggregate(ctx context.Context, store statestore.Store, o observed, kratix kratixForms) (bool, error) {
	agg := o.files.Aggregate
	if agg == nil {
		return false, nil
	}
	parts, err := store.List(ctx, agg.Dir)
	if err != nil {
		return false, err
	}
	source, read := placement.AggregateSource(*agg, parts)
	if !read {
		return false, nil // the file is rebuilt from the parts: Holds has answered
	}
	content, err := store.Read(ctx, source)
	if statestore.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return placement.AggregateHolds(content, kratix.contents), nil
}

// probeKratixIndex adopts the index file Kratix wrote for the placement in o's folder (mode
// none): rec with the files it lists, and ok, when exactly one index file proves the placement is
// there; several are refused at at.
func probeKratixIndex(ctx context.Context, store statestore.Store, kind, who string, at path.Path, dest string, o observed, rec placement.Record, kratix kratixForms, diags *diag.Diagnostics) (placement.Record, bool, error) {
	t := o.member.Target
	if kratix.index == nil {
		return rec, false, nil
	}
	index := kratix.index(t)
	listing, err := store.List(ctx, index.Dir)
	if err != nil {
		return rec, false, err
	}
	indexes := map[string][]string{}
	var listed []string
	for _, p := range tfvalue.SortedKeys(listing) {
		if !index.Match(p) {
			continue
		}
		content, err := store.Read(ctx, p)
		if statestore.IsNotFound(err) {
			continue
		}
		if err != nil {
			return rec, false, err
		}
		idx, err := layout.ParseIndex(content)
		if err != nil {
			continue // not an index file Kratix wrote: it proves nothing
		}
		indexes[p] = layout.IndexedFiles(t.StorePath, idx)
		listed = append(listed, indexes[p]...)
	}
	if len(indexes) == 0 {
		return rec, false, nil
	}
	there, err := store.Hashes(ctx, append(listed, tfvalue.SortedKeys(indexes)...))
	if err != nil {
		return rec, false, err
	}
	if kratix.hashKey != nil {
		if err := rekeyFiles(ctx, store, there, kratix.hashKey); err != nil {
			return rec, false, err
		}
	}
	adopted, chosen := placement.AdoptKratixIndex(rec, o.files, indexes, there)
	switch {
	case len(chosen) == 0:
		return rec, false, nil
	case len(chosen) > 1:
		diags.AddAttributeError(at, "Several Kratix Index Files Match", fmt.Sprintf(
			"%s was imported, and the folder of destination %q holds several index files that Kratix may have "+
				"written for it (Kratix names them after the Work and five random characters, and the names of "+
				"different requests can coincide): %s. Give the %s exactly the files its WorkPlacement wrote (its "+
				"index file lists them), or remove the index files no WorkPlacement uses any more, and plan again.",
			who, dest, strings.Join(chosen, ", "), strings.ToLower(kind)))
		return rec, false, nil
	}
	return adopted, true, nil
}

// adoptRequest finds, during the first plan after an import, the destination of the pool whose
// folder already holds the request (or looks only in the one the import id named). ok is false
// while the inputs are unknown (a later plan looks) or when it failed (diags say why).
func (r *requestResource) adoptRequest(ctx context.Context, plan requestModel, a adoption, diags *diag.Diagnostics) (adoption, bool) {
	promise := plan.promise()
	if r.data == nil || promise == nil || promise.Name.IsUnknown() || plan.Name.IsUnknown() ||
		plan.Namespace.IsUnknown() || plan.Pipeline.IsUnknown() || plan.Documents.IsUnknown() || !mapKnown(plan.Files) {
		return a, false
	}
	at := path.Root("promise").AtName("destinations")
	pool, ok, _ := poolFromList(at, promise.Destinations)
	if !ok {
		return a, false // reported by the plan
	}
	if plan.writeOnly() && plan.secret == nil {
		return a, false // the key of its hashes is not known yet: a later plan, or the apply, looks
	}
	out, err := plan.output(ctx)
	if err != nil {
		return a, false // reported by the plan
	}
	id := plan.id()
	if a.Destination != "" {
		var named []poolMember
		var names []string
		for _, m := range pool {
			names = append(names, m.Name)
			if m.Name == a.Destination {
				named = append(named, m)
			}
		}
		if len(named) == 0 {
			diags.AddAttributeError(at, "Import Destination Not In Pool", fmt.Sprintf(
				"Request %s was imported as %s@%s, but destination %q is not in the promise's pool (%s). Add it to the "+
					"promise's destinations, or import the request again naming one of them.",
				id, id, a.Destination, a.Destination, strings.Join(names, ", ")))
			return a, false
		}
		pool = named
	}
	forms := kratixForms{index: func(t layout.Target) layout.KratixIndex { return layout.KratixRequestIndex(t, out) }, hashKey: plan.hashKey()}
	for _, rel := range tfvalue.SortedKeys(out.Files) {
		forms.contents = append(forms.contents, out.Files[rel])
	}
	p := r.data.probe(ctx, "Request", "Request "+id, at, pool,
		func(t layout.Target) (layout.Files, error) { return layout.RequestFiles(t, out) }, forms, diags)
	if diags.HasError() {
		return a, false
	}
	a.Observed, a.Found = true, map[string]placement.Record{}
	replicas := max(int(plan.Replicas.ValueInt64()), 1)
	adopted, several := placement.AdoptRequest(a.Destination, replicas, p.found, p.holders)
	if several {
		lives := "one destination"
		if replicas > 1 {
			lives = fmt.Sprintf("at most %d destinations (its replicas)", replicas)
		}
		diags.AddAttributeError(at, "Request Found On Several Destinations", fmt.Sprintf(
			"Request %s was imported, and the folders of several destinations of the promise's pool hold it: %s. "+
				"A request lives on %s. Import it naming the one to keep, as %s@<destination> (change the "+
				"import block's id, or `terraform state rm` it and import again); the copies on the others are not touched.",
			id, strings.Join(p.holders, ", "), lives, id))
		return a, false
	}
	a.Found = adopted
	return a, true
}

// requestPrior is the prior state an adopted request plans from: on the destination found, holding
// what was found there. With nothing found it is the state of a request never placed.
func (a adoption) requestPrior(plan, state requestModel) requestModel {
	dests := tfvalue.SortedKeys(a.Found)
	if len(dests) == 0 {
		return state
	}
	rec := a.Found[dests[0]]
	state.Promise = plan.Promise
	state.Destination = types.StringValue(dests[0])
	state.Location, state.Root = types.StringValue(rec.Location), types.StringValue(rec.Root)
	state.Misscheduled = types.BoolValue(false)
	state.WrittenFiles = tfvalue.StringMapValue(rec.Files)
	state.Placed = tfvalue.StringList(dests)
	if len(dests) > 1 {
		state.Placements = recordsToModel(a.Found)
	}
	return state
}

// notFoundWarning says where a request that no folder held is placed, and how to choose.
func (a adoption) notFoundWarning(plan requestModel, chosen string) string {
	if len(a.Found) > 0 || chosen == "" {
		return ""
	}
	id := plan.id()
	return fmt.Sprintf("Request %s was imported, but no destination of the promise's pool holds its files. It is "+
		"placed as a new request is, on %q (the rendezvous choice), and the apply writes it there. If it runs on "+
		"another destination, import it naming that one: %s@<destination>.", id, chosen, id)
}

// adoptPromise looks, during the first plan after an import, in the folder of every member of the
// pool for the promise's dependencies. ok is false while the inputs are unknown or when it failed.
func (r *promiseResource) adoptPromise(ctx context.Context, plan promiseModel, a adoption, schedule promiseSchedule, diags *diag.Diagnostics) (adoption, bool) {
	if r.data == nil || plan.Name.IsUnknown() {
		return a, false
	}
	pool, ok, _ := poolFromList(path.Root("destinations"), plan.Destinations)
	deps, okDeps := plan.dependencies()
	if !ok || !okDeps {
		return a, false // unknown, or reported by the plan
	}
	forms := kratixForms{
		index:    func(t layout.Target) layout.KratixIndex { return layout.KratixDependencyIndex(t, deps.Promise) },
		contents: [][]byte{deps.All},
	}
	p := r.data.probe(ctx, "Promise", fmt.Sprintf("Promise %q", plan.Name.ValueString()), path.Root("destinations"), pool,
		func(t layout.Target) (layout.Files, error) { return layout.DependencyFiles(t, deps) }, forms, diags)
	if diags.HasError() {
		return a, false
	}
	a.Observed, a.Found = true, map[string]placement.Record{}
	found := map[string]placement.Prior{}
	for _, dest := range p.holders {
		a.Found[dest] = p.found[dest]
		found[dest] = placement.Prior{Record: p.found[dest]}
	}
	// The schedule as the promise holds what was found: a destination cordoned since keeps it
	// (NoSchedule spares what is there), as it does in every plan after this one.
	var decisions []scheduling.Decision
	if schedule != nil {
		decisions = schedule(found)
	}
	if a.Rollout = r.data.adoptRollout(ctx, plan, pool, deps, a.Found, decisions, a.importedAt(r.data.clock()), diags); diags.HasError() {
		return a, false
	}
	return a, true
}

// promisePrior is the prior state an adopted promise plans from: placed where it was found, with
// its rollout where it stands (see adopt_rollout.go).
func (a adoption) promisePrior(plan, state promiseModel) promiseModel {
	state.Destinations = plan.Destinations
	state.Placements = recordsToModel(a.Found)
	return a.Rollout.prior(state)
}

// adoptInPlan, for the first plan after an import, finds where the request is and returns the
// prior state to plan from (the adoption is nil when there is nothing to adopt).
func (r *requestResource) adoptInPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan, state requestModel) (*adoption, requestModel) {
	if req.State.Raw.IsNull() || !state.Destination.IsNull() {
		return nil, state
	}
	a, ok := readAdoption(ctx, req.Private)
	if !ok {
		return nil, state
	}
	if checkImportedRequest(plan, state, &resp.Diagnostics); resp.Diagnostics.HasError() || a.Observed {
		return nil, state
	}
	if r.data.isOffline() {
		offlineImportWarning(&resp.Diagnostics, "Request "+plan.id())
		return nil, state
	}
	if a, ok = r.adoptRequest(ctx, plan, a, &resp.Diagnostics); !ok {
		return nil, state
	}
	resp.Diagnostics.Append(writeAdoption(ctx, resp.Private, a)...)
	return &a, a.requestPrior(plan, state)
}

// adoptInApply starts the apply after an import from what its plan found (or, when the plan could
// not look because some input was unknown, looks now), and forgets the import.
func (r *requestResource) adoptInApply(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse, plan, state requestModel) requestModel {
	a, ok := readAdoption(ctx, req.Private)
	if !ok {
		return state
	}
	if state.Destination.IsNull() {
		if !a.Observed {
			a, ok = r.adoptRequest(ctx, plan, a, &resp.Diagnostics)
		}
		if ok && a.Observed {
			state = a.requestPrior(plan, state)
		}
	}
	resp.Diagnostics.Append(forgetAdoption(ctx, resp.Private)...)
	return state
}

// adoptInPlan, for the first plan after an import, looks for the promise in every folder of the
// pool and returns the prior state to plan from (the adoption is nil when there is nothing to
// adopt).
func (r *promiseResource) adoptInPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan, state promiseModel, schedule promiseSchedule) (*adoption, promiseModel) {
	if req.State.Raw.IsNull() || !state.Placements.IsNull() {
		return nil, state
	}
	if checkImportedName(ctx, req, "Promise", &resp.Diagnostics); resp.Diagnostics.HasError() {
		return nil, state
	}
	a, ok := readAdoption(ctx, req.Private)
	if !ok || a.Observed {
		return nil, state
	}
	if r.data.isOffline() {
		offlineImportWarning(&resp.Diagnostics, fmt.Sprintf("Promise %q", plan.Name.ValueString()))
		return nil, state
	}
	if a, ok = r.adoptPromise(ctx, plan, a, schedule, &resp.Diagnostics); !ok {
		return nil, state
	}
	resp.Diagnostics.Append(writeAdoption(ctx, resp.Private, a)...)
	return &a, a.promisePrior(plan, state)
}

// adoptInApply starts the apply after an import from what its plan found, and forgets the import.
func (r *promiseResource) adoptInApply(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse, plan, state promiseModel) promiseModel {
	a, ok := readAdoption(ctx, req.Private)
	if !ok {
		return state
	}
	if state.Placements.IsNull() {
		if !a.Observed {
			var schedule promiseSchedule
			if in, _, known, _ := plan.input(ctx, promiseModel{}); known {
				schedule = scheduleFor(in)
			}
			a, ok = r.adoptPromise(ctx, plan, a, schedule, &resp.Diagnostics)
		}
		if ok && a.Observed {
			state = a.promisePrior(plan, state)
		}
	}
	resp.Diagnostics.Append(forgetAdoption(ctx, resp.Private)...)
	return state
}

// importedWarning tells the reviewer of an import's plan what the placements it shows are: the
// files found in the store, recorded in state as they are, not written. Destinations the plan
// writes to (not found holding these files, or holding them otherwise) are named apart. "" when
// nothing was found.
func importedWarning(who string, found, planned map[string]placement.Record) string {
	var recorded, written []string
	files := 0
	for _, dest := range tfvalue.SortedKeys(planned) {
		had, ok := found[dest]
		if ok && maps.Equal(had.Files, planned[dest].Files) {
			recorded = append(recorded, dest)
			files += len(had.Files)
			continue
		}
		written = append(written, dest)
	}
	if len(recorded) == 0 {
		return ""
	}
	msg := fmt.Sprintf("%s is imported. Its files on %s (%d in all) were read from the store and are recorded in "+
		"state as they are: the placements the plan shows as added are that record, and nothing is written to "+
		"these destinations.", who, strings.Join(recorded, ", "), files)
	if len(written) > 0 {
		msg += fmt.Sprintf(" The apply writes to %s: files they did not hold as configured, or the provider's "+
			"bookkeeping files (listed apart when there are any).", strings.Join(written, ", "))
	}
	return msg
}

// bookkeepingWarning lists, per file, what an adoption's apply adds beside what it found: the
// files the provider keeps to manage a placement and Kratix does not (an index file of mode none
// where Kratix's own was not found, a part of an aggregatedYAML file), with where and why. Files
// the placement found stay as they are; "" when nothing is added.
func bookkeepingWarning(who string, found, planned map[string]placement.Record) string {
	var lines []string
	for _, dest := range tfvalue.SortedKeys(planned) {
		had, ok := found[dest]
		if !ok {
			continue // not found there: a plain write, shown as such
		}
		for _, p := range tfvalue.SortedKeys(planned[dest].Files) {
			if _, there := had.Files[p]; there {
				continue
			}
			switch {
			case strings.Contains("/"+p, "/"+layout.AggregatesDir+"/"):
				lines = append(lines, fmt.Sprintf("- %s (destination %q): the part that holds %s's documents of "+
					"the aggregatedYAML file; every writer rebuilds that file from the parts, which Kratix does not keep. "+
					"Until each promise and request in the file has its part, %s beside it keeps the documents no "+
					"part holds yet: it is written before the first part with every document of the file, rewritten "+
					"as parts take documents over, and deleted once they all do. The file keeps every document; it is "+
					"rewritten only where a part's text differs from the file's, never for the order of the documents "+
					"alone (Kratix orders them by its own names).",
					p, dest, who, layout.RemainderPart))
			case strings.Contains("/"+p, "/"+layout.IndexDir+"/"):
				lines = append(lines, fmt.Sprintf("- %s (destination %q): the index file of mode none that lists the "+
					"files %s writes there, so that a later apply removes those it no longer writes (no index file of "+
					"Kratix's for it was found).", p, dest, who))
			}
		}
	}
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf("%s was imported and stays where it was found. The apply adds these files, which the "+
		"provider keeps to manage it:\n%s", who, strings.Join(lines, "\n"))
}

// importedAt is when the import ran, or now for an import recorded before the time was kept.
func (a adoption) importedAt(now time.Time) time.Time {
	if t, err := time.Parse(time.RFC3339, a.ImportedAt); err == nil {
		return t
	}
	return now
}

// An import names an object by its id, the configuration by its attributes. Were they to
// differ, the first plan would replace what the import had just adopted: to Terraform a promise
// named otherwise is another promise, and a request in another namespace another request (placed
// anew, perhaps on another destination). So the first plan after an import, which sees the mark
// the import left in private state until the first apply (above), compares the two, and a
// difference fails that plan, naming both values, before anything is written.

const importMismatch = "Import ID Does Not Match Configuration"

// checkImportedName compares the name an import gave a state store, destination or promise (its
// import id) with the configured name. kind is "State store", "Destination" or "Promise".
func checkImportedName(ctx context.Context, req resource.ModifyPlanRequest, kind string, diags *diag.Diagnostics) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	if _, imported := readAdoption(ctx, req.Private); !imported {
		return
	}
	var imported, configured types.String
	if d := req.State.GetAttribute(ctx, path.Root("name"), &imported); d.HasError() {
		return
	}
	if d := req.Plan.GetAttribute(ctx, path.Root("name"), &configured); d.HasError() {
		return
	}
	if imported.IsNull() || configured.IsNull() || configured.IsUnknown() || imported.ValueString() == configured.ValueString() {
		return
	}
	diags.AddAttributeError(path.Root("name"), importMismatch, fmt.Sprintf(
		"name: %s was imported as %q, but the configuration names it %q. Planned as it is, this would replace the "+
			"imported %s with another one. If %q is the one to adopt, import it under its configured name: correct the "+
			"import block's id to %q, or run `terraform state rm` on this resource and `terraform import` it as %q. "+
			"If the configuration is wrong, set name = %q. Nothing was written.",
		kind, imported.ValueString(), configured.ValueString(), strings.ToLower(kind), configured.ValueString(),
		configured.ValueString(), configured.ValueString(), imported.ValueString()))
}

// checkImportedRequest compares a request's import id, <promise>/<namespace>/<name> (kept as its
// id until the first apply), with its configured promise, namespace and name; each part that
// differs is an error at the attribute that configures it. A part not known yet is not compared.
func checkImportedRequest(plan, state requestModel, diags *diag.Diagnostics) {
	_, parts, _, err := placement.ParseRequestImportID(state.ID.ValueString())
	if err != nil {
		return // ImportState refused it
	}
	importedID := state.ID.ValueString()
	configured := []types.String{types.StringUnknown(), plan.Namespace, plan.Name}
	if p := plan.promise(); p != nil {
		configured[0] = p.Name
	}
	attrs := []struct {
		what string
		at   path.Path
	}{
		// Not promise.name: the configuration sets promise as a whole (promise = kratix_promise.p),
		// and Terraform shows the line of the attribute the path names.
		{"promise", path.Root("promise")},
		{"namespace", path.Root("namespace")},
		{"name", path.Root("name")},
	}
	suggested := plan.id()
	if configured[0].IsUnknown() {
		suggested = placement.RequestID("<promise>", plan.Namespace.ValueString(), plan.Name.ValueString())
	}
	swapped := ""
	if configured[0].ValueString() == parts[1] && configured[1].ValueString() == parts[0] {
		swapped = " The promise and the namespace are swapped: a request's id names the promise first."
	}
	for i, a := range attrs {
		c := configured[i]
		if c.IsUnknown() || c.IsNull() || c.ValueString() == parts[i] {
			continue
		}
		diags.AddAttributeError(a.at, importMismatch, fmt.Sprintf(
			"%s: request %s was imported with %s %q (the id is <promise>/<namespace>/<name>), but the configuration "+
				"gives %s %q.%s Planned as it is, this would replace the imported request with another one. To adopt "+
				"the configured request, import it as %s: correct the import block's id, or run `terraform state rm` on "+
				"this resource and `terraform import` it again. Nothing was written.",
			a.at, importedID, a.what, parts[i], a.what, c.ValueString(), swapped, suggested))
	}
}
