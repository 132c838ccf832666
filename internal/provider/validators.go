package provider

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// stringCheck is a string validator made of a description and a check that returns the problem,
// or "" when the value is fine. Unknown and null values are left to later phases.
type stringCheck struct {
	summary     string
	description string
	check       func(string) string
}

func (v stringCheck) Description(context.Context) string         { return v.description }
func (v stringCheck) MarkdownDescription(context.Context) string { return v.description }

func (v stringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if problem := v.check(req.ConfigValue.ValueString()); problem != "" {
		// Terraform shows the line of a top-level attribute but not of one nested in an object,
		// so the detail names the attribute path itself.
		resp.Diagnostics.AddAttributeError(req.Path, v.summary, req.Path.String()+": "+problem)
	}
}

// dnsName accepts Kubernetes object names (DNS-1123 subdomains), as Kratix's objects have.
func dnsName() validator.String {
	return stringCheck{
		summary:     "Invalid Name",
		description: "must be a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit",
		check: func(s string) string {
			if errs := validation.IsDNS1123Subdomain(s); len(errs) > 0 {
				return fmt.Sprintf("%q is not a valid Kubernetes name: %s.", s, strings.Join(errs, "; "))
			}
			return ""
		},
	}
}

// storePath accepts paths that stay inside the store.
func storePath() validator.String {
	return stringCheck{
		summary:     "Invalid Path",
		description: "must stay inside the store: no \"..\" and no leading \"/\" (\".\" or \"/\" alone mean the root)",
		check: func(s string) string {
			if err := layout.CheckRelative(s); err != nil {
				return "The " + err.Error() + "."
			}
			return ""
		},
	}
}

// fileName accepts a relative file path inside a destination.
func fileName() validator.String {
	return stringCheck{
		summary:     "Invalid File Name",
		description: "must be a file path relative to the destination, without \"..\"",
		check: func(s string) string {
			if err := layout.CheckRelative(s); err != nil {
				return "The " + err.Error() + "."
			}
			if s == "" || s == "." || s == "/" || strings.HasSuffix(s, "/") {
				return fmt.Sprintf("%q names a folder; give a file name such as %q.", s, layout.DefaultAggregatedFilename)
			}
			return ""
		},
	}
}

// endpoint accepts host[:port], as minio-go (and Kratix's BucketStateStore) expect.
func endpoint() validator.String {
	return stringCheck{
		summary:     "Invalid Endpoint",
		description: "host[:port], without a scheme or path",
		check: func(s string) string {
			if strings.Contains(s, "://") {
				return fmt.Sprintf("%q has a scheme; give host[:port] only (for example %q) and set insecure = true for plain HTTP.",
					s, s[strings.Index(s, "://")+3:])
			}
			if s == "" || strings.ContainsAny(s, "/ ") {
				return fmt.Sprintf("%q is not host[:port].", s)
			}
			return ""
		},
	}
}

// gitURL accepts the URL forms the git backend can reach, without credentials.
func gitURL() validator.String {
	return stringCheck{
		summary:     "Invalid Git URL",
		description: "https://, ssh://, scp-like git@host:org/repo.git, http:// or file://, without credentials",
		check: func(s string) string {
			if _, err := gitTransport(s); err != nil {
				return err.Error() + "."
			}
			return urlCredentialsProblem(s)
		},
	}
}

// gitURLWithoutCredentials refuses credentials in a Git URL given to a resource by hand (a
// store object written out rather than a kratix_state_store); the rest is the store's to check.
func gitURLWithoutCredentials() validator.String {
	return stringCheck{
		summary:     "Credentials in Git URL",
		description: "must not carry credentials: give them in the provider's secrets",
		check:       urlCredentialsProblem,
	}
}

