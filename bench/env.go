package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/fixtures"
	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// env is what every scenario shares: the servers, the provider binary and the test data.
type env struct {
	machine machine
	minio   *testinfra.MinIO
	client  *minio.Client // plain minio-go, for floors, set-up and checks
	git     *testinfra.GitServer

	dir         string // scratch folder for workspaces and clones
	providerBin string // the provider built from this checkout
	cliConfig   string // a Terraform CLI configuration with dev_overrides for providerBin
	noopConfig  string // the same for bench/noop, the protocol floor (see its package comment)
	terraform   string
	profileDir  string // where B4's measured plans write CPU profiles of the provider, if set

	depsName      string // where the dependencies of B2 and B3 come from, for the table
	depsRaw       []byte // the manifest as the user writes it (Terraform's file())
	depsCanonical []byte // what the provider writes: parsed and canonicalised once
}

// machine describes where the numbers come from.
type machine struct {
	date, cpu, kernel, goVersion, terraformVersion, gitVersion string
	nproc                                                      int
}

func startEnv(ctx context.Context, opts options) (*env, error) {
	e := &env{profileDir: opts.profile}
	ok := false
	// Whatever fails half-way, the servers already started are stopped.
	defer func() {
		if !ok {
			e.stop()
		}
	}()
	var err error
	if e.dir, err = os.MkdirTemp("", "kratix-bench-"); err != nil {
		return nil, fmt.Errorf("creating a scratch folder: %w", err)
	}
	if e.terraform, err = findTerraform(opts.terraform); err != nil {
		return nil, err
	}
	if err := e.loadDeps(opts.deps); err != nil {
		return nil, err
	}
	if err := e.buildProvider(ctx); err != nil {
		return nil, err
	}
	if opts.selected("B2") || opts.selected("B3") {
		if err := e.buildNoop(ctx); err != nil {
			return nil, err
		}
	}
	logf("starting MinIO and the git server")
	if e.minio, err = testinfra.StartMinIO(); err != nil {
		return nil, err
	}
	if e.client, err = e.minio.Client(); err != nil {
		return nil, err
	}
	if e.git, err = testinfra.StartGitServer(); err != nil {
		return nil, err
	}
	e.machine = describeMachine(ctx, e.terraform)
	ok = true
	return e, nil
}

// stop ends the servers and removes every scratch file. Safe on a half-started env.
func (e *env) stop() {
	if e.git != nil {
		e.git.Stop()
	}
	if e.minio != nil {
		e.minio.Stop()
	}
	if e.dir != "" {
		_ = os.RemoveAll(e.dir)
	}
}

// loadDeps reads the dependencies of B2 and B3 (the generated release unless -deps names a file)
// and canonicalises them with the provider's own code, once: the store-level scenarios write
// exactly the bytes the provider would.
func (e *env) loadDeps(path string) error {
	raw, name := fixtures.Pipelines(), "generated release"
	if path != "" {
		var err error
		if raw, err = os.ReadFile(path); err != nil {
			return fmt.Errorf("reading -deps: %w", err)
		}
		name = filepath.Base(path)
	}
	docs, err := manifest.Parse(raw)
	if err != nil {
		return fmt.Errorf("parsing %s: %w", name, err)
	}
	e.depsName, e.depsRaw, e.depsCanonical = name, raw, manifest.Canonical(docs)
	return nil
}

// buildProvider builds the provider binary once, from the module this program belongs to.
func (e *env) buildProvider(ctx context.Context) error {
	logf("building the provider")
	bin, rc, err := e.build(ctx, ".", "bin")
	if err != nil {
		return err
	}
	// The memory watcher recognises the provider by /proc/PID/exe, which is the resolved path.
	if e.providerBin, err = filepath.EvalSymlinks(bin); err != nil {
		return fmt.Errorf("resolving the provider binary's path: %w", err)
	}
	e.cliConfig = rc
	return nil
}

// buildNoop builds bench/noop, the provider of the same schemas that does nothing.
func (e *env) buildNoop(ctx context.Context) error {
	_, rc, err := e.build(ctx, "./bench/noop", "bin-noop")
	e.noopConfig = rc
	return err
}

// build builds the package pkg of this module as terraform-provider-kratix in the folder dir of
// the scratch folder, and writes a CLI configuration whose dev_overrides point at it.
func (e *env) build(ctx context.Context, pkg, dir string) (bin, rc string, err error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", "", err
	}
	bin = filepath.Join(e.dir, dir, "terraform-provider-kratix")
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("building %s in %s: %w\n%s", pkg, root, err, out)
	}
	rc = filepath.Join(e.dir, "terraformrc-"+dir)
	text := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"promise-platform/kratix\" = %q\n  }\n  direct {}\n}\n", filepath.Dir(bin))
	if err := os.WriteFile(rc, []byte(text), 0o600); err != nil {
		return "", "", fmt.Errorf("writing the Terraform CLI configuration: %w", err)
	}
	return bin, rc, nil
}

func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module root (run from inside the repository): %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// findTerraform follows the Makefile's order: an explicit flag, the variables the tests use, PATH.
func findTerraform(flagValue string) (string, error) {
	for _, p := range []string{flagValue, os.Getenv("TF_ACC_TERRAFORM_PATH"), os.Getenv("TERRAFORM")} {
		if p != "" {
			return p, nil
		}
	}
	if p, err := exec.LookPath("terraform"); err == nil {
		return p, nil
	}
	if _, err := os.Stat("/usr/local/bin/terraform"); err == nil {
		return "/usr/local/bin/terraform", nil
	}
	return "", fmt.Errorf("terraform CLI not found: put it on PATH or pass -terraform")
}

func describeMachine(ctx context.Context, terraform string) machine {
	m := machine{
		date:      time.Now().UTC().Format("2006-01-02 15:04 MST"),
		nproc:     runtime.NumCPU(),
		cpu:       cpuModel(),
		goVersion: runtime.Version(),
	}
	m.kernel = firstLine(ctx, "uname", "-sr")
	m.terraformVersion = strings.TrimPrefix(firstLine(ctx, terraform, "version"), "Terraform ")
	m.gitVersion = strings.TrimPrefix(firstLine(ctx, "git", "version"), "git version ")
	return m
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// firstLine runs a command for its version banner; a failure shows as "unknown".
func firstLine(ctx context.Context, name string, args ...string) string {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	out, err := cmd.Output()
	if err != nil {
		return "unknown"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// selected reports whether the -only flag lets scenario id run.
func (o options) selected(id string) bool {
	if o.only == "" {
		return true
	}
	for _, s := range strings.Split(o.only, ",") {
		if strings.EqualFold(strings.TrimSpace(s), id) {
			return true
		}
	}
	return false
}
