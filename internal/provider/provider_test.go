package provider

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/manifestattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// testAccProviders serves the provider in-process to the real Terraform CLI, in verify mode
// (steady_state_verify_test.go).
var testAccProviders = map[string]func() (tfprotov6.ProviderServer, error){
	"kratix": verifiedServer("test"),
}

// The servers the acceptance tests write to, started once for the package when TF_ACC is set.
var (
	minioServer *testinfra.MinIO
	gitServer   *testinfra.GitServer
)

// requireAcceptance is the one skip point of the package's acceptance tests: it skips t unless
// TF_ACC is set. TestMain starts MinIO and the git server exactly when TF_ACC is set (and stops
// the run if either fails to start), so a test that passes this point can use minioServer and
// gitServer.
func requireAcceptance(t *testing.T) {
	t.Helper()
	if minioServer == nil {
		t.Skip("acceptance test: set TF_ACC=1")
	}
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// The provider processes of the tests keep their manifest cache here, not in the user's.
	cache, err := os.MkdirTemp("", "kratix-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(cache) }()
	if err := os.Setenv(manifestattr.CacheDirEnv, cache); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tuneTestGC()
	if err := findTerraform(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if os.Getenv("TF_ACC") != "" {
		var err error
		if minioServer, err = testinfra.StartMinIO(); err != nil {
			fmt.Fprintln(os.Stderr, "starting MinIO:", err)
			return 1
		}
		defer minioServer.Stop()
		if gitServer, err = testinfra.StartGitServer(); err != nil {
			fmt.Fprintln(os.Stderr, "starting the git server:", err)
			return 1
		}
		defer gitServer.Stop()
	}
	defer func() {
		if binDir != "" {
			_ = os.RemoveAll(binDir)
		}
	}()
	return m.Run()
}

// tuneTestGC trades memory for CPU, which is what the tests run short of on a two-core machine
// (measured on the model test: 23% less CPU in all). The Terraform CLI and the provider binaries
// the tests start, a few thousand in a run and each living a second or two, collect garbage only
// once their heap reaches 1 GiB; this process, which serves the provider in-process to most tests,
// collects at GOGC 400 under a 4 GiB soft limit. Only when a process collects changes, not what it
// does. A GOGC or GOMEMLIMIT set by the caller is left as it is, here and in the children.
func tuneTestGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	_ = os.Setenv("GOGC", "off")
	_ = os.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(4 << 30)
}

// findTerraform points terraform-plugin-testing at the installed CLI: tests never download one.
func findTerraform() error {
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("TF_ACC_TERRAFORM_PATH=%s: %w", p, err)
		}
		return nil
	}
	for _, p := range []string{"/usr/local/bin/terraform"} {
		if _, err := os.Stat(p); err == nil {
			return os.Setenv("TF_ACC_TERRAFORM_PATH", p)
		}
	}
	if p, err := exec.LookPath("terraform"); err == nil {
		return os.Setenv("TF_ACC_TERRAFORM_PATH", p)
	}
	return fmt.Errorf("the Terraform CLI was not found: install Terraform >= 1.11 or set TF_ACC_TERRAFORM_PATH; the tests never download it")
}
