package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
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
	// terraform is the CLI to run; TF_ACC_TERRAFORM_PATH when empty.
	terraform string
	// clock, when set, makes run serve the provider in-process reading it for the time (runAt).
	clock *fakeClock
	// t is the test the directory belongs to: a provider served in-process logs through it
	// (only with TF_LOG set, as the binary would).
	t *testing.T
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
	return &cli{dir: dir, env: append(append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1"), env...), t: t}
}

// run runs one terraform command and returns everything it printed.
func (c *cli) run(args ...string) (string, error) {
	if c.clock != nil {
		return c.runAt(c.clock, args...)
	}
	return c.runWith(nil, args...)
}

// runWith is run with extra environment variables.
func (c *cli) runWith(env []string, args ...string) (string, error) {
	bin := c.terraform
	if bin == "" {
		bin = os.Getenv("TF_ACC_TERRAFORM_PATH")
	}
	cmd := exec.Command(bin, append(args, "-no-color")...)
	cmd.Dir = c.dir
	cmd.Env = append(append([]string(nil), c.env...), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// runAt runs one terraform command as run does, but against a provider served from this test
// process and reading clock for the time: Terraform reattaches to it (TF_REATTACH_PROVIDERS, as
// terraform-plugin-testing does). Each command gets a provider of its own, stopped when the
// command ends, so nothing carries over between commands that would not carry over between two
// runs of the real binary.
func (c *cli) runAt(clock *fakeClock, args ...string) (string, error) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	config := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- tf6server.Serve(providerAddress, func() tfprotov6.ProviderServer {
			s, err := verifiedServerWithClock(clock)
			if err != nil {
				panic(err)
			}
			return s
		}, tf6server.WithDebug(ctx, config, closed),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger()),
			tf6server.WithLoggingSink(c.t),
			tf6server.WithoutLogStderrOverride())
	}()
	var rc *plugin.ReattachConfig
	select {
	case rc = <-config:
	case err := <-served:
		return "", fmt.Errorf("serving the provider: %v", err)
	}
	reattach, err := json.Marshal(map[string]any{providerAddress: map[string]any{
		"Protocol": rc.Protocol, "ProtocolVersion": rc.ProtocolVersion, "Pid": rc.Pid, "Test": true,
		"Addr": map[string]string{"Network": rc.Addr.Network(), "String": rc.Addr.String()},
	}})
	if err != nil {
		return "", err
	}
	out, err := c.runWith([]string{"TF_REATTACH_PROVIDERS=" + string(reattach)}, args...)
	stop()
	<-closed
	return out, err
}

// providerAddress is the provider's source address as Terraform spells it in full.
const providerAddress = "registry.terraform.io/promise-platform/kratix"

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

// write replaces a file of the working directory, as a user editing the configuration does.
func (c *cli) write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
