package provider

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The provider binary built once for the tests that drive the Terraform CLI directly.
var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
	buildOut  []byte
)

// cli is a working directory driven with the real Terraform CLI and the provider binary built
// from this checkout, through a dev_overrides CLI configuration.
type cli struct {
	dir string
	env []string
}

func newCLI(t *testing.T, files map[string]string, env ...string) *cli {
	t.Helper()
	buildOnce.Do(func() {
		// Shared by every test of the package, so not t.TempDir(); TestMain removes it.
		binDir, buildErr = os.MkdirTemp("", "kratix-provider-bin-") //nolint:usetesting // see above
		if buildErr == nil {
			buildOut, buildErr = exec.Command("go", "build", "-o", filepath.Join(binDir, "terraform-provider-kratix"), "../..").CombinedOutput()
		}
	})
	if buildErr != nil {
		t.Fatalf("building the provider: %v\n%s", buildErr, buildOut)
	}
	rc := filepath.Join(t.TempDir(), "terraformrc")
	body := "provider_installation {\n  dev_overrides {\n    \"promise-platform/kratix\" = \"" + binDir + "\"\n  }\n  direct {}\n}\n"
	if err := os.WriteFile(rc, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return &cli{dir: dir, env: append(append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1"), env...)}
}

// run runs one terraform command and returns everything it printed.
func (c *cli) run(args ...string) (string, error) {
	cmd := exec.Command(os.Getenv("TF_ACC_TERRAFORM_PATH"), append(args, "-no-color")...)
	cmd.Dir = c.dir
	cmd.Env = c.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}
