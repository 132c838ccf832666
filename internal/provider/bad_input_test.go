package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestBadInput: every kind of bad input that concerns stores and destinations fails at
// plan, with a message naming the attribute (Terraform prints the offending line), and nothing is
// written. These need the Terraform CLI but no server.
func TestBadInput(t *testing.T) {
	t.Parallel()
	repo := newFileRepo(t)
	url := "file://" + repo
	provider := `
provider "kratix" {
  secrets = {
    http = { username = "u", password = "p" }
    key  = { ssh_private_key = "-----BEGIN OPENSSH PRIVATE KEY-----\nx\n-----END OPENSSH PRIVATE KEY-----\n" }
    keys = { access_key_id = "a", secret_access_key = "b" }
  }
}
`
	store := func(body string) string {
		return fmt.Sprintf("resource \"kratix_state_store\" \"s\" {\n  name = \"s\"\n%s\n}\n", body)
	}
	okStore := store(fmt.Sprintf("  git = { url = %q }", url))
	destination := func(body string) string {
		return okStore + fmt.Sprintf("resource \"kratix_destination\" \"d\" {\n  state_store = kratix_state_store.s\n%s\n}\n", body)
	}

	tests := []struct {
		name   string
		config string
		want   string // regexp over Terraform's output: the summary, then the attribute's line
	}{
		{"store name not DNS-1123", store(fmt.Sprintf("  git = { url = %q }", url)) + "\n" +
			"resource \"kratix_state_store\" \"t\" {\n  name = \"Bad_Name\"\n  git = { url = \"" + url + "\" }\n}\n",
			`Invalid Name[\s\S]*name = "Bad_Name"`},
		{"destination name not DNS-1123", destination(`  name = "worker 1"
  path = "w"`), `Invalid Name[\s\S]*name = "worker 1"`},
		{"label key", destination(`  name = "w"
  path = "w"
  labels = { "bad key!" = "x" }`), `Invalid Label Key[\s\S]*"bad key!"`},
		{"label value", destination(`  name = "w"
  path = "w"
  labels = { env = "not a value" }`), `Invalid Label Value[\s\S]*not a value`},
		{"path with ..", destination(`  name = "w"
  path = "../other"`), `Invalid Path[\s\S]*path = "../other"`},
		{"absolute path", destination(`  name = "w"
  path = "/etc"`), `Invalid Path[\s\S]*path = "/etc"`},
		{"store path with ..", store(fmt.Sprintf("  path = \"a/../../b\"\n  git = { url = %q }", url)),
			`Invalid Path[\s\S]*path = "a/../../b"`},
		{"both bucket and git", store(fmt.Sprintf("  git = { url = %q }\n  bucket = { endpoint = \"h:9000\", bucket_name = \"abc\" }", url)),
			`Invalid Attribute Combination[\s\S]*bucket`},
		{"neither bucket nor git", store(""), `Missing Attribute Configuration[\s\S]*Exactly one of these attributes must be configured: \[bucket,git\]`},
		{"secret_ref names nothing", store(fmt.Sprintf("  secret_ref = \"nope\"\n  git = { url = %q }", url)),
			`Unknown Secret[\s\S]*secret_ref = "nope"[\s\S]*KRATIX_SECRET_NOPE_<KEY>`},
		{"ssh URL without a key", store(`  secret_ref = "http"
  git = { url = "ssh://git@example.com/org/repo.git" }`), `Missing SSH Key[\s\S]*secret_ref = "http"`},
		{"scp-like URL without a secret", store(`  git = { url = "git@example.com:org/repo.git" }`), `Missing SSH Key`},
		{"https URL with an ssh key", store(`  secret_ref = "key"
  git = {
    url = "https://example.com/org/repo.git"
  }`), `SSH Key With an HTTP URL[\s\S]*git.url: secret "key" holds an ssh_private_key`},
		{"ssh without known_hosts", store(`  secret_ref = "key"
  git = { url = "ssh://git@example.com/org/repo.git" }`), `Missing known_hosts`},
		{"unsupported URL scheme", store(`  git = { url = "ftp://example.com/repo.git" }`), `Invalid Git URL[\s\S]*git.url: scheme "ftp"`},
		{"endpoint with a scheme", store(`  secret_ref = "keys"
  bucket = {
    endpoint    = "https://minio:9000"
    bucket_name = "abc"
  }`), `Invalid Endpoint[\s\S]*bucket.endpoint: "https://minio:9000" has a scheme`},
		{"access keys without a secret", store(`  bucket = { endpoint = "minio:9000", bucket_name = "abc" }`), `Missing Secret`},
		{"unknown filepath mode", destination(`  name = "w"
  path = "w"
  filepath_mode = "flat"`), `Invalid Attribute Value Match[\s\S]*filepath_mode = "flat"`},
		{"unknown cleanup", destination(`  name = "w"
  path = "w"
  cleanup = "some"`), `Invalid Attribute Value Match[\s\S]*cleanup = "some"`},
		{"aggregated filename is a folder", destination(`  name = "w"
  path = "w"
  aggregated_filename = "out/"`), `Invalid File Name[\s\S]*aggregated_filename = "out/"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testAccProviders,
				Steps: []resource.TestStep{{
					Config:      provider + tt.config,
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tt.want),
				}},
			})
		})
	}
	if n := commitCount(t, repo); n != 1 {
		t.Errorf("the repository has %d commits after the bad plans, want 1: something was written", n)
	}
}
