package provider

import (
	"fmt"
	"strings"
	"testing"
)

// TestAccTakeOverWarning: a promise's first apply replaces a file that someone else wrote with
// other content (a warning naming it and the store) and takes over a file that already holds
// the same content (silently, without rewriting it). The warning comes from the write itself:
// the apply reads nothing from the stores before writing.
func TestAccTakeOverWarning(t *testing.T) {
	requireAcceptance(t)
	bucket, repo := newTestStore(t, "bucket"), newTestStore(t, "git-http")
	config := fmt.Sprintf(`
terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

provider "kratix" {
  secrets = {
    b = { access_key_id = %q, secret_access_key = %q }
    g = { username = %q, password = %q }
  }
}

resource "kratix_state_store" "bucket" {
%s
}

resource "kratix_state_store" "git" {
%s
}

resource "kratix_destination" "on_bucket" {
  name           = "on-bucket"
  path           = "w"
  init_workloads = false
  state_store    = kratix_state_store.bucket
}

resource "kratix_destination" "on_git" {
  name           = "on-git"
  path           = "w"
  init_workloads = false
  state_store    = kratix_state_store.git
}

resource "kratix_promise" "p" {
  name         = "app"
  destinations = [kratix_destination.on_git, kratix_destination.on_bucket]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
}
`, minioServer.AccessKey, minioServer.SecretKey, gitServer.Username, gitServer.Password,
		strings.Replace(bucket.store, `secret_ref = "s"`, `secret_ref = "b"`, 1),
		strings.Replace(repo.store, `secret_ref = "s"`, `secret_ref = "g"`, 1))
	c := newCLI(t, map[string]string{"main.tf": config})
	if out, err := c.run("apply", "-auto-approve", "-target=kratix_destination.on_bucket", "-target=kratix_destination.on_git"); err != nil {
		t.Fatalf("creating the destinations: %v\n%s", err, out)
	}
	// The file the promise writes, spelled by hand from the layout, and its content.
	file := "w/dependencies/app/5058f/static/app-dependencies.yaml"
	want := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
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
	if err := bucket.expectNoWritesSince(t, &bucketBefore)(nil); err != nil {
		t.Errorf("the bucket's identical file was rewritten: %v", err)
	}
	// Nothing left to take over: the next apply changes nothing and warns about nothing.
	if out, err := c.run("apply", "-auto-approve"); err != nil || strings.Contains(out, "Taking Over") {
		t.Errorf("second apply: %v\n%s", err, out)
	}
}
