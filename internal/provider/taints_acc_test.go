package provider

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// The model of where requests go, written here from the documented rule rather than taken from
// package scheduling: each candidate's score is -weight / ln(u), u the first 8 bytes of
// SHA-256(key, 0, name) read big-endian as a fraction of 2^64, and the highest score wins (ties
// to the smaller name). With equal weights that is the plain rendezvous order.
func rendezvousOrder(key string, names []string, weights map[string]int) []string {
	score := map[string]float64{}
	for _, n := range names {
		sum := sha256.Sum256([]byte(key + "\x00" + n))
		u := (float64(binary.BigEndian.Uint64(sum[:8])) + 0.5) / math.Exp2(64)
		w := weights[n]
		if w == 0 {
			w = 1
		}
		score[n] = -float64(w) / math.Log(u)
	}
	out := slices.Clone(names)
	sort.Slice(out, func(i, j int) bool {
		if score[out[i]] != score[out[j]] {
			return score[out[i]] > score[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

// requestFolders reads, from the store's own listing, which destination folder holds each
// request of promise app: request name => destination (w1, w2, w3).
func requestFolders(t *testing.T, ts *testStore) map[string]string {
	t.Helper()
	re := regexp.MustCompile(`^(w\d)/resources/default/app/([^/]+)/`)
	out := map[string]string{}
	for _, p := range ts.list(t) {
		m := re.FindStringSubmatch(p)
		if m == nil {
			continue
		}
		if was, ok := out[m[2]]; ok && was != m[1] {
			t.Errorf("request %s has files in both %s and %s", m[2], was, m[1])
		}
		out[m[2]] = m[1]
	}
	return out
}

// TestAccTaints: three destinations, a promise on all of them and twelve requests, plus one
// request that tolerates the maintenance taint; on a bucket and on git over HTTP.
//
//   - Untainted, every request is where the rendezvous order puts it (the test's own model).
//   - w1 tainted NoSchedule, with four requests added: the twelve stay where they are, byte for
//     byte; each new request whose first choice is w1 goes to its second.
//   - w1 tainted NoExecute: exactly the requests on w1 that do not tolerate it move, each to its
//     best choice among w2 and w3, their files written there and gone from w1; every other file
//     of the store is unchanged, the promise's on w1 included (on_unschedule = "keep").
//   - The taint removed: nothing moves back.
func TestAccTaints(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	onStores(t, func(t *testing.T, kind string) { testTaints(t, kind) })
}

func testTaints(t *testing.T, kind string) {
	ts := newTestStore(t, kind)
	config := func(taint string, requests int) string {
		return fleetOf(ts, 3, "  labels = { env = \"prod\" }\n  taints = count.index == 0 ? "+taint+" : null",
			countedRequests(requests)+kratixResourceRequest{
				Label: "tol", Promise: "kratix_promise.app", Name: q("tol"), Documents: q(configMapDoc("tol")),
				Body: `  tolerations = [{ key = "maintenance", operator = "Exists" }]`,
			}.String())
	}
	all := []string{"w1", "w2", "w3"}
	key := func(name string) string { return "default/app/" + name }
	// want says where each request must be: first choices of those placed before the taint,
	// first choices among the untainted for the others.
	first := func(name string, among []string) string { return rendezvousOrder(key(name), among, nil)[0] }

	var before map[string]string                                 // every file after the last apply checked
	var placed, placedAfterNoSchedule, drained map[string]string // request => destination after each apply
	noTaint, noSchedule, noExecute := "null", `[{ key = "maintenance", value = "2026-12-01", effect = "NoSchedule" }]`,
		`[{ key = "maintenance", value = "2026-12-01", effect = "NoExecute" }]`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config: config(noTaint, 12),
				Check: func(*terraform.State) error {
					placed = requestFolders(t, ts)
					want := map[string]string{"tol": first("tol", all)}
					for i := range 12 {
						n := fmt.Sprintf("r%d", i)
						want[n] = first(n, all)
					}
					if !maps.Equal(placed, want) {
						t.Errorf("requests are in\n  %v\nwant (rendezvous order)\n  %v", placed, want)
					}
					if !slices.ContainsFunc(slices.Collect(maps.Values(placed)), func(d string) bool { return d == "w1" }) {
						t.Fatalf("no request landed on w1; the test needs some: %v", placed)
					}
					before = storeFiles(t, ts)
					return nil
				},
			},
			{
				Config: config(noSchedule, 16),
				Check: func(*terraform.State) error {
					got := requestFolders(t, ts)
					want := maps.Clone(placed)
					steered := 0
					for i := 12; i < 16; i++ {
						n := fmt.Sprintf("r%d", i)
						want[n] = first(n, []string{"w2", "w3"})
						if first(n, all) == "w1" {
							steered++
						}
					}
					if !maps.Equal(got, want) {
						t.Errorf("with w1 tainted NoSchedule the requests are in\n  %v\nwant\n  %v", got, want)
					}
					placedAfterNoSchedule = want
					t.Logf("NoSchedule: %d of the 4 new requests had w1 first and went to their second choice", steered)
					now := storeFiles(t, ts)
					for p, c := range before {
						if now[p] != c {
							t.Errorf("%s changed under NoSchedule", p)
						}
					}
					before = now
					return nil
				},
			},
			{
				Config: config(noExecute, 16),
				Check: func(*terraform.State) error {
					got := requestFolders(t, ts)
					want, moved := map[string]string{}, 0
					for n, was := range placedAfterNoSchedule {
						if was == "w1" && n != "tol" {
							want[n] = first(n, []string{"w2", "w3"})
							moved++
						} else {
							want[n] = was
						}
					}
					if !maps.Equal(got, want) {
						t.Errorf("with w1 tainted NoExecute the requests are in\n  %v\nwant\n  %v", got, want)
					}
					if moved == 0 {
						t.Fatal("no request moved; the test needs some on w1")
					}
					t.Logf("NoExecute: %d requests moved off w1", moved)
					drained = got
					now := storeFiles(t, ts)
					for p, c := range before {
						name := regexp.MustCompile(`^w\d/resources/default/app/([^/]+)/`).FindStringSubmatch(p)
						if name != nil && want[name[1]] != placedAfterNoSchedule[name[1]] {
							if _, still := now[p]; still {
								t.Errorf("%s is still there after its request moved", p)
							}
							continue
						}
						if now[p] != c {
							t.Errorf("%s changed though its request did not move", p)
						}
					}
					return nil
				},
			},
			{
				Config: config(noTaint, 16),
				Check: func(*terraform.State) error {
					if got := requestFolders(t, ts); !maps.Equal(got, drained) {
						t.Errorf("with the taint removed the requests are in\n  %v\nwant them where the drain left them\n  %v", got, drained)
					}
					return nil
				},
			},
		},
	})
}

// TestAccTaints_moveMakesBeforeBreak: a request drained from w1 (bucket a) to w2 (bucket b) is
// written on w2 before it is removed from w1, whatever fails in between.
//
// The taint is applied to the destinations and the promise first (-target), so that the faults
// below fall on the request's apply alone.
//
//   - b down during the drain's apply: the apply fails, w1 still holds the request's file byte for
//     byte, b holds nothing, and state keeps the request on w1.
//   - b back, a down during the next apply: the file is written on w2 and the removal from w1
//     fails, so both hold it (as when an apply is killed between the two); state keeps w1.
//   - a back: the next plan finishes the move, and after its apply only w2 holds the file and the
//     plan after is empty.
func TestAccTaints_moveMakesBeforeBreak(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	name := firstOnW1(t, "r")
	pair := newBucketPair(t, name)
	a, b := pair.a, pair.b
	config := func(taint string) string {
		return pair.config("  taints         = count.index == 0 ? "+taint+" : null", "")
	}
	holds := func(ts *testStore, dest string) bool { return pair.holds(t, ts, dest) }
	c := newCLI(t, map[string]string{"main.tf": config("null")})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	if !holds(a, "w1") || holds(b, "w2") {
		t.Fatalf("after the first apply the request should be on w1 only")
	}
	setConfig := func(taint string) {
		if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config(taint)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	setConfig(`[{ key = "maintenance", effect = "NoExecute" }]`)
	// The taint reaches the promise first (a promise's apply reads every destination's folder):
	// the applies below fail in the request alone.
	if out, err := c.run("apply", "-auto-approve", "-target=kratix_promise.app"); err != nil {
		t.Fatalf("applying the taint to the promise: %v\n%s", err, out)
	} else if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "Destination Drained") ||
		!strings.Contains(flat, fmt.Sprintf("each of the 1 resource requests whose files it holds (app/default/%s)", name)) {
		t.Errorf("the plan should warn that w1 is drained of the one request it holds:\n%s", out)
	}
	applyWithDown := func(down *testStore, what string) string {
		t.Helper()
		if out, err := c.run("plan", "-out", "drain.tfplan"); err != nil || !strings.Contains(out, "moves to \"w2\"") {
			t.Fatalf("the drain's plan should say the request moves to w2: %v\n%s", err, out)
		}
		down.recorder.down.Store(true)
		out, err := c.run("apply", "drain.tfplan")
		down.recorder.down.Store(false)
		if err == nil {
			t.Fatalf("the apply with %s down succeeded:\n%s", what, out)
		}
		return out
	}
	out := applyWithDown(b, "bucket b")
	if !strings.Contains(out, "Cannot Write Request") || !strings.Contains(out, "Move Not Finished") {
		t.Errorf("the apply with b down should fail writing and say the move is not finished:\n%s", out)
	}
	if !holds(a, "w1") || holds(b, "w2") {
		t.Errorf("with b down the request must stay whole on w1 and not be on w2")
	}
	if got := stateAttribute(t, c, "kratix_resource_request.r", "destination"); got != "w1" {
		t.Errorf("state puts the request on %q after the failed move, want w1", got)
	}

	out = applyWithDown(a, "bucket a")
	if !strings.Contains(out, "Cannot Write Request") {
		t.Errorf("the apply with a down should fail removing the file from w1:\n%s", out)
	}
	if !holds(a, "w1") || !holds(b, "w2") {
		t.Errorf("with a down after w2 was written both must hold the request's file")
	}
	if got := stateAttribute(t, c, "kratix_resource_request.r", "destination"); got != "w1" {
		t.Errorf("state puts the request on %q while its files are still on w1, want w1", got)
	}

	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("the apply with both stores up: %v\n%s", err, out)
	}
	if holds(a, "w1") || !holds(b, "w2") {
		t.Errorf("after the move the request must be on w2 only")
	}
	if got := stateAttribute(t, c, "kratix_resource_request.r", "destination"); got != "w2" {
		t.Errorf("state puts the request on %q after the move, want w2", got)
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the move is not empty: %v\n%s", err, out)
	}
}

