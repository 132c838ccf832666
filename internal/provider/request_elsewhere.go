package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
)

// A request this state does not hold yet may be placed already: its state removed (`terraform
// state rm`) or lost, or applied from another workspace. Planned as new, it goes to the rendezvous
// choice, which is where its files are unless a taint has turned the request away from that
// destination since; then the new request would be written elsewhere and the old copy would keep
// running with nothing to remove it. So the plan of a new request looks in the folders of the
// candidates it passed over for a taint (few, and only then), and warns when one holds it.

// heldElsewhere is the warning for a new request whose files a destination it passed over for a
// taint already holds; "" when none does, or when that cannot be known in this plan.
func (r *requestResource) heldElsewhere(ctx context.Context, plan requestModel, p requestPlan, pool []poolMember) string {
	if r.data == nil || r.data.isOffline() || len(p.PassedOver) == 0 || (plan.writeOnly() && plan.secret == nil) {
		return ""
	}
	out, err := plan.output(ctx)
	if err != nil {
		return ""
	}
	if groups, _ := plan.groupConfigs(); len(groups) > 0 {
		if out, _, err = splitGroups(out, tfvalue.SortedKeys(groups)); err != nil || len(out.Files) == 0 {
			return ""
		}
	}
	var passed []poolMember
	for _, m := range pool {
		if slices.Contains(p.PassedOver, m.Name) {
			passed = append(passed, m)
		}
	}
	forms := kratixForms{index: func(t layout.Target) layout.KratixIndex { return layout.KratixRequestIndex(t, out) }, hashKey: plan.hashKey()}
	for _, rel := range tfvalue.SortedKeys(out.Files) {
		forms.contents = append(forms.contents, out.Files[rel])
	}
	var scratch diag.Diagnostics // a store that cannot be read here fails the apply, which says why
	found := r.data.probe(ctx, "Request", "Request "+plan.id(), path.Root("promise").AtName("destinations"), passed,
		func(t layout.Target) (layout.Files, error) { return layout.RequestFiles(t, out) }, forms, &scratch)
	if scratch.HasError() || len(found.holders) == 0 {
		return ""
	}
	id, holder := plan.id(), found.holders[0]
	to := "no destination"
	if p.Chosen != nil {
		to = fmt.Sprintf("%q", p.Chosen.Name)
	}
	return fmt.Sprintf("Request %s is new to this state, but the folder of destination %s already holds its files, and "+
		"a taint the request does not tolerate turns it away from there now. This plan writes it to %s as a new request "+
		"and leaves the copy on %s where it is, still applied by that cluster, with nothing to remove it.\n\n"+
		"If it is this request (its state was removed or lost), import it instead of creating it, with the id %s@%s "+
		"(an import block, or terraform import): the plan after the import moves it off %q, writing the new destination "+
		"before it removes the old copy.",
		id, quoteList(found.holders), to, quoteList(found.holders), id, holder, holder)
}

// quoteList writes names quoted and joined with ", ".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
