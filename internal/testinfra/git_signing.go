package testinfra

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// SignedCommitsRefusal starts the message of the pre-receive hook that RequireSignedCommits
// installs, when it refuses a push.
const SignedCommitsRefusal = "refused by policy: commit"

// NewSSHSigningKey makes an ed25519 key with ssh-keygen in dir, encrypted with passphrase when it
// is not empty, and an allowed_signers file there that trusts it for email in git's namespace.
// It returns the private key's content and the allowed_signers file's path.
func NewSSHSigningKey(dir, email, passphrase string) (key, allowedSigners string, err error) {
	file := filepath.Join(dir, "signing_key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", email, "-f", file).CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("ssh-keygen: %w\n%s", err, out)
	}
	priv, err := os.ReadFile(file)
	if err != nil {
		return "", "", err
	}
	pub, err := os.ReadFile(file + ".pub")
	if err != nil {
		return "", "", err
	}
	allowedSigners = filepath.Join(dir, "allowed_signers")
	line := fmt.Sprintf("%s namespaces=\"git\" %s\n", email, strings.TrimSpace(string(pub)))
	if err := os.WriteFile(allowedSigners, []byte(line), 0o644); err != nil {
		return "", "", err
	}
	return string(priv), allowedSigners, nil
}

// RequireSignedCommits installs a pre-receive hook in repository name that refuses a push
// carrying any commit that `git verify-commit` does not accept with the SSH keys of the
// allowedSigners file: unsigned, or signed with another key. Its refusal starts with
// SignedCommitsRefusal and names the commit.
func (g *GitServer) RequireSignedCommits(name, allowedSigners string) error {
	path, err := g.existingRepo(name)
	if err != nil {
		return err
	}
	hook := fmt.Sprintf(`#!/bin/sh
zero=0000000000000000000000000000000000000000
while read old new ref; do
	[ "$new" = "$zero" ] && continue
	for c in $(git rev-list "$new" --not --all); do
		if ! git -c gpg.ssh.allowedSignersFile=%s verify-commit "$c" >/dev/null 2>&1; then
			echo "%s $c on $ref is not signed by a trusted key" >&2
			exit 1
		fi
	done
done
`, shellQuote(allowedSigners), SignedCommitsRefusal)
	return os.WriteFile(filepath.Join(path, "hooks", "pre-receive"), []byte(hook), 0o755)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
