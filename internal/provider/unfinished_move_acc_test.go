package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// storeFault takes a store out of service and brings it back: a bucket's recorder drops every
// connection; a repository is moved away on the git server, so that every fetch and push fails.
func storeFault(t *testing.T, ts *testStore) (down, up func()) {
	t.Helper()
	if ts.recorder != nil {
		return func() { ts.recorder.down.Store(true) }, func() { ts.recorder.down.Store(false) }
	}
	repo := gitServer.RepoPath(storeName(ts))
	return func() {
			if err := os.Rename(repo, repo+".away"); err != nil {
				t.Fatal(err)
			}
		}, func() {
			if err := os.Rename(repo+".away", repo); err != nil {
				t.Fatal(err)
			}
		}
}

// refusedCount is how many requests a bucket's recorder has refused so far (0 for git).
func refusedCount(ts *testStore) int {
	if ts.recorder == nil {
		return 0
	}
	return len(ts.recorder.refusedSince(0))
}

// TestAccTaintsWeightLabels_touchNoStore: the drain guide's configuration (the request's promise
// is `kratix_promise.app`), destinations w1 (store a) and w2 (store b), the promise on both and
// one request on w1; on buckets and on git over HTTP.
//
//   - w1's labels, weight and a NoSchedule taint change, and both stores are down during the
//     apply of that plan: the apply succeeds (the destination, the promise and the request have
//     nothing to write but records, each best-effort: a warning; w1's registration record, and
//     the promise's record in both stores, whose pool changed), the buckets saw only the records'
//     writes (the recorders count even those they drop); with the stores back, the next plan
//     writes those records and nothing else, and the plan after it is empty.
//   - w1 drained (NoExecute) with store a down during the apply: the destination and the promise
//     have nothing to write (no "Cannot Write Destination" or "Cannot Write Promise"), so the
//     request is applied: it is written on w2, its removal from w1 fails, and the apply says
//     "Move Not Finished"; state keeps it on w1.
//   - a back: the next apply finishes the move and the plan after it is empty.
func TestAccTaintsWeightLabels_touchNoStore(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	onStores(t, func(t *testing.T, kind string) { testTouchNoStore(t, kind) })
}

