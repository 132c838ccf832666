package provider

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/acctest"
	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// testStore is a real store a test writes to through Terraform, with an independent client
// (plain minio-go, or the git CLI) to look at and tamper with what the provider wrote, and an
// independent record of every write the provider made.
type testStore struct {
	kind     string // "bucket", "git-http" or "git-ssh"
	provider string // the provider block, with the store's secret named "s"
	// store is the body of a kratix_state_store resource (name and connection, secret_ref "s").
	store string
	// location is the store's location as placements report it, spelled by hand from the
	// documented form: "s3://<endpoint>/<bucket>", or "git+<url without .git>@<branch>".
	location string

	// view is the store as the test's own client sees it, for the checks of package acctest;
	// read and list go through it. It lists the GitOps layout (acctest.Layout): the owner
	// records in the registry are bookkeeping, checked by the owner tests (owners_workspaces_test.go).
	view acctest.Store

	read   func(t *testing.T, path string) ([]byte, bool) // content, and whether it exists
	list   func(t *testing.T) []string                    // every file, sorted
	put    func(t *testing.T, path string, content []byte)
	remove func(t *testing.T, path string)

	// journal is the test's own record of what the provider has changed in the store. Git:
	// the subject of every commit on the branch but the seed and the test's own edits ("edit by
	// hand: ...", "remove by hand: ..."). Buckets: every request that changes an object, as
	// recorded by an s3Recorder between the provider and MinIO ("PUT <key>", "DELETE <key>"),
	// and how many requests of any kind it saw.
	journal acctest.Journal
	// recorder is the bucket's s3Recorder; nil for git.
	recorder *s3Recorder
}

