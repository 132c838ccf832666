package provider

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// kratixShortID is the folder Kratix names a workload group's placement after, worked out here
// from its documented rule: the first five hex digits of the MD5 of the group's folder.
func kratixShortID(dir string) string {
	return md5Of(dir)[:5]
}

// TestAccWorkloadGroups: one request of promise app (selecting kind=k8s: w2 and w3) with three
// workload groups' worth of files, on a bucket and on git over HTTP.
//
//   - The default group (app.yaml) is on the promise's rendezvous choice among w2 and w3; group
//     "tf" (kind=tfe) on w1, which the promise does not select; group "db" (kind=k8s) on the
//     rendezvous choice of the request and the folder among w2 and w3. Each group's files are
//     under its own <short id> folder, keeping their paths, as Kratix writes them
//     (resources/<namespace>/<promise>/<name>/<pipeline>/<short id>/<file>), and nothing else of
//     the request is in the store. group_placements says the same.
//   - Group "tf" dropped from groups: its files join the default group (5058f/tf/main.tf on the
//     default group's destination) and its folder on w1 is gone.
//   - Destroy: nothing of the request is left.
func TestAccWorkloadGroups(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	onStores(t, func(t *testing.T, kind string) { testWorkloadGroups(t, kind) })
}

func testWorkloadGroups(t *testing.T, kind string) {
	ts := newTestStore(t, kind)
	config := func(groups string, extra ...string) string {
		return storeConfig(ts) + kratixDestination{
			Label: "w", Count: "3", Name: q("w${count.index + 1}"), Path: q("w${count.index + 1}"), InitWorkloads: "false",
			StateStore: "kratix_state_store.s", Labels: `{ kind = count.index == 0 ? "tfe" : "k8s" }`,
		}.String() + kratixPromise{
			Label: "app", Name: q("app"), Dependencies: q(namespaceDoc("app")),
			DestinationSelectors: matchLabels("kind", "k8s"), Destinations: "kratix_destination.w",
		}.String() + kratixResourceRequest{
			Label: "app", Promise: "kratix_promise.app", Name: q("app"),
			Files: hclObj{{`"app.yaml"`, q("kind: ConfigMap\n")}, {`"tf/main.tf"`, q(`resource "null_resource" "x" {}` + "\n")}, {`"db/db.yaml"`, q("kind: Secret\n")}},
			Body:  attrLines(hclAttr{"groups", groups}) + strings.Join(extra, "\n"),
		}.String()
	}
	k8s := []string{"w2", "w3"}
	mainDest := rendezvousOrder("default/app/app", k8s, nil)[0]
	dbDest := rendezvousOrder("default/app/app#db", k8s, nil)[0]
	base := func(dest, short string) string {
		return dest + "/resources/default/app/app/instance-configure/" + short + "/"
	}
	// requestFiles is every file of request app in the store, by path.
	requestFiles := func() map[string]string {
		out := map[string]string{}
		for p, c := range storeFiles(t, ts) {
			if strings.Contains(p, "/resources/default/app/app/") {
				out[p] = c
			}
		}
		return out
	}
	expectFiles := func(want map[string]string) {
		t.Helper()
		got := requestFiles()
		for _, p := range slices.Sorted(maps.Keys(want)) {
			if got[p] != want[p] {
				t.Errorf("%s holds %q, want %q", p, got[p], want[p])
			}
		}
		for p := range got {
			if _, ok := want[p]; !ok {
				t.Errorf("%s is in the store, and nothing of the request should be there", p)
			}
		}
	}
	tf, db := kratixShortID("tf"), kratixShortID("db")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		CheckDestroy: func(*terraform.State) error {
			if left := requestFiles(); len(left) > 0 {
				return fmt.Errorf("after destroy, the request's files are still there: %v", left)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				// A group must name a folder of the request's files: refused at plan, at its key.
				Config: config(`{
    "app.yaml" = { destination_selectors = [{ match_labels = { kind = "tfe" } }] }
    cache      = { destination_selectors = [{ match_labels = { kind = "tfe" } }] }
    db         = { destination_selectors = [{ match_labels = { kind = "k8s" } }] }
    "db/"      = { destination_selectors = [{ match_labels = { kind = "k8s" } }] }
  }`),
				ExpectError: regexp.MustCompile(`(?s)groups\["app.yaml"\]: Group "app.yaml" names the file "app.yaml", not a folder.*groups\["cache"\]: Group "cache" names the folder "cache/", which holds none.*groups\["db/"\]: Group "db/" names the same folder as "db"`),
			},
			{
				Config: config(`{
    tf = { destination_selectors = [{ match_labels = { kind = "tfe" } }] }
    db = { destination_selectors = [{ match_labels = { kind = "k8s" } }] }
  }`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("kratix_resource_request.app", "destination", mainDest),
					resource.TestCheckResourceAttr("kratix_resource_request.app", "group_placements.tf.destination", "w1"),
					resource.TestCheckResourceAttr("kratix_resource_request.app", "group_placements.db.destination", dbDest),
					resource.TestCheckResourceAttr("kratix_resource_request.app", "group_placements.tf.files."+base("w1", tf)+"tf/main.tf",
						md5Of("resource \"null_resource\" \"x\" {}\n")),
					func(*terraform.State) error {
						expectFiles(map[string]string{
							base(mainDest, "5058f") + "app.yaml": "kind: ConfigMap\n",
							base("w1", tf) + "tf/main.tf":        "resource \"null_resource\" \"x\" {}\n",
							base(dbDest, db) + "db/db.yaml":      "kind: Secret\n",
						})
						return nil
					},
				),
			},
			{
				// Dropping group tf takes its files from w1: a guarded request refuses that.
				Config: config(`{
    db = { destination_selectors = [{ match_labels = { kind = "k8s" } }] }
  }`, "guard = { max_destinations_removed = 0 }"),
				ExpectError: regexp.MustCompile(`(?s)Change Refused by the Guard.*w1: every file of the placement is removed`),
			},
			{
				Config: config(`{
    db = { destination_selectors = [{ match_labels = { kind = "k8s" } }] }
  }`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckNoResourceAttr("kratix_resource_request.app", "group_placements.tf.destination"),
					resource.TestCheckResourceAttr("kratix_resource_request.app", "group_placements.%", "1"),
					func(*terraform.State) error {
						expectFiles(map[string]string{
							base(mainDest, "5058f") + "app.yaml":   "kind: ConfigMap\n",
							base(mainDest, "5058f") + "tf/main.tf": "resource \"null_resource\" \"x\" {}\n",
							base(dbDest, db) + "db/db.yaml":        "kind: Secret\n",
						})
						return nil
					},
				),
			},
		},
	})
}

