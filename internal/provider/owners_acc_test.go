package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ownersConfig is one workspace on a store: a destination "dev" in mode none at "dev", and for
// each of promises a promise with that name and a request "team-a" of it, whose documents are a
// ConfigMap naming the promise (so that who wrote dev/team-a.yaml can be read back).
func ownersConfig(ts *testStore, promises ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `
terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}
%s
resource "kratix_state_store" "s" {
%s
}

resource "kratix_destination" "dev" {
  name           = "dev"
  path           = "dev"
  filepath_mode  = "none"
  init_workloads = false
  state_store    = kratix_state_store.s
}
`, ts.provider, ts.store)
	for _, p := range promises {
		fmt.Fprintf(&b, `
resource "kratix_promise" %[1]q {
  name         = %[1]q
  destinations = [kratix_destination.dev]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %[1]s-system\n"
}

resource "kratix_resource_request" %[1]q {
  promise   = kratix_promise.%[1]s
  name      = "team-a"
  documents = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: team-a\ndata:\n  promise: %[1]s\n"
}
`, p)
	}
	return b.String()
}

// flat joins a CLI output's lines, which Terraform wraps, into one line.
func flat(out string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(out, "│", " ")), " ")
}

// expectRefused checks that a plan failed with the collision error naming both owners, the file
// and the attribute. Case is ignored: which of two owners in one plan is planned first, and so
// named first (capitalised), varies.
func expectRefused(t *testing.T, out string, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the plan succeeded; want it refused because two requests write dev/team-a.yaml:\n%s", out)
	}
	f := strings.ToLower(flat(out))
	for _, want := range append([]string{"Error: File Claimed By Another Owner", `"dev/team-a.yaml"`}, wants...) {
		if !strings.Contains(f, strings.ToLower(want)) {
			t.Errorf("the plan's output lacks %q:\n%s", want, out)
		}
	}
}

// TestAccOwnersOneConfiguration: requests team-a of promises postgres and redis on one
// destination in mode none both write dev/team-a.yaml. The plan refuses it, naming both requests
// and the documents attribute; nothing is written.
func TestAccOwnersOneConfiguration(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	c := newCLI(t, map[string]string{"main.tf": ownersConfig(ts, "postgres", "redis")})
	if out, err := c.run("apply", "-auto-approve", "-target=kratix_destination.dev"); err != nil {
		t.Fatalf("creating the destination: %v\n%s", err, out)
	}
	before := ts.mark(t)
	out, err := c.run("plan")
	expectRefused(t, out, err, "request redis/default/team-a", "request postgres/default/team-a", `resource "kratix_resource_request"`, "documents =")
	out, err = c.run("apply", "-auto-approve")
	expectRefused(t, out, err)
	if w := ts.writesSince(t, before); len(w) > 0 {
		t.Errorf("a refused plan wrote to the store: %v", w)
	}
	if files := ts.list(t); len(files) > 0 {
		t.Errorf("the store holds %v, want nothing", files)
	}
}

// TestAccOwnersAnotherWorkspace: workspace A applies request team-a of promise postgres; workspace
// B, with its own state on the same store, plans request team-a of promise redis on the same
// folder. B's plan is refused, naming A's request and the index file that lists the file, and
// A's file keeps its content.
func TestAccOwnersAnotherWorkspace(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "git-http")
	a := newCLI(t, map[string]string{"main.tf": ownersConfig(ts, "postgres")})
	if out, err := a.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("workspace A: %v\n%s", err, out)
	}
	b := newCLI(t, map[string]string{"main.tf": ownersConfig(ts, "redis")})
	if out, err := b.run("apply", "-auto-approve", "-target=kratix_destination.dev"); err != nil {
		t.Fatalf("workspace B's destination: %v\n%s", err, out)
	}
	before := ts.mark(t)
	out, err := b.run("plan")
	expectRefused(t, out, err, "Request redis/default/team-a", "request postgres/default/team-a",
		"dev/.kratix/default-postgres_team-a_default_instance-configure.dev-5058f.yaml")
	out, err = b.run("apply", "-auto-approve")
	expectRefused(t, out, err)
	if w := ts.writesSince(t, before); len(w) > 0 {
		t.Errorf("a refused plan wrote to the store: %v", w)
	}
	if got, _ := ts.read(t, "dev/team-a.yaml"); !strings.Contains(string(got), "promise: postgres") {
		t.Errorf("dev/team-a.yaml holds %q, want workspace A's ConfigMap", got)
	}
}

