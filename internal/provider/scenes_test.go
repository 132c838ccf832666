package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// sceneFiles is a configuration for newCLI: the .tf files of testdata/<dir>, the part that is the
// same on every run, and extra (file name to content), the part that names the test's servers.
func sceneFiles(t *testing.T, dir string, extra map[string]string) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", dir, "*.tf"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no .tf files in testdata/%s (%v)", dir, err)
	}
	files := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = string(b)
	}
	for name, content := range extra {
		if _, ok := files[name]; ok {
			t.Fatalf("testdata/%s already has %s", dir, name)
		}
		files[name] = content
	}
	return files
}

// The file the promise of testdata/promise_on_two_stores writes on each store, spelled by hand
// from Kratix's layout (nestedByMetadata, destination path "w"), and its content.
const (
	twoStoresFile    = "w/dependencies/app/5058f/static/app-dependencies.yaml"
	twoStoresContent = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
)

// promiseOnTwoStores sets up the scene of testdata/promise_on_two_stores: one promise on a bucket
// and on a git repository. bucketStore and gitStore are kratix_state_store bodies with
// secret_ref "s", as testStore spells them; the bucket is reached with srv's root credentials
// and the repository with the git server's. The destinations are applied before it returns, so
// that the test's next apply writes the promise's file and nothing else.
func promiseOnTwoStores(t *testing.T, srv *testinfra.MinIO, bucketStore, gitStore string) *cli {
	t.Helper()
	stores := kratixProviderBlock{Secrets: []hclAttr{bucketSecret("b", srv.AccessKey, srv.SecretKey), gitHTTPSecret("g")}}.String() +
		kratixStateStore{Label: "bucket", Body: strings.Replace(bucketStore, `secret_ref = "s"`, `secret_ref = "b"`, 1)}.String() +
		kratixStateStore{Label: "git", Body: strings.Replace(gitStore, `secret_ref = "s"`, `secret_ref = "g"`, 1)}.String()
	c := newCLI(t, sceneFiles(t, "promise_on_two_stores", map[string]string{"stores.tf": stores}))
	if out, err := c.run("apply", "-auto-approve", "-target=kratix_destination.on_bucket", "-target=kratix_destination.on_git"); err != nil {
		t.Fatalf("creating the destinations: %v\n%s", err, out)
	}
	return c
}

// sceneOnStore is the configuration of testdata/<dir> on the test store ts: its .tf files with
// store.tf beside them, which holds ts's provider block and kratix_state_store.s.
func sceneOnStore(t *testing.T, dir string, ts *testStore) map[string]string {
	t.Helper()
	return sceneFiles(t, dir, map[string]string{"store.tf": storeConfig(ts)})
}
