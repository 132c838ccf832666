package provider

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
)

// The shape of TestAccWorkspacesConcurrent: workspaces applied at once, each with its own
// destinations and promises, and each contributing one promise to a shared aggregatedYAML
// destination.
const (
	// defaultWorkspaces is how many run in `make test`; KRATIX_TEST_WORKSPACES=16 runs more.
	defaultWorkspaces = 8
	destinationsPerWS = 4
	promisesPerWS     = 4
	// applyWatchdog ends an apply that hangs outside any operation: a write that never ends is
	// ended by the provider's own timeouts (10m by default), with an error that says so. It is
	// not a bound on speed: eight applies at once on a loaded two-core machine may take minutes.
	applyWatchdog = 15 * time.Minute
)

// TestAccWorkspacesConcurrent runs eight Terraform processes at once (KRATIX_TEST_WORKSPACES sets
// another number), as workspaces of one platform team would: each declares its own destinations
// (distinct folders) and promises in one store, and contributes one promise to a shared
// aggregatedYAML destination that workspace 0 owns and the others name as a literal pool member. Their writes race: git pushes that find
// the branch moved, and rebuilds of the shared aggregate that find it rebuilt by someone else.
// Every apply must succeed; an independent client (the git CLI, plain minio-go) then finds every
// file with its content, a linear git history holding every workspace's commits, and an
// aggregate holding every workspace's document.
func TestAccWorkspacesConcurrent(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	n := defaultWorkspaces
	if v := os.Getenv("KRATIX_TEST_WORKSPACES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("KRATIX_TEST_WORKSPACES=%q: want a number of workspaces", v)
		}
	}
	t.Run("git-http", func(t *testing.T) { testWorkspacesConcurrent(t, n, newGitWorkspaceStore(t, n)) })
	t.Run("bucket", func(t *testing.T) { testWorkspacesConcurrent(t, n, newBucketWorkspaceStore(t)) })
}

// workspaceStore is the one store every workspace writes to, and an independent reader of it.
type workspaceStore struct {
	kind string
	// provider is the provider block; store(ws) workspace ws's kratix_state_store, which a pool
	// member names as a literal state_store object (its inline form).
	provider string
	store    func(ws int) kratixStateStore
	// files reads every file of the store, by path.
	files func(t *testing.T) map[string]string
	// history checks the git history once every apply is done; nil for buckets.
	history func(t *testing.T)
}

func newGitWorkspaceStore(t *testing.T, workspaces int) *workspaceStore {
	repo := randomName("ws")
	if err := gitServer.CreateRepo(repo, "main"); err != nil {
		t.Fatal(err)
	}
	url := gitServer.HTTPURL(repo)
	return &workspaceStore{
		kind:     "git-http",
		provider: kratixProviderBlock{Secrets: []hclAttr{gitHTTPSecret("s")}}.String(),
		store: func(ws int) kratixStateStore {
			return kratixStateStore{Name: q("shared"), SecretRef: q("s"), Git: hclObj{
				{"url", q(url)}, {"author", hclObj{{"name", q(wsAuthor(ws))}, {"email", q(wsEmail(ws))}}},
			}}
		},
		files: func(t *testing.T) map[string]string {
			paths, err := gitServer.ListFiles(repo, "main")
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]string{}
			for _, p := range paths {
				b, err := gitServer.ReadFile(repo, "main", p)
				if err != nil {
					t.Fatal(err)
				}
				out[p] = string(b)
			}
			return out
		},
		history: func(t *testing.T) { checkWorkspaceHistory(t, repo, workspaces) },
	}
}

func newBucketWorkspaceStore(t *testing.T) *workspaceStore {
	ctx := context.Background()
	bucket := randomName("ws")
	if err := minioServer.MakeBucket(ctx, bucket); err != nil {
		t.Fatal(err)
	}
	client, err := minioServer.Client()
	if err != nil {
		t.Fatal(err)
	}
	store := kratixStateStore{Name: q("shared"), SecretRef: q("s"), Bucket: bucketAt(minioServer.Endpoint, bucket)}
	return &workspaceStore{
		kind:     "bucket",
		provider: kratixProviderBlock{Secrets: []hclAttr{bucketSecret("s", minioServer.AccessKey, minioServer.SecretKey)}}.String(),
		store:    func(int) kratixStateStore { return store },
		files: func(t *testing.T) map[string]string {
			out := map[string]string{}
			for o := range client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
				if o.Err != nil {
					t.Fatal(o.Err)
				}
				obj, err := client.GetObject(ctx, bucket, o.Key, minio.GetObjectOptions{})
				if err != nil {
					t.Fatal(err)
				}
				b, err := io.ReadAll(obj)
				_ = obj.Close()
				if err != nil {
					t.Fatalf("reading %s: %v", o.Key, err)
				}
				out[o.Key] = string(b)
			}
			return out
		},
	}
}

