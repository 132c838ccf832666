package provider

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
)

// testStore is a real store a test writes to through Terraform, with an independent client
// (plain minio-go, or the git CLI) to look at and tamper with what the provider wrote.
type testStore struct {
	kind     string // "bucket", "git-http" or "git-ssh"
	provider string // the provider block, with the store's secret named "s"
	// store is the body of a kratix_state_store resource (name and connection, secret_ref "s").
	store string

	read    func(t *testing.T, path string) ([]byte, bool) // content, and whether it exists
	list    func(t *testing.T) []string                    // every file, sorted
	put     func(t *testing.T, path string, content []byte)
	remove  func(t *testing.T, path string)
	commits func(t *testing.T) int // git: commits on the branch; bucket: -1
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
	ctx := context.Background()
	bucket := randomName("t")
	if err := minioServer.MakeBucket(ctx, bucket); err != nil {
		t.Fatalf("making bucket %s: %v", bucket, err)
	}
	client, err := minioServer.Client()
	if err != nil {
		t.Fatal(err)
	}
	return &testStore{
		kind: "bucket",
		provider: fmt.Sprintf(`
provider "kratix" {
  secrets = {
    s = {
      access_key_id     = %q
      secret_access_key = %q
    }
  }
}
`, minioServer.AccessKey, minioServer.SecretKey),
		store: fmt.Sprintf(`
  name       = %q
  secret_ref = "s"
  bucket = {
    endpoint    = %q
    bucket_name = %q
    insecure    = true
  }
`, bucket, minioServer.Endpoint, bucket),
		read: func(t *testing.T, path string) ([]byte, bool) {
			obj, err := client.GetObject(ctx, bucket, path, minio.GetObjectOptions{})
			if err != nil {
				t.Fatalf("reading %s: %v", path, err)
			}
			defer func() { _ = obj.Close() }()
			b, err := io.ReadAll(obj)
			if minio.ToErrorResponse(err).Code == "NoSuchKey" {
				return nil, false
			}
			if err != nil {
				t.Fatalf("reading %s: %v", path, err)
			}
			return b, true
		},
		list: func(t *testing.T) []string {
			var out []string
			for o := range client.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
				if o.Err != nil {
					t.Fatalf("listing %s: %v", bucket, o.Err)
				}
				out = append(out, o.Key)
			}
			sort.Strings(out)
			return out
		},
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
		commits: func(*testing.T) int { return -1 },
	}
}

func newGitTestStore(t *testing.T, kind string) *testStore {
	t.Helper()
	repo := randomName("r")
	if err := gitServer.CreateRepo(repo, "main"); err != nil {
		t.Fatalf("creating repository %s: %v", repo, err)
	}
	ts := &testStore{kind: kind}
	if kind == "git-http" {
		ts.provider = fmt.Sprintf(`
provider "kratix" {
  secrets = {
    s = {
      username = %q
      password = %q
    }
  }
}
`, gitServer.Username, gitServer.Password)
		ts.store = fmt.Sprintf(`
  name       = %q
  secret_ref = "s"
  git = {
    url = %q
  }
`, repo, gitServer.HTTPURL(repo))
	} else {
		ts.provider = fmt.Sprintf(`
provider "kratix" {
  secrets = {
    s = {
      ssh_private_key = %q
      known_hosts     = %q
    }
  }
}
`, gitServer.SSHPrivateKey, gitServer.KnownHosts)
		ts.store = fmt.Sprintf(`
  name       = %q
  secret_ref = "s"
  git = {
    url = %q
  }
`, repo, gitServer.SSHURL(repo))
	}
	ts.read = func(t *testing.T, path string) ([]byte, bool) {
		b, err := gitServer.ReadFile(repo, "main", path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false
		}
		if err != nil {
			t.Fatalf("reading %s: %v", path, err)
		}
		return b, true
	}
	ts.list = func(t *testing.T) []string {
		files, err := gitServer.ListFiles(repo, "main")
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		return files
	}
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
	ts.commits = func(t *testing.T) int {
		n, err := gitServer.CommitCount(repo, "main")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return ts
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
