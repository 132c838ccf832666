package provider

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	"github.com/ProtonMail/go-crypto/openpgp/packet"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// TestAccGitSignedCommits: the repository's pre-receive hook refuses commits that git
// verify-commit does not accept with the trusted SSH key. Without git.signing the apply fails
// with the hook's text; with it (an encrypted key and its passphrase) the apply passes, and git
// verify-commit accepts every commit the provider made, those of the destroy included. Signing
// settings that cannot work fail the plan at the attribute to fix.
func TestAccGitSignedCommits(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	ts := newTestStore(t, "git-http")
	repo := storeName(ts)
	bare := gitServer.RepoPath(repo)
	seed := strings.TrimSpace(gitOutput(t, "--git-dir", bare, "rev-parse", "main"))
	const passphrase = "correct horse"
	key, allowed, err := testinfra.NewSSHSigningKey(t.TempDir(), "bot@example.com", passphrase)
	if err != nil {
		t.Fatal(err)
	}
	if err := gitServer.RequireSignedCommits(repo, allowed); err != nil {
		t.Fatal(err)
	}
	provider := func(pass string) string {
		return kratixProviderBlock{Secrets: []hclAttr{
			gitHTTPSecret("s"),
			{"signer", hclObj{{"signing_key", q(key)}, {"signing_key_passphrase", q(pass)}}},
		}}.String()
	}
	signing := func(format string) string {
		return strings.Replace(ts.store, "  git = {\n", fmt.Sprintf("  git = {\n    signing = { secret_ref = \"signer\", format = %q }\n", format), 1)
	}
	config := func(provider, store string) string {
		return provider + kratixStateStore{Label: "s", Body: store}.String() +
			kratixDestination{Label: "d", Name: q("worker-1"), Path: q("worker-1"), Labels: `{ env = "dev" }`, StateStore: "kratix_state_store.s"}.String() +
			kratixPromise{
				Label: "p", Name: q("app"), DestinationSelectors: matchLabels("env", "dev"),
				Dependencies: q(namespaceDoc("app")), Destinations: "[kratix_destination.d]",
			}.String()
	}
	applied := 0
	afterApply := func(*terraform.State) error {
		n, err := verifyCommitsAfter(bare, seed, allowed)
		t.Logf("after the apply: git verify-commit accepted all %d commits after the seed", n)
		applied = n
		return err
	}
	// The destroy removes the destination's and the promise's files: commits of deletions.
	afterDestroy := func(*terraform.State) error {
		n, err := verifyCommitsAfter(bare, seed, allowed)
		if err == nil && n <= applied {
			return fmt.Errorf("the destroy made no commit (%d commits after the seed, as after the apply)", n)
		}
		t.Logf("after the destroy: git verify-commit accepted all %d commits after the seed", n)
		return err
	}
	if !strings.Contains(signing("ssh"), `format = "ssh"`) {
		t.Fatalf("the signing store is not as intended:\n%s", signing("ssh"))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testAccProviders,
		Steps: []resource.TestStep{
			{
				Config:      config(provider(passphrase), ts.store),
				ExpectError: wrapped(`push rejected[\s\S]*` + testinfra.SignedCommitsRefusal + ` [0-9a-f]{40} on refs/heads/main is not signed by a trusted key`),
			},
			{
				Config:      config(provider("wrong"), signing("ssh")),
				PlanOnly:    true,
				ExpectError: wrapped(`git.signing.secret_ref: state store "` + repo + `" signs its commits[\s\S]*secret "signer" signing_key_passphrase does not decrypt signing_key`),
			},
			{
				Config:      config(provider(passphrase), signing("openpgp")),
				PlanOnly:    true,
				ExpectError: wrapped(`git.signing.format:[\s\S]*holds an SSH key, but the signing format is "openpgp"; set format = "ssh"`),
			},
			{
				Config:      config(provider(passphrase), strings.Replace(signing("ssh"), `secret_ref = "signer"`, `secret_ref = "nobody"`, 1)),
				PlanOnly:    true,
				ExpectError: wrapped(`git.signing.secret_ref: state store "` + repo + `" signs its commits with the secret "nobody", but the provider's secrets have no set of that name \(configured: s, signer\)`),
			},
			{
				Config:      config(provider(passphrase), signing("x509")),
				PlanOnly:    true,
				ExpectError: wrapped(`git.signing.format[\s\S]*value must be one of`),
			},
			{
				Config: config(provider(passphrase), signing("ssh")),
				Check:  afterApply,
			},
		},
		CheckDestroy: afterDestroy,
	})
}

// verifyCommitsAfter runs git verify-commit, trusting the SSH keys of allowedSigners, on every
// commit of main after seed in the bare repository, and returns how many it checked. There must
// be at least one.
func verifyCommitsAfter(bare, seed, allowedSigners string) (int, error) {
	out, err := exec.Command("git", "--git-dir", bare, "rev-list", "main", "^"+seed).Output()
	if err != nil {
		return 0, fmt.Errorf("git rev-list: %w", err)
	}
	commits := strings.Fields(string(out))
	if len(commits) == 0 {
		return 0, fmt.Errorf("the provider made no commit")
	}
	for _, c := range commits {
		cmd := exec.Command("git", "-c", "gpg.ssh.allowedSignersFile="+allowedSigners, "--git-dir", bare, "verify-commit", c)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("git verify-commit %s refuses it: %v\n%s", c, err, out)
		}
	}
	return len(commits), nil
}

// newOpenPGPKey makes an ed25519 OpenPGP key with go-crypto, its private keys encrypted with
// passphrase, and returns it armored as gpg --export-secret-keys --armor writes it.
func newOpenPGPKey(t *testing.T, passphrase string) string {
	t.Helper()
	e, err := openpgp.NewEntity("kratix", "", "bot@example.com", &packet.Config{Algorithm: packet.PubKeyAlgoEdDSA})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.EncryptPrivateKeys([]byte(passphrase), nil); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, err := armor.Encode(&b, openpgp.PrivateKeyType, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SerializePrivateWithoutSigning(w, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
