package statestore

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// The servers are started on first use and stopped when the package's tests end.
var (
	minioOnce   sync.Once
	minioServer *testinfra.MinIO
	minioErr    error

	gitOnce   sync.Once
	gitServer *testinfra.GitServer
	gitErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if minioServer != nil {
		minioServer.Stop()
	}
	if gitServer != nil {
		gitServer.Stop()
	}
	os.Exit(code)
}

// testMinIO is the package's MinIO server; tests that need it are skipped with -short.
func testMinIO(t *testing.T) *testinfra.MinIO {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a MinIO server; skipped with -short")
	}
	minioOnce.Do(func() {
		minioServer, minioErr = testinfra.StartMinIO()
		if minioErr != nil {
			minioErr = fmt.Errorf("starting MinIO: %w", minioErr)
		}
	})
	if minioErr != nil {
		t.Fatal(minioErr)
	}
	return minioServer
}

// testGitServer is the package's git server (smart HTTP and SSH).
func testGitServer(t *testing.T) *testinfra.GitServer {
	t.Helper()
	gitOnce.Do(func() {
		gitServer, gitErr = testinfra.StartGitServer()
	})
	if gitErr != nil {
		t.Fatalf("starting the git server: %v", gitErr)
	}
	return gitServer
}
