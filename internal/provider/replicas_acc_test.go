package provider

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// requestFolderSets reads, from the store's own listing, every destination folder that holds
// each request of promise app: request name => destinations, sorted.
func requestFolderSets(t *testing.T, ts *testStore) map[string][]string {
	t.Helper()
	re := regexp.MustCompile(`^(w\d)/resources/default/app/([^/]+)/`)
	out := map[string][]string{}
	for _, p := range ts.list(t) {
		m := re.FindStringSubmatch(p)
		if m == nil || slices.Contains(out[m[2]], m[1]) {
			continue
		}
		out[m[2]] = append(out[m[2]], m[1])
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

// spreadModel is where a request with replicas n and spread over zones goes when it is placed
// for the first time, written from the documented rule: in rendezvous order, one destination per
// zone first, then the best of the rest; listed best first.
func spreadModel(key string, zones map[string]string, n int) []string {
	order := rendezvousOrder(key, slices.Sorted(maps.Keys(zones)), nil)
	taken, covered := map[string]bool{}, map[string]bool{}
	for _, d := range order {
		if len(taken) < n && !covered[zones[d]] {
			taken[d], covered[zones[d]] = true, true
		}
	}
	for _, d := range order {
		if len(taken) < n {
			taken[d] = true
		}
	}
	var out []string
	for _, d := range order {
		if taken[d] {
			out = append(out, d)
		}
	}
	return out
}

// TestAccReplicas: three destinations in zones a, a and b; on a bucket and on git over HTTP.
//
//   - replicas = 2: the request is on the top two of its rendezvous order (the test's own model),
//     the same bytes in each; spread over zones takes the better a and the b; a request without
//     replicas is on one destination, placements null.
//   - replicas 2 to 3: the third destination is added and nothing else in the store changes:
//     every file there before has the same bytes, and every write is in the new folder.
//   - replicas 3 to 1: the best-ranked stays, the other two folders are emptied, and nothing
//     else changes.
//   - replicas unset: nothing is written, placements goes null, the destination stays.
func TestAccReplicas(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	onStores(t, func(t *testing.T, kind string) { testReplicas(t, kind) })
}

func testReplicas(t *testing.T, kind string) {
	ts := newTestStore(t, kind)
	zones := map[string]string{"w1": "a", "w2": "a", "w3": "b"}
	all := []string{"w1", "w2", "w3"}
	// A spread request whose top two without spread are both in zone a, so that spread shows.
	spr := ""
	for i := range 50 {
		n := fmt.Sprintf("spr%d", i)
		if top := rendezvousOrder("default/app/"+n, all, nil); !slices.Contains(top[:2], "w3") {
			spr = n
			break
		}
	}
	config := func(replicas string) string {
		return fleetOf(ts, 3, `  labels = { zone = ["a", "a", "b"][count.index] }`,
			kratixResourceRequest{Label: "rep", Promise: "kratix_promise.app", Name: q("rep"), Documents: q(configMapDoc("rep")), Replicas: replicas}.String()+
				kratixResourceRequest{
					Label: "spr", Promise: "kratix_promise.app", Name: q(spr), Documents: q(configMapDoc(spr)), Replicas: "2",
					Body: `  spread    = { topology_key = "zone" }`,
				}.String()+
				kratixResourceRequest{Label: "one", Promise: "kratix_promise.app", Name: q("one"), Documents: q(configMapDoc("one"))}.String())
	}
	repOrder := rendezvousOrder("default/app/rep", all, nil)
	sprWant := spreadModel("default/app/"+spr, zones, 2)
	if len(sprWant) != 2 || !slices.Contains(sprWant, "w3") {
		t.Fatalf("the spread model gave %v: over zones a, a and b, two replicas take one a and the b", sprWant)
	}

	oneWant := rendezvousOrder("default/app/one", all, nil)[0]
	file := func(dest, name string) string {
		return dest + "/resources/default/app/" + name + "/instance-configure/5058f/" + name + ".yaml"
	}
	content := func(name string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
	}
	// checkOn: the request's file is in exactly the folders of dests, with its bytes.
	checkOn := func(name string, dests []string) {
		t.Helper()
		got := requestFolderSets(t, ts)[name]
		if want := slices.Sorted(slices.Values(dests)); !slices.Equal(got, want) {
			t.Errorf("request %s is in folders %v, want %v", name, got, want)
		}
		for _, d := range dests {
			if b, ok := ts.read(t, file(d, name)); !ok || string(b) != content(name) {
				t.Errorf("%s: %q (found %v), want %q", file(d, name), b, ok, content(name))
			}
		}
	}
	listAttr := func(res, attr string, want []string) resource.TestCheckFunc {
		checks := []resource.TestCheckFunc{resource.TestCheckResourceAttr(res, attr+".#", fmt.Sprint(len(want)))}
		for i, w := range want {
			checks = append(checks, resource.TestCheckResourceAttr(res, fmt.Sprintf("%s.%d", attr, i), w))
		}
		return resource.ComposeAggregateTestCheckFunc(checks...)
	}
	var before map[string]string
	var mark = ts.mark(t)
	// unchangedBut: every file of before is there with the same bytes except under the folders
	// given, and every write since the mark is under them.
	unchangedBut := func(folders ...string) {
		t.Helper()
		under := func(p string) bool {
			for _, f := range folders {
				if strings.HasPrefix(p, f) {
					return true
				}
			}
			return false
		}
		after := storeFiles(t, ts)
		for p, c := range before {
			if !under(p) && after[p] != c {
				t.Errorf("%s changed: %q, was %q", p, after[p], c)
			}
		}
		for p := range after {
			if _, was := before[p]; !was && !under(p) {
				t.Errorf("%s appeared outside %v", p, folders)
			}
		}
		for _, w := range ts.writesSince(t, mark) {
			if ts.kind == "bucket" && !under(strings.SplitN(w, " ", 2)[1]) {
				t.Errorf("write outside %v: %s", folders, w)
			}
			if ts.kind != "bucket" && w != "Update from: request/app/default/rep" {
				t.Errorf("commit %q, want only the request's update", w)
			}
		}
	}
	repFolder := func(d string) string { return d + "/resources/default/app/rep/" }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config: config("2"),
				Check: resource.ComposeAggregateTestCheckFunc(
					listAttr("kratix_resource_request.rep", "destinations", repOrder[:2]),
					resource.TestCheckResourceAttr("kratix_resource_request.rep", "destination", repOrder[0]),
					resource.TestCheckResourceAttr("kratix_resource_request.rep", "placements.%", "2"),
					resource.TestCheckResourceAttr("kratix_resource_request.rep", "placements."+repOrder[1]+".root", repOrder[1]),
					listAttr("kratix_resource_request.spr", "destinations", sprWant),
					listAttr("kratix_resource_request.one", "destinations", []string{oneWant}),
					resource.TestCheckResourceAttr("kratix_resource_request.one", "destination", oneWant),
					resource.TestCheckNoResourceAttr("kratix_resource_request.one", "placements.%"),
					func(*terraform.State) error {
						checkOn("rep", repOrder[:2])
						checkOn(spr, sprWant)
						checkOn("one", []string{oneWant})
						before, mark = storeFiles(t, ts), ts.mark(t)
						return nil
					},
				),
			},
			{
				Config: config("3"),
				Check: resource.ComposeAggregateTestCheckFunc(
					listAttr("kratix_resource_request.rep", "destinations", repOrder),
					resource.TestCheckResourceAttr("kratix_resource_request.rep", "destination", repOrder[0]),
					func(*terraform.State) error {
						checkOn("rep", all)
						unchangedBut(repFolder(repOrder[2]))
						before, mark = storeFiles(t, ts), ts.mark(t)
						return nil
					},
				),
			},
			{
				Config: config("1"),
				Check: resource.ComposeAggregateTestCheckFunc(
					listAttr("kratix_resource_request.rep", "destinations", repOrder[:1]),
					resource.TestCheckResourceAttr("kratix_resource_request.rep", "placements.%", "1"),
					func(*terraform.State) error {
						checkOn("rep", repOrder[:1])
						unchangedBut(repFolder(repOrder[1]), repFolder(repOrder[2]))
						before, mark = storeFiles(t, ts), ts.mark(t)
						return nil
					},
				),
			},
			{
				Config: config("null"),
				Check: resource.ComposeAggregateTestCheckFunc(
					listAttr("kratix_resource_request.rep", "destinations", repOrder[:1]),
					resource.TestCheckResourceAttr("kratix_resource_request.rep", "destination", repOrder[0]),
					resource.TestCheckNoResourceAttr("kratix_resource_request.rep", "placements.%"),
					func(*terraform.State) error {
						unchangedBut()
						return nil
					},
				),
			},
		},
	})
}

