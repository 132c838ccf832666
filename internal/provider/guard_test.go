package provider

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/guardattr"
)

// ackOf states an acknowledgement independently of the provider, from the form its description
// documents: "ack-" and the first 16 hex digits of the SHA-256 of "<type>\t<name>\n" followed by
// one line per destination that loses files, in name order, its fields joined by tabs.
func ackOf(typ, name string, lines ...string) string {
	sum := sha256.Sum256([]byte(typ + "\t" + name + "\n" + strings.Join(lines, "\n") + "\n"))
	return "ack-" + hex.EncodeToString(sum[:])[:16]
}

// inOrder is a regexp matching the words of each part, in order, whatever way Terraform wraps
// the lines of a diagnostic.
func inOrder(parts ...string) *regexp.Regexp {
	quoted := make([]string, len(parts))
	for i, p := range parts {
		words := strings.Fields(p)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		quoted[i] = strings.Join(words, `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, `.*`))
}

type guardScene struct {
	selectors  string // the promise's destination_selectors
	promiseAck string // the promise's guard.acknowledge, "" for none
	pool       string // the promise's destinations
	requestSel string // the request's destination_selectors
	requestAck string
}

func guardConfig(ts *testStore, s guardScene) string {
	ack := func(v string) string {
		if v == "" {
			return ""
		}
		return q(v)
	}
	dest := func(name, labels string) string {
		return kratixDestination{Label: name, Name: q(name), Path: q(name), Labels: labels, StateStore: "kratix_state_store.s"}.String()
	}
	return storeConfig(ts) + dest("w1", `{ role = "keep", tier = "prod" }`) + dest("w2", `{ role = "drop" }`) +
		dest("w3", `{ role = "drop" }`) + dest("w4", `{ role = "drop" }`) + dest("w5", `{ role = "keep" }`) + kratixPromise{
		Label: "p", Name: q("p"), Destinations: s.pool, DestinationSelectors: s.selectors, OnUnschedule: q("delete"),
		Dependencies: q(namespaceDoc("p")),
		Body: attrLines(hclAttr{"guard", hclObj{
			{"max_destinations_removed", "2"}, {"protect", `[{ match_labels = { tier = "prod" } }]`}, {"acknowledge", ack(s.promiseAck)},
		}}),
	}.String() + kratixResourceRequest{
		Label: "r", Promise: "kratix_promise.p", Name: q("r"), DestinationSelectors: s.requestSel, Documents: q(configMapDoc("r")),
		Body: attrLines(hclAttr{"guard", hclObj{{"acknowledge", ack(s.requestAck)}}.inline()}),
	}.String()
}

// TestAccGuard: on a bucket and on git over HTTP, the guard refuses at plan a selector change
// that would remove a promise's files from three destinations (more than two), leaving the store
// as it was; the printed acknowledgement does not pass another set, and lets that exact change
// apply, which removes the files from exactly those destinations. A protected destination
// refuses the deletion of a single (stray) file until acknowledged, and a request moved off its
// destination is refused, then acknowledged.
func TestAccGuard(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		all := "[kratix_destination.w1, kratix_destination.w2, kratix_destination.w3, kratix_destination.w4, kratix_destination.w5]"
		withoutW1 := "[kratix_destination.w2, kratix_destination.w3, kratix_destination.w4, kratix_destination.w5]"
		keep := `[{ match_labels = { role = "keep" } }]`
		none := `[{ match_labels = { role = "none" } }]`
		prod := `[{ match_labels = { tier = "prod" } }]`
		deps := func(d string) string { return d + "/dependencies/p/5058f/static/p-dependencies.yaml" }
		depsYAML := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: p\n"
		canaries := func(d string) []string {
			return []string{d + "/dependencies/kratix-canary-namespace.yaml", d + "/resources/kratix-canary-configmap.yaml"}
		}
		requestFile := func(d string) string { return d + "/resources/default/p/r/instance-configure/5058f/r.yaml" }
		stray := "w1/dependencies/p/5058f/static/stray.yaml"

		// The sets, stated by hand.
		ackThree := ackOf("kratix_promise", "p", "w2\tremoved", "w3\tremoved", "w4\tremoved")
		ackFive := ackOf("kratix_promise", "p", "w1\tremoved", "w2\tremoved", "w3\tremoved", "w4\tremoved", "w5\tremoved")
		ackStray := ackOf("kratix_promise", "p", "w1\tfiles\t"+stray)
		ackMove := ackOf("kratix_resource_request", "default/p/r", "w1\tmoved\t"+ts.location+" w1\tdestination w5")

		// everyDeps checks that every destination holds the promise's dependencies.
		var eachDeps []statecheck.StateCheck
		for _, d := range []string{"w1", "w2", "w3", "w4", "w5"} {
			eachDeps = append(eachDeps, acctest.FileHolds(ts.view, deps(d), depsYAML))
		}
		everyDeps := acctest.All(eachDeps...)
		var mark acctest.Mark
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{
				{
					Config: guardConfig(ts, guardScene{selectors: "[]", pool: all, requestSel: prod}),
					ConfigStateChecks: []statecheck.StateCheck{
						everyDeps,
						acctest.FileHolds(ts.view, requestFile("w1"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r\n"),
					},
				},
				{
					// (a) Three destinations unscheduled with on_unschedule = "delete": refused.
					PreConfig:   func() { mark = ts.mark(t) },
					Config:      guardConfig(ts, guardScene{selectors: keep, pool: all, requestSel: prod}),
					ExpectError: inOrder("Change Refused by the Guard", `Promise "p"`, "3 destinations lose files, more than max_destinations_removed = 2", "- w2:", "- w3:", "- w4:", "acknowledge = \""+ackThree+"\"", "valid only for this exact set of destinations"),
				},
				{
					// The refused plan wrote nothing. (c) The acknowledgement of those three does not
					// pass another set: all five.
					PreConfig: func() {
						if w := ts.writesSince(t, mark); len(w) > 0 {
							t.Errorf("the refused plan wrote to the store: %v", w)
						}
						if err := acctest.Check(context.Background(), everyDeps); err != nil {
							t.Errorf("after the refused plan: %v", err)
						}
					},
					Config:      guardConfig(ts, guardScene{selectors: none, promiseAck: ackThree, pool: all, requestSel: prod}),
					ExpectError: inOrder("Change Refused by the Guard", "5 destinations lose files", "protected destinations (tier=prod) lose files: w1", "- w1:", "- w5:", "acknowledge = \""+ackFive+"\"", "acknowledge = \""+ackThree+"\" stands for another change"),
				},
				{
					// (b) Acknowledged: the change applies; the files are gone from exactly w2, w3, w4.
					Config: guardConfig(ts, guardScene{selectors: keep, promiseAck: ackThree, pool: all, requestSel: prod}),
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FolderHolds(ts.view, "w1/dependencies/", canaries("w1")[0], deps("w1")),
						acctest.FolderHolds(ts.view, "w2/", canaries("w2")...),
						acctest.FolderHolds(ts.view, "w3/", canaries("w3")...),
						acctest.FolderHolds(ts.view, "w4/", canaries("w4")...),
						acctest.FolderHolds(ts.view, "w5/", canaries("w5")[0], deps("w5"), canaries("w5")[1]),
						acctest.FileHolds(ts.view, requestFile("w1"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r\n"),
					},
				},
				{
					// (d) A stray file in the promise's folder on protected w1: removing it is refused.
					PreConfig: func() {
						ts.put(t, stray, []byte("kind: Stray\n"))
						mark = ts.mark(t)
					},
					Config:      guardConfig(ts, guardScene{selectors: keep, promiseAck: ackThree, pool: all, requestSel: prod}),
					ExpectError: inOrder("Change Refused by the Guard", "protected destinations (tier=prod) lose files: w1", "- w1: 1 file(s) deleted: "+stray, "acknowledge = \""+ackStray+"\""),
				},
				{
					PreConfig: func() {
						if w := ts.writesSince(t, mark); len(w) > 0 {
							t.Errorf("the refused plan wrote to the store: %v", w)
						}
						if err := acctest.Check(context.Background(), acctest.FileHolds(ts.view, stray, "kind: Stray\n")); err != nil {
							t.Errorf("after the refused plan: %v", err)
						}
					},
					Config: guardConfig(ts, guardScene{selectors: keep, promiseAck: ackStray, pool: all, requestSel: prod}),
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileMissing(ts.view, stray),
						acctest.FileHolds(ts.view, deps("w1"), depsYAML),
					},
				},
				{
					// (e) w1 leaves the promise's pool and the request drops its own selector: the
					// request would move to w5. Refused.
					PreConfig:   func() { mark = ts.mark(t) },
					Config:      guardConfig(ts, guardScene{selectors: keep, promiseAck: ackStray, pool: withoutW1, requestSel: "[]"}),
					ExpectError: inOrder("Change Refused by the Guard", "Request p/default/r", `the request moves off destination "w1"`, "- w1: moves from "+ts.location+" w1 to destination w5", "acknowledge = \""+ackMove+"\""),
				},
				{
					PreConfig: func() {
						if w := ts.writesSince(t, mark); len(w) > 0 {
							t.Errorf("the refused plan wrote to the store: %v", w)
						}
					},
					Config: guardConfig(ts, guardScene{selectors: keep, promiseAck: ackStray, pool: withoutW1, requestSel: "[]", requestAck: ackMove}),
					Check:  resource.TestCheckResourceAttr("kratix_resource_request.r", "destination", "w5"),
					ConfigStateChecks: []statecheck.StateCheck{
						acctest.FileHolds(ts.view, requestFile("w5"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r\n"),
					},
				},
			},
		})
	})
}

// TestGuardDiagnostics: an unknown guard, or an unknown part of it, decides nothing at plan; a
// refusal is an error at `guard` printing the acknowledgement, which then gives a warning.
func TestGuardDiagnostics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	typ, ok := guardattr.PromiseSchema().GetType().(types.ObjectType)
	if !ok {
		t.Fatal("guard is not an object")
	}
	protectType := typ.AttrTypes["protect"]
	guard := func(maxRemoved attr.Value, ack attr.Value) types.Object {
		return types.ObjectValueMust(typ.AttrTypes, map[string]attr.Value{
			"max_destinations_removed": maxRemoved, "protect": types.ListNull(protectType.(types.ListType).ElemType), "acknowledge": ack,
		})
	}
	losses := []placement.Loss{{Destination: "a", Kind: placement.LossRemoved}}
	// printf 'kratix_promise\tjenkins\na\tremoved\n' | sha256sum | cut -c1-16
	const ack = "ack-d227c3a30c79d8d1"
	for what, g := range map[string]types.Object{
		"unknown guard":       types.ObjectUnknown(typ.AttrTypes),
		"unknown limit":       guard(types.Int64Unknown(), types.StringNull()),
		"unknown acknowledge": guard(types.Int64Value(0), types.StringUnknown()),
		"null guard":          types.ObjectNull(typ.AttrTypes),
		"within the limit":    guard(types.Int64Value(1), types.StringNull()),
	} {
		if d := guardattr.Check(ctx, g, placement.GuardPromise, "jenkins", `Promise "jenkins"`, losses); len(d) > 0 {
			t.Errorf("%s: %v", what, d)
		}
	}
	d := guardattr.Check(ctx, guard(types.Int64Value(0), types.StringNull()), placement.GuardPromise, "jenkins", `Promise "jenkins"`, losses)
	if !d.HasError() || len(d) != 1 {
		t.Fatalf("refusal: %v", d)
	}
	withPath, isAttr := d[0].(diag.DiagnosticWithPath)
	if !isAttr || !withPath.Path().Equal(path.Root("guard")) {
		t.Errorf("refusal not at guard: %v", d[0])
	}
	if !strings.Contains(d[0].Detail(), `guard = { ..., acknowledge = "`+ack+`" }`) || !strings.Contains(d[0].Detail(), "  - a: every file of the placement is removed") {
		t.Errorf("refusal detail:\n%s", d[0].Detail())
	}
	d = guardattr.Check(ctx, guard(types.Int64Value(0), types.StringValue(ack)), placement.GuardPromise, "jenkins", `Promise "jenkins"`, losses)
	if d.HasError() || d.WarningsCount() != 1 || !strings.Contains(d[0].Detail(), "  - a: every file of the placement is removed") {
		t.Errorf("acknowledged: %v", d)
	}
}