// TestAccWorkloadGroups_writeOnly: a group whose only file is write-only content (files_wo) is
// written in its group folder, recorded with keyed hashes, and refreshed like any other: an edit by
// hand shows in the next plan and the apply puts the content back.
func TestAccWorkloadGroups_writeOnly(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	config := requiredKratix + promiseConfig(ts, []string{`{ env = "dev" }`, `{ env = "db" }`}, `  name = "app"
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
  destination_selectors = [{ match_labels = { env = "dev" } }]`) + `
resource "kratix_resource_request" "r" {
  promise            = kratix_promise.p
  name               = "r"
  documents          = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r\n"
  files_wo           = { "db/secret.yaml" = "kind: Secret\nstringData:\n  password: hunter2\n" }
  content_wo_version = 1
  groups             = { db = { destination_selectors = [{ match_labels = { env = "db" } }] } }
}
`
	c := newCLI(t, map[string]string{"main.tf": config}, "KRATIX_CONTENT_HASH_KEY=00112233445566778899aabbccddeeff")
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	secret := "worker-2/resources/default/app/r/instance-configure/" + kratixShortID("db") + "/db/secret.yaml"
	want := "kind: Secret\nstringData:\n  password: hunter2\n"
	if got, ok := ts.read(t, secret); !ok || string(got) != want {
		t.Fatalf("%s holds %q (found %v), want %q", secret, got, ok, want)
	}
	if _, ok := ts.read(t, "worker-1/resources/default/app/r/instance-configure/5058f/r.yaml"); !ok {
		t.Errorf("the default group's r.yaml is not on worker-1")
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Fatalf("the plan after the apply is not empty: %v\n%s", err, out)
	}
	ts.put(t, secret, []byte("kind: Secret\nstringData:\n  password: changed-by-hand\n"))
	out, err := c.run("plan", "-detailed-exitcode")
	if err == nil || !strings.Contains(out, "group_placements") {
		t.Errorf("an edit by hand of the group's write-only file should show in group_placements (err %v):\n%s", err, out)
	}
	if strings.Contains(out, "hunter2") || strings.Contains(out, "changed-by-hand") {
		t.Errorf("the plan shows write-only content:\n%s", out)
	}
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply after the edit: %v\n%s", err, out)
	}
	if got, _ := ts.read(t, secret); string(got) != want {
		t.Errorf("after the apply %s holds %q, want %q", secret, got, want)
	}
}

