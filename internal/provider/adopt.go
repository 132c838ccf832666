package provider

// Adoption: a promise or request imported from a store that Kratix (or a lost Terraform state)
// wrote is taken over where it is, never moved. Neither the import nor the Read after it has the
// configuration, so neither knows the pool; the first plan has both, looks in every pool member's
// folder, and plans from what it finds as if it were the prior state. What it found travels to the
// apply in private state, so that the apply starts from the same prior without reading again.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// adoptKey is the private state key an import sets and the first apply after it removes.
const adoptKey = "adopt"

// adoption is what an import leaves for the first plan, and what that plan found for the apply.
type adoption struct {
	// Destination is the destination the import id named (`<promise>/<namespace>/<name>@<destination>`);
	// "" to look for it.
	Destination string `json:"destination,omitempty"`
	// Observed is set once a plan has looked; Found is then what it found, per destination.
	Observed bool                        `json:"observed,omitempty"`
	Found    map[string]placement.Record `json:"found,omitempty"`
}

type privateReader interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
}

type privateWriter interface {
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// readAdoption returns the adoption an import left, if any.
func readAdoption(ctx context.Context, p privateReader) (adoption, bool) {
	if p == nil {
		return adoption{}, false
	}
	b, d := p.GetKey(ctx, adoptKey)
	if d.HasError() || len(b) == 0 {
		return adoption{}, false
	}
	var a adoption
	if err := json.Unmarshal(b, &a); err != nil {
		return adoption{}, false
	}
	return a, true
}

func writeAdoption(ctx context.Context, p privateWriter, a adoption) diag.Diagnostics {
	b, err := json.Marshal(a)
	if err != nil {
		var diags diag.Diagnostics
		diags.AddError("Cannot Record Import", err.Error())
		return diags
	}
	return p.SetKey(ctx, adoptKey, b)
}

// forgetAdoption removes the adoption once an apply has started from it.
func forgetAdoption(ctx context.Context, p privateWriter) diag.Diagnostics {
	if p == nil {
		return nil
	}
	return p.SetKey(ctx, adoptKey, nil)
}

// parseRequestImportID splits `<promise>/<namespace>/<name>` or
// `<promise>/<namespace>/<name>@<destination>`.
func parseRequestImportID(id string) (base string, parts []string, destination string, err error) {
	base, destination, named := strings.Cut(id, "@")
	parts = strings.Split(base, "/")
	bad := len(parts) != 3 || named && destination == ""
	for _, p := range parts {
		bad = bad || p == ""
	}
	if bad {
		return "", nil, "", fmt.Errorf("%q: import a request as <promise>/<namespace>/<name>, or as "+
			"<promise>/<namespace>/<name>@<destination> to keep it on that destination", id)
	}
	return base, parts, destination, nil
}

// probe looks in the folder of each member for a placement laid out there by filesAt, and returns
// the files each would hold and what each folder holds of them.
func (d *providerData) probe(ctx context.Context, kind, who string, pool []poolMember, filesAt func(layout.Target) (layout.Files, error), diags *diag.Diagnostics) (map[string]layout.Files, map[string]placement.Record) {
	files := map[string]layout.Files{}
	targets := map[string]observed{}
	for _, m := range pool {
		f, err := filesAt(m.Target)
		if err != nil {
			continue // the plan reports it
		}
		files[m.Name] = f
		targets[m.Name] = observed{member: m, files: f, record: placement.Probe(m.Member, f)}
	}
	return files, d.refresh(ctx, kind, who, targets, diags)
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
	pool, ok, _ := poolFromList(ctx, at, promise.Destinations)
	if !ok {
		return a, false // reported by the plan
	}
	out, err := plan.output(ctx)
	if err != nil {
		return a, false // reported by the plan
	}
	id := fmt.Sprintf("%s/%s/%s", plan.promiseName(), plan.Namespace.ValueString(), plan.Name.ValueString())
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
	files, found := r.data.probe(ctx, "Request", "Request "+plan.key(), pool,
		func(t layout.Target) (layout.Files, error) { return layout.RequestFiles(t, out) }, diags)
	if diags.HasError() {
		return a, false
	}
	a.Observed, a.Found = true, map[string]placement.Record{}
	if a.Destination != "" {
		a.Found[a.Destination] = found[a.Destination]
		return a, true
	}
	holders := placement.Holders(files, found)
	if len(holders) > 1 {
		diags.AddAttributeError(at, "Request Found On Several Destinations", fmt.Sprintf(
			"Request %s was imported, and the folders of several destinations of the promise's pool hold it: %s. "+
				"A request lives on one destination. Import it naming the one to keep, as %s@<destination> (change the "+
				"import block's id, or `terraform state rm` it and import again); the copies on the others are not touched.",
			id, strings.Join(holders, ", "), id))
		return a, false
	}
	for _, dest := range holders {
		a.Found[dest] = found[dest]
	}
	return a, true
}

// requestPrior is the prior state an adopted request plans from: on the destination found, holding
// what was found there. With nothing found it is the state of a request never placed.
func (a adoption) requestPrior(plan, state requestModel) requestModel {
	for dest, rec := range a.Found {
		state.Promise = plan.Promise
		state.Destination = types.StringValue(dest)
		state.Location, state.Root = types.StringValue(rec.Location), types.StringValue(rec.Root)
		state.Misscheduled = types.BoolValue(false)
		state.WrittenFiles = stringMapValue(rec.Files)
	}
	return state
}

// notFoundWarning says where a request that no folder held is placed, and how to choose.
func (a adoption) notFoundWarning(plan requestModel, chosen string) string {
	if len(a.Found) > 0 || chosen == "" {
		return ""
	}
	id := fmt.Sprintf("%s/%s/%s", plan.promiseName(), plan.Namespace.ValueString(), plan.Name.ValueString())
	return fmt.Sprintf("Request %s was imported, but no destination of the promise's pool holds its files. It is "+
		"placed as a new request is, on %q (the rendezvous choice), and the apply writes it there. If it runs on "+
		"another destination, import it naming that one: %s@<destination>.", id, chosen, id)
}

// adoptPromise looks, during the first plan after an import, in the folder of every member of the
// pool for the promise's dependencies. ok is false while the inputs are unknown or when it failed.
func (r *promiseResource) adoptPromise(ctx context.Context, plan promiseModel, a adoption, diags *diag.Diagnostics) (adoption, bool) {
	if r.data == nil || plan.Name.IsUnknown() {
		return a, false
	}
	pool, ok, _ := poolFromList(ctx, path.Root("destinations"), plan.Destinations)
	deps, okDeps := plan.dependencies()
	if !ok || !okDeps {
		return a, false // unknown, or reported by the plan
	}
	files, found := r.data.probe(ctx, "Promise", fmt.Sprintf("Promise %q", plan.Name.ValueString()), pool,
		func(t layout.Target) (layout.Files, error) { return layout.DependencyFiles(t, deps) }, diags)
	if diags.HasError() {
		return a, false
	}
	a.Observed, a.Found = true, map[string]placement.Record{}
	for _, dest := range placement.Holders(files, found) {
		a.Found[dest] = found[dest]
	}
	return a, true
}

// promisePrior is the prior state an adopted promise plans from: placed where it was found.
func (a adoption) promisePrior(plan, state promiseModel) promiseModel {
	state.Destinations = plan.Destinations
	state.Placements = recordsToModel(a.Found)
	return state
}

// adoptInPlan, for the first plan after an import, finds where the request is and returns the
// prior state to plan from (the adoption is nil when there is nothing to adopt).
func (r *requestResource) adoptInPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan, state requestModel) (*adoption, requestModel) {
	if req.State.Raw.IsNull() || !state.Destination.IsNull() {
		return nil, state
	}
	a, ok := readAdoption(ctx, req.Private)
	if !ok || a.Observed {
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
// pool and returns the prior state to plan from.
func (r *promiseResource) adoptInPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan, state promiseModel) promiseModel {
	if req.State.Raw.IsNull() || !state.Placements.IsNull() {
		return state
	}
	a, ok := readAdoption(ctx, req.Private)
	if !ok || a.Observed {
		return state
	}
	if a, ok = r.adoptPromise(ctx, plan, a, &resp.Diagnostics); !ok {
		return state
	}
	resp.Diagnostics.Append(writeAdoption(ctx, resp.Private, a)...)
	return a.promisePrior(plan, state)
}

// adoptInApply starts the apply after an import from what its plan found, and forgets the import.
func (r *promiseResource) adoptInApply(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse, plan, state promiseModel) promiseModel {
	a, ok := readAdoption(ctx, req.Private)
	if !ok {
		return state
	}
	if state.Placements.IsNull() {
		if !a.Observed {
			a, ok = r.adoptPromise(ctx, plan, a, &resp.Diagnostics)
		}
		if ok && a.Observed {
			state = a.promisePrior(plan, state)
		}
	}
	resp.Diagnostics.Append(forgetAdoption(ctx, resp.Private)...)
	return state
}
