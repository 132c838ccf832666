package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
)

func storeAndDestination(ts *testStore, provider string) string {
	return provider + kratixStateStore{Label: "s", Body: ts.store}.String() +
		kratixDestination{Label: "d", Name: q("worker-1"), Path: q("worker-1"), StateStore: "kratix_state_store.s"}.String()
}

// TestAccStateStore_wrongCredentials: a store whose credentials stop working fails the next plan
// with an error that names the destination and the cause, and nothing is dropped from state.
func TestAccStateStore_wrongCredentials(t *testing.T) {
	t.Parallel()
	onStores(t, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		wrong := wrongSecret(ts)
		cause := `(access denied|authentication failed)`
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{
				{Config: storeAndDestination(ts, ts.provider)},
				{
					Config:      storeAndDestination(ts, wrong),
					ExpectError: wrapped(`Cannot Read (Destination|State Store)[\s\S]*worker-1[\s\S]*` + cause),
				},
				{
					// With the right credentials again, the plan is empty: nothing was lost.
					Config: storeAndDestination(ts, ts.provider),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectEmptyPlan(),
					}},
				},
			},
		})
	})
}

func wrongSecret(ts *testStore) string {
	switch ts.kind {
	case "bucket":
		return strings.Replace(ts.provider, minioServer.SecretKey, "wrong-secret-key", 1)
	default:
		return strings.Replace(ts.provider, gitServer.Password, "wrong-password", 1)
	}
}

// TestAccStateStore_createChecksAccess: what the plan's read check finds (credentials refused, a
// missing bucket or branch, an untrusted host key) fails the plan, with the store and its cause;
// credentials that may read but not write pass the plan and fail the create, whose check proves
// the store can be written.
func TestAccStateStore_createChecksAccess(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	bucket := newTestStore(t, "bucket")
	https := newTestStore(t, "git-http")
	ssh := newTestStore(t, "git-ssh")
	only := func(ts *testStore, provider string) string {
		return provider + fmt.Sprintf("resource \"kratix_state_store\" \"s\" {\n%s\n}\n", ts.store)
	}
	missingBucket := strings.Replace(bucket.store, "bucket_name = \"", "bucket_name = \"missing-", 1)
	readKey, readSecret, err := minioServer.AddUserWithPolicy(context.Background(), fmt.Sprintf(`{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":["s3:GetObject","s3:ListBucket","s3:GetBucketLocation"],"Resource":["arn:aws:s3:::%[1]s","arn:aws:s3:::%[1]s/*"]}
]}`, storeName(bucket)))
	if err != nil {
		t.Fatal(err)
	}
	readOnly := strings.Replace(strings.Replace(bucket.provider, minioServer.SecretKey, readSecret, 1), minioServer.AccessKey, readKey, 1)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config:      only(bucket, wrongSecret(bucket)),
				ExpectError: wrapped(`State Store Not Readable[\s\S]*bucket "t-[0-9a-f]+"[\s\S]*(access denied|authentication failed)`),
			},
			{
				Config:      only(https, wrongSecret(https)),
				ExpectError: wrapped(`State Store Not Readable[\s\S]*authentication failed`),
			},
			{
				Config:      bucket.provider + fmt.Sprintf("resource \"kratix_state_store\" \"s\" {\n%s\n}\n", missingBucket),
				ExpectError: wrapped(`State Store Not Readable[\s\S]*bucket does not exist[\s\S]*create_bucket`),
			},
			{
				Config:      only(ssh, strings.Replace(ssh.provider, gitServer.KnownHosts, gitServer.WrongKnownHosts, 1)),
				ExpectError: wrapped(`State Store Not Readable[\s\S]*SSH host key not trusted`),
			},
			{
				Config: only(https, https.provider) + fmt.Sprintf("resource \"kratix_state_store\" \"b\" {\n%s\n}\n",
					strings.Replace(strings.Replace(https.store, "git = {", "git = {\n    branch = \"no-such-branch\"", 1), "name       = \"", "name       = \"b", 1)),
				ExpectError: wrapped(`State Store Not Readable[\s\S]*branch does not exist`),
			},
			{
				// Write access is the apply's to prove: the plan only reads.
				Config:      only(bucket, readOnly),
				ExpectError: wrapped(`State Store Not Writable[\s\S]*bucket "t-[0-9a-f]+"[\s\S]*access denied`),
			},
			{
				// The write check leaves nothing behind: no PUT or DELETE reached the bucket in any
				// step but those of the probe object, at the root (the store has no path), which is
				// gone.
				Config: only(bucket, bucket.provider),
				Check:  func(*terraform.State) error { return expectProbesUnder(bucket.recorder.probeWrites(), "") },
				ConfigStateChecks: []statecheck.StateCheck{
					acctest.FolderHolds(bucket.view, ""),
					acctest.NoWritesSince(bucket.journal, &acctest.Mark{}),
				},
			},
		},
	})
}