// TestAccWorkloadGroups_noneModeSameDestination: in mode none a group on the default group's own
// destination has an index file of its own (named after its short id) beside the default
// group's; dropping the group hands its file to the default group in one apply (no owner refused:
// both indexes are the request's), and the group's index file goes.
func TestAccWorkloadGroups_noneModeSameDestination(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	config := groupOnItsOwnDestination(ts, "none")
	c := newCLI(t, map[string]string{"main.tf": config(`{ db = { destination_selectors = [{ match_labels = { env = "dev" } }] } }`)})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	defaultIndex := "w1/.kratix/default-app_r_default_instance-configure.w1-5058f.yaml"
	groupIndex := "w1/.kratix/default-app_r_default_instance-configure.w1-" + kratixShortID("db") + ".yaml"
	for _, p := range []string{defaultIndex, groupIndex, "w1/app.yaml", "w1/db/x.yaml"} {
		if _, ok := ts.read(t, p); !ok {
			t.Errorf("%s is missing", p)
		}
	}
	if got, _ := ts.read(t, groupIndex); !strings.Contains(string(got), "w1/db/x.yaml") || strings.Contains(string(got), "app.yaml") {
		t.Errorf("the group's index should list its file only:\n%s", got)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config("null")), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("dropping the group: %v\n%s", err, out)
	}
	if _, ok := ts.read(t, groupIndex); ok {
		t.Errorf("the group's index %s is still there", groupIndex)
	}
	if got, _ := ts.read(t, defaultIndex); !strings.Contains(string(got), "w1/db/x.yaml") {
		t.Errorf("the default group's index should list db/x.yaml now:\n%s", got)
	}
	if got, ok := ts.read(t, "w1/db/x.yaml"); !ok || string(got) != "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n" {
		t.Errorf("w1/db/x.yaml holds %q (found %v)", got, ok)
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after is not empty: %v\n%s", err, out)
	}
}

// groupOnItsOwnDestination is a configuration of one destination w1 in the given mode, promise app
// and request r with app.yaml and db/x.yaml, whose groups are given (group db selects w1 too).
func groupOnItsOwnDestination(ts *testStore, mode string) func(groups string) string {
	return func(groups string) string {
		return requiredKratix + storeConfig(ts) + kratixDestination{
			Label: "w", Name: q("w1"), Path: q("w1"), FilepathMode: q(mode), InitWorkloads: "false",
			StateStore: "kratix_state_store.s", Labels: `{ env = "dev" }`,
		}.String() + appPromise("[kratix_destination.w]") + kratixResourceRequest{
			Label: "r", Promise: "kratix_promise.app", Name: q("r"),
			Files: hclObj{{`"app.yaml"`, q(configMapDoc("app"))}, {`"db/x.yaml"`, q("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n")}},
			Body:  attrLines(hclAttr{"groups", groups}),
		}.String()
	}
}

