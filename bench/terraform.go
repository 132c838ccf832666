package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// tfTimeout bounds one terraform command: far above any healthy run here, low enough that a
// wedged apply cannot eat the whole benchmark.
const tfTimeout = 5 * time.Minute

// workspace is a Terraform working directory driven with the real CLI and the provider built
// from this checkout, through a dev_overrides CLI configuration (as internal/provider's CLI tests
// do; no terraform init is needed with dev_overrides).
type workspace struct {
	e   *env
	dir string
	env []string // added to the environment of its commands
	// timeout bounds each command instead of tfTimeout when set (B7's fleet takes longer).
	timeout time.Duration
	// cliConfig replaces the environment's CLI configuration when set (the protocol floor's).
	cliConfig string
}

// newWorkspace creates a fresh working directory holding files (name to content).
func (e *env) newWorkspace(name string, files map[string][]byte) (*workspace, error) {
	dir, err := os.MkdirTemp(e.dir, name+"-")
	if err != nil {
		return nil, fmt.Errorf("creating workspace %s: %w", name, err)
	}
	for f, content := range files {
		if err := os.WriteFile(filepath.Join(dir, f), content, 0o600); err != nil {
			return nil, fmt.Errorf("writing %s in workspace %s: %w", f, name, err)
		}
	}
	// Each workspace starts with an empty manifest cache of its own: an apply is measured as the
	// first one of a release on a fresh machine, and the plans that follow in the same workspace
	// load what earlier commands kept, as on a user's machine.
	return &workspace{e: e, dir: dir, env: []string{"KRATIX_CACHE_DIR=" + filepath.Join(dir, ".kratix-cache")}}, nil
}

func (w *workspace) remove() { _ = os.RemoveAll(w.dir) }

// tfResult is one finished terraform command.
type tfResult struct {
	took     time.Duration
	exitCode int
	output   string
	peakMiB  float64 // the provider's peak RSS during the command, when watched
}

// run runs one terraform command and times it. A non-zero exit is not an error here: plan
// -detailed-exitcode uses exit codes as answers. When watchMemory is set, the provider's
// processes are polled for their peak memory while the command runs.
func (w *workspace) run(ctx context.Context, watchMemory bool, args ...string) (tfResult, error) {
	timeout := tfTimeout
	if w.timeout > 0 {
		timeout = w.timeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.e.terraform, append(args, "-no-color", "-input=false")...)
	cmd.Dir = w.dir
	cliConfig := w.e.cliConfig
	if w.cliConfig != "" {
		cliConfig = w.cliConfig
	}
	cmd.Env = append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"TF_IN_AUTOMATION=1",
		"CHECKPOINT_DISABLE=1", // no call home: there is no internet, and it would add latency
		"TF_LOG=",
	)
	cmd.Env = append(cmd.Env, w.env...)
	// Its own process group, so that a timeout ends terraform and the provider it started, and
	// nothing else.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out

	// Terraform starts the provider several times per command (validation, plan, apply); the
	// largest peak is what a machine running Terraform has to have.
	var watcher *fleetWatcher
	if watchMemory {
		watcher = startFleetWatcher(w.e.providerBin, "", "") // the provider only
	}
	start := time.Now()
	err := cmd.Run()
	res := tfResult{took: time.Since(start), output: out.String()}
	if watcher != nil {
		res.peakMiB = watcher.stop().providerMiB
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("terraform %s in %s: %w\n%s", strings.Join(args, " "), w.dir, ctx.Err(), tail(res.output))
	case errors.As(err, &exit):
		res.exitCode = exit.ExitCode()
	case err != nil:
		return res, fmt.Errorf("terraform %s in %s: %w", strings.Join(args, " "), w.dir, err)
	}
	return res, nil
}

// mustSucceed runs a terraform command that has to exit 0.
func (w *workspace) mustSucceed(ctx context.Context, watchMemory bool, args ...string) (tfResult, error) {
	res, err := w.run(ctx, watchMemory, args...)
	if err == nil && res.exitCode != 0 {
		err = fmt.Errorf("terraform %s in %s exited %d:\n%s", strings.Join(args, " "), w.dir, res.exitCode, tail(res.output))
	}
	return res, err
}

func (w *workspace) apply(ctx context.Context, watchMemory bool, extra ...string) (tfResult, error) {
	return w.mustSucceed(ctx, watchMemory, append([]string{"apply", "-auto-approve"}, extra...)...)
}

// tail keeps the end of a command's output, where Terraform puts its errors.
func tail(s string) string {
	const n = 3000
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
