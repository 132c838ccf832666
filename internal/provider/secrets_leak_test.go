package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccSecretsNeverLeak applies stores of every kind with TF_LOG=TRACE, then searches the state
// file, `terraform show -json`, the CLI output and the trace log for every secret value used:
// a MinIO secret key from the environment, a git password and an SSH private key from
// variables, and a wrong password in a failing plan.
func TestAccSecretsNeverLeak(t *testing.T) {
	if minioServer == nil {
		t.Skip("acceptance test: set TF_ACC=1")
	}
	bucket := newTestStore(t, "bucket")
	https := newTestStore(t, "git-http")
	ssh := newTestStore(t, "git-ssh")
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

provider "kratix" {
  secrets = {
    # minio's secret_access_key comes from KRATIX_SECRET_MINIO_SECRET_ACCESS_KEY
    minio = { access_key_id = %q }
    git   = { username = %q, password = %s }
    ssh   = { ssh_private_key = var.ssh_key, known_hosts = %q }
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

resource "kratix_destination" "d" {
  count       = 3
  name        = "worker-${count.index}"
  path        = "worker-${count.index}"
  labels      = { env = "dev" }
  state_store = [kratix_state_store.bucket, kratix_state_store.https, kratix_state_store.ssh][count.index]
}

resource "kratix_promise" "p" {
  name                  = "app"
  destination_selectors = [{ match_labels = { env = "dev" } }]
  dependencies          = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
  destinations          = kratix_destination.d
}
`, minioServer.AccessKey, gitServer.Username, password, gitServer.KnownHosts,
			strings.Replace(bucket.store, `secret_ref = "s"`, `secret_ref = "minio"`, 1),
			strings.Replace(https.store, `secret_ref = "s"`, `secret_ref = "git"`, 1),
			strings.Replace(ssh.store, `secret_ref = "s"`, `secret_ref = "ssh"`, 1))
	}
	logFile := filepath.Join(t.TempDir(), "trace.log")
	c := newCLI(t, map[string]string{"main.tf": config("var.git_password")},
		"KRATIX_SECRET_MINIO_SECRET_ACCESS_KEY="+minioServer.SecretKey,
		"TF_VAR_git_password="+gitServer.Password,
		"TF_VAR_ssh_key="+gitServer.SSHPrivateKey,
		"TF_LOG=TRACE", "TF_LOG_PATH="+logFile)
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
	keyLine := strings.Split(strings.TrimSpace(gitServer.SSHPrivateKey), "\n")[1]
	secrets := map[string]string{
		"MinIO secret key": minioServer.SecretKey,
		"git password":     gitServer.Password,
		"wrong password":   wrong,
		"SSH private key":  keyLine,
	}
	for where, text := range map[string]string{"state": string(state), "terraform show -json": show, "CLI output": printed.String(), "TRACE log": string(log)} {
		for what, secret := range secrets {
			if strings.Contains(text, secret) {
				t.Errorf("the %s appears in the %s", what, where)
			}
		}
	}
	t.Logf("searched %d bytes of state, %d of show -json, %d of output and %d of TRACE log", len(state), len(show), printed.Len(), len(log))
	if err := os.WriteFile(filepath.Join(c.dir, "main.tf"), []byte(config("var.git_password")), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := c.run("destroy", "-auto-approve"); err != nil {
		t.Errorf("terraform destroy: %v\n%s", err, out)
	}
}