// TestAccWorkloadGroups_sharedFiles: in modes aggregatedYAML and splitByKind a group on the
// default group's own destination writes its documents beside the default group's (its own part
// of the aggregate; its own two files, named after its short id); with the group and after it is
// dropped, each of the request's documents is in w1's folder exactly once, and each plan after an
// apply is empty.
func TestAccWorkloadGroups_sharedFiles(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	for _, mode := range []string{"aggregatedYAML", "splitByKind"} {
		t.Run(mode, func(t *testing.T) {
			ts := newTestStore(t, "bucket")
			config := groupOnItsOwnDestination(ts, mode)
			c := newCLI(t, map[string]string{"main.tf": config(`{ db = { destination_selectors = [{ match_labels = { env = "dev" } }] } }`)})
			once := func(when string) {
				t.Helper()
				counts := map[string]int{}
				for p, content := range storeFiles(t, ts) {
					if strings.HasPrefix(p, "w1/") {
						counts["Secret"] += strings.Count(content, "kind: Secret")
						counts["ConfigMap"] += strings.Count(content, "kind: ConfigMap")
					}
				}
				if counts["Secret"] != 1 || counts["ConfigMap"] != 1 {
					t.Errorf("%s: w1's folder holds the Secret %d times and the ConfigMap %d times, want once each", when, counts["Secret"], counts["ConfigMap"])
				}
				if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
					t.Errorf("%s: the plan is not empty: %v\n%s", when, err, out)
				}
			}
			if out, err := c.run("apply", "-auto-approve"); err != nil {
				t.Fatalf("apply: %v\n%s", err, out)
			}
			once("with the group")
			if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config("null")), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := c.run("apply", "-auto-approve"); err != nil {
				t.Fatalf("dropping the group: %v\n%s", err, out)
			}
			once("after dropping the group")
		})
	}
}

// TestAccWorkloadGroups_relabel: a group's destination relabelled out of its selectors keeps it
// (misscheduled, as a request keeps its destination): the plan warns, the apply writes nothing,
// and group_placements says misscheduled.
func TestAccWorkloadGroups_relabel(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	config := groupOnItsOwnDestination(ts, "nestedByMetadata")
	c := newCLI(t, map[string]string{"main.tf": config(`{ db = { destination_selectors = [{ match_labels = { env = "dev" } }] } }`)})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	before := storeFiles(t, ts)
	mark := ts.mark(t)
	relabelled := strings.Replace(config(`{ db = { destination_selectors = [{ match_labels = { env = "dev" } }] } }`),
		`labels         = { env = "dev" }`, `labels         = { env = "prod" }`, 1)
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(relabelled), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := c.run("apply", "-auto-approve")
	if flat := strings.Join(strings.Fields(out), " "); err != nil || !strings.Contains(flat, `Workload group "db": Request app/default/r stays on destination "w1", which no longer matches`) {
		t.Fatalf("the relabel's apply should warn that group db stays on w1, misscheduled (err %v):\n%s", err, out)
	}
	if w := ts.writesSince(t, mark); len(w) > 0 {
		t.Errorf("the relabel wrote %v to the store", w)
	}
	if after := storeFiles(t, ts); !maps.Equal(after, before) {
		t.Errorf("the store changed with the relabel")
	}
	if got := fmt.Sprint(stateValues(t, c, "kratix_resource_request.r")["group_placements"].(map[string]any)["db"].(map[string]any)["misscheduled"]); got != "true" {
		t.Errorf("group_placements.db.misscheduled = %s, want true", got)
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the relabel is not empty: %v\n%s", err, out)
	}
}
