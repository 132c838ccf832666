package provider

import (
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// These tests run the first plan of a new or moved kratix_state_store against real servers: the
// plan reads the store (never writes) and fails, at the attribute to fix, where the apply would.

// onlyStore is a configuration of the provider and one store resource with body store.
func onlyStore(provider, store string) string {
	return provider + fmt.Sprintf("resource \"kratix_state_store\" \"s\" {\n%s\n}\n", store)
}

// closedPort is a loopback address on which nothing listens: a port just given up.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// at matches the start of a read check's error reported at attribute p ("bucket.bucket_name").
func at(p string) string {
	return `State Store Not Readable[\s\S]*` + regexp.QuoteMeta(p) + `: State store "[^"]+" cannot be read`
}

// TestAccStateStore_planReadsTheStore: a missing bucket, a missing branch, refused credentials,
// an unreachable server and plain HTTP behind an https URL each fail the first plan, at the
// attribute, with the kind and advice of the apply's errors.
func TestAccStateStore_planReadsTheStore(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	bucket := newTestStore(t, "bucket")
	https := newTestStore(t, "git-http")
	ssh := newTestStore(t, "git-ssh")
	closed := closedPort(t)
	repoURL := gitServer.HTTPURL(storeName(https))
	moved := strings.Replace(bucket.store, "bucket_name = \"", "bucket_name = \"moved-", 1)

	steps := []resource.TestStep{
		{
			Config:      onlyStore(bucket.provider, strings.Replace(bucket.store, "bucket_name = \"", "bucket_name = \"missing-", 1)),
			PlanOnly:    true,
			ExpectError: wrapped(at("bucket.bucket_name") + `[\s\S]*bucket does not exist[\s\S]*Create the bucket, or set create_bucket = true`),
		},
		{
			Config:      onlyStore(wrongSecret(bucket), bucket.store),
			PlanOnly:    true,
			ExpectError: wrapped(at("secret_ref") + `[\s\S]*authentication failed[\s\S]*Check the credentials`),
		},
		{
			Config:      onlyStore(bucket.provider, strings.Replace(bucket.store, bucket.recorder.endpoint, closed, 1)),
			PlanOnly:    true,
			ExpectError: wrapped(at("bucket.endpoint") + `[\s\S]*endpoint unreachable`),
		},
		{
			// insecure = false: HTTPS to a server that speaks plain HTTP.
			Config:      onlyStore(bucket.provider, strings.Replace(bucket.store, "insecure    = true", "insecure    = false", 1)),
			PlanOnly:    true,
			ExpectError: wrapped(at("bucket.endpoint") + `[\s\S]*server speaks plain HTTP[\s\S]*set insecure = true`),
		},
		{
			Config:      onlyStore(https.provider, strings.Replace(https.store, "git = {", "git = {\n    branch = \"no-such-branch\"", 1)),
			PlanOnly:    true,
			ExpectError: wrapped(at("git.branch") + `[\s\S]*branch does not exist[\s\S]*Create the branch`),
		},
		{
			Config:      onlyStore(wrongSecret(https), https.store),
			PlanOnly:    true,
			ExpectError: wrapped(at("secret_ref") + `[\s\S]*authentication failed`),
		},
		{
			Config:      onlyStore(https.provider, strings.Replace(https.store, repoURL, "http://"+closed+"/r.git", 1)),
			PlanOnly:    true,
			ExpectError: wrapped(at("git.url") + `[\s\S]*endpoint unreachable`),
		},
		{
			Config:      onlyStore(https.provider, strings.Replace(https.store, repoURL, "https://"+strings.TrimPrefix(repoURL, "http://"), 1)),
			PlanOnly:    true,
			ExpectError: wrapped(at("git.url") + `[\s\S]*server speaks plain HTTP[\s\S]*Use an http:// URL`),
		},
		{
			Config:      onlyStore(https.provider, strings.Replace(https.store, strings.TrimSuffix(repoURL, ".git"), strings.TrimSuffix(repoURL, ".git")+"-missing", 1)),
			PlanOnly:    true,
			ExpectError: wrapped(at("git.url") + `[\s\S]*repository not found`),
		},
		{
			Config:      onlyStore(ssh.provider, strings.Replace(ssh.store, "git = {", "git = {\n    branch = \"no-such-branch\"", 1)),
			PlanOnly:    true,
			ExpectError: wrapped(at("git.branch") + `[\s\S]*branch does not exist`),
		},
		{
			// create_bucket: a missing bucket is what the apply makes, not an error.
			Config: onlyStore(bucket.provider, strings.Replace(
				strings.Replace(bucket.store, "bucket_name = \"", "bucket_name = \"created-", 1),
				"  bucket = {", "  bucket = {\n    create_bucket = true", 1)),
			PlanOnly: true, ExpectNonEmptyPlan: true,
		},
		// A store that moves is checked where it goes.
		{Config: onlyStore(bucket.provider, bucket.store)},
		{
			Config:      onlyStore(bucket.provider, moved),
			PlanOnly:    true,
			ExpectError: wrapped(at("bucket.bucket_name") + `[\s\S]*bucket does not exist`),
		},
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testAccProviders, Steps: steps})
}

