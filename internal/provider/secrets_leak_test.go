package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// TestAccSecretsNeverLeak applies stores of every kind (a git store on a GitHub App among them: its
// private key from the environment, the JWTs it signed and the tokens it was given) with TF_LOG=TRACE, then searches the state
// file, `terraform show -json`, the CLI output and the trace log for every secret value used:
// temporary MinIO credentials (a secret key from the environment, a session token from a
// variable), a git password and a CA certificate over HTTPS, an SSH private key from variables,
// a wrong password in a failing plan, and tokens written into Git URLs, which the plan refuses;
// and a bucket store on the AWS credential chain: a profile of a temporary shared credentials
// file (a MinIO user's secret key) from which the provider assumes a role through MinIO's STS
// (the temporary secret key and session token STS handed the provider, recorded on the way);
// and the keys that sign the git stores' commits with their passphrases: an encrypted SSH key
// from variables and an encrypted OpenPGP key from the environment, and a wrong passphrase in a
// failing plan.
func TestAccSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	bucket := newTestStore(t, "bucket")
	https := newTestStore(t, "git-http")
	ssh := newTestStore(t, "git-ssh")
	chain := newTestStore(t, "bucket")
	awsBucket := strings.TrimPrefix(chain.location[strings.LastIndex(chain.location, "/"):], "/")
	userKey, userSecret, err := minioServer.AddUserWithPolicy(context.Background(), fullBucketPolicy(awsBucket))
	if err != nil {
		t.Fatal(err)
	}
	_, awsCredentials, awsEnv, err := testinfra.IsolatedAWS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(awsCredentials, fmt.Appendf(nil, "[leak]\naws_access_key_id = %s\naws_secret_access_key = %s\n", userKey, userSecret), 0o600); err != nil {
		t.Fatal(err)
	}
	stsSeen := startSTSRecorder(t, "http://"+minioServer.Endpoint)
	chainStore := strings.Replace(chain.store, `  secret_ref = "s"
`, "", 1)
	chainStore = strings.Replace(chainStore, "    insecure    = true\n", fmt.Sprintf(`    insecure    = true
    auth_method = "IAM"
    profile     = "leak"
    sts_endpoint = %q
    assume_role = { role_arn = "arn:aws:iam::123456789012:role/kratix", session_name = "leak-test" }
`, stsSeen.url), 1)
	if !strings.Contains(chainStore, `profile     = "leak"`) || strings.Contains(chainStore, "secret_ref") {
		t.Fatalf("the AWS chain store is not as intended:\n%s", chainStore)
	}
	// Temporary credentials, with a real session token, from MinIO's STS.
	sts, err := credentials.NewSTSAssumeRole("http://"+minioServer.Endpoint, credentials.STSAssumeRoleOptions{
		AccessKey: minioServer.AccessKey, SecretKey: minioServer.SecretKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	temp, err := sts.GetWithContext(nil)
	if err != nil || temp.SessionToken == "" {
		t.Fatalf("getting temporary credentials from MinIO: %v (session token %d bytes)", err, len(temp.SessionToken))
	}
	// The HTTPS store goes over TLS, trusting the git server's CA through ca_certificate.
	httpsStore := strings.Replace(strings.Replace(https.store, `secret_ref = "s"`, `secret_ref = "git"`, 1),
		gitServer.HTTPBase, gitServer.HTTPSBase, 1)
	if !strings.Contains(httpsStore, gitServer.HTTPSBase) {
		t.Fatalf("the HTTPS store does not use %s:\n%s", gitServer.HTTPSBase, httpsStore)
	}
	// The HTTPS store signs with an SSH key, the SSH store with an OpenPGP key; both encrypted.
	signPass, pgpPass := "sign-"+randomName("pw"), "pgp-"+randomName("pw")
	sshSigningKey, _, err := testinfra.NewSSHSigningKey(t.TempDir(), "bot@example.com", signPass)
	if err != nil {
		t.Fatal(err)
	}
	pgpSigningKey := newOpenPGPKey(t, pgpPass)
	httpsStore = strings.Replace(httpsStore, "  git = {\n", "  git = {\n    signing = { secret_ref = \"signer\", format = \"ssh\" }\n", 1)
	sshStore := strings.Replace(strings.Replace(ssh.store, `secret_ref = "s"`, `secret_ref = "ssh"`, 1),
		"  git = {\n", "  git = {\n    signing = { secret_ref = \"pgp\", format = \"openpgp\" }\n", 1)
	if !strings.Contains(httpsStore, `format = "ssh"`) || !strings.Contains(sshStore, `format = "openpgp"`) {
		t.Fatalf("the signing stores are not as intended:\n%s\n%s", httpsStore, sshStore)
	}
	// A git store whose secret holds a GitHub App, from the environment, on a repository that
	// takes only the tokens the fake GitHub issued.
	gh, err := testinfra.StartFakeGitHub()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gh.Close)
	appRepo := randomName("app")
	if err := gitServer.CreateRepo(appRepo, "main"); err != nil {
		t.Fatal(err)
	}
	gitServer.RequireAppTokens(appRepo, gh.ValidToken)
	config := func(password string) string {
		return fmt.Sprintf(`
terraform {
  required_providers {
    kratix = { source = "promise-platform/kratix" }
  }
}

variable "git_password" {
  type      = string
  sensitive = true
}

variable "ssh_key" {
  type      = string
  sensitive = true
}

variable "signing_key" {
  type      = string
  sensitive = true
}

variable "signing_pass" {
  type      = string
  sensitive = true
}

variable "session_token" {
  type      = string
  sensitive = true
}

variable "ca" {
  type = string
}

provider "kratix" {
  secrets = {
    # minio's secret_access_key comes from KRATIX_SECRET_MINIO_SECRET_ACCESS_KEY
    minio = { access_key_id = %q, session_token = var.session_token }
    git   = { username = %q, password = %s, ca_certificate = var.ca }
    ssh   = { ssh_private_key = var.ssh_key, known_hosts = %q }
    signer = { signing_key = var.signing_key, signing_key_passphrase = var.signing_pass }
    # pgp's signing_key and signing_key_passphrase come from KRATIX_SECRET_PGP_*
    # the App's id, installation id and private key come from KRATIX_SECRET_APP_GITHUB_APP_*
    app   = { github_app_api_url = %q }
  }
}

resource "kratix_state_store" "bucket" {
%s
}

resource "kratix_state_store" "https" {
%s
}

resource "kratix_state_store" "ssh" {
%s
}

resource "kratix_state_store" "aws" {
%s
}

resource "kratix_state_store" "app" {
  name       = "app"
  secret_ref = "app"
  git        = { url = %q }
}

resource "kratix_destination" "d" {
  count       = 5
  name        = "worker-${count.index}"
  path        = "worker-${count.index}"
  labels      = { env = "dev" }
  state_store = [kratix_state_store.bucket, kratix_state_store.https, kratix_state_store.ssh, kratix_state_store.aws, kratix_state_store.app][count.index]
}

resource "kratix_promise" "p" {
  name                  = "app"
  destination_selectors = [{ match_labels = { env = "dev" } }]
  dependencies          = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
  destinations          = kratix_destination.d
}
`, temp.AccessKeyID, gitServer.Username, password, gitServer.KnownHosts, gh.URL,
			strings.Replace(bucket.store, `secret_ref = "s"`, `secret_ref = "minio"`, 1),
			httpsStore,
			sshStore,
			chainStore, gitServer.HTTPURL(appRepo))
	}
	logFile := filepath.Join(t.TempDir(), "trace.log")
	env := []string{"KRATIX_SECRET_MINIO_SECRET_ACCESS_KEY=" + temp.SecretAccessKey,
		"TF_VAR_git_password=" + gitServer.Password,
		"TF_VAR_ssh_key=" + gitServer.SSHPrivateKey,
		"TF_VAR_session_token=" + temp.SessionToken,
		"TF_VAR_ca=" + gitServer.CACertificate,
		"TF_VAR_signing_key=" + sshSigningKey,
		"TF_VAR_signing_pass=" + signPass,
		"KRATIX_SECRET_PGP_SIGNING_KEY=" + pgpSigningKey,
		"KRATIX_SECRET_PGP_SIGNING_KEY_PASSPHRASE=" + pgpPass,
		"KRATIX_SECRET_APP_GITHUB_APP_ID=" + gh.AppID,
		"KRATIX_SECRET_APP_GITHUB_APP_INSTALLATION_ID=" + gh.InstallationID,
		"KRATIX_SECRET_APP_GITHUB_APP_PRIVATE_KEY=" + gh.PrivateKey,
		"TF_LOG=TRACE", "TF_LOG_PATH=" + logFile}
	for k, v := range awsEnv {
		env = append(env, k+"="+v)
	}
	c := newCLI(t, map[string]string{"main.tf": config("var.git_password")}, env...)
	var printed strings.Builder
	out, err := c.run("apply", "-auto-approve")
	printed.WriteString(out)
	if err != nil {
		t.Fatalf("terraform apply: %v\n%s", err, out)
	}
	show, err := c.run("show", "-json")
	if err != nil {
		t.Fatalf("terraform show: %v\n%s", err, show)
	}
	// A failing plan with a wrong password must not echo it either.
	wrong := "wrong-" + randomName("pw")
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config(fmt.Sprintf("%q", wrong))), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = c.run("plan")
	printed.WriteString(out)
	if err == nil || !strings.Contains(out, "authentication failed") {
		t.Errorf("the plan with a wrong password should fail with an authentication error:\n%s", out)
	}
	// The commits are signed: the keys were used.
	for repo, armor := range map[string]string{storeName(https): "-----BEGIN SSH SIGNATURE-----", storeName(ssh): "-----BEGIN PGP SIGNATURE-----"} {
		if commit := gitOutput(t, "--git-dir", gitServer.RepoPath(repo), "cat-file", "commit", "main"); !strings.Contains(commit, armor) {
			t.Errorf("the last commit of %s is not signed with %s:\n%s", repo, armor, commit)
		}
	}
	// A failing plan with a wrong signing passphrase must not echo it, nor the key.
	wrongPass := "wrongpass-" + randomName("pw")
	out, err = c.runWith([]string{"TF_VAR_signing_pass=" + wrongPass}, "plan")
	printed.WriteString(out)
	if err == nil || !strings.Contains(strings.Join(strings.Fields(out), " "), `secret "signer" signing_key_passphrase does not decrypt signing_key`) {
		t.Errorf("the plan with a wrong signing passphrase should fail saying so:\n%s", out)
	}
	// Tokens written into Git URLs, of a store and of a store object given by hand, are refused
	// at plan, with the attribute path and a pointer to the secrets, and shown nowhere.
	urlPassword, urlToken := "urlpw-"+randomName("x"), "urltoken-"+randomName("x")
	leaky := config("var.git_password") +
		kratixStateStore{Label: "leaky", Name: q("leaky"), Git: hclObj{{"url", q("https://alice:" + urlPassword + "@127.0.0.1:1/acme/gitops.git")}}.inline()}.String() +
		kratixDestination{
			Label: "by_hand", Name: q("by-hand"), Path: q("by-hand"),
			StateStore: kratixStateStore{Name: q("hand"), Git: hclObj{{"url", q("https://" + urlToken + "@127.0.0.1:1/acme/other.git")}}}.inline(),
		}.String()
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(leaky), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = c.run("plan")
	printed.WriteString(out)
	for _, want := range []string{"git.url: \"https://***@127.0.0.1:1/acme/gitops.git\" carries a user name and password",
		"state_store.git.url: \"https://***@127.0.0.1:1/acme/other.git\" carries a user name or token", "provider's `secrets`"} {
		if err == nil || !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("the plan with credentials in Git URLs should fail saying %q:\n%s", want, out)
		}
	}
	state, err := os.ReadFile(filepath.Join(c.dir, "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) < 10000 {
		t.Fatalf("the trace log is suspiciously short (%d bytes): is TF_LOG honoured?", len(log))
	}
	stsSecret, stsToken := stsSeen.credentials()
	if stsToken == "" || stsSecret == "" {
		t.Fatal("the provider asked MinIO's STS for no credentials: assume_role was not used")
	}
	if files := chain.list(t); len(files) == 0 {
		t.Fatal("nothing was written to the store on the AWS credential chain")
	}
	keyLine := strings.Split(strings.TrimSpace(gitServer.SSHPrivateKey), "\n")[1]
	appKeyLine := strings.Split(strings.TrimSpace(gh.PrivateKey), "\n")[1]
	if files, err := gitServer.ListFiles(appRepo, "main"); err != nil || len(files) == 0 || gh.Mints() == 0 {
		t.Fatalf("nothing was written with the GitHub App's token (files %v, %v; %d tokens minted)", files, err, gh.Mints())
	}
	caLine := strings.Split(strings.TrimSpace(gitServer.CACertificate), "\n")[1]
	secrets := map[string]string{
		"MinIO secret key":         temp.SecretAccessKey,
		"MinIO session token":      temp.SessionToken,
		"git password":             gitServer.Password,
		"wrong password":           wrong,
		"SSH private key":          keyLine,
		"CA certificate":           caLine,
		"password in a Git URL":    urlPassword,
		"token in a Git URL":       urlToken,
		"AWS profile's secret key": userSecret,
		"STS secret key":           stsSecret,
		"STS session token":        stsToken,
		"SSH signing key":          longestLine(sshSigningKey),
		"SSH signing passphrase":   signPass,
		"wrong signing passphrase": wrongPass,
		"OpenPGP signing key":      longestLine(pgpSigningKey),
		"OpenPGP passphrase":       pgpPass,
		"GitHub App private key":   appKeyLine,
	}
	for i, token := range gh.Tokens() {
		secrets[fmt.Sprintf("GitHub App installation token %d", i)] = token
	}
	for i, jwt := range gh.JWTs() {
		secrets[fmt.Sprintf("GitHub App JWT %d", i)] = jwt
	}
	for where, text := range map[string]string{"state": string(state), "terraform show -json": show, "CLI output": printed.String(), "TRACE log": string(log)} {
		for what, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("the %s appears in the %s", what, where)
			}
		}
	}
	t.Logf("searched %d bytes of state, %d of show -json, %d of output and %d of TRACE log for %d secrets (%d App tokens)",
		len(state), len(show), printed.Len(), len(log), len(secrets), len(gh.Tokens()))
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config("var.git_password")), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := c.run("destroy", "-auto-approve"); err != nil {
		t.Errorf("terraform destroy: %v\n%s", err, out)
	}
}

// longestLine is the longest line of a PEM or armored key: a piece of the key material itself.
func longestLine(s string) string {
	var longest string
	for _, l := range strings.Split(s, "\n") {
		if len(l) > len(longest) {
			longest = l
		}
	}
	return longest
}
