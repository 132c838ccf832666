package provider

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// TestAccGuideOneFleet walks the guide "One fleet, many workspaces" with its three examples,
// the real CLI and one file:// repository shared by five working directories (five states):
// two fleet workspaces (eu, us), two platform workspaces managing promise postgres per shard
// (platform-a shard 0, platform-b shard 1), and an application workspace requesting it through
// data.kratix_promise. What the repository must hold is stated here, from the guide's fleet, and
// read back with git:
//
//   - the two shards split the production destinations (eu-1, eu-2, eu-3, us-1, us-2) between
//     them, with no overlap and nothing left out; every production destination holds postgres's
//     file, eu-4 (dev) does not; each platform workspace publishes its own record;
//   - the request lands on a production destination and its file is there; every plan after
//     is empty;
//   - platform-b planned with platform-a's shard is refused, naming both owners, and writes nothing;
//   - the US fleet registers us-3: exactly one platform workspace's next plan schedules it, with
//     no change to its configuration, and its apply writes the file.
func TestAccGuideOneFleet(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	read := func(name string) string {
		t.Helper()
		src, err := os.ReadFile(filepath.Join("../../examples/guides/one-fleet-many-workspaces", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(src)
	}
	repo := filepath.Join(t.TempDir(), "fleet.git")
	gitRun(t, "", "init", "--quiet", "--bare", "-b", "main", repo)
	env := "TF_VAR_repository_url=file://" + repo
	fleetEU := newCLI(t, map[string]string{"main.tf": read("fleet/main.tf")}, env, "KRATIX_OWNER=fleet-eu")
	usClusters := func(names ...string) string {
		var b strings.Builder
		b.WriteString("region = \"us\"\nclusters = {\n")
		for _, n := range names {
			b.WriteString("  " + n + " = \"prod\"\n")
		}
		return b.String() + "}\n"
	}
	fleetUS := newCLI(t, map[string]string{"main.tf": read("fleet/main.tf"), "terraform.tfvars": usClusters("us-1", "us-2")}, env, "KRATIX_OWNER=fleet-us")
	platformA := newCLI(t, map[string]string{"main.tf": read("main.tf"), "terraform.tfvars": "shard = 0\n"}, env, "KRATIX_OWNER=platform-a")
	platformB := newCLI(t, map[string]string{"main.tf": read("main.tf"), "terraform.tfvars": "shard = 1\n"}, env, "KRATIX_OWNER=platform-b")
	app := newCLI(t, map[string]string{"main.tf": read("app/main.tf")}, env, "KRATIX_OWNER=team-orders")
	all := []*cli{fleetEU, fleetUS, platformA, platformB, app}

	apply := func(c *cli) {
		t.Helper()
		if out, err := c.run("apply", "-auto-approve"); err != nil {
			t.Fatalf("apply in %s: %v\n%s", c.dir, err, out)
		}
	}
	files := func() []string {
		t.Helper()
		out, err := exec.Command("git", "--git-dir", repo, "ls-tree", "-r", "--name-only", "main").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.Fields(string(out))
	}
	commits := func() string {
		t.Helper()
		out, err := exec.Command("git", "--git-dir", repo, "rev-list", "--count", "main").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	scheduled := func(c *cli) []string {
		t.Helper()
		var out []string
		for _, v := range stateValues(t, c, "kratix_promise.postgres")["scheduled_destinations"].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	depFile := func(dest string) string {
		return dest + "/dependencies/postgres/5058f/static/postgres-dependencies.yaml"
	}

	for _, c := range all {
		apply(c)
	}
	prod := []string{"eu-1", "eu-2", "eu-3", "us-1", "us-2"}
	a, b := scheduled(platformA), scheduled(platformB)
	union := append(slices.Clone(a), b...)
	sort.Strings(union)
	if !slices.Equal(union, prod) {
		t.Errorf("the shards hold %v and %v: together %v, want each production destination once, %v", a, b, union, prod)
	}
	held := files()
	for _, d := range append(slices.Clone(prod), "eu-4") {
		if want := d != "eu-4"; slices.Contains(held, depFile(d)) != want {
			t.Errorf("%s holds postgres's file: %v, want %v", d, !want, want)
		}
	}
	for _, p := range []string{".kratix-registry/promises/postgres/platform-a.yaml", ".kratix-registry/promises/postgres/platform-b.yaml"} {
		if !slices.Contains(held, p) {
			t.Errorf("the repository has no %s", p)
		}
	}
	dest, _ := stateValues(t, app, "kratix_resource_request.orders_db")["destination"].(string)
	if !slices.Contains(prod, dest) || !slices.Contains(held, dest+"/resources/orders/postgres/orders-db/instance-configure/5058f/orders-db.yaml") {
		t.Errorf("the request is on %q, want a production destination holding its file; the repository holds %v", dest, held)
	}
	for _, c := range all {
		if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
			t.Errorf("the plan in %s after the applies is not empty: %v\n%s", c.dir, err, out)
		}
	}

	// An overlap: platform-b planned with platform-a's shard.
	before := commits()
	out, err := platformB.run("plan", "-var", "shard=0")
	if err == nil || !strings.Contains(out, "Placement Held By Another Owner") || !strings.Contains(out, `owner "platform-a"`) ||
		!strings.Contains(out, `as owner "platform-b"`) {
		t.Errorf("platform-b's plan of platform-a's shard should be refused, naming both owners: %v\n%s", err, out)
	}
	if after := commits(); after != before {
		t.Errorf("the refused plan changed the repository: %s commits, then %s", before, after)
	}

	// The US fleet registers us-3: one shard takes it, with no change to its configuration.
	if err := os.WriteFile(filepath.Join(fleetUS.dir, "terraform.tfvars"), []byte(usClusters("us-1", "us-2", "us-3")), 0o600); err != nil {
		t.Fatal(err)
	}
	apply(fleetUS)
	var takers []*cli
	for _, c := range []*cli{platformA, platformB} {
		out, err := c.run("plan", "-detailed-exitcode")
		switch {
		case err == nil:
		case strings.Contains(out, "Plan: 0 to add, 1 to change, 0 to destroy.") && strings.Contains(out, `+ "us-3"`):
			takers = append(takers, c)
		default:
			t.Errorf("the plan in %s after us-3 was registered: %v\n%s", c.dir, err, out)
		}
	}
	if len(takers) != 1 {
		t.Fatalf("%d platform workspaces schedule us-3, want exactly one", len(takers))
	}
	apply(takers[0])
	if !slices.Contains(files(), depFile("us-3")) {
		t.Errorf("us-3 has no file of postgres after its shard's apply")
	}
}