func urlCredentialsProblem(s string) string {
	what := statestore.URLCredentials(s)
	if what == "" {
		return ""
	}
	return fmt.Sprintf("%s carries %s, which would be copied into the state and plan of the store and of "+
		"every destination, promise and request that uses it. Remove them from the URL and give them in the "+
		"provider's `secrets`: a set with `username` and `password` (an access token goes in `password`), or "+
		"the environment variables KRATIX_SECRET_<NAME>_USERNAME and KRATIX_SECRET_<NAME>_PASSWORD, named by "+
		"the store's `secret_ref`. Over SSH, a user name (git@host) is fine and the key goes in `ssh_private_key`.",
		strconv.Quote(statestore.RedactURL(s)), what)
}

// labelsValidator checks a map of Kubernetes labels: qualified-name keys and label values.
type labelsValidator struct{}

func (labelsValidator) Description(context.Context) string {
	return "keys and values must follow Kubernetes label syntax"
}
func (v labelsValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (labelsValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	elems := req.ConfigValue.Elements()
	keys := make([]string, 0, len(elems))
	for k := range elems {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		at := req.Path.AtMapKey(k)
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			resp.Diagnostics.AddAttributeError(at, "Invalid Label Key",
				fmt.Sprintf("%s: %q is not a valid label key: %s.", at, k, strings.Join(errs, "; ")))
		}
		s, ok := elems[k].(types.String)
		if !ok || s.IsUnknown() || s.IsNull() {
			continue
		}
		if errs := validation.IsValidLabelValue(s.ValueString()); len(errs) > 0 {
			resp.Diagnostics.AddAttributeError(at, "Invalid Label Value",
				fmt.Sprintf("%s: %q is not a valid value for label %q: %s.", at, s.ValueString(), k, strings.Join(errs, "; ")))
		}
	}
}

// emptySelectorValidator refuses a selector entry with neither match_labels nor
// match_expressions. Such an entry selects every destination, and it is most often a mistake
// Terraform hides: it drops the attributes an object does not have, so
// `{ environment = "dev" }` arrives as an empty entry instead of failing.
type emptySelectorValidator struct{}

func (emptySelectorValidator) Description(context.Context) string {
	return "an entry must set match_labels or match_expressions"
}
func (v emptySelectorValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (emptySelectorValidator) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	attrs := req.ConfigValue.Attributes()
	for _, name := range []string{"match_labels", "match_expressions"} {
		if v, ok := attrs[name]; ok && !v.IsNull() {
			return
		}
	}
	resp.Diagnostics.AddAttributeError(req.Path, "Empty Selector",
		fmt.Sprintf("%s has neither match_labels nor match_expressions, so it would select every destination. "+
			"Terraform drops the attributes a selector entry does not have, so an entry written as "+
			"{ environment = \"dev\" } arrives empty: write { match_labels = { environment = \"dev\" } }. "+
			"To select every destination, give no entries at all ([]).", req.Path))
}

// labelKey refuses a string that is not a Kubernetes label key (a qualified name such as
// `maintenance` or `example.com/drain`): taint and toleration keys follow the same rule.
func labelKey() validator.String { return labelPart{key: true} }

// labelValue refuses a string that is not a Kubernetes label value.
func labelValue() validator.String { return labelPart{} }

type labelPart struct{ key bool }

func (l labelPart) Description(context.Context) string {
	if l.key {
		return "a Kubernetes label key"
	}
	return "a Kubernetes label value"
}

func (l labelPart) MarkdownDescription(ctx context.Context) string { return l.Description(ctx) }

func (l labelPart) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	v := req.ConfigValue.ValueString()
	if l.key {
		if errs := validation.IsQualifiedName(v); len(errs) > 0 {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid Key",
				fmt.Sprintf("%s: %q is not a valid key (a Kubernetes label key, such as maintenance or example.com/drain): %s.", req.Path, v, strings.Join(errs, "; ")))
		}
		return
	}
	if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Value",
			fmt.Sprintf("%s: %q is not a valid value (a Kubernetes label value): %s.", req.Path, v, strings.Join(errs, "; ")))
	}
}