// TestAccReplicas_lowerMakesBeforeBreak: a request on w1 (bucket a) and w2 (bucket b) whose
// replicas go from 2 to 1 keeps w2, its best-ranked by the test's own model, and leaves w1 only
// once w2's write has been made, whatever fails in between.
//
//   - b down during the apply: it fails, both still hold the file byte for byte, and state keeps
//     both placements, with the plan saying the move is not finished.
//   - b back, a down: the removal from w1 fails; both hold the file; state keeps both.
//   - a back: the next apply removes the file from w1, state holds w2 only, and the plan after
//     is empty.
func TestAccReplicas_lowerMakesBeforeBreak(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	name := ""
	for i := range 20 {
		if n := fmt.Sprintf("r%d", i); rendezvousOrder("default/app/"+n, []string{"w1", "w2"}, nil)[0] == "w2" {
			name = n
			break
		}
	}
	if name == "" {
		t.Fatal("no request name r0..r19 has w2 first")
	}
	pair := newBucketPair(t, name)
	a, b := pair.a, pair.b
	config := func(replicas int) string { return pair.config("", fmt.Sprintf("  replicas  = %d", replicas)) }
	holds := func(ts *testStore, dest string) bool { return pair.holds(t, ts, dest) }
	c := newCLI(t, map[string]string{"main.tf": config(2)})
	placed := func() []string {
		v, _ := stateValues(t, c, "kratix_resource_request.r")["placements"].(map[string]any)
		return slices.Sorted(maps.Keys(v))
	}
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	if !holds(a, "w1") || !holds(b, "w2") {
		t.Fatalf("with replicas = 2 the request should be on w1 and w2")
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config(1)), 0o600); err != nil {
		t.Fatal(err)
	}
	applyWithDown := func(down *testStore, what string) string {
		t.Helper()
		if out, err := c.run("plan", "-out", "lower.tfplan"); err != nil || !strings.Contains(out, `leaves destination "w1"`) {
			t.Fatalf("the plan should say the request leaves w1: %v\n%s", err, out)
		}
		down.recorder.down.Store(true)
		out, err := c.run("apply", "lower.tfplan")
		down.recorder.down.Store(false)
		if err == nil {
			t.Fatalf("the apply with %s down succeeded:\n%s", what, out)
		}
		return out
	}
	out := applyWithDown(b, "bucket b")
	if !strings.Contains(out, "Move Not Finished") {
		t.Errorf("the apply with b down should say the move is not finished:\n%s", out)
	}
	if !holds(a, "w1") || !holds(b, "w2") {
		t.Errorf("with b down both must still hold the request's file")
	}
	if got := placed(); !slices.Equal(got, []string{"w1", "w2"}) {
		t.Errorf("state places the request on %v after the failed apply, want [w1 w2]", got)
	}
	applyWithDown(a, "bucket a")
	if !holds(a, "w1") || !holds(b, "w2") {
		t.Errorf("with a down both must still hold the request's file")
	}
	if got := placed(); !slices.Equal(got, []string{"w1", "w2"}) {
		t.Errorf("state places the request on %v while w1 still holds its file, want [w1 w2]", got)
	}
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("the apply with both stores up: %v\n%s", err, out)
	}
	if holds(a, "w1") || !holds(b, "w2") {
		t.Errorf("after the apply the request must be on w2 only")
	}
	if got := placed(); !slices.Equal(got, []string{"w2"}) {
		t.Errorf("state places the request on %v, want [w2]", got)
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after is not empty: %v\n%s", err, out)
	}
}

