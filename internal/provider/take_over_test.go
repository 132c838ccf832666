package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

// TestAccTakeOverWarning: a promise's first apply replaces a file that someone else wrote with
// other content (a warning naming it and the store) and takes over a file that already holds
// the same content (silently, without rewriting it). The warning comes from the write itself:
// the apply reads nothing from the stores before writing.
func TestAccTakeOverWarning(t *testing.T) {
	requireAcceptance(t)
	bucket, repo := newTestStore(t, "bucket"), newTestStore(t, "git-http")
	c := promiseOnTwoStores(t, minioServer, bucket.store, repo.store)
	file, want := twoStoresFile, twoStoresContent
	repo.put(t, file, []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: someone-else\n"))
	bucket.put(t, file, []byte(want))
	repoBefore, bucketBefore := repo.mark(t), bucket.mark(t)

	out, err := c.run("apply", "-auto-approve")
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if n := strings.Count(out, "Warning: Taking Over Existing File"); n != 1 {
		t.Errorf("%d take-over warnings, want 1 (the repository's file only):\n%s", n, out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	if !strings.Contains(flat, `Promise "app" replaces `+file+` in repository`) {
		t.Errorf("the warning does not name the file and the repository:\n%s", out)
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
