package provider

import (
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/manifestattr"
)

// Each repeated diagnostic says what failed, for which object and where, and what to do.
func TestDiagnosticConstructors(t *testing.T) {
	t.Parallel()
	cause := errors.New("secret \"s\" has no key access_key")
	at := path.Root("destinations").AtListIndex(1).AtName("name")
	for _, c := range []struct {
		name     string
		d        diag.Diagnostic
		summary  string
		at       string // "" when not at an attribute
		contains []string
	}{
		{"storeNotUsable", storeNotUsable(`Promise "jenkins"`, "s", cause), "State Store Not Usable", "",
			[]string{`Promise "jenkins" cannot use state store "s": secret "s" has no key access_key`, "KRATIX_SECRET_<NAME>_<KEY>", "Nothing was written"}},
		{"storeNotUsableAt", storeNotUsableAt(path.Root("secret_ref"), `State store "s" cannot be written`, cause), "State Store Not Usable", "secret_ref",
			[]string{`State store "s" cannot be written: secret "s" has no key access_key`, "plan again"}},
		{"notKnown", notKnown("Promise Not Known", "The promise's inputs are"), "Promise Not Known", "",
			[]string{"The promise's inputs are still unknown", "bug in the provider", "terraform show tfplan"}},
		{"providerNotConfigured", providerNotConfigured(), "Provider Not Configured", "", []string{"bug in the provider"}},
		{"cannotLayOut", cannotLayOut("Request", cause), "Cannot Lay Out Request", "",
			[]string{"The request's files cannot be laid out", "has no key access_key", "plan again"}},
		{"incompleteDestination", incompleteDestination(at, "a name"), "Incomplete Destination", "destinations[1].name",
			[]string{"destinations[1].name: a destination needs a name", "values(kratix_destination.workers)"}},
		{"duplicateDestination", duplicateDestination(at, "a"), "Duplicate Destination", "destinations[1].name",
			[]string{`destinations[1].name: destination "a" is listed twice`, "List each destination once"}},
		{"invalidPath", invalidPath(path.Root("path"), "dev", errors.New(`"../x" leaves the store`)), "Invalid Path", "path",
			[]string{`path: destination "dev": "../x" leaves the store.`, `"clusters/dev"`}},
		{"invalidYAML", manifestattr.InvalidYAML(path.Root("documents"), "documents: document 2 (line 4): no kind"), "Invalid Kubernetes YAML", "documents",
			[]string{"document 2 (line 4): no kind", "apiVersion, kind and metadata.name"}},
		{"fileClaimed", fileClaimed(path.Root("documents"), placement.RequestOwner("default", "pg", "a"), "dev",
			placement.Collision{Location: "s3://minio/b", Path: "dev/resources/x.yaml", Other: placement.RequestOwner("default", "pg", "b")}),
			"File Claimed By Another Owner", "documents", []string{`Request pg/default/a would write "dev/resources/x.yaml" in destination "dev"`, "request pg/default/b writes it too", "Give one of them another name"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.d.Severity() != diag.SeverityError || c.d.Summary() != c.summary {
				t.Errorf("%v %q, want an error %q", c.d.Severity(), c.d.Summary(), c.summary)
			}
			got := ""
			if wp, ok := c.d.(diag.DiagnosticWithPath); ok {
				got = wp.Path().String()
			}
			if got != c.at {
				t.Errorf("at %q, want %q", got, c.at)
			}
			for _, s := range c.contains {
				if !strings.Contains(c.d.Detail(), s) {
					t.Errorf("detail lacks %q:\n%s", s, c.d.Detail())
				}
			}
		})
	}
}