// TestAccReplicas_import: a request with replicas = 2, its state removed and imported again by its
// id alone, is adopted on both destinations that hold it: the apply after the import writes
// nothing, state lists both, and the plan after is empty. With replicas = 1 the same import fails
// and lists both holders.
func TestAccReplicas_import(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	config := func(replicas int) string {
		return requiredKratix + fleetOf(ts, 3, "", kratixResourceRequest{
			Label: "r", Promise: "kratix_promise.app", Name: q("r"), Documents: q(configMapDoc("r")), Replicas: strconv.Itoa(replicas),
		}.String())
	}
	c := newCLI(t, map[string]string{"main.tf": config(2)})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	want := slices.Sorted(slices.Values(rendezvousOrder("default/app/r", []string{"w1", "w2", "w3"}, nil)[:2]))
	if got := requestFolderSets(t, ts)["r"]; !slices.Equal(got, want) {
		t.Fatalf("the request is on %v, want %v", got, want)
	}
	reimport := func() (string, error) {
		t.Helper()
		if out, err := c.run("state", "rm", "kratix_resource_request.r"); err != nil {
			t.Fatalf("state rm: %v\n%s", err, out)
		}
		if out, err := c.run("import", "kratix_resource_request.r", "app/default/r"); err != nil {
			t.Fatalf("import: %v\n%s", err, out)
		}
		return c.run("apply", "-auto-approve")
	}
	mark := ts.mark(t)
	if out, err := reimport(); err != nil {
		t.Fatalf("apply after the import: %v\n%s", err, out)
	}
	if w := ts.writesSince(t, mark); len(w) > 0 {
		t.Errorf("the apply after the import wrote %v; it should adopt both copies as they are", w)
	}
	placed, _ := stateValues(t, c, "kratix_resource_request.r")["placements"].(map[string]any)
	if got := slices.Sorted(maps.Keys(placed)); !slices.Equal(got, want) {
		t.Errorf("state places the imported request on %v, want %v", got, want)
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the import is not empty: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config(1)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := reimport()
	if flat := strings.Join(strings.Fields(out), " "); err == nil || !strings.Contains(flat, "Request Found On Several Destinations") ||
		!strings.Contains(flat, strings.Join(want, ", ")) {
		t.Errorf("with replicas = 1 the import should fail and list both holders (err %v):\n%s", err, out)
	}
}
