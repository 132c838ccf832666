package storeconfig

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// TestGitURLCredentials: credentials in a Git URL are refused with the attribute path and a
// pointer to the provider's secrets, and the message never shows them. SSH user names are not
// credentials.
func TestGitURLCredentials(t *testing.T) {
	t.Parallel()
	const secret = "tok3n-s3cr3t"
	refused := []string{
		"https://alice:" + secret + "@git.example.com/acme/gitops.git",
		"https://" + secret + "@github.com/acme/gitops.git",
		"http://alice:" + secret + "@git.internal/acme/gitops.git",
		"ssh://git:" + secret + "@git.example.com/acme/gitops.git",
		"file://alice:" + secret + "@/srv/git/gitops.git",
		"https://alice:" + secret + "#x@git.example.com/acme/gitops.git", // does not parse
		"alice:" + secret + "@git.example.com:acme/gitops.git",           // not scp-like: a password
	}
	accepted := []string{
		"https://git.example.com/acme/gitops.git",
		"ssh://git@git.example.com/acme/gitops.git",
		"git@github.com:acme/gitops.git",
		"file:///srv/git/gitops.git",
	}
	check := func(v validator.String, raw string) []string {
		resp := &validator.StringResponse{}
		v.ValidateString(context.Background(), validator.StringRequest{
			Path: path.Root("git").AtName("url"), ConfigValue: types.StringValue(raw),
		}, resp)
		var out []string
		for _, d := range resp.Diagnostics.Errors() {
			out = append(out, d.Summary()+": "+d.Detail())
		}
		return out
	}
	for _, raw := range refused {
		errs := check(GitURL(), raw)
		if len(errs) != 1 {
			t.Errorf("%q: want one error, got %v", raw, errs)
			continue
		}
		for _, e := range errs {
			if strings.Contains(e, secret) {
				t.Errorf("%q: the error shows the secret: %s", raw, e)
			}
			if !strings.HasPrefix(strings.SplitN(e, ": ", 2)[1], "git.url: ") {
				t.Errorf("%q: the error does not start with the attribute path: %s", raw, e)
			}
		}
		if strings.Contains(raw, "://") && !strings.Contains(errs[0], "secrets") {
			t.Errorf("%q: the error does not point to the provider's secrets: %s", raw, errs[0])
		}
		if errs := check(GitURLWithoutCredentials(), raw); statestore.URLCredentials(raw) != "" && len(errs) != 1 {
			t.Errorf("%q: the store object's url should be refused too, got %v", raw, errs)
		}
	}
	for _, raw := range accepted {
		if errs := check(GitURL(), raw); len(errs) > 0 {
			t.Errorf("%q: want no error, got %v", raw, errs)
		}
		if errs := check(GitURLWithoutCredentials(), raw); len(errs) > 0 {
			t.Errorf("%q: want no error, got %v", raw, errs)
		}
	}
	for raw, want := range map[string]string{
		"https://alice:" + secret + "@h/r.git": "https://***@h/r.git",
		"ssh://git:" + secret + "@h/r.git":     "ssh://git:***@h/r.git",
		"ssh://git@h/r.git":                    "ssh://git@h/r.git",
		"git@h:r.git":                          "git@h:r.git",
		"https://a:" + secret + "#x@h/r.git":   "https://***@h/r.git",
		"a:" + secret + "@h:r.git":             "***@h:r.git",
	} {
		if got := statestore.RedactURL(raw); got != want {
			t.Errorf("statestore.RedactURL(%q) = %q, want %q", raw, got, want)
		}
	}
}