func testTouchNoStore(t *testing.T, kind string) {
	name := firstOnW1(t, "r")
	pair := bucketPair{a: newTestStore(t, kind), b: newTestStore(t, kind), name: name}
	a, b := pair.a, pair.b
	config := func(labels, weight, taints string) string {
		return pair.config(fmt.Sprintf("  labels = count.index == 0 ? %s : null\n  weight = count.index == 0 ? %s : null\n  taints = count.index == 0 ? %s : null",
			labels, weight, taints), "")
	}
	c := newCLI(t, map[string]string{"main.tf": config("null", "null", "null")})
	setConfig := func(cfg string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	if !pair.holds(t, a, "w1") || pair.holds(t, b, "w2") {
		t.Fatalf("after the first apply the request should be on w1 only")
	}
	downA, upA := storeFault(t, a)
	downB, upB := storeFault(t, b)

	// Labels, weight and a cordon: nothing to write anywhere.
	setConfig(config(`{ zone = "east" }`, "3", `[{ key = "maintenance", effect = "NoSchedule" }]`))
	if out, err := c.run("plan", "-detailed-exitcode", "-out", "relabel.tfplan"); err == nil {
		t.Fatalf("the plan of w1's new labels, weight and taint shows no change:\n%s", out)
	} else if !strings.Contains(out, "Destination Cordoned") {
		t.Fatalf("the plan should say w1 is cordoned: %v\n%s", err, out)
	}
	refusedA, refusedB := refusedCount(a), refusedCount(b)
	writesA, writesB := a.mark(t), b.mark(t)
	downA()
	downB()
	out, err := c.run("apply", "relabel.tfplan")
	upA()
	upB()
	if err != nil {
		t.Errorf("with both stores down, the apply of a change of labels, weight and taints only failed:\n%s", out)
	}
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "Registration Not Written") ||
		!strings.Contains(flat, `Destination "w1": its record .kratix-registry/destinations/w1.yaml could not be written`) {
		t.Errorf("the apply should warn that w1's record could not be written:\n%s", out)
	}
	// The promise's pool changed (w1's labels, weight and taints), so its record is rewritten,
	// in each store: issue 39, "A promise publishes its own record the same way (...what a
	// request in another workspace needs to be placed exactly as it would be in the promise's own
	// workspace)". Nothing else of the promise changes, so that write is best-effort too.
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "Promise Record Not Written") ||
		!strings.Contains(flat, `Promise "app": its record .kratix-registry/promises/app/_unnamed.yaml could not be written`) {
		t.Errorf("the apply should warn that the promise's record could not be written:\n%s", out)
	}
	if a.recorder != nil {
		// The records' writes: the listing of the bucket they start with, or the records themselves.
		for _, r := range a.recorder.refusedSince(refusedA) {
			if r != "GET /"+strings.TrimPrefix(a.view.String(), "bucket ")+"/" && !strings.Contains(r, ".kratix-registry/destinations/w1.yaml") &&
				!strings.Contains(r, ".kratix-registry/promises/app/_unnamed.yaml") {
				t.Errorf("the apply of labels, weight and taints sent bucket a a request other than the records': %s", r)
			}
		}
		for _, r := range b.recorder.refusedSince(refusedB) {
			if r != "GET /"+strings.TrimPrefix(b.view.String(), "bucket ")+"/" && !strings.Contains(r, ".kratix-registry/promises/app/_unnamed.yaml") {
				t.Errorf("the apply of labels, weight and taints sent bucket b a request other than the promise record's: %s", r)
			}
		}
	}
	if w := a.writesSince(t, writesA); len(w) > 0 {
		t.Errorf("store a was written: %v", w)
	}
	if w := b.writesSince(t, writesB); len(w) > 0 {
		t.Errorf("store b was written: %v", w)
	}
	// The stores are back: the next plan writes the records again, and only that.
	if out, err := c.run("plan", "-detailed-exitcode", "-out", "record.tfplan"); err == nil ||
		!strings.Contains(out, "Plan: 0 to add, 2 to change, 0 to destroy.") || !strings.Contains(out, "kratix_destination.w[0] will be updated") ||
		!strings.Contains(out, `".kratix-registry/destinations/w1.yaml" = (known after apply)`) ||
		!strings.Contains(out, "kratix_promise.app will be updated") ||
		strings.Count(out, `:.kratix-registry/promises/app/_unnamed.yaml" = null -> (known after apply)`) != 2 {
		t.Errorf("the plan after the relabel should write w1's record and the promise's records again, and only those: %v\n%s", err, out)
	}
	writesA = a.mark(t)
	if out, err := c.run("apply", "record.tfplan"); err != nil {
		t.Errorf("the apply of w1's record: %v\n%s", err, out)
	}
	if w := a.writesSince(t, writesA); len(w) > 0 {
		t.Errorf("the apply of w1's record wrote more than the record to store a: %v", w)
	}
	if content, found := a.read(t, ".kratix-registry/destinations/w1.yaml"); !found || !strings.Contains(string(content), "zone: east") {
		t.Errorf("w1's record should say its new label zone = east: %q", content)
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the relabel and the record's write is not empty: %v\n%s", err, out)
	}

	// The drain, with store a down: the request moves half-way and says so.
	setConfig(config(`{ zone = "east" }`, "3", `[{ key = "maintenance", effect = "NoExecute" }]`))
	if out, err := c.run("plan", "-out", "drain.tfplan"); err != nil || !strings.Contains(out, `moves to "w2"`) {
		t.Fatalf("the drain's plan should say the request moves to w2: %v\n%s", err, out)
	}
	downA()
	out, err = c.run("apply", "drain.tfplan")
	upA()
	if err == nil {
		t.Fatalf("the drain's apply with store a down succeeded:\n%s", out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, refused := range []string{"Cannot Write Destination", "Cannot Write Promise"} {
		if strings.Contains(flat, refused) {
			t.Errorf("the drain's apply says %q, though only taints changed for them:\n%s", refused, out)
		}
	}
	if !strings.Contains(flat, "Move Not Finished") || !strings.Contains(flat, fmt.Sprintf(`Request app/default/%s stays on destination "w1"`, name)) {
		t.Errorf("the drain's apply should say the request's move is not finished:\n%s", out)
	}
	if !pair.holds(t, a, "w1") || !pair.holds(t, b, "w2") {
		t.Errorf("after the half-done move both w1 and w2 must hold the request's file")
	}
	if got := stateAttribute(t, c, "kratix_resource_request.r", "destination"); got != "w1" {
		t.Errorf("state puts the request on %q while its files are still on w1, want w1", got)
	}

	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("the apply with both stores up: %v\n%s", err, out)
	}
	if pair.holds(t, a, "w1") || !pair.holds(t, b, "w2") {
		t.Errorf("after the move the request must be on w2 only")
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the move is not empty: %v\n%s", err, out)
	}
}

// TestAccPromiseMoveFinishes: a promise's destination moves, and the removal of the promise's
// file from where it was fails; the next plan shows the removal left to do and its apply makes it.
//
//   - bucket: w1 moves from bucket a to bucket b, a down during the apply;
//   - git-http: w1 moves from repository a to repository b, a moved away during the apply;
//   - bucket-path: w1 moves from path w1 to w1-moved in one bucket, which answers every DELETE
//     with 503 SlowDown during the apply.
//
// Each time: the apply fails and says "Move Not Finished", the new place holds the file, the old
// one still does; state keeps the old placement; the next plan goes from the old placement to the
// new one; its apply removes the old file and keeps the new one, and the plan after is empty.
func TestAccPromiseMoveFinishes(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	for _, kind := range []string{"bucket", "git-http", "bucket-path"} {
		t.Run(kind, func(t *testing.T) { testPromiseMoveFinishes(t, kind) })
	}
}