// stateAttribute reads one string attribute of a resource from the state, through the CLI.
func stateAttribute(t *testing.T, c *cli, address, name string) string {
	t.Helper()
	v, _ := stateValues(t, c, address)[name].(string)
	return v
}

// TestAccWeights: 24 requests over three destinations of weights 1, 1 and 4 land where the
// test's own weighted rendezvous model puts them, on a bucket and on git over HTTP; the heavy
// destination takes the most. Raising w1's weight to 4 afterwards moves no request already
// placed (requests are sticky) and only steers the new ones.
func TestAccWeights(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	onStores(t, func(t *testing.T, kind string) { testWeights(t, kind) })
}

func testWeights(t *testing.T, kind string) {
	ts := newTestStore(t, kind)
	config := func(w1, requests int) string {
		return fleetOf(ts, 3, fmt.Sprintf("  weight = [%d, 1, 4][count.index]", w1), countedRequests(requests))
	}
	all := []string{"w1", "w2", "w3"}
	var placed map[string]string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config: config(1, 24),
				Check: func(*terraform.State) error {
					placed = requestFolders(t, ts)
					want, count := map[string]string{}, map[string]int{}
					for i := range 24 {
						n := fmt.Sprintf("r%d", i)
						want[n] = rendezvousOrder("default/app/"+n, all, map[string]int{"w1": 1, "w2": 1, "w3": 4})[0]
						count[want[n]]++
					}
					if !maps.Equal(placed, want) {
						t.Errorf("requests are in\n  %v\nwant (weighted rendezvous)\n  %v", placed, want)
					}
					t.Logf("weights 1, 1, 4: %v", count)
					if count["w3"] <= count["w1"] || count["w3"] <= count["w2"] {
						t.Errorf("the destination of weight 4 took %d requests, no more than the others: %v", count["w3"], count)
					}
					return nil
				},
			},
			{
				Config: config(4, 32),
				Check: func(*terraform.State) error {
					got := requestFolders(t, ts)
					want := maps.Clone(placed)
					for i := 24; i < 32; i++ {
						n := fmt.Sprintf("r%d", i)
						want[n] = rendezvousOrder("default/app/"+n, all, map[string]int{"w1": 4, "w2": 1, "w3": 4})[0]
					}
					if !maps.Equal(got, want) {
						t.Errorf("after w1's weight went to 4 the requests are in\n  %v\nwant the first 24 where they were and the new ones by the new weights\n  %v", got, want)
					}
					return nil
				},
			},
		},
	})
}

