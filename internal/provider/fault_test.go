package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// TestAccFault_storeDownDuringApply: a plan is made, one of the two MinIO servers a promise
// writes to stops before the apply runs. The apply fails naming that store; state records the
// new file on the reachable store and keeps the old one on the other; once the server is back
// the next plan changes only the store that was missed, its apply converges, and an object
// beside the managed folders is untouched.
func TestAccFault_storeDownDuringApply(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ctx := context.Background()
	second := secondMinIO(t, "fault")
	client, err := minioServer.Client()
	if err != nil {
		t.Fatal(err)
	}
	beside := []byte("written by someone else\n")
	if _, err := client.PutObject(ctx, "fault", "w1/README.md", bytes.NewReader(beside), int64(len(beside)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	config := func(ns string) string {
		return requiredKratix + kratixProviderBlock{Secrets: []hclAttr{
			bucketSecret("one", minioServer.AccessKey, minioServer.SecretKey),
			bucketSecret("two", second.AccessKey, second.SecretKey),
		}}.String() +
			kratixStateStore{Label: "one", Name: q("one"), SecretRef: q("one"), Bucket: bucketAt(minioServer.Endpoint, "fault")}.String() +
			kratixStateStore{Label: "two", Name: q("two"), SecretRef: q("two"), Bucket: bucketAt(second.Endpoint, "fault")}.String() +
			kratixDestination{
				Label: "d", Count: "2", Name: q("w${count.index + 1}"), Path: q("w${count.index + 1}"), InitWorkloads: "false",
				StateStore: "[kratix_state_store.one, kratix_state_store.two][count.index]",
			}.String() +
			kratixPromise{Label: "p", Name: q("app"), Dependencies: q(namespaceDoc(ns)), Destinations: "kratix_destination.d"}.String()
	}
	c := newCLI(t, map[string]string{"main.tf": config("v1")})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config("v2")), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := c.run("plan", "-out", "v2.tfplan"); err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	second.Down()
	out, err := c.run("apply", "v2.tfplan")
	if err == nil || !strings.Contains(out, "Cannot Write Promise") || !strings.Contains(out, second.Endpoint) || !strings.Contains(out, "endpoint unreachable") {
		t.Fatalf("the apply with a store down should fail naming it (%s) and the cause:\n%s", second.Endpoint, out)
	}
	read := func(c *minio.Client, key string) string {
		obj, err := c.GetObject(ctx, "fault", key, minio.GetObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = obj.Close() }()
		var b bytes.Buffer
		_, _ = b.ReadFrom(obj)
		return b.String()
	}
	file := "w%d/dependencies/app/5058f/static/app-dependencies.yaml"
	w1, w2 := fmt.Sprintf(file, 1), fmt.Sprintf(file, 2)
	namespace := func(name string) string { return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + name + "\n" }
	if got := read(client, w1); got != namespace("v2") {
		t.Errorf("the reachable store holds %q, want %q", got, namespace("v2"))
	}
	// State records what each store holds: w1 written at v2, w2 still at v1.
	placement := func(store string, server *testinfra.MinIO, root, path, content string) promisePlacementJSON {
		return promisePlacementJSON{Store: store, Location: "s3://" + server.Endpoint + "/fault", Root: root, Files: map[string]string{path: md5Of(content)}}
	}
	wantAfterFailure := map[string]promisePlacementJSON{
		"w1": placement("one", minioServer, "w1", w1, namespace("v2")),
		"w2": placement("two", second, "w2", w2, namespace("v1")),
	}
	if got := statePlacements(t, c, "kratix_promise.p"); !reflect.DeepEqual(got, wantAfterFailure) {
		t.Errorf("state after the failed apply records\n%+v\nwant\n%+v", got, wantAfterFailure)
	}
	if err := second.Up(); err != nil {
		t.Fatal(err)
	}
	// The next plan changes only what was not written: w2's file, not w1's.
	if out, err := c.run("plan", "-out", "repair.tfplan"); err != nil {
		t.Fatalf("plan after the store is back: %v\n%s", err, out)
	}
	before, after := planPlacements(t, c, "repair.tfplan", "kratix_promise.p")
	wantAfterRepair := map[string]promisePlacementJSON{
		"w1": placement("one", minioServer, "w1", w1, namespace("v2")),
		"w2": placement("two", second, "w2", w2, namespace("v2")),
	}
	if !reflect.DeepEqual(before, wantAfterFailure) || !reflect.DeepEqual(after, wantAfterRepair) {
		t.Errorf("the repair plan goes from\n%+v\nto\n%+v\nwant from\n%+v\nto\n%+v", before, after, wantAfterFailure, wantAfterRepair)
	}
	if out, err := c.run("apply", "repair.tfplan"); err != nil {
		t.Fatalf("apply after the store is back: %v\n%s", err, out)
	}
	client2, err := second.Client()
	if err != nil {
		t.Fatal(err)
	}
	if got := read(client2, w2); got != namespace("v2") {
		t.Errorf("the store that was down holds %q, want %q", got, namespace("v2"))
	}
	if got := statePlacements(t, c, "kratix_promise.p"); !reflect.DeepEqual(got, wantAfterRepair) {
		t.Errorf("state after the repair records\n%+v\nwant\n%+v", got, wantAfterRepair)
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after convergence is not empty: %v\n%s", err, out)
	}
	if got := read(client, "w1/README.md"); got != string(beside) {
		t.Errorf("the object beside the managed folders changed: %q", got)
	}
}

// promisePlacementJSON is one entry of a promise's placements as `terraform show -json` prints it.
type promisePlacementJSON struct {
	Store        string            `json:"store"`
	Location     string            `json:"location"`
	Root         string            `json:"root"`
	Misscheduled bool              `json:"misscheduled"`
	Files        map[string]string `json:"files"`
}

// statePlacements reads a promise's placements from the state, through the Terraform CLI.
func statePlacements(t *testing.T, c *cli, address string) map[string]promisePlacementJSON {
	t.Helper()
	out, err := c.run("show", "-json")
	if err != nil {
		t.Fatalf("terraform show -json: %v\n%s", err, out)
	}
	var state struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address string `json:"address"`
					Values  struct {
						Placements map[string]promisePlacementJSON `json:"placements"`
					} `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(out), &state); err != nil {
		t.Fatalf("terraform show -json: %v\n%s", err, out)
	}
	for _, r := range state.Values.RootModule.Resources {
		if r.Address == address {
			return r.Values.Placements
		}
	}
	t.Fatalf("%s is not in the state:\n%s", address, out)
	return nil
}

// planPlacements reads a promise's placements before and after a saved plan.
func planPlacements(t *testing.T, c *cli, planFile, address string) (before, after map[string]promisePlacementJSON) {
	t.Helper()
	out, err := c.run("show", "-json", planFile)
	if err != nil {
		t.Fatalf("terraform show -json %s: %v\n%s", planFile, err, out)
	}
	type values struct {
		Placements map[string]promisePlacementJSON `json:"placements"`
	}
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Change  struct {
				Before values `json:"before"`
				After  values `json:"after"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatalf("terraform show -json %s: %v\n%s", planFile, err, out)
	}
	for _, r := range plan.ResourceChanges {
		if r.Address == address {
			return r.Change.Before.Placements, r.Change.After.Placements
		}
	}
	t.Fatalf("%s is not in the plan:\n%s", address, out)
	return nil, nil
}