func wsAuthor(ws int) string { return fmt.Sprintf("terraform-ws-%d", ws) }
func wsEmail(ws int) string  { return fmt.Sprintf("ws-%d@example.invalid", ws) }

// workspaceConfig is workspace ws's configuration: its destinations ws<ws>/d<j> (filepath mode
// none, so that each file's path is plain), its promises ws<ws>-p<k> on all of them, and
// promise ws<ws>-shared on the shared aggregatedYAML destination.
func workspaceConfig(st *workspaceStore, ws int) string {
	store := st.store(ws)
	store.Label = "s"
	config := requiredKratix + st.provider + store.String() + kratixDestination{
		Label: "d", Count: strconv.Itoa(destinationsPerWS),
		Name: q(fmt.Sprintf("ws%d-d${count.index}", ws)), Path: q(fmt.Sprintf("ws%d/d${count.index}", ws)),
		FilepathMode: q("none"), StateStore: "kratix_state_store.s",
	}.String()
	for k := range promisesPerWS {
		name := fmt.Sprintf("ws%d-p%d", ws, k)
		config += kratixPromise{Label: fmt.Sprintf("p%d", k), Name: q(name), Destinations: "kratix_destination.d", Dependencies: q(namespaceDoc(name))}.String()
	}
	// Workspace 0 owns the shared destination (and writes its canaries); the others name it.
	shared := hclObj{{"name", q("shared")}, {"path", q("shared")}, {"filepath_mode", q("aggregatedYAML")}, {"state_store", st.store(ws).inline()}}
	destinations := "[" + shared.inline() + "]"
	if ws == 0 {
		config += kratixDestination{Label: "shared", Name: q("shared"), Path: q("shared"), FilepathMode: q("aggregatedYAML"), StateStore: "kratix_state_store.s"}.String()
		destinations = "[kratix_destination.shared]"
	}
	name := fmt.Sprintf("ws%d-shared", ws)
	return config + kratixPromise{Label: "shared", Name: q(name), Destinations: destinations, Dependencies: q(namespaceDoc(name))}.String()
}

func testWorkspacesConcurrent(t *testing.T, workspaces int, st *workspaceStore) {
	clis := make([]*cli, workspaces)
	for ws := range clis {
		clis[ws] = newCLI(t, map[string]string{"main.tf": workspaceConfig(st, ws)})
	}
	outs := make([]string, workspaces)
	errs := make([]error, workspaces)
	took := make([]time.Duration, workspaces)
	start := time.Now()
	var wg sync.WaitGroup
	for ws, c := range clis {
		wg.Go(func() {
			began := time.Now()
			outs[ws], errs[ws] = c.runWithin(applyWatchdog, "apply", "-auto-approve")
			took[ws] = time.Since(began)
		})
	}
	wg.Wait()
	failed := 0
	for ws, err := range errs {
		if err != nil {
			failed++
			t.Errorf("workspace %d: apply failed after %v: %v\n%s", ws, took[ws].Round(time.Millisecond), err, errorLines(outs[ws]))
		}
	}
	t.Logf("%s: %d of %d applies failed; all done in %v (slowest %v)", st.kind, failed, workspaces,
		time.Since(start).Round(time.Millisecond), slowest(took).Round(time.Millisecond))

	files := st.files(t)
	want := map[string]string{}
	for ws := range workspaces {
		for j := range destinationsPerWS {
			dir := fmt.Sprintf("ws%d/d%d/", ws, j)
			for _, canary := range []string{"kratix-canary-namespace.yaml", "kratix-canary-configmap.yaml"} {
				want[dir+canary] = ""
			}
			for k := range promisesPerWS {
				name := fmt.Sprintf("ws%d-p%d", ws, k)
				want[dir+"static/"+name+"-dependencies.yaml"] = namespaceDoc(name)
			}
		}
	}
	missing := 0
	for p, content := range want {
		got, ok := files[p]
		switch {
		case !ok:
			missing++
			t.Errorf("%s: %s is missing", st.kind, p)
		case content != "" && got != content:
			t.Errorf("%s: %s holds %q, want %q", st.kind, p, got, content)
		}
	}
	// Each destination folder holds the files above and one index file per promise, nothing more.
	for ws := range workspaces {
		for j := range destinationsPerWS {
			dir := fmt.Sprintf("ws%d/d%d/", ws, j)
			var extra, index []string
			for p := range files {
				switch _, expected := want[p]; {
				case !strings.HasPrefix(p, dir) || expected:
				case strings.HasPrefix(p, dir+".kratix/"):
					index = append(index, p)
				default:
					extra = append(extra, p)
				}
			}
			if len(extra) > 0 || len(index) != promisesPerWS {
				sort.Strings(extra)
				t.Errorf("%s: %s holds unexpected files %q and %d index files, want %d", st.kind, dir, extra, len(index), promisesPerWS)
			}
		}
	}
	t.Logf("%s: %d of %d expected destination files missing", st.kind, missing, len(want))

	// The shared aggregate holds one document per workspace, whatever the order.
	var wantDocs, gotDocs []string
	for ws := range workspaces {
		wantDocs = append(wantDocs, strings.TrimSuffix(namespaceDoc(fmt.Sprintf("ws%d-shared", ws)), "\n"))
	}
	for _, d := range strings.Split(files["shared/aggregated.yaml"], "\n---\n") {
		if d = strings.TrimSpace(d); d != "" {
			gotDocs = append(gotDocs, d)
		}
	}
	sort.Strings(wantDocs)
	sort.Strings(gotDocs)
	if strings.Join(gotDocs, "\n---\n") != strings.Join(wantDocs, "\n---\n") {
		t.Errorf("%s: shared/aggregated.yaml holds %d documents, want one per workspace (%d):\n%s",
			st.kind, len(gotDocs), workspaces, files["shared/aggregated.yaml"])
	}
	t.Logf("%s: the shared aggregate holds %d of %d workspaces' documents", st.kind, len(gotDocs), workspaces)
	for _, canary := range []string{"shared/kratix-canary-namespace.yaml", "shared/kratix-canary-configmap.yaml"} {
		if _, ok := files[canary]; !ok {
			t.Errorf("%s: %s is missing", st.kind, canary)
		}
	}
	if st.history != nil {
		st.history(t)
	}
}