// TestAccDestination_tenOnOneRepository: ten destinations on one repository, applied with
// Terraform's default parallelism of 10, make exactly one commit each and lose nothing.
func TestAccDestination_tenOnOneRepository(t *testing.T) {
	t.Parallel()
	onStoresOf(t, []string{"git-http", "git-ssh"}, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{{
				Config: storeConfig(ts) + kratixDestination{
					Label: "d", Count: "10", Name: q("worker-${count.index}"), Path: q("clusters/worker-${count.index}"),
					StateStore: "kratix_state_store.s",
				}.String(),
				ConfigStateChecks: []statecheck.StateCheck{
					// The README and the canaries of all ten, none lost.
					acctest.FolderHolds(ts.view, "", tenCanaries()...),
					// One commit per destination, none empty.
					acctest.WritesSince(ts.journal, &acctest.Mark{}, repeat("Update from: kratix-canary", 10)...),
				},
			}},
		})
	})
}

// TestAccImport: a store and a destination imported by name; the next plan fills in the rest in
// place (no replacement) and the apply writes nothing new.
func TestAccImport(t *testing.T) {
	t.Parallel()
	onStoresOf(t, storeKinds, func(t *testing.T, kind string) {
		requireAcceptance(t)
		ts := newTestStore(t, kind)
		cfg := storeAndDestination(ts, ts.provider)
		var forgotten acctest.Mark
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: testAccProviders,
			Steps: []resource.TestStep{
				{Config: cfg},
				// Forget both (cleanup "none": the files stay) ...
				{Config: ts.provider, ConfigStateChecks: []statecheck.StateCheck{acctest.SetMark(ts.journal, &forgotten)}},
				// ... and import them by name.
				{
					Config: cfg, ResourceName: "kratix_state_store.s", ImportState: true, ImportStatePersist: true,
					ImportStateIdFunc: func(*terraform.State) (string, error) { return storeName(ts), nil },
				},
				{
					Config: cfg, ResourceName: "kratix_destination.d", ImportState: true, ImportStatePersist: true,
					ImportStateId: "worker-1",
				},
				{
					Config: cfg,
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kratix_state_store.s", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("kratix_destination.d", plancheck.ResourceActionUpdate),
					}},
					// The canaries were already there: nothing is written.
					ConfigStateChecks: []statecheck.StateCheck{acctest.NoWritesSince(ts.journal, &forgotten)},
				},
			},
		})
	})
}

// tenCanaries is what TestAccDestination_tenOnOneRepository's repository holds: the README and
// both canaries of clusters/worker-0 to clusters/worker-9.
func tenCanaries() []string {
	out := []string{"README.md"}
	for i := range 10 {
		d := fmt.Sprintf("clusters/worker-%d", i)
		out = append(out, d+"/dependencies/kratix-canary-namespace.yaml", d+"/resources/kratix-canary-configmap.yaml")
	}
	return out
}

func storeName(ts *testStore) string {
	m := regexp.MustCompile(`name\s+=\s+"([^"]+)"`).FindStringSubmatch(ts.store)
	return m[1]
}

// wrapped compiles a pattern whose spaces match any run of white space: Terraform wraps the
// text of diagnostics at its terminal width.
func wrapped(pattern string) *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll(pattern, " ", `\s+`))
}

// expectProbesUnder checks that write checks ran and put their probe objects directly under
// prefix only ("" for the bucket root, else e.g. "team/"); that none is left is for the caller
// to check by listing the bucket (a PUT that failed has no DELETE).
func expectProbesUnder(probes []string, prefix string) error {
	if len(probes) == 0 {
		return fmt.Errorf("no write check reached the bucket")
	}
	for _, p := range probes {
		_, key, _ := strings.Cut(p, " ")
		if !strings.HasPrefix(key, prefix+probeName) || strings.Contains(strings.TrimPrefix(key, prefix), "/") {
			return fmt.Errorf("a write check sent %q, outside %q", p, prefix)
		}
	}
	return nil
}
