package provider

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// apply runs `terraform apply -auto-approve`; a failure ends the test.
func (c *cli) apply(t *testing.T) {
	t.Helper()
	if out, err := c.run("apply", "-auto-approve"); err != nil {
		t.Fatalf("terraform apply: %v\n%s", err, out)
	}
}

// planCode runs `terraform plan -detailed-exitcode` and returns what it printed and its exit
// code: 0 when there is nothing to do, 2 when there is, 1 on an error. A plan that cannot be run
// at all ends the test.
func (c *cli) planCode(t *testing.T) (string, int) {
	t.Helper()
	out, err := c.run("plan", "-detailed-exitcode")
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return out, exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out, 0
}

// expectPlan checks that the plan exits with code (a wrong code ends the test) and that it says
// parts, in this order.
func (c *cli) expectPlan(t *testing.T, code int, parts ...string) {
	t.Helper()
	out, got := c.planCode(t)
	if got != code {
		t.Fatalf("plan -detailed-exitcode = %d, want %d\n%s", got, code, out)
	}
	if len(parts) > 0 && !inOrder(parts...).MatchString(out) {
		t.Errorf("the plan does not say, in order:\n  %s\n\n%s", strings.Join(parts, "\n  "), out)
	}
}

// setVars writes lines, one a line, as the directory's terraform.tfvars.
func (c *cli) setVars(t *testing.T, lines ...string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, "terraform.tfvars"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}
