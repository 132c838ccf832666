package statestore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The line a server hook prints when it refuses a push, as a GitLab-like policy would word it.
const hookLine = "GL-HOOK-ERR: commits to main need a ticket id (see https://wiki.example/x)"

// TestGitHookRejectionOverTheWire: a pre-receive hook that refuses the push, over smart HTTP and
// over SSH, fails the Apply as a rejection quoting the hook's line as it printed it, is not
// retried, and leaves the branch where it was.
func TestGitHookRejectionOverTheWire(t *testing.T) {
	srv := testGitServer(t)
	for _, transport := range []string{"http", "ssh"} {
		t.Run(transport, func(t *testing.T) {
			repo := newServerRepo(t, srv)
			cfg := GitConfig{URL: srv.HTTPURL(repo), Username: srv.Username, Password: srv.Password}
			if transport == "ssh" {
				cfg = GitConfig{URL: srv.SSHURL(repo), SSHPrivateKey: srv.SSHPrivateKey, KnownHosts: srv.KnownHosts}
			}
			before := gitCmd(t, "", "--git-dir", srv.RepoPath(repo), "rev-parse", "refs/heads/main")
			if err := srv.SetHook(repo, "pre-receive", "#!/bin/sh\necho run >> hook-runs\necho '"+hookLine+"' >&2\nexit 1\n"); err != nil {
				t.Fatal(err)
			}
			s, err := NewPool().Git(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			_, err = s.Apply(ctx, Change{Message: "Update from: mine", Put: map[string][]byte{"mine.yaml": []byte("m\n")}})
			if kindOf(err) != KindRejected {
				t.Fatalf("Apply = %v, want kind %q", err, KindRejected)
			}
			if !strings.Contains(err.Error(), hookLine) {
				t.Errorf("the error does not quote the hook's line %q:\n%v", hookLine, err)
			}
			if runs, _ := os.ReadFile(filepath.Join(srv.RepoPath(repo), "hook-runs")); strings.Count(string(runs), "run") != 1 {
				t.Errorf("the hook ran %d times: a refusal by the server must not be retried", strings.Count(string(runs), "run"))
			}
			if after := gitCmd(t, "", "--git-dir", srv.RepoPath(repo), "rev-parse", "refs/heads/main"); after != before {
				t.Errorf("main moved from %s to %s: the refused push landed", before, after)
			}
			t.Logf("error: %v", err)
		})
	}
}

// rejectWith installs a pre-receive hook that prints output and refuses the push, then
// applies one change over smart HTTP with the server's credentials and returns the failure, which
// must be a rejection.
func rejectWith(t *testing.T, output string) error {
	t.Helper()
	srv := testGitServer(t)
	repo := newServerRepo(t, srv)
	if err := srv.SetHook(repo, "pre-receive", "#!/bin/sh\ncat >&2 <<'END'\n"+output+"\nEND\nexit 1\n"); err != nil {
		t.Fatal(err)
	}
	s, err := NewPool().Git(GitConfig{URL: srv.HTTPURL(repo), Username: srv.Username, Password: srv.Password})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err = s.Apply(ctx, Change{Message: "Update from: mine", Put: map[string][]byte{"mine.yaml": []byte("m\n")}})
	if kindOf(err) != KindRejected {
		t.Fatalf("Apply = %v, want kind %q", err, KindRejected)
	}
	return err
}

// TestGitRejectionHidesCredentials: a hook that echoes the store's password back (a server
// printing the URL it was pushed to, say) shows it redacted, even where the server's message is
// cut short to its limit.
func TestGitRejectionHidesCredentials(t *testing.T) {
	password := testGitServer(t).Password
	if len(password) < 16 {
		t.Fatalf("the test server's password %q is too short for this test", password)
	}
	err := rejectWith(t, "denied for token "+password+" on main")
	if strings.Contains(err.Error(), password) || !strings.Contains(err.Error(), "denied for token [redacted] on main") {
		t.Errorf("the error should show the hook's line with the password redacted:\n%v", err)
	}
	// The password straddles the 2,000th byte of the message: no part of it may remain.
	filler := strings.Repeat("x", 1990)
	err = rejectWith(t, filler+password)
	if strings.Contains(err.Error(), password[:8]) {
		t.Errorf("the error shows the start of the password %q where the server's message was cut:\n%v", password[:8], err)
	}
}

// TestGitRejectionKeepsTheFirstLines: a long hook message is cut to its first 20 lines, and the
// error says how many were left out.
func TestGitRejectionKeepsTheFirstLines(t *testing.T) {
	var lines []string
	for i := 1; i <= 50; i++ {
		lines = append(lines, fmt.Sprintf("policy-line-%02d", i))
	}
	err := rejectWith(t, strings.Join(lines, "\n"))
	msg := err.Error()
	for _, want := range []string{"policy-line-01", "policy-line-20", "30 more lines"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error lacks %q:\n%v", want, msg)
		}
	}
	if strings.Contains(msg, "policy-line-21") {
		t.Errorf("the error keeps more than 20 of the server's lines:\n%v", msg)
	}
}

// TestGitRejectionAdvice: the advice of a refused push says where the server's reasons are and
// what to do for each kind of refusal.
func TestGitRejectionAdvice(t *testing.T) {
	advice := (&Error{Kind: KindRejected}).Advice()
	for _, want := range []string{"the server said", "hook", "protect", "sign", "branch"} {
		if !strings.Contains(advice, want) {
			t.Errorf("the advice lacks %q: %s", want, advice)
		}
	}
}