// mark is where the store's journal stands now.
func (ts *testStore) mark(t *testing.T) acctest.Mark {
	t.Helper()
	m, err := acctest.MarkNow(context.Background(), ts.journal)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// writesSince lists the writes made after m.
func (ts *testStore) writesSince(t *testing.T, m acctest.Mark) []string {
	t.Helper()
	w, err := acctest.WritesAfter(context.Background(), ts.journal, m)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// recorderJournal is the journal of a bucket that the provider reaches through recorder.
type recorderJournal struct {
	bucket   string
	recorder *s3Recorder
}

func (j recorderJournal) String() string { return "bucket " + j.bucket }

func (j recorderJournal) Writes(context.Context) ([]string, error) {
	w, _ := j.recorder.snapshot()
	return acctest.GitOpsOnly(w), nil // the layout's writes: the registry's are the record tests' business
}

func (j recorderJournal) Requests() (int, bool) {
	_, n := j.recorder.snapshot()
	return n, true
}

// commitJournal is the journal of branch main of repo on the shared git server: its commits,
// less the seed, the test's own edits and those that change only the registry (the owner
// records). It counts no requests.
type commitJournal struct{ repo string }

func (j commitJournal) String() string { return "repository " + j.repo + "@main" }

func (j commitJournal) Writes(context.Context) ([]string, error) {
	newestFirst, err := gitServer.LayoutCommitMessages(j.repo, "main", acctest.Registry) // the owner tests check the registry's
	if err != nil {
		return nil, err
	}
	var out []string
	for i := len(newestFirst) - 1; i >= 0; i-- {
		m := newestFirst[i]
		if i == len(newestFirst)-1 && m == "Initial commit" {
			continue // the seed, made by CreateRepo
		}
		if strings.HasPrefix(m, "edit by hand: ") || strings.HasPrefix(m, "remove by hand: ") {
			continue
		}
		out = append(out, m)
	}
	return out, nil
}

func (commitJournal) Requests() (int, bool) { return 0, false }

// puts is what a bucket's writes are when each of paths is written once.
func puts(paths ...string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = "PUT " + p
	}
	return out
}

// repeat is n copies of s: the commits of n writes with the same message.
func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func randomName(prefix string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return prefix + "-" + hex.EncodeToString(b)
}

// storeKinds are the three ways the acceptance tests reach a store.
var storeKinds = []string{"bucket", "git-http", "git-ssh"}

func newTestStore(t *testing.T, kind string) *testStore {
	t.Helper()
	switch kind {
	case "bucket":
		return newBucketTestStore(t)
	case "git-http", "git-ssh":
		return newGitTestStore(t, kind)
	}
	t.Fatalf("unknown store kind %q", kind)
	return nil
}

func newBucketTestStore(t *testing.T) *testStore {
	t.Helper()
	bucket := randomName("t")
	if err := minioServer.MakeBucket(context.Background(), bucket); err != nil {
		t.Fatalf("making bucket %s: %v", bucket, err)
	}
	return bucketOn(t, minioServer, bucket, minioServer.AccessKey, minioServer.SecretKey, "")
}

// bucketOn is a testStore for bucket on srv, reached by the provider through a recorder with the
// credentials accessKey and secretKey; the test's own client is srv's root client and goes
// straight to srv. path is the kratix_state_store's path; "" for none. A missing bucket reads as
// a missing file.
func bucketOn(t *testing.T, srv *testinfra.MinIO, bucket, accessKey, secretKey, path string) *testStore {
	t.Helper()
	ctx := context.Background()
	client, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	if path != "" {
		path = q(path)
	}
	recorder := startS3Recorder(t, srv.Endpoint)
	view := acctest.Layout(acctest.Bucket(client, bucket))
	return &testStore{
		kind:     "bucket",
		recorder: recorder,
		location: "s3://" + recorder.endpoint + "/" + bucket,
		provider: kratixProviderBlock{Secrets: []hclAttr{bucketSecret("s", accessKey, secretKey)}}.String(),
		store: kratixStateStore{
			Name: q(bucket), SecretRef: q("s"), Path: path,
			Bucket: hclObj{{"endpoint", q(recorder.endpoint)}, {"bucket_name", q(bucket)}, {"insecure", "true"}},
		}.body(),
		view: view,
		read: viewRead(view),
		list: viewList(view),
		put: func(t *testing.T, path string, content []byte) {
			if _, err := client.PutObject(ctx, bucket, path, bytes.NewReader(content), int64(len(content)), minio.PutObjectOptions{}); err != nil {
				t.Fatalf("writing %s: %v", path, err)
			}
		},
		remove: func(t *testing.T, path string) {
			if err := client.RemoveObject(ctx, bucket, path, minio.RemoveObjectOptions{}); err != nil {
				t.Fatalf("removing %s: %v", path, err)
			}
		},
		journal: recorderJournal{bucket: bucket, recorder: recorder},
	}
}

func newGitTestStore(t *testing.T, kind string) *testStore {
	t.Helper()
	repo := randomName("r")
	if err := gitServer.CreateRepo(repo, "main"); err != nil {
		t.Fatalf("creating repository %s: %v", repo, err)
	}
	ts := &testStore{kind: kind}
	url := gitServer.SSHURL(repo)
	if kind == "git-http" {
		url = gitServer.HTTPURL(repo)
	}
	ts.location = "git+" + strings.TrimSuffix(url, ".git") + "@main"
	secret := gitSSHSecret("s")
	if kind == "git-http" {
		secret = gitHTTPSecret("s")
	}
	ts.provider = kratixProviderBlock{Secrets: []hclAttr{secret}}.String()
	ts.store = kratixStateStore{Name: q(repo), SecretRef: q("s"), Git: hclObj{{"url", q(url)}}}.body()
	ts.view = acctest.Layout(acctest.GitBranch(gitServer, repo, "main"))
	ts.read, ts.list = viewRead(ts.view), viewList(ts.view)
	ts.put = func(t *testing.T, path string, content []byte) {
		if err := gitServer.PushFile(repo, "main", path, content, "edit by hand: "+path); err != nil {
			t.Fatal(err)
		}
	}
	ts.remove = func(t *testing.T, path string) {
		if err := gitServer.DeleteFile(repo, "main", path, "remove by hand: "+path); err != nil {
			t.Fatal(err)
		}
	}
	ts.journal = commitJournal{repo: repo}
	return ts
}

// viewRead reads a file through view, failing the test when the store cannot be read.
func viewRead(view acctest.Store) func(t *testing.T, path string) ([]byte, bool) {
	return func(t *testing.T, path string) ([]byte, bool) {
		t.Helper()
		content, ok, err := view.Read(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		return content, ok
	}
}

// viewList lists every file through view, sorted, failing the test when the store cannot be
// listed.
func viewList(view acctest.Store) func(t *testing.T) []string {
	return func(t *testing.T) []string {
		t.Helper()
		files, err := view.Files(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// newFileRepo makes a bare repository with one commit on main, for tests that need a store but
// no server.
func newFileRepo(t *testing.T) string {
	t.Helper()
	bare := filepath.Join(t.TempDir(), "repo.git")
	gitRun(t, "", "init", "--quiet", "--bare", "-b", "main", bare)
	work := t.TempDir()
	gitRun(t, "", "clone", "--quiet", bare, work)
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("seed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, work, "add", "README.md")
	gitRun(t, work, "-c", "user.name=seed", "-c", "user.email=seed@example.com", "commit", "--quiet", "-m", "seed")
	gitRun(t, work, "push", "--quiet", "origin", "HEAD:main")
	return bare
}

// gitOpsCommitCount is commitCount without the commits that write only a registration record
// (named for it: acctest.GitOpsOnly), which a change of a destination's labels makes (issue 39).
func gitOpsCommitCount(t *testing.T, bare string) int {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", bare, "log", "--format=%s", "main").Output()
	if err != nil {
		t.Fatalf("listing the commits of %s: %v", bare, err)
	}
	return len(acctest.GitOpsOnly(strings.Split(strings.TrimSpace(string(out)), "\n")))
}

func commitCount(t *testing.T, bare string) int {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", bare, "rev-list", "--count", "main").Output()
	if err != nil {
		t.Fatalf("counting commits in %s: %v", bare, err)
	}
	var n int
	_, _ = fmt.Sscanf(string(out), "%d", &n)
	return n
}

// secondMinIO starts a MinIO server of the test's own, beside the shared one, and makes bucket
// on both: tests that take a store down need one they may stop.
func secondMinIO(t *testing.T, bucket string) *testinfra.MinIO {
	t.Helper()
	second, err := testinfra.StartMinIO()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(second.Stop)
	for _, m := range []*testinfra.MinIO{minioServer, second} {
		if err := m.MakeBucket(context.Background(), bucket); err != nil && !strings.Contains(err.Error(), "already") {
			t.Fatal(err)
		}
	}
	return second
}

// onStores runs body on a bucket and on git over HTTP, each in a subtest named after the store
// kind: what "on both store kinds" means in the acceptance tests.
func onStores(t *testing.T, body func(t *testing.T, kind string)) {
	t.Helper()
	onStoresOf(t, []string{"bucket", "git-http"}, body)
}

// onStoresOf is onStores on the store kinds given (storeKinds lists them).
func onStoresOf(t *testing.T, kinds []string, body func(t *testing.T, kind string)) {
	t.Helper()
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) { body(t, kind) })
	}
}

// layoutChangedSince lists the files outside the registry that branch main of the bare
// repository changed since commit from (a hash, or "main~N"): what the commits since then did to
// the GitOps layout. Owner and registration records (acctest.IsRecord) are left out.
func layoutChangedSince(t *testing.T, bare, from string) []string {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", bare, "diff", "--name-only", from, "main").Output()
	if err != nil {
		t.Fatalf("diffing %s since %s: %v", bare, from, err)
	}
	var changed []string
	for _, p := range strings.Fields(string(out)) {
		if !acctest.IsRecord(p) {
			changed = append(changed, p)
		}
	}
	return changed
}

// bareTip is the commit at the tip of branch main of the bare repository.
func bareTip(t *testing.T, bare string) string {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", bare, "rev-parse", "main").Output()
	if err != nil {
		t.Fatalf("reading the tip of %s: %v", bare, err)
	}
	return strings.TrimSpace(string(out))
}