// checkWorkspaceHistory reads the branch with the git CLI: a linear history (no merge, nothing
// forced away) of the seed and exactly the commits each workspace made, by its own author: one
// canary commit per destination and one commit per promise.
func checkWorkspaceHistory(t *testing.T, repo string, workspaces int) {
	log, err := gitServer.Log(repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	byAuthor := map[string][]string{}
	for i, c := range log {
		if len(c.Parents) > 1 || (len(c.Parents) == 1 && (i+1 >= len(log) || c.Parents[0] != log[i+1].Hash)) {
			t.Errorf("commit %s %q is not on a linear history: parents %q", c.Hash, c.Subject, c.Parents)
		}
		byAuthor[c.AuthorName+" <"+c.AuthorEmail+">"] = append(byAuthor[c.AuthorName+" <"+c.AuthorEmail+">"], c.Subject)
	}
	if last := log[len(log)-1]; last.Subject != "Initial commit" {
		t.Errorf("the oldest commit is %q, want the seed", last.Subject)
	}
	commits := 1
	for ws := range workspaces {
		var want []string
		for range destinationsPerWS {
			want = append(want, "Update from: kratix-canary")
		}
		for k := range promisesPerWS {
			want = append(want, fmt.Sprintf("Update from: promise/ws%d-p%d", ws, k))
		}
		want = append(want, fmt.Sprintf("Update from: promise/ws%d-shared", ws))
		if ws == 0 {
			want = append(want, "Update from: kratix-canary")
		}
		commits += len(want)
		who := wsAuthor(ws) + " <" + wsEmail(ws) + ">"
		got := append([]string(nil), byAuthor[who]...)
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("commits by %s:\n  %s\nwant\n  %s", who, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	if len(log) != commits {
		t.Errorf("%d commits on main, want %d (the seed and every workspace's)", len(log), commits)
	}
	t.Logf("git-http: %d commits on main, want %d, linear", len(log), commits)
}

// runWithin is run with a time limit: an apply still going after it is killed and fails.
func (c *cli) runWithin(limit time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Getenv("TF_ACC_TERRAFORM_PATH"), append(args, "-no-color")...)
	cmd.Dir = c.dir
	cmd.Env = c.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("still running after %v: %w", limit, err)
	}
	return out.String(), err
}

// errorLines keeps what Terraform printed from its first error on.
func errorLines(out string) string {
	if i := strings.Index(out, "Error:"); i >= 0 {
		return out[i:]
	}
	return out
}

func slowest(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}
