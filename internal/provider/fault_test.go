package provider

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// TestAccFault_storeDownDuringApply: a plan is made, one of the two MinIO servers a promise
// writes to stops before the apply runs. The apply fails naming that store, state keeps only
// what was written, an object beside the managed folders is untouched, and once the server is
// back the next apply converges.
func TestAccFault_storeDownDuringApply(t *testing.T) {
	if minioServer == nil {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	ctx := context.Background()
	second, err := testinfra.StartMinIO()
	if err != nil {
		t.Fatal(err)
	}
	defer second.Stop()
	for _, m := range []*testinfra.MinIO{minioServer, second} {
		if err := m.MakeBucket(ctx, "fault"); err != nil && !strings.Contains(err.Error(), "already") {
			t.Fatal(err)
		}
	}
	client, err := minioServer.Client()
	if err != nil {
		t.Fatal(err)
	}
	beside := []byte("written by someone else\n")
	if _, err := client.PutObject(ctx, "fault", "w1/README.md", bytes.NewReader(beside), int64(len(beside)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	config := func(ns string) string {
		return fmt.Sprintf(`
terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

provider "kratix" {
  secrets = {
    one = { access_key_id = %[1]q, secret_access_key = %[2]q }
    two = { access_key_id = %[3]q, secret_access_key = %[4]q }
  }
}

resource "kratix_state_store" "one" {
  name       = "one"
  secret_ref = "one"
  bucket     = { endpoint = %[5]q, bucket_name = "fault", insecure = true }
}

resource "kratix_state_store" "two" {
  name       = "two"
  secret_ref = "two"
  bucket     = { endpoint = %[6]q, bucket_name = "fault", insecure = true }
}

resource "kratix_destination" "d" {
  count          = 2
  name           = "w${count.index + 1}"
  path           = "w${count.index + 1}"
  init_workloads = false
  state_store    = [kratix_state_store.one, kratix_state_store.two][count.index]
}

resource "kratix_promise" "p" {
  name         = "app"
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %[7]s\n"
  destinations = kratix_destination.d
}
`, minioServer.AccessKey, minioServer.SecretKey, second.AccessKey, second.SecretKey, minioServer.Endpoint, second.Endpoint, ns)
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
	if got := read(client, fmt.Sprintf(file, 1)); !strings.Contains(got, "name: v2") {
		t.Errorf("the reachable store was not written: %q", got)
	}
	// State records w1 at v2 and keeps w2 at v1: the next plan changes only what was not written.
	show, _ := c.run("show", "-no-color")
	if !strings.Contains(show, "w1/dependencies/app") || !strings.Contains(show, "w2/dependencies/app") {
		t.Errorf("state lost a placement:\n%s", show)
	}
	if err := second.Up(); err != nil {
		t.Fatal(err)
	}
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("apply after the store is back: %v\n%s", err, out)
	}
	client2, err := second.Client()
	if err != nil {
		t.Fatal(err)
	}
	if got := read(client2, fmt.Sprintf(file, 2)); !strings.Contains(got, "name: v2") {
		t.Errorf("the store that was down did not converge: %q", got)
	}
	if out, err := c.run("plan", "-detailed-exitcode"); err != nil {
		t.Errorf("the plan after convergence is not empty: %v\n%s", err, out)
	}
	if got := read(client, "w1/README.md"); got != string(beside) {
		t.Errorf("the object beside the managed folders changed: %q", got)
	}
}

// TestAccFault_hookRejectsPush: a server-side hook refusing pushes fails the apply with the
// hook's own message, and nothing is recorded as written.
func TestAccFault_hookRejectsPush(t *testing.T) {
	if minioServer == nil {
		t.Skip("acceptance test: set TF_ACC=1")
	}
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
	if w := ts.writes(t); len(w) != 0 {
		t.Errorf("the rejected push left commits on the branch: %v", w)
	}
}

// TestAccFault_otherWriterDuringApply: another client pushes to the branch while the provider's
// push is in flight (a server hook makes that push, once). The provider's push is refused, it
// re-applies its change on the new tip, and both changes end up in the history.
func TestAccFault_otherWriterDuringApply(t *testing.T) {
	if minioServer == nil {
		t.Skip("acceptance test: set TF_ACC=1")
	}
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
			Check: func(*terraform.State) error {
				messages, err := gitServer.CommitMessages(repo, "main")
				if err != nil {
					return err
				}
				joined := strings.Join(messages, " | ")
				if !strings.Contains(joined, "their change") || !strings.Contains(joined, "Update from: kratix-canary") {
					return fmt.Errorf("history lost a change: %s", joined)
				}
				for _, f := range []string{"other-writer.yaml", "worker-1/dependencies/kratix-canary-namespace.yaml"} {
					if _, ok := ts.read(t, f); !ok {
						return fmt.Errorf("%s is missing: a write was lost", f)
					}
				}
				return nil
			},
		}},
	})
}