// requiredKratix is the terraform block a configuration run with the CLI (newCLI) needs.
const requiredKratix = `
terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}
`

// fleetOf is a store, destinations w1..wN on it with the lines destLines added to each (which
// may use count.index), promise app on all of them, and the resources in rest.
func fleetOf(ts *testStore, n int, destLines, rest string) string {
	return storeConfig(ts) + kratixDestination{
		Label: "w", Count: strconv.Itoa(n), Name: q("w${count.index + 1}"), Path: q("w${count.index + 1}"),
		InitWorkloads: "false", StateStore: "kratix_state_store.s", Body: destLines,
	}.String() + appPromise("kratix_destination.w") + rest
}

// appPromise is promise app, the Namespace app its dependency, on destinations.
func appPromise(destinations string) string {
	return kratixPromise{Label: "app", Name: q("app"), Dependencies: q(namespaceDoc("app")), Destinations: destinations}.String()
}

// countedRequests is count requests r[i] for promise app, each named r<i> with ConfigMap r<i>.
func countedRequests(count int) string {
	return kratixResourceRequest{
		Label: "r", Count: strconv.Itoa(count), Promise: "kratix_promise.app",
		Name: q("r${count.index}"), Documents: q(configMapDoc("r${count.index}")),
	}.String()
}

