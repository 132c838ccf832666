package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestAccPromiseFromAnotherWorkspace: three workspaces, each its own working directory and
// state, with the real CLI, on one bucket and on one repository over HTTP (issue 39, points 1,
// 2 and 6):
//
//   - fleet (owner "fleet") registers w1, w2, w3 (env = prod) and w4 (env = dev);
//   - platform (owner "platform") publishes promise db over data.kratix_destinations (env =
//     prod), and places requests r1..r4 for it in its own workspace; the store holds db's record,
//     Kratix's Promise with the selectors and the pool, checked field by field with a YAML
//     parser of its own;
//   - platform removes its requests, and team (owner "team") places the same requests with
//     `promise = data.kratix_promise.db`: each lands on the destination, and writes the same
//     files with the same bytes, as in the platform workspace; team's next plan is empty;
//   - platform's owner is renamed: the record moves to the new name, and team's plan stays empty;
//   - platform destroys db: its record goes, and team's next plan fails, naming the promise.
func TestAccPromiseFromAnotherWorkspace(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	onStores(t, testPromiseFromAnotherWorkspace)
}

func testPromiseFromAnotherWorkspace(t *testing.T, kind string) {
	ts := newTestStore(t, kind)
	store := kratixStateStore{Label: "s", Body: ts.store}.String()
	var fleetConfig strings.Builder
	fleetConfig.WriteString(requiredKratix + ownedBy(ts.provider, "", "fleet") + store)
	for _, n := range []string{"w1", "w2", "w3", "w4"} {
		env := "prod"
		if n == "w4" {
			env = "dev"
		}
		fleetConfig.WriteString(kratixDestination{Label: n, Name: q(n), Path: q(n), StateStore: "kratix_state_store.s",
			Labels: fmt.Sprintf("{ env = %q }", env)}.String())
	}
	requests := []string{"r1", "r2", "r3", "r4"}
	requestsOf := func(promise string) string {
		var b strings.Builder
		for _, r := range requests {
			b.WriteString(kratixResourceRequest{Label: r, Promise: promise, Name: q(r), Documents: q(configMapDoc(r))}.String())
		}
		return b.String()
	}
	promise := `
data "kratix_destinations" "fleet" {
  state_stores          = [kratix_state_store.s]
  destination_selectors = [{ match_labels = { env = "prod" } }]
}
` + kratixPromise{Label: "db", Name: q("db"), Destinations: "data.kratix_destinations.fleet.destinations",
		DestinationSelectors: matchLabels("env", "prod"), Dependencies: q(namespaceDoc("db"))}.String()
	platformOwner := "platform"
	platformConfig := func(withRequests, withPromise bool) string {
		out := requiredKratix + ownedBy(ts.provider, "", platformOwner) + store
		if withPromise {
			out += promise
		}
		if withRequests {
			out += requestsOf("kratix_promise.db")
		}
		return out
	}
	teamConfig := requiredKratix + ownedBy(ts.provider, "", "team") + store + `
data "kratix_promise" "db" {
  name         = "db"
  state_stores = [kratix_state_store.s]
}
` + requestsOf("data.kratix_promise.db")

	fleet := newCLI(t, map[string]string{"main.tf": fleetConfig.String()})
	platform := newCLI(t, map[string]string{"main.tf": platformConfig(true, true)})
	team := newCLI(t, map[string]string{"main.tf": teamConfig})
	apply := func(c *cli, what string) {
		t.Helper()
		if out, err := c.run("apply", "-auto-approve"); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, out)
		}
	}
	configure := func(c *cli, config string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// landed is, per request, its destination and the files of its folder with their content,
	// read from the store with the test's own client.
	landed := func(c *cli) map[string]string {
		t.Helper()
		out := map[string]string{}
		for _, r := range requests {
			dest, _ := stateValues(t, c, "kratix_resource_request."+r)["destination"].(string)
			if !slices.Contains([]string{"w1", "w2", "w3"}, dest) {
				t.Fatalf("request %s is on %q, want one of the prod destinations w1, w2, w3", r, dest)
			}
			file := dest + "/resources/default/db/" + r + "/instance-configure/5058f/" + r + ".yaml"
			content, found := ts.read(t, file)
			if !found || string(content) != configMapDoc(r) {
				t.Fatalf("request %s: %s holds %q (found %v), want its ConfigMap %q", r, file, content, found, configMapDoc(r))
			}
			out[r] = dest
		}
		return out
	}

	apply(fleet, "fleet's apply")
	apply(platform, "platform's apply")
	inPlatform := landed(platform)

	// The record, read with a parser of the test's own: Kratix's Promise, with the extensions.
	record, found := ts.read(t, ".kratix-registry/promises/db/platform.yaml")
	if !found {
		t.Fatalf("db's record .kratix-registry/promises/db/platform.yaml is not in the store")
	}
	var obj struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name        string            `json:"name"`
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Spec struct {
			DestinationSelectors []struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"destinationSelectors"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(record, &obj); err != nil {
		t.Fatalf("db's record is not YAML: %v\n%s", err, record)
	}
	if obj.APIVersion != "platform.kratix.io/v1alpha1" || obj.Kind != "Promise" || obj.Metadata.Name != "db" ||
		len(obj.Spec.DestinationSelectors) != 1 || fmt.Sprint(obj.Spec.DestinationSelectors[0].MatchLabels) != "map[env:prod]" ||
		obj.Metadata.Annotations["terraform.kratix.io/owner"] != "platform" {
		t.Errorf("db's record is not Kratix's Promise db with selectors env=prod, owner platform:\n%s", record)
	}
	var pool []struct {
		Name     string `json:"name"`
		Path     string `json:"path"`
		Instance string `json:"instanceID"`
		Location string `json:"storeLocation"`
	}
	if err := yaml.Unmarshal([]byte(obj.Metadata.Annotations["terraform.kratix.io/destinations"]), &pool); err != nil {
		t.Fatalf("db's record's pool annotation does not parse: %v\n%s", err, record)
	}
	var names []string
	for _, m := range pool {
		names = append(names, m.Name)
		if m.Path != m.Name || m.Location != ts.location || m.Instance == "" {
			t.Errorf("db's record says destination %s is at path %q of %q, instance %q; want path %q of %q, an instance",
				m.Name, m.Path, m.Location, m.Instance, m.Name, ts.location)
		}
	}
	if !slices.Equal(names, []string{"w1", "w2", "w3"}) {
		t.Errorf("db's record's pool is %v, want [w1 w2 w3]", names)
	}
	if out, err := platform.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("platform's plan after its apply is not empty: %v\n%s", err, out)
	}

	// The same requests, from the team's workspace.
	configure(platform, platformConfig(false, true))
	apply(platform, "platform's apply removing its requests")
	for r, dest := range inPlatform {
		if _, found := ts.read(t, dest+"/resources/default/db/"+r+"/instance-configure/5058f/"+r+".yaml"); found {
			t.Fatalf("request %s's file is still on %s after platform removed it", r, dest)
		}
	}
	apply(team, "team's apply")
	inTeam := landed(team)
	for _, r := range requests {
		if inTeam[r] != inPlatform[r] {
			t.Errorf("request %s lands on %s from the team's workspace, on %s from the platform's", r, inTeam[r], inPlatform[r])
		}
	}
	if out, err := team.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("team's plan after its apply is not empty: %v\n%s", err, out)
	}

	// Platform's owner is renamed: the record moves to the new owner's name, and nothing else
	// changes for the team.
	platformOwner = "platform-renamed"
	configure(platform, platformConfig(false, true))
	apply(platform, "platform's apply under its new owner")
	if _, found := ts.read(t, ".kratix-registry/promises/db/platform.yaml"); found {
		t.Errorf("db's record under its old owner is still in the store after the owner was renamed")
	}
	if _, found := ts.read(t, ".kratix-registry/promises/db/platform-renamed.yaml"); !found {
		t.Errorf("db's record under its new owner is not in the store")
	}
	if out, err := team.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("team's plan after platform's owner was renamed is not empty: %v\n%s", err, out)
	}

	// Platform destroys db: its record goes, and team can no longer read the promise.
	configure(platform, platformConfig(false, false))
	apply(platform, "platform's apply destroying db")
	if _, found := ts.read(t, ".kratix-registry/promises/db/platform-renamed.yaml"); found {
		t.Errorf("db's record is still in the store after its destroy")
	}
	out, err := team.run("plan")
	if err == nil || !strings.Contains(out, "Promise Not Published") || !strings.Contains(out, `promise "db"`) {
		t.Errorf("team's plan after db was destroyed should fail with Promise Not Published naming db: %v\n%s", err, out)
	}
}
