package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// TestAccTakeOverWarning: a promise's first apply replaces a file that someone else wrote with
// other content in a repository (a warning naming it and the store, from what the write found)
// and takes over a file that already holds the same content in a bucket (silently, without
// rewriting it). Its plan warns about neither: a repository is not read at plan (a fetch), and
// the bucket's file holds the promise's content. TestAccTakeOverWarningOfRequest has the
// plan's warning on a bucket.
func TestAccTakeOverWarning(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	bucket, repo := newTestStore(t, "bucket"), newTestStore(t, "git-http")
	c := promiseOnTwoStores(t, minioServer, bucket.store, repo.store)
	file, want := twoStoresFile, twoStoresContent
	repo.put(t, file, []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: someone-else\n"))
	bucket.put(t, file, []byte(want))
	repoBefore, bucketBefore := repo.mark(t), bucket.mark(t)

	out, err := c.run("plan")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	if strings.Contains(out, "Taking Over") {
		t.Errorf("the plan warns of a take-over; the repository is left to the apply and the bucket's file holds the same content:\n%s", out)
	}
	if w := repo.writesSince(t, repoBefore); len(w) != 0 {
		t.Errorf("the plan wrote to the repository: %v", w)
	}

	out, err = c.run("apply", "-auto-approve")
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if n := strings.Count(out, "Warning: Taking Over Existing File"); n != 1 {
		t.Errorf("%d take-over warnings, want 1 (the repository's file only):\n%s", n, out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	if !strings.Contains(flat, `Promise "app" replaces `+file+` in repository`) || strings.Contains(flat, "in bucket") {
		t.Errorf("the warning does not name the file and the repository only:\n%s", out)
	}
	if got, ok := repo.read(t, file); !ok || string(got) != want {
		t.Errorf("the repository's %s = %q, %v; want the promise's content", file, got, ok)
	}
	if w := repo.writesSince(t, repoBefore); len(w) != 1 {
		t.Errorf("repository writes %v, want one commit", w)
	}
	if err := acctest.Check(context.Background(), acctest.NoWritesSince(bucket.journal, &bucketBefore)); err != nil {
		t.Errorf("the bucket's identical file was rewritten: %v", err)
	}
	// Nothing left to take over: the next apply changes nothing and warns about nothing.
	if out, err := c.run("apply", "-auto-approve"); err != nil || strings.Contains(out, "Taking Over") {
		t.Errorf("second apply: %v\n%s", err, out)
	}
}

// TestTakeOverText: the plan's warning names one file, or counts several and names the first three.
func TestTakeOverText(t *testing.T) {
	t.Parallel()
	one := takeOverText(`Promise "web"`, []string{"edge/a.yaml"}, `bucket "b" at h`)
	if want := `Promise "web" will replace edge/a.yaml in bucket "b" at h, which holds different content (written by Kratix or another workspace?). ` +
		`Applying this plan overwrites it; importing the resource instead records what is there.`; one != want {
		t.Errorf("one file:\n got %s\nwant %s", one, want)
	}
	two := takeOverText(`Promise "web"`, []string{"a/x.yaml", "b/x.yaml"}, `repository "r"`)
	if want := `Promise "web" will replace 2 files in repository "r" (a/x.yaml, b/x.yaml), which hold different content`; !strings.HasPrefix(two, want) {
		t.Errorf("two files:\n got %s\nwant it to start with %s", two, want)
	}
	five := takeOverText(`Request r`, []string{"a", "b", "c", "d", "e"}, `repository "r"`)
	if want := `Request r will replace 5 files in repository "r" (a, b, c and 2 more), which hold different content`; !strings.HasPrefix(five, want) {
		t.Errorf("five files:\n got %s\nwant it to start with %s", five, want)
	}
}

// TestAccTakeOverWarningAtPlan: on a bucket, a promise's and a request's first plans warn about
// their files that someone else wrote with other content, at the attribute that makes them, and
// write nothing; a request whose file already holds its content is planned without a warning.
func TestAccTakeOverWarningAtPlan(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	bucket := newTestStore(t, "bucket")
	other := "w/resources/default/p/taken/instance-configure/5058f/taken.yaml"
	same := "w/resources/default/p/kept/instance-configure/5058f/kept.yaml"
	c := newCLI(t, sceneOnStore(t, "take_over_at_plan", bucket))
	promiseFile := "w/dependencies/p/5058f/static/p-dependencies.yaml"
	bucket.put(t, promiseFile, []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: someone-else\n"))
	start := bucket.mark(t)
	out, err := c.run("plan", "-target=kratix_promise.p")
	if err != nil {
		t.Fatalf("plan of the promise: %v\n%s", err, out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	if n := strings.Count(out, "Warning: Taking Over Existing File"); n != 1 ||
		!strings.Contains(flat, `Promise "p" will replace `+promiseFile+` in bucket`) || !strings.Contains(flat, `with kratix_promise.p, on main.tf`) {
		t.Errorf("the promise's plan: %d take-over warnings, want 1 naming %s at kratix_promise.p:\n%s", n, promiseFile, out)
	}
	if err := acctest.Check(context.Background(), acctest.NoWritesSince(bucket.journal, &start)); err != nil {
		t.Errorf("the promise's plan wrote: %v", err)
	}
	if out, err := c.run("apply", "-auto-approve", "-target=kratix_promise.p"); err != nil {
		t.Fatalf("creating the promise: %v\n%s", err, out)
	}
	bucket.put(t, other, []byte(requestYAML("someone-else")))
	bucket.put(t, same, []byte(requestYAML("kept")))
	before := bucket.mark(t)

	out, err = c.run("plan")
	if err != nil {
		t.Fatalf("plan: %v\n%s", err, out)
	}
	flat = strings.Join(strings.Fields(out), " ")
	if n := strings.Count(out, "Warning: Taking Over Existing File"); n != 1 || strings.Contains(flat, "similar warning") {
		t.Errorf("%d take-over warnings, want 1 (request taken only):\n%s", n, out)
	}
	if !strings.Contains(flat, `Request p/default/taken will replace `+other+` in bucket`) || strings.Contains(flat, "kept.yaml in") {
		t.Errorf("the warning does not name request taken's file alone:\n%s", out)
	}
	if !strings.Contains(flat, `with kratix_resource_request.taken, on main.tf`) {
		t.Errorf("the warning is not at request taken:\n%s", out)
	}
	if err := acctest.Check(context.Background(), acctest.NoWritesSince(bucket.journal, &before)); err != nil {
		t.Errorf("the plan wrote: %v", err)
	}
}
