package testinfra

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// gitTimeout bounds every git command the package runs, so that a wedged command fails a test
// instead of hanging it until go test's global timeout.
const gitTimeout = 2 * time.Minute

// Identity and defaults passed with -c on every git command, so that commits work on a machine
// with no git configuration at all and never depend on the developer's own.
var gitConfigArgs = []string{
	"-c", "user.name=kratix-testinfra",
	"-c", "user.email=testinfra@kratix.invalid",
	"-c", "init.defaultBranch=main",
	"-c", "advice.detachedHead=false",
}

// gitEnv is the environment for git processes: the caller's environment without any GIT_*
// variable (a GIT_DIR inherited from a hook, say, would redirect every command), with system and
// global configuration switched off and prompts disabled so that an authentication failure is an
// error rather than a hang.
func gitEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_TERMINAL_PROMPT=0",
		"LC_ALL=C",
	)
	return append(env, extra...)
}

// gitExecPath is the folder holding git's helper programs (git-http-backend, git-upload-pack,
// git-receive-pack), as reported by `git --exec-path`.
func gitExecPath() (string, error) {
	out, err := runGit("", nil, "--exec-path")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// runGit runs git with args in dir ("" for the current folder), feeding it stdin, and returns
// its standard output. A failure names the command and carries git's standard error, which is
// where git says what went wrong.
func runGit(dir string, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()

	cmd := exec.CommandContext(ctx, "git", append(append([]string{}, gitConfigArgs...), args...)...)
	cmd.Dir = dir
	cmd.Env = gitEnv()
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), &gitError{args: args, err: err, stderr: strings.TrimSpace(stderr.String())}
	}
	return stdout.Bytes(), nil
}

// gitError is a failed git command, keeping git's standard error for the message.
type gitError struct {
	args   []string
	err    error
	stderr string
}

func (e *gitError) Error() string {
	msg := fmt.Sprintf("git %s: %v", strings.Join(e.args, " "), e.err)
	if e.stderr != "" {
		msg += ": " + e.stderr
	}
	return msg
}

func (e *gitError) Unwrap() error { return e.err }

// trimNL turns a git command's one-line output into a string.
func trimNL(b []byte) string { return strings.TrimRight(string(b), "\r\n") }

// splitNUL splits the NUL-terminated records of git's -z output.
func splitNUL(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}
