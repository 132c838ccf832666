// Package acctest holds what the acceptance tests check in a store after Terraform has run:
// statecheck.StateCheck values that read the store back with the test's own client (plain
// minio-go for buckets, the git CLI for repositories), never with the provider's code, so that a
// check cannot agree with the provider by sharing its mistakes.
package acctest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"

	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// Store is a store as a test sees it.
type Store interface {
	// String names the store in failure messages.
	String() string
	// Files lists the path of every file the store holds, sorted, but the registry's records
	// (GitOpsOnly).
	Files(ctx context.Context) ([]string, error)
	// Read returns the content of the file at path and true, or false if there is none.
	Read(ctx context.Context, path string) ([]byte, bool, error)
}

// Bucket is the store of one bucket read with client. A missing bucket holds no file.
func Bucket(client *minio.Client, bucket string) Store {
	return bucketStore{client: client, bucket: bucket}
}

type bucketStore struct {
	client *minio.Client
	bucket string
}

func (b bucketStore) String() string { return "bucket " + b.bucket }

func (b bucketStore) Files(ctx context.Context) ([]string, error) {
	var out []string
	for o := range b.client.ListObjects(ctx, b.bucket, minio.ListObjectsOptions{Recursive: true}) {
		if o.Err != nil {
			return nil, fmt.Errorf("listing bucket %s: %w", b.bucket, o.Err)
		}
		out = append(out, o.Key)
	}
	sort.Strings(out)
	return GitOpsOnly(out), nil
}

func (b bucketStore) Read(ctx context.Context, path string) ([]byte, bool, error) {
	obj, err := b.client.GetObject(ctx, b.bucket, path, minio.GetObjectOptions{})
	if err != nil {
		return nil, false, fmt.Errorf("reading %s from bucket %s: %w", path, b.bucket, err)
	}
	defer func() { _ = obj.Close() }()
	content, err := io.ReadAll(obj)
	if code := minio.ToErrorResponse(err).Code; code == "NoSuchKey" || code == "NoSuchBucket" {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading %s from bucket %s: %w", path, b.bucket, err)
	}
	return content, true, nil
}

// GitBranch is the store of branch in the repository repo of server, read with the git CLI on
// the bare repository (testinfra's readers).
func GitBranch(server *testinfra.GitServer, repo, branch string) Store {
	return gitStore{server: server, repo: repo, branch: branch}
}

type gitStore struct {
	server       *testinfra.GitServer
	repo, branch string
}

func (g gitStore) String() string { return "repository " + g.repo + "@" + g.branch }

func (g gitStore) Files(context.Context) ([]string, error) {
	files, err := g.server.ListFiles(g.repo, g.branch)
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return GitOpsOnly(files), nil
}

func (g gitStore) Read(_ context.Context, path string) ([]byte, bool, error) {
	content, err := g.server.ReadFile(g.repo, g.branch, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return content, true, nil
}

// Layout is s without its registry: the GitOps layout as the clusters read it, for checks
// that compare a whole store with what the destinations must hold (GitOpsOnly). The records
// are checked by tests of their own.
func Layout(s Store) Store { return layoutStore{s} }

type layoutStore struct{ Store }

func (l layoutStore) Files(ctx context.Context) ([]string, error) {
	files, err := l.Store.Files(ctx)
	return GitOpsOnly(files), err
}