// appRequest is request r for promise app, named name with ConfigMap name, and body.
func appRequest(name, body string) string {
	return kratixResourceRequest{Label: "r", Promise: "kratix_promise.app", Name: q(name), Documents: q(configMapDoc(name)), Body: body}.String()
}

// pairConfig is fleetOf two destinations, w1 with taints (HCL, or "null").
func pairConfig(ts *testStore, taints, rest string) string {
	return fleetOf(ts, 2, fmt.Sprintf("  taints = count.index == 0 ? %s : null", taints), rest)
}

// firstOnW1 is a request name, prefix followed by a number, whose first choice between w1 and w2
// is w1 by the test's own model.
func firstOnW1(t *testing.T, prefix string) string {
	t.Helper()
	for i := range 20 {
		if n := fmt.Sprintf("%s%d", prefix, i); rendezvousOrder("default/app/"+n, []string{"w1", "w2"}, nil)[0] == "w1" {
			return n
		}
	}
	t.Fatalf("no request name %s0..%s19 has w1 first", prefix, prefix)
	return ""
}

// TestAccTaints_guardCountsDrain: a drain is a move, and a request's guard refuses a move off its
// destination, so draining the destination of a guarded request fails the plan naming it, and
// nothing is written; without the guard the same drain moves it.
func TestAccTaints_guardCountsDrain(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newBucketTestStore(t)
	name := firstOnW1(t, "r")
	config := func(taint, guard string) string {
		return pairConfig(ts, taint, appRequest(name, "  guard = "+guard))
	}
	drain := `[{ key = "maintenance", effect = "NoExecute" }]`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config: config("null", "{}"),
				Check: func(*terraform.State) error {
					if got := requestFolders(t, ts); got[name] != "w1" {
						t.Fatalf("request %s is on %q, want w1", name, got[name])
					}
					return nil
				},
			},
			{
				Config:      config(drain, "{}"),
				ExpectError: regexp.MustCompile(`Change Refused by the Guard(.|\n)*w1`),
			},
			{
				Config: config(drain, "null"),
				Check: func(*terraform.State) error {
					if got := requestFolders(t, ts); got[name] != "w2" {
						t.Errorf("unguarded, the drain should move request %s to w2; it is on %q", name, got[name])
					}
					return nil
				},
			},
		},
	})
}