// TestAccOwnersDestroySparesListedFiles: workspace B's request team-a of promise redis holds
// dev/team-a.yaml, and then Kratix (spelled by hand here) writes request team-a of promise postgres
// over it, with its own index file listing it. Destroying B's request removes B's index file but
// not dev/team-a.yaml, which Kratix's index lists, and warns.
func TestAccOwnersDestroySparesListedFiles(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	onStores(t, func(t *testing.T, kind string) {
		ts := newTestStore(t, kind)
		b := newCLI(t, map[string]string{"main.tf": ownersConfig(ts, "redis")})
		if out, err := b.run("apply", "-auto-approve"); err != nil {
			t.Fatalf("workspace B: %v\n%s", err, out)
		}
		own := "dev/.kratix/default-redis_team-a_default_instance-configure.dev-5058f.yaml"
		if _, ok := ts.read(t, own); !ok {
			t.Fatalf("%s was not written; the store holds %v", own, ts.list(t))
		}
		kratixIndex := "dev/.kratix/default-postgres-team-a-default-instance-configure-ab12c.dev-5058f.yaml"
		postgres := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: team-a\ndata:\n  promise: postgres\n"
		ts.put(t, "dev/team-a.yaml", []byte(postgres))
		ts.put(t, kratixIndex, []byte("files:\n- dev/team-a.yaml\n"))

		out, err := b.run("destroy", "-auto-approve", "-target=kratix_resource_request.redis")
		if err != nil {
			t.Fatalf("destroy: %v\n%s", err, out)
		}
		if got, ok := ts.read(t, "dev/team-a.yaml"); !ok || string(got) != postgres {
			t.Errorf("after the destroy dev/team-a.yaml is %q (exists: %v), want Kratix's file kept; the store holds %v", got, ok, ts.list(t))
		}
		if _, ok := ts.read(t, own); ok {
			t.Errorf("the destroyed request's index file %s is still there", own)
		}
		if f := flat(out); !strings.Contains(f, "Warning: File Kept For Another Owner") || !strings.Contains(f, kratixIndex) {
			t.Errorf("no warning naming %s:\n%s", kratixIndex, out)
		}
	})
}

// TestAccOwnersSharedFilesKey: two requests of one promise, with other names, whose files share
// a key on one destination in mode none. The plan refuses it at that key of files.
func TestAccOwnersSharedFilesKey(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	config := ownersConfig(ts) + `
resource "kratix_promise" "app" {
  name         = "app"
  destinations = [kratix_destination.dev]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app-system\n"
}

resource "kratix_resource_request" "one" {
  promise = kratix_promise.app
  name    = "one"
  files   = { "shared/settings.yaml" = "owner: one\n" }
}

resource "kratix_resource_request" "two" {
  promise = kratix_promise.app
  name    = "two"
  files   = { "shared/settings.yaml" = "owner: two\n" }
}
`
	c := newCLI(t, map[string]string{"main.tf": config})
	if out, err := c.run("apply", "-auto-approve", "-target=kratix_destination.dev"); err != nil {
		t.Fatalf("creating the destination: %v\n%s", err, out)
	}
	out, err := c.run("plan")
	if err == nil {
		t.Fatalf("the plan succeeded; want it refused because two requests write dev/shared/settings.yaml:\n%s", out)
	}
	f := strings.ToLower(flat(out))
	for _, want := range []string{"error: file claimed by another owner", `"dev/shared/settings.yaml"`,
		"request app/default/one", "request app/default/two", `"shared/settings.yaml" = "owner:`} {
		if !strings.Contains(f, want) {
			t.Errorf("the plan's output lacks %q:\n%s", want, out)
		}
	}
	if files := ts.list(t); len(files) > 0 {
		t.Errorf("the store holds %v, want nothing", files)
	}
}

// TestAccOwnersPruneSparesListedFiles: as above, but B's request stops writing dev/team-a.yaml
// (documents replaced by another file) instead of being destroyed. The update writes the new
// file and leaves dev/team-a.yaml, which Kratix's index lists, with a warning.
func TestAccOwnersPruneSparesListedFiles(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	config := ownersConfig(ts, "redis")
	b := newCLI(t, map[string]string{"main.tf": config})
	if out, err := b.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("workspace B: %v\n%s", err, out)
	}
	kratixIndex := "dev/.kratix/default-postgres-team-a-default-instance-configure-ab12c.dev-5058f.yaml"
	postgres := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: team-a\ndata:\n  promise: postgres\n"
	ts.put(t, "dev/team-a.yaml", []byte(postgres))
	ts.put(t, kratixIndex, []byte("files:\n- dev/team-a.yaml\n"))

	documents := `  documents = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: team-a\ndata:\n  promise: redis\n"`
	if !strings.Contains(config, documents) {
		t.Fatalf("the configuration has no line %s", documents)
	}
	if err := os.WriteFile(filepath.Join(b.dir, "main.tf"), []byte(strings.Replace(config, documents, `  files = { "other.yaml" = "x: 1\n" }`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := b.run("apply", "-auto-approve")
	if err != nil {
		t.Fatalf("update: %v\n%s", err, out)
	}
	if got, ok := ts.read(t, "dev/team-a.yaml"); !ok || string(got) != postgres {
		t.Errorf("after the update dev/team-a.yaml is %q (exists: %v), want Kratix's file kept; the store holds %v", got, ok, ts.list(t))
	}
	if got, _ := ts.read(t, "dev/other.yaml"); string(got) != "x: 1\n" {
		t.Errorf("dev/other.yaml holds %q, want the new file", got)
	}
	if f := flat(out); !strings.Contains(f, "Warning: File Kept For Another Owner") || !strings.Contains(f, kratixIndex) {
		t.Errorf("no warning naming %s:\n%s", kratixIndex, out)
	}
}