// TestAccFault_hookRejectsPush: a server-side hook refusing pushes fails the apply with the
// hook's own message, and nothing is recorded as written.
func TestAccFault_hookRejectsPush(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "git-http")
	repo := storeName(ts)
	hook := filepath.Join(gitServer.RepoPath(repo), "hooks", "pre-receive")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\necho 'policy: main is frozen for the release' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config:      storeAndDestination(ts, ts.provider),
			ExpectError: wrapped(`Cannot Write Destination[\s\S]*push rejected[\s\S]*policy: main is frozen for the release`),
		}},
	})
	if err := acctest.Check(context.Background(), acctest.NoWritesSince(ts.journal, &acctest.Mark{})); err != nil {
		t.Errorf("the rejected push left commits on the branch: %v", err)
	}
}

// TestAccFault_otherWriterDuringApply: another client pushes to the branch while the provider's
// push is in flight (a server hook makes that push, once). The provider's push is refused, it
// re-applies its change on the new tip, and both changes end up in the history.
func TestAccFault_otherWriterDuringApply(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "git-http")
	repo := storeName(ts)
	hook := `#!/bin/sh
[ -n "$OTHER_WRITER" ] && exit 0
[ -e other-wrote ] && exit 0
touch other-wrote
repo=$(pwd)
work=$(mktemp -d)
env -i PATH="$PATH" HOME="$HOME" OTHER_WRITER=1 GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null sh -ec '
git clone -q "$1" "$2"
cd "$2"
echo "theirs" > other-writer.yaml
git add .
git -c user.name=other -c user.email=o@example.com commit -qm "their change"
git push -q origin HEAD:main' _ "$repo" "$work" >&2
rm -rf "$work"
`
	if err := os.WriteFile(filepath.Join(gitServer.RepoPath(repo), "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			Config: storeAndDestination(ts, ts.provider),
			ConfigStateChecks: []statecheck.StateCheck{
				// Both changes are in the history (the hook's commit is no edit by hand, so the
				// journal lists it), and both writes are in the tree.
				acctest.WritesSince(ts.journal, &acctest.Mark{}, "their change", "Update from: kratix-canary"),
				acctest.FileHolds(ts.view, "other-writer.yaml", "theirs\n"),
				acctest.FileHolds(ts.view, "worker-1/dependencies/kratix-canary-namespace.yaml", wantNamespace),
			},
		}},
	})
}
