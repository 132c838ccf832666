package statestore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
)

// The signatures are checked by git itself (`git verify-commit`), with ssh-keygen for SSH
// signatures and gpg for OpenPGP ones: nothing of the signing code takes part in verifying.

const signerEmail = "bot@example.com"

// sshSigningKey makes an ed25519 key with ssh-keygen (encrypted when passphrase is set) and an
// allowed_signers file trusting it for signerEmail; it returns the private key's content and the
// file's path.
func sshSigningKey(t *testing.T, passphrase string) (key, allowedSigners string) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "key")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", signerEmail, "-f", file).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	priv, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := os.ReadFile(file + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	allowedSigners = filepath.Join(dir, "allowed_signers")
	line := fmt.Sprintf("%s namespaces=\"git\" %s", signerEmail, strings.TrimSpace(string(pub)))
	if err := os.WriteFile(allowedSigners, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return string(priv), allowedSigners
}

// openPGPSigningKey makes an OpenPGP key with go-crypto (its private key encrypted when
// passphrase is set) and a GNUPGHOME in which gpg trusts its public key fully; it returns the
// armored private and public keys and the GNUPGHOME.
func openPGPSigningKey(t *testing.T, passphrase string) (key, public, gnupgHome string) {
	t.Helper()
	if _, err := exec.LookPath("gpg"); err != nil {
		// make test installs it (make debs): a missing gpg must not pass for a verified signature.
		t.Fatal("gpg is not installed: run make debs, or apt-get install gnupg")
	}
	e, err := openpgp.NewEntity("kratix", "", signerEmail, &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
	if err != nil {
		t.Fatal(err)
	}
	var pub bytes.Buffer
	w, err := armor.Encode(&pub, openpgp.PublicKeyType, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Serialize(w); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	var priv bytes.Buffer
	w, err = armor.Encode(&priv, openpgp.PrivateKeyType, nil)
	if err != nil {
		t.Fatal(err)
	}
	if passphrase != "" {
		if err := e.EncryptPrivateKeys([]byte(passphrase), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.SerializePrivateWithoutSigning(w, nil); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()

	home := t.TempDir()
	// Importing and verifying need no agent, but stop any that gpg started.
	t.Cleanup(func() { _ = exec.Command("gpgconf", "--homedir", home, "--kill", "all").Run() })
	gpg := func(stdin []byte, args ...string) {
		cmd := exec.Command("gpg", append([]string{"--batch", "--homedir", home}, args...)...)
		cmd.Stdin = bytes.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gpg %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	gpg(pub.Bytes(), "--import")
	fpr := strings.ToUpper(fmt.Sprintf("%x", e.PrimaryKey.Fingerprint))
	gpg([]byte(fpr+":6:\n"), "--import-ownertrust")
	return priv.String(), pub.String(), home
}

// verifyAll runs git verify-commit on every commit of main after the seed, and returns how many
// it checked. gpg.ssh.allowedSignersFile and GNUPGHOME are those of the key the commits must be
// signed with.
func verifyAll(t *testing.T, bare, seed, allowedSigners, gnupgHome string) int {
	t.Helper()
	list := gitCmd(t, "", "--git-dir", bare, "rev-list", "main", "^"+seed)
	hashes := strings.Fields(list)
	for _, h := range hashes {
		args := []string{"-c", "gpg.ssh.allowedSignersFile=" + allowedSigners, "--git-dir", bare, "verify-commit", "-v", h}
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GNUPGHOME="+gnupgHome)
		out, err := cmd.CombinedOutput()
		if err != nil {
			subject := gitCmd(t, "", "--git-dir", bare, "log", "-1", "--format=%s", h)
			t.Errorf("git verify-commit %s (%q): %v\n%s", h, subject, err, out)
		}
	}
	return len(hashes)
}

// writeSeveral makes the kinds of commits a store makes: a write, an aggregate, a delete, a
// prune, and a group of concurrent writes that go out as batches.
func writeSeveral(t *testing.T, s Store) {
	t.Helper()
	ctx := context.Background()
	steps := []Change{
		{Message: "Update from: promise/jenkins", Put: map[string][]byte{"dev/a.yaml": []byte("a: 1\n"), "dev/b.yaml": []byte("b: 1\n")}},
		{Message: "Delete from: promise/jenkins", Delete: []string{"dev/b.yaml"}},
		{Message: "Prune", Put: map[string][]byte{"dev/keep/k.yaml": []byte("k\n"), "dev/keep/gone.yaml": []byte("g\n")}},
		{Message: "Prune again", Put: map[string][]byte{"dev/keep/k.yaml": []byte("k\n")}, Prune: []string{"dev/keep/"}},
	}
	for _, c := range steps {
		if _, err := s.Apply(ctx, c); err != nil {
			t.Fatalf("%s: %v", c.Message, err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for i := range 6 {
		wg.Go(func() {
			_, err := s.Apply(ctx, Change{Message: fmt.Sprintf("batch %d", i),
				Put: map[string][]byte{fmt.Sprintf("dev/batch/%d.yaml", i): []byte("x\n")}})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestGitSignedCommits(t *testing.T) {
	for _, tc := range []struct {
		name, format, passphrase string
	}{
		{"ssh", SigningSSH, ""},
		{"ssh with passphrase", SigningSSH, "open sesame"},
		{"openpgp", SigningOpenPGP, ""},
		{"openpgp with passphrase", SigningOpenPGP, "open sesame"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var key, allowed, home string
			if tc.format == SigningSSH {
				key, allowed = sshSigningKey(t, tc.passphrase)
				home = t.TempDir()
			} else {
				key, _, home = openPGPSigningKey(t, tc.passphrase)
				allowed = "/dev/null"
			}
			bare := bareRepo(t, true)
			seed := gitCmd(t, "", "--git-dir", bare, "rev-parse", "main")
			s, err := NewPool().Git(GitConfig{URL: "file://" + bare, AuthorName: "platform-bot", AuthorEmail: signerEmail,
				SigningFormat: tc.format, SigningKey: key, SigningPassphrase: tc.passphrase})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Check(context.Background()); err != nil {
				t.Fatal(err)
			}
			writeSeveral(t, s)
			n := verifyAll(t, bare, seed, allowed, home)
			if n != 10 {
				t.Errorf("%d commits after the seed, want 10 (4 changes and 6 concurrent writes)", n)
			}
			if !t.Failed() {
				t.Logf("git verify-commit accepted all %d commits", n)
			}
		})
	}
}

// TestGitUnsignedCommitsDoNotVerify shows that verifyAll can fail: a store without signing makes
// commits that git verify-commit refuses.
func TestGitUnsignedCommitsDoNotVerify(t *testing.T) {
	_, allowed := sshSigningKey(t, "")
	bare := bareRepo(t, true)
	seed := gitCmd(t, "", "--git-dir", bare, "rev-parse", "main")
	if _, err := fileStore(t, NewPool(), bare).Apply(context.Background(),
		Change{Message: "unsigned", Put: map[string][]byte{"a": []byte("a")}}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "-c", "gpg.ssh.allowedSignersFile="+allowed, "--git-dir", bare, "verify-commit", "main")
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("git verify-commit accepted an unsigned commit:\n%s", out)
	}
	if seed == gitCmd(t, "", "--git-dir", bare, "rev-parse", "main") {
		t.Fatal("no commit was made")
	}
}

// TestGitSignedByOtherKeyDoesNotVerify: a commit signed with a key that allowed_signers does not
// name is refused, so a signature is checked against the key, not merely present.
func TestGitSignedByOtherKeyDoesNotVerify(t *testing.T) {
	key, _ := sshSigningKey(t, "")
	_, otherAllowed := sshSigningKey(t, "")
	bare := bareRepo(t, true)
	s, err := NewPool().Git(GitConfig{URL: "file://" + bare, AuthorEmail: signerEmail, SigningFormat: SigningSSH, SigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(context.Background(), Change{Message: "signed", Put: map[string][]byte{"a": []byte("a")}}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "-c", "gpg.ssh.allowedSignersFile="+otherAllowed, "--git-dir", bare, "verify-commit", "main")
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("git verify-commit accepted a commit signed by a key it does not trust:\n%s", out)
	}
}

func TestNewCommitSignerErrors(t *testing.T) {
	sshKey, _ := sshSigningKey(t, "")
	sshEncrypted, _ := sshSigningKey(t, "right")
	pgpKey, pgpPublic, _ := openPGPSigningKey(t, "")
	pgpEncrypted, _, _ := openPGPSigningKey(t, "right")
	for _, tc := range []struct {
		name, format, key, passphrase string
		wantKey, wantText             string // the secret key blamed, and a piece of the message
	}{
		{"empty key", SigningSSH, "", "", "signing_key", "is empty"},
		{"ssh garbage", SigningSSH, "not a key", "", "signing_key", "is not an SSH private key"},
		{"ssh given a pgp key", SigningSSH, pgpKey, "", "signing_key", `set format = "openpgp"`},
		{"ssh passphrase missing", SigningSSH, sshEncrypted, "", "signing_key_passphrase", "is missing"},
		{"ssh passphrase wrong", SigningSSH, sshEncrypted, "wrong", "signing_key_passphrase", "does not decrypt"},
		{"openpgp garbage", SigningOpenPGP, "not a key", "", "signing_key", "is not an armored OpenPGP private key"},
		{"openpgp given an ssh key", SigningOpenPGP, sshKey, "", "signing_key", `set format = "ssh"`},
		{"openpgp public key", SigningOpenPGP, pgpPublic, "", "signing_key", "holds an OpenPGP public key"},
		{"openpgp passphrase missing", SigningOpenPGP, pgpEncrypted, "", "signing_key_passphrase", "is missing"},
		{"openpgp passphrase wrong", SigningOpenPGP, pgpEncrypted, "wrong", "signing_key_passphrase", "does not decrypt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewCommitSigner(tc.format, tc.key, tc.passphrase)
			var ke *SigningKeyError
			if !errors.As(err, &ke) {
				t.Fatalf("error = %v, want a SigningKeyError", err)
			}
			if ke.Key != tc.wantKey || !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("error = %q (key %s), want key %s and %q", err, ke.Key, tc.wantKey, tc.wantText)
			}
			if tc.key != "" && strings.Contains(err.Error(), strings.TrimSpace(tc.key)) {
				t.Errorf("the error quotes the key: %q", err)
			}
		})
	}
	if _, err := NewCommitSigner("x509", sshKey, ""); err == nil || !strings.Contains(err.Error(), `"x509" is not supported`) {
		t.Errorf("format x509: error = %v", err)
	}
	for _, ok := range []struct{ format, key, passphrase string }{
		{SigningSSH, sshKey, ""}, {SigningSSH, sshEncrypted, "right"},
		{SigningOpenPGP, pgpKey, ""}, {SigningOpenPGP, pgpEncrypted, "right"},
	} {
		if _, err := NewCommitSigner(ok.format, ok.key, ok.passphrase); err != nil {
			t.Errorf("%s key: %v", ok.format, err)
		}
	}
}

// TestGitSigningKeyErrorFailsWrites: a store whose signing key cannot be used writes nothing and
// fails its check, naming the secret key to fix.
func TestGitSigningKeyErrorFailsWrites(t *testing.T) {
	bare := bareRepo(t, true)
	s, err := NewPool().Git(GitConfig{URL: "file://" + bare, SigningFormat: SigningSSH, SigningKey: "garbage"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Apply(context.Background(), Change{Message: "m", Put: map[string][]byte{"a": []byte("a")}})
	if err == nil || !strings.Contains(err.Error(), "signing_key") || kindOf(err) != KindConfig {
		t.Errorf("Apply: error = %v (kind %q), want a configuration error about signing_key", err, kindOf(err))
	}
	if err := s.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "signing_key") {
		t.Errorf("Check: error = %v, want one about signing_key", err)
	}
	if n := commits(t, bare); n != 1 {
		t.Errorf("%d commits, want only the seed", n)
	}
}