// TestAccTaints_importOntoDrained: a request imported while its destination is drained. The
// import adopts it where its files are (w1) and the same plan moves it off the drained
// destination: after the apply its file is on w2 only, and the next plan is empty.
func TestAccTaints_importOntoDrained(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newBucketTestStore(t)
	name := firstOnW1(t, "r")
	config := func(taint string) string {
		return requiredKratix + pairConfig(ts, taint, appRequest(name, ""))
	}
	c := newCLI(t, map[string]string{"main.tf": config("null")})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	if got := requestFolders(t, ts); got[name] != "w1" {
		t.Fatalf("request %s is on %q, want w1", name, got[name])
	}
	if out, err := c.run("state", "rm", "kratix_resource_request.r"); err != nil {
		t.Fatalf("state rm: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config(`[{ key = "maintenance", effect = "NoExecute" }]`)), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := c.run("import", "kratix_resource_request.r", "app/default/"+name); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	out, err := c.run("apply", "-auto-approve")
	if err != nil {
		t.Fatalf("apply after the import: %v\n%s", err, out)
	}
	if got := requestFolders(t, ts); got[name] != "w2" {
		t.Errorf("after the import and the drain request %s is on %q, want w2 only\n%s", name, got[name], out)
	}
	if got := stateAttribute(t, c, "kratix_resource_request.r", "destination"); got != "w2" {
		t.Errorf("state puts the request on %q, want w2", got)
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after is not empty: %v\n%s", err, out)
	}
}

// TestAccTaints_drainWriteOnly: a request whose content is write-only (documents_wo) is drained
// from w1 without a bump of content_wo_version: the apply writes the same document on w2 (the
// content comes from the configuration, never from state) and removes it from w1; the plan
// after is empty.
func TestAccTaints_drainWriteOnly(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newBucketTestStore(t)
	name := firstOnW1(t, "s")
	password := "hunter2-" + randomName("pw")
	config := func(taint string) string {
		return requiredKratix + pairConfig(ts, taint, passwordVariable+kratixResourceRequest{
			Label: "r", Promise: "kratix_promise.app", Name: q(name), Body: `  content_wo_version = 1
  documents_wo       = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n  password: ${var.password}\n"`,
		}.String())
	}
	want := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n  password: " + password + "\n"
	file := func(dest string) string {
		return fmt.Sprintf("%s/resources/default/app/%s/instance-configure/5058f/%s.yaml", dest, name, name)
	}
	c := newCLI(t, map[string]string{"main.tf": config("null")}, "TF_VAR_password="+password, "KRATIX_CONTENT_HASH_KEY="+randomName("key")+"-0123456789abcdef")
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	if got, ok := ts.read(t, file("w1")); !ok || string(got) != want {
		t.Fatalf("w1 holds %q (%v), want the secret", got, ok)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config(`[{ key = "maintenance", effect = "NoExecute" }]`)), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("the drain: %v\n%s", err, out)
	}
	if got, ok := ts.read(t, file("w2")); !ok || string(got) != want {
		t.Errorf("after the drain w2 holds %q (%v), want the secret", got, ok)
	}
	if _, ok := ts.read(t, file("w1")); ok {
		t.Errorf("after the drain w1 still holds the secret")
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the drain is not empty: %v\n%s", err, out)
	}
}

// TestAccTaints_stateRemovedOnADrainedDestination: a request whose state was removed while a
// NoExecute taint drains its destination would be created anew elsewhere, its old copy left
// running. The plan warns, naming the destination that holds it and the import id; imported that
// way, the next apply moves it (the new folder written, the old one emptied).
func TestAccTaints_stateRemovedOnADrainedDestination(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	name := firstOnW1(t, "r")
	request := appRequest(name, "")
	file := func(dest string) string {
		return fmt.Sprintf("%s/resources/default/app/%s/instance-configure/5058f/%s.yaml", dest, name, name)
	}
	c := newCLI(t, map[string]string{"main.tf": requiredKratix + pairConfig(ts, "null", request)})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	if _, ok := ts.read(t, file("w1")); !ok {
		t.Fatalf("the request should be on w1 first")
	}
	if out, err := c.run("state", "rm", "kratix_resource_request.r"); err != nil {
		t.Fatalf("state rm: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(requiredKratix+pairConfig(ts, `[{ key = "maintenance", effect = "NoExecute" }]`, request)), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := c.run("plan")
	flat := strings.Join(strings.Fields(out), " ")
	if err != nil || !strings.Contains(flat, "Request Already On Another Destination") ||
		!strings.Contains(flat, `the folder of destination "w1" already holds its files`) ||
		!strings.Contains(flat, fmt.Sprintf("with the id app/default/%s@w1", name)) {
		t.Fatalf("the plan should warn that w1 holds the request and give the import id (err %v):\n%s", err, out)
	}
	if out, err := c.run("import", "kratix_resource_request.r", fmt.Sprintf("app/default/%s@w1", name)); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply after the import: %v\n%s", err, out)
	}
	if _, ok := ts.read(t, file("w1")); ok {
		t.Errorf("after the import and apply, w1 still holds %s", file("w1"))
	}
	if got, ok := ts.read(t, file("w2")); !ok || !strings.Contains(string(got), "name: "+name) {
		t.Errorf("after the import and apply, w2 should hold the request: %q (found %v)", got, ok)
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after is not empty: %v\n%s", err, out)
	}
}

// bucketPair is two buckets, a and b, with destinations w1 on a and w2 on b, promise app over both,
// and request r named name: for the tests that take one store down while a request moves between
// the two.
type bucketPair struct {
	a, b *testStore
	name string
}

func newBucketPair(t *testing.T, name string) bucketPair {
	t.Helper()
	var stores [2]*testStore
	for i, prefix := range []string{"pa", "pb"} {
		bucket := randomName(prefix)
		if err := minioServer.MakeBucket(context.Background(), bucket); err != nil {
			t.Fatal(err)
		}
		stores[i] = bucketOn(t, minioServer, bucket, minioServer.AccessKey, minioServer.SecretKey, "")
	}
	return bucketPair{a: stores[0], b: stores[1], name: name}
}

// config is the pair's configuration, with destLines in the destinations and requestLines in the
// request.
func (p bucketPair) config(destLines, requestLines string) string {
	return requiredKratix + p.a.provider +
		kratixStateStore{Label: "a", Body: p.a.store}.String() +
		kratixStateStore{Label: "b", Body: p.b.store}.String() +
		kratixDestination{
			Label: "w", Count: "2", Name: q("w${count.index + 1}"), Path: q("w${count.index + 1}"), InitWorkloads: "false",
			StateStore: "[kratix_state_store.a, kratix_state_store.b][count.index]", Body: destLines,
		}.String() + appPromise("kratix_destination.w") + appRequest(p.name, requestLines)
}

// holds reports whether ts holds the request's file in dest's folder, and fails the test when it
// holds other bytes.
func (p bucketPair) holds(t *testing.T, ts *testStore, dest string) bool {
	t.Helper()
	file := fmt.Sprintf("%s/resources/default/app/%s/instance-configure/5058f/%s.yaml", dest, p.name, p.name)
	content := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n", p.name)
	got, ok := ts.read(t, file)
	if ok && string(got) != content {
		t.Errorf("%s holds %q, want %q", file, got, content)
	}
	return ok
}

// TestAccTaints_importPromiseOntoCordoned: a promise imported while one of its destinations is
// cordoned (NoSchedule) keeps that destination, scheduled, as it did before its state was removed:
// the import's plan schedules over what it found, as the apply does (they disagreed, and Terraform
// failed the apply with "Provider produced inconsistent result after apply").
func TestAccTaints_importPromiseOntoCordoned(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "bucket")
	c := newCLI(t, map[string]string{"main.tf": requiredKratix + pairConfig(ts, "null", "")})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(requiredKratix+pairConfig(ts, `[{ key = "maintenance", effect = "NoSchedule" }]`, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("cordoning w1: %v\n%s", err, out)
	}
	if out, err := c.run("state", "rm", "kratix_promise.app"); err != nil {
		t.Fatalf("state rm: %v\n%s", err, out)
	}
	if out, err := c.run("import", "kratix_promise.app", "app"); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply after the import: %v\n%s", err, out)
	}
	v := stateValues(t, c, "kratix_promise.app")
	if got := fmt.Sprint(v["scheduled_destinations"]); got != "[w1 w2]" {
		t.Errorf("scheduled_destinations = %s, want [w1 w2] (w1 cordoned keeps what it holds)", got)
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the import is not empty: %v\n%s", err, out)
	}
}
