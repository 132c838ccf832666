package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// observeRequestTF is destinations w1 (role app) and w2 (role db) on store s, promise p, and
// three requests of p observing folder "health" of the same bucket or repository through store
// h: "app" in namespace team-a and "app" in namespace default, both on w1, and "grouped" in
// namespace default, whose files outside group db go to w1 and whose group db goes to w2.
func observeRequestTF(ts *testStore) string {
	health := regexp.MustCompile(`(?m)^(\s*)name(\s+)= "([^"]+)"`).ReplaceAllString(ts.store, "${1}name${2}= \"${3}-health\"\n${1}path = \"health\"")
	observe := "{ state_store = kratix_state_store.h }"
	return storeConfig(ts) + kratixStateStore{Label: "h", Body: health}.String() +
		block("locals", []hclAttr{{"roles", `["app", "db"]`}}, "") + kratixDestination{
		Label: "d", Count: "2", Name: q("w${count.index + 1}"), Path: q("w${count.index + 1}"),
		Labels: "{ role = local.roles[count.index] }", StateStore: "kratix_state_store.s",
	}.String() + kratixPromise{Label: "p", Name: q("p"), Destinations: "kratix_destination.d", Dependencies: q(rolloutNamespace("v1"))}.String() +
		kratixResourceRequest{
			Label: "team", Promise: "kratix_promise.p", Name: q("app"), Namespace: q("team-a"),
			DestinationSelectors: matchLabels("role", "app"), Documents: q(configMapDoc("team")), Observe: observe,
		}.String() + kratixResourceRequest{
		Label: "plain", Promise: "kratix_promise.p", Name: q("app"),
		DestinationSelectors: matchLabels("role", "app"), Documents: q(configMapDoc("plain")), Observe: observe,
	}.String() + kratixResourceRequest{
		Label: "grouped", Promise: "kratix_promise.p", Name: q("grouped"), DestinationSelectors: matchLabels("role", "app"),
		Files:   hclObj{{`"app.yaml"`, q("kind: ConfigMap\n")}, {`"db/db.yaml"`, q("kind: Secret\n")}},
		Observe: observe,
		Body:    attrLines(hclAttr{"groups", `{ db = { destination_selectors = [{ match_labels = { role = "db" } }] } }`}),
	}.String()
}

// requestRecord is a HealthRecord of promise p, of request name in namespace (name "": of the
// promise itself, no resourceRef), in state, last run at lastRun.
func requestRecord(name, namespace, state string, lastRun time.Time) string {
	var b strings.Builder
	b.WriteString("apiVersion: platform.kratix.io/v1alpha1\nkind: HealthRecord\nmetadata:\n  name: p-health\n  namespace: default\ndata:\n")
	b.WriteString("  promiseRef:\n    name: p\n")
	if name != "" {
		fmt.Fprintf(&b, "  resourceRef:\n    name: %s\n    namespace: %q\n    generation: 1\n", name, namespace)
	}
	fmt.Fprintf(&b, "  state: %s\n  lastRun: %d\n", state, lastRun.Unix())
	return b.String()
}

// TestAccObserveRequest: a request's `health` shows, per destination, the newest record of that
// request (its promise, its name and its namespace, "" standing for "default") in the observe
// folder: records of the promise itself and of another request, though newer, are left out. A
// request whose workload group lands on another destination has health on both. The refresh that
// reads them writes nothing and plans nothing.
func TestAccObserveRequest(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		clock := &fakeClock{at: t0}
		var mark acctest.Mark
		h := func(request, attr, want string) resource.TestCheckFunc {
			return resource.TestCheckResourceAttr("kratix_resource_request."+request, "health."+attr, want)
		}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersWithClock(clock),
			Steps: []resource.TestStep{
				{
					// Written at t0; no record yet.
					Config: observeRequestTF(ts),
					Check: resource.ComposeAggregateTestCheckFunc(
						resource.TestCheckResourceAttr("kratix_resource_request.grouped", "group_placements.db.destination", "w2"),
						h("team", "%", "1"), h("team", "w1.state", "unknown"), h("team", "w1.fresh", "false"),
						h("plain", "%", "1"), h("plain", "w1.state", "unknown"),
						h("grouped", "%", "2"), h("grouped", "w1.state", "unknown"), h("grouped", "w2.state", "unknown"),
					),
				},
				{
					// Ten minutes on, the agents have reported. On w1: team-a/app healthy at
					// +5m, app with namespace "" (default) degraded at +6m; newer, the
					// promise's own record and team-a/other's, which are no request's here.
					// On w2: grouped's group, ready at +7m.
					PreConfig: func() {
						clock.set(t0.Add(10 * time.Minute))
						ts.put(t, "health/w1/team.yaml", []byte(requestRecord("app", "team-a", "healthy", t0.Add(5*time.Minute))))
						ts.put(t, "health/w1/plain.yaml", []byte(requestRecord("app", "", "degraded", t0.Add(6*time.Minute))))
						ts.put(t, "health/w1/promise.yaml", []byte(requestRecord("", "", "unhealthy", t0.Add(9*time.Minute))))
						ts.put(t, "health/w1/other.yaml", []byte(requestRecord("other", "team-a", "unhealthy", t0.Add(9*time.Minute))))
						ts.put(t, "health/w2/grouped.yaml", []byte(requestRecord("grouped", "default", "ready", t0.Add(7*time.Minute))))
						mark = ts.mark(t)
					},
					Config:            observeRequestTF(ts),
					ConfigStateChecks: []statecheck.StateCheck{acctest.NoWritesSince(ts.journal, &mark)},
					Check: resource.ComposeAggregateTestCheckFunc(
						h("team", "%", "1"), h("team", "w1.state", "healthy"), h("team", "w1.fresh", "true"),
						h("team", "w1.last_run", "2030-01-02T03:09:05Z"), h("team", "w1.source", "health/w1/team.yaml"),
						h("plain", "%", "1"), h("plain", "w1.state", "degraded"), h("plain", "w1.fresh", "true"),
						h("plain", "w1.last_run", "2030-01-02T03:10:05Z"), h("plain", "w1.source", "health/w1/plain.yaml"),
						h("grouped", "%", "2"),
						h("grouped", "w1.state", "unknown"), h("grouped", "w1.fresh", "false"),
						resource.TestCheckNoResourceAttr("kratix_resource_request.grouped", "health.w1.source"),
						h("grouped", "w2.state", "ready"), h("grouped", "w2.fresh", "true"),
						h("grouped", "w2.last_run", "2030-01-02T03:11:05Z"), h("grouped", "w2.source", "health/w2/grouped.yaml"),
					),
				},
				{
					// The same, read again: no plan.
					Config:   observeRequestTF(ts),
					PlanOnly: true,
				},
			},
		})
	})
}