// TestAccStateStore_planCheckWritesNothing: the plan's check of a new store only reads: the
// bucket sees GET and HEAD requests alone (listings included), a repository's references stay
// as they were.
func TestAccStateStore_planCheckWritesNothing(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	bucket := newTestStore(t, "bucket")
	https := newTestStore(t, "git-http")
	ssh := newTestStore(t, "git-ssh")
	refs := func(ts *testStore) string {
		out, err := exec.Command("git", "-C", gitServer.RepoPath(storeName(ts)), "for-each-ref", "--format=%(refname) %(objectname)").CombinedOutput()
		if err != nil {
			t.Fatalf("listing the references of %s: %v: %s", storeName(ts), err, out)
		}
		return string(out)
	}
	refsBefore := map[*testStore]string{https: refs(https), ssh: refs(ssh)}
	config := onlyStore(bucket.provider, bucket.store) +
		fmt.Sprintf("resource \"kratix_state_store\" \"h\" {\n%s\n}\n", strings.Replace(https.store, "secret_ref = \"s\"", "secret_ref = \"h\"", 1)) +
		fmt.Sprintf("resource \"kratix_state_store\" \"k\" {\n%s\n}\n", strings.Replace(ssh.store, "secret_ref = \"s\"", "secret_ref = \"k\"", 1))
	config = strings.Replace(config, "  secrets = {\n", "  secrets = {\n"+
		fmt.Sprintf("    h = {\n      username = %q\n      password = %q\n    }\n", gitServer.Username, gitServer.Password)+
		fmt.Sprintf("    k = {\n      ssh_private_key = %q\n      known_hosts = %q\n    }\n", gitServer.SSHPrivateKey, gitServer.KnownHosts), 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{{
			// The bucket store with a path, so that the listing runs under it.
			Config:   strings.Replace(config, "  secret_ref = \"s\"", "  secret_ref = \"s\"\n  path = \"team\"", 1),
			PlanOnly: true, ExpectNonEmptyPlan: true,
		}},
	})
	methods := bucket.recorder.methodsSince(0)
	if len(methods) == 0 {
		t.Error("the plan sent no request to the bucket: its check did not run")
	}
	for _, m := range methods {
		if m != "GET" && m != "HEAD" {
			t.Errorf("the plan sent %s to the bucket; its requests were %v", m, methods)
			break
		}
	}
	if w, _ := bucket.recorder.snapshot(); len(w) > 0 || len(bucket.recorder.probeWrites()) > 0 {
		t.Errorf("the plan wrote to the bucket: %v %v", w, bucket.recorder.probeWrites())
	}
	for ts, before := range refsBefore {
		if after := refs(ts); after != before {
			t.Errorf("%s: the plan changed the references:\n%s\nwas\n%s", ts.kind, after, before)
		}
	}
}
