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

	minioTLSOnce   sync.Once
	minioTLSServer *testinfra.MinIO
	minioTLSErr    error

	gitOnce   sync.Once
	gitServer *testinfra.GitServer
	gitErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if minioServer != nil {
		minioServer.Stop()
	}
	if minioTLSServer != nil {
		minioTLSServer.Stop()
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

// testMinIOTLS is the package's MinIO server that serves HTTPS, with a certificate signed by
// its own CACertificate; tests that need it are skipped with -short.
func testMinIOTLS(t *testing.T) *testinfra.MinIO {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a MinIO server; skipped with -short")
	}
	minioTLSOnce.Do(func() {
		minioTLSServer, minioTLSErr = testinfra.StartMinIOTLS()
		if minioTLSErr != nil {
			minioTLSErr = fmt.Errorf("starting MinIO with TLS: %w", minioTLSErr)
		}
	})
	if minioTLSErr != nil {
		t.Fatal(minioTLSErr)
	}
	return minioTLSServer
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
