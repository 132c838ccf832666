package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// TestPoolValidation: promises and requests are validated with their pool taken out, the string
// validators inside the pool (a Git URL without credentials, the AWS settings) run on each
// destination here.
func TestPoolValidation(t *testing.T) {
	t.Parallel()
	s, err := newFastServer("test")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{promiseTypeName: "destinations", requestTypeName: "promise.destinations"} {
		v := s.Describe(name)
		if v.PoolAt == nil {
			t.Errorf("%s is validated with its whole pool", name)
			continue
		}
		checks := v.PoolChecks
		wantChecks := "[state_store.bucket.assume_role.duration state_store.bucket.assume_role.role_arn state_store.bucket.profile state_store.bucket.sts_endpoint state_store.git.url]"
		if got := strings.Join(v.PoolAt, "."); got != want || fmt.Sprint(checks) != wantChecks {
			t.Errorf("%s: pool at %s with checks %v, want %s and %s", name, got, checks, want, wantChecks)
		}
	}
}

// TestPoolValidationAgreesWithFramework: a request whose promise's pool holds a Git URL with
// credentials in its second destination, and one with a clean pool, validated with the pool taken
// out (the fallback when the direct walk cannot take a schema; switched off here): the same
// diagnostics as the framework's with the whole value (verify mode adds any difference as an
// error), and the credentials error at promise.destinations[1].state_store.git.url.
func TestPoolValidationAgreesWithFramework(t *testing.T) {
	t.Parallel()
	s, check, err := newVerifiedServer("test")
	if err != nil {
		t.Fatal(err)
	}
	s.DropDirectValidation() // the pool path is what is tested
	typ := s.Describe(requestTypeName).Type
	dest := func(i int, url string) string {
		return fmt.Sprintf(`{"name": "w-%d", "path": "w-%d", "state_store": {"name": "s", "git": {"url": %q}}}`, i, i, url)
	}
	for _, c := range []struct {
		name  string
		pool  []string
		wants []string
	}{
		{"clean", []string{dest(0, "https://git.example/r.git"), dest(1, "https://git.example/r.git")}, nil},
		{"credentials", []string{dest(0, "https://git.example/r.git"), dest(1, "https://bob:s3cret@git.example/r.git"), dest(2, "ssh://git@git.example/r.git")},
			[]string{"Credentials in Git URL", `AttributeName("promise").AttributeName("destinations").ElementKeyInt(1).AttributeName("state_store").AttributeName("git").AttributeName("url")`}},
	} {
		config := dynamicFromJSON(t, typ, `{"name": "one", "documents": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
			"promise": {"name": "app", "destinations": [`+strings.Join(c.pool, ",")+`]}}`)
		before := check.Validations.Load()
		resp, err := s.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: requestTypeName, Config: config})
		if err != nil {
			t.Fatal(err)
		}
		if check.Validations.Load() != before+1 {
			t.Errorf("%s: not validated with the pool taken out", c.name)
		}
		text := diagnosticsText(resp.Diagnostics)
		if strings.Contains(text, "Direct Answer Differs") {
			t.Errorf("%s: %s", c.name, text)
		}
		for _, w := range c.wants {
			if !strings.Contains(text+fmt.Sprint(attributePaths(resp.Diagnostics)), w) {
				t.Errorf("%s: diagnostics %s, paths %v: want %q", c.name, text, attributePaths(resp.Diagnostics), w)
			}
		}
		if len(c.wants) == 0 && len(resp.Diagnostics) > 0 {
			t.Errorf("%s: diagnostics %s, want none", c.name, text)
		}
		if strings.Contains(text, "s3cret") {
			t.Errorf("%s: the password is in a diagnostic: %s", c.name, text)
		}
	}
}

func attributePaths(diags []*tfprotov6.Diagnostic) []string {
	var out []string
	for _, d := range diags {
		if d.Attribute != nil {
			out = append(out, d.Attribute.String())
		}
	}
	return out
}