func testPromiseMoveFinishes(t *testing.T, kind string) {
	testMoveFinishes(t, kind, false)
}

func testMoveFinishes(t *testing.T, kind string, request bool) {
	storeKind := strings.TrimSuffix(kind, "-path")
	a := newTestStore(t, storeKind)
	b := a
	from, to := "w1", "w1-moved"
	fromStore, toStore := "a", "a"
	var fault, heal func()
	if kind == "bucket-path" {
		fault, heal = func() { a.recorder.failDeletes.Store(true) }, func() { a.recorder.failDeletes.Store(false) }
	} else {
		b = newTestStore(t, storeKind)
		to, toStore = "w1", "b"
		fault, heal = storeFault(t, a)
	}
	requestHCL, who := "", "kratix_promise.app"
	if request {
		requestHCL = kratixResourceRequest{Label: "db", Promise: "kratix_promise.app", Name: q("db"), Documents: q(configMapDoc("db"))}.String()
		who = "kratix_resource_request.db"
	}
	config := func(path, store string) string {
		stores := kratixStateStore{Label: "a", Body: a.store}.String()
		if b != a {
			stores += kratixStateStore{Label: "b", Body: b.store}.String()
		}
		return requiredKratix + a.provider + stores + kratixDestination{
			Label: "w", Name: q("w1"), Path: q(path), InitWorkloads: "false", StateStore: "kratix_state_store." + store,
		}.String() + appPromise("[kratix_destination.w]") + requestHCL
	}
	file := func(root string) string { return root + "/dependencies/app/5058f/static/app-dependencies.yaml" }
	content := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
	if request {
		file = func(root string) string { return root + "/resources/default/app/db/instance-configure/5058f/db.yaml" }
		content = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: db\n"
	}
	holds := func(ts *testStore, root string) bool {
		t.Helper()
		got, ok := ts.read(t, file(root))
		if ok && string(got) != content {
			t.Errorf("%s holds %q, want %q", file(root), got, content)
		}
		return ok
	}
	c := newCLI(t, map[string]string{"main.tf": config(from, fromStore)})
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	if !holds(a, from) {
		t.Fatalf("after the first apply %s should hold the promise's file", file(from))
	}
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config(to, toStore)), 0o600); err != nil {
		t.Fatal(err)
	}
	if request {
		if out, err := c.run("apply", "-auto-approve", "-target=kratix_promise.app"); err != nil {
			t.Fatalf("moving the promise first: %v\n%s", err, out)
		}
	}
	if out, err := c.run("plan", "-out", "move.tfplan"); err != nil {
		t.Fatalf("the move's plan: %v\n%s", err, out)
	}
	fault()
	out, err := c.run("apply", "move.tfplan")
	heal()
	if err == nil {
		t.Fatalf("the move's apply with the old place failing succeeded:\n%s", out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	if !request && (!strings.Contains(flat, "Cannot Write Promise") || !strings.Contains(flat, "Move Not Finished") ||
		!strings.Contains(flat, `Promise "app" stays on destination "w1" where it was`)) {
		t.Errorf("the move's apply should fail removing the old file and say the move is not finished:\n%s", out)
	}
	if request && !strings.Contains(flat, "Cannot Write Request") {
		t.Errorf("the move's apply should fail removing the request's old file:\n%s", out)
	}
	if !holds(a, from) || !holds(b, to) {
		t.Fatalf("after the half-done move both the old and the new place must hold the file")
	}
	oldLocation, newLocation := a.location, b.location
	if !request {
		placed := statePlacements(t, c, who)
		if got := placed["w1"]; got.Location != oldLocation || got.Root != from {
			t.Errorf("state records the promise at %s %s after the half-done move, want where its file still is: %s %s", got.Location, got.Root, oldLocation, from)
		}
	}
	out, err = c.run("plan", "-detailed-exitcode", "-out", "finish.tfplan")
	if err == nil {
		t.Fatalf("the plan after the half-done move is empty: the old file %s would stay for good\n%s", file(from), out)
	}
	if !request {
		before, after := planPlacements(t, c, "finish.tfplan", who)
		if before["w1"].Location != oldLocation || before["w1"].Root != from || after["w1"].Location != newLocation || after["w1"].Root != to {
			t.Errorf("the next plan goes from %s %s to %s %s, want from %s %s to %s %s", before["w1"].Location, before["w1"].Root,
				after["w1"].Location, after["w1"].Root, oldLocation, from, newLocation, to)
		}
	}
	if out, err := c.run("apply", "finish.tfplan"); err != nil {
		t.Fatalf("the apply finishing the move: %v\n%s", err, out)
	}
	if holds(a, from) || !holds(b, to) {
		t.Errorf("after the move is finished only the new place may hold the file (old: %v, new: %v)", holds(a, from), holds(b, to))
	}

	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after the finished move is not empty: %v\n%s", err, out)
	}
}
