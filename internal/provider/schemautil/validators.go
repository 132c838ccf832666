package schemautil

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// StringCheck is a string validator made of a summary (the error's title), a rule (what a valid
// value is, the validator's description) and a check that returns the problem, or "" when the
// value is fine. Unknown and null values are left to later phases.
type StringCheck struct {
	Summary string
	Rule    string
	Check   func(string) string
}

func (v StringCheck) Description(context.Context) string         { return v.Rule }
func (v StringCheck) MarkdownDescription(context.Context) string { return v.Rule }

func (v StringCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if problem := v.Check(req.ConfigValue.ValueString()); problem != "" {
		// Terraform shows the line of a top-level attribute but not of one nested in an object,
		// so the detail names the attribute path itself.
		resp.Diagnostics.AddAttributeError(req.Path, v.Summary, req.Path.String()+": "+problem)
	}
}

// DNSName accepts Kubernetes object names (DNS-1123 subdomains), as Kratix's objects have.
func DNSName() validator.String {
	return StringCheck{
		Summary: "Invalid Name",
		Rule:    "must be a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit",
		Check: func(s string) string {
			if errs := validation.IsDNS1123Subdomain(s); len(errs) > 0 {
				return fmt.Sprintf("%q is not a valid Kubernetes name: %s.", s, strings.Join(errs, "; "))
			}
			return ""
		},
	}
}

// StorePath accepts paths that stay inside the store.
func StorePath() validator.String {
	return StringCheck{
		Summary: "Invalid Path",
		Rule:    "must stay inside the store: no \"..\" and no leading \"/\" (\".\" or \"/\" alone mean the root)",
		Check: func(s string) string {
			if err := layout.CheckRelative(s); err != nil {
				return "The " + err.Error() + "."
			}
			return ""
		},
	}
}

// FileName accepts a relative file path inside a destination.
func FileName() validator.String {
	return StringCheck{
		Summary: "Invalid File Name",
		Rule:    "must be a file path relative to the destination, without \"..\"",
		Check: func(s string) string {
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

// LabelsValidator checks a map of Kubernetes labels: qualified-name keys and label values.
type LabelsValidator struct{}

func (LabelsValidator) Description(context.Context) string {
	return "keys and values must follow Kubernetes label syntax"
}
func (v LabelsValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (LabelsValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
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

// EmptySelectorValidator refuses a selector entry with neither match_labels nor
// match_expressions. Such an entry selects every destination, and it is most often a mistake
// Terraform hides: it drops the attributes an object does not have, so
// `{ environment = "dev" }` arrives as an empty entry instead of failing.
type EmptySelectorValidator struct{}

func (EmptySelectorValidator) Description(context.Context) string {
	return "an entry must set match_labels or match_expressions"
}
func (v EmptySelectorValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (EmptySelectorValidator) ValidateObject(_ context.Context, req validator.ObjectRequest, resp *validator.ObjectResponse) {
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

// LabelKey refuses a string that is not a Kubernetes label key (a qualified name such as
// `maintenance` or `example.com/drain`): taint and toleration keys follow the same rule.
func LabelKey() validator.String { return labelPart{key: true} }

// LabelValue refuses a string that is not a Kubernetes label value.
func LabelValue() validator.String { return labelPart{} }

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

// NotNegative refuses a negative duration. Text that is no duration at all is the
// GoDuration type's to report.
type NotNegative struct{}

func (NotNegative) Description(context.Context) string {
	return "must be a duration of zero or more, such as \"30m\""
}

func (v NotNegative) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (NotNegative) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if d, err := time.ParseDuration(req.ConfigValue.ValueString()); err == nil && d < 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Duration",
			fmt.Sprintf("%q is a negative duration: give one of zero or more, such as \"30m\" or \"2h\".", req.ConfigValue.ValueString()))
	}
}
