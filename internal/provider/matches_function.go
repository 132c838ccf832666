package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schedattr"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

var _ function.Function = (*matchesFunction)(nil)

// NewMatchesFunction is provider::kratix::matches.
func NewMatchesFunction() function.Function { return &matchesFunction{} }

type matchesFunction struct{}

func (f *matchesFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "matches"
}

func (f *matchesFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Whether labels satisfy destination selectors",
		MarkdownDescription: "Returns true when a set of labels satisfies a list of destination selectors, with the " +
			"rules `kratix_promise` schedules by: entries combine with AND, `match_labels` merge (the first entry " +
			"wins a key given twice), `match_expressions` have Kubernetes meaning, and no selectors match everything. " +
			"Each entry is an object with optional `match_labels` (map) and `match_expressions` (list of `key`, " +
			"`operator`, `values`). Labels with `kratix.io/dry-run = \"true\"` never match: Kratix schedules no " +
			"ordinary placement to a dry-run destination, and neither do the resources. Use it in expressions and " +
			"`check` blocks. Provider functions need Terraform 1.8 or later (OpenTofu 1.7 or later). An older CLI " +
			"rejects the call with a parser error that does not mention the version, even when `required_version` " +
			"says `>= 1.8`: \"Missing newline after argument\" (or \"Invalid single-argument block definition\" in a " +
			"one-line block), as Terraform 1.5.7 and OpenTofu 1.6.3 print it.\n\n" +
			"A null is left out, as it is in a promise and a destination: `selectors = null` is no selectors (everything " +
			"matches); a null entry, `match_labels` or `match_expressions` adds no requirement; a null value in " +
			"`match_labels` puts no requirement on its key; a null in `values` is left out; `key` and `operator` must " +
			"not be null. `labels = null` is a destination without labels, and a null label value is an absent label: " +
			"`{ env = \"dev\", zone = var.zone }` with a null `var.zone` describes a destination without a `zone` label. " +
			"While an argument, or any value inside it, is unknown, the result is unknown (Terraform calls the function " +
			"once it is known).",
		Parameters: []function.Parameter{
			function.DynamicParameter{
				Name: "selectors", AllowNullValue: true,
				MarkdownDescription: "List of selector entries, as a promise's `destination_selectors`; null is no selectors.",
			},
			function.MapParameter{
				Name: "labels", ElementType: types.StringType, AllowNullValue: true,
				MarkdownDescription: "A destination's labels; null is no labels, a null value an absent label.",
			},
		},
		Return: function.BoolReturn{},
	}
}

func (f *matchesFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var selectors types.Dynamic
	var labelMap types.Map
	resp.Error = function.ConcatFuncErrors(req.Arguments.Get(ctx, &selectors, &labelMap))
	if resp.Error != nil {
		return
	}
	// Terraform does not call a function whose arguments are not wholly known (no parameter
	// allows unknown values): the result is unknown until they are.
	labels, _ := schedattr.LabelsFromMap(labelMap)
	entries, err := selectorsFromDynamic(selectors.UnderlyingValue())
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, err.Error())
		return
	}
	if errs := scheduling.Validate(entries); len(errs) > 0 {
		resp.Error = function.NewArgumentFuncError(0, fmt.Sprintf("selectors%v: %s", errs[0].Path, errs[0].Message))
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Result.Set(ctx, types.BoolValue(scheduling.Matches(scheduling.Merge(entries), labels) && !scheduling.IsDryRun(labels))))
}

// selectorsFromDynamic reads a list (or tuple) of selector objects written in HCL, where any
// attribute may be left out.
func selectorsFromDynamic(v attr.Value) ([]scheduling.Selector, error) {
	if v == nil || v.IsNull() {
		return nil, nil
	}
	elems, ok := elementsOf(v)
	if !ok {
		return nil, fmt.Errorf("selectors must be a list of objects with match_labels and match_expressions, got %s", v.Type(context.Background()))
	}
	out := make([]scheduling.Selector, 0, len(elems))
	for i, e := range elems {
		sel := scheduling.Selector{MatchLabels: map[string]string{}}
		if e.IsNull() {
			out = append(out, sel) // left out: an empty entry adds no requirement
			continue
		}
		fields, err := objectFields(e)
		if err != nil {
			return nil, fmt.Errorf("selectors[%d]: %w", i, err)
		}
		for name, fv := range fields {
			switch name {
			case "match_labels":
				m, err := stringFields(fv)
				if err != nil {
					return nil, fmt.Errorf("selectors[%d].match_labels: %w", i, err)
				}
				sel.MatchLabels = m
			case "match_expressions":
				reqs, err := requirementsFromDynamic(fv)
				if err != nil {
					return nil, fmt.Errorf("selectors[%d].match_expressions%w", i, err)
				}
				sel.MatchExpressions = reqs
			default:
				return nil, fmt.Errorf("selectors[%d]: unknown attribute %q; use match_labels and match_expressions", i, name)
			}
		}
		out = append(out, sel)
	}
	return out, nil
}

func requirementsFromDynamic(v attr.Value) ([]scheduling.Requirement, error) {
	if v.IsNull() {
		return nil, nil
	}
	elems, ok := elementsOf(v)
	if !ok {
		return nil, fmt.Errorf(": must be a list of objects with key, operator and values")
	}
	var out []scheduling.Requirement
	for i, e := range elems {
		if e.IsNull() {
			continue // left out
		}
		fields, err := objectFields(e)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		var r scheduling.Requirement
		for name, fv := range fields {
			switch name {
			case "key", "operator":
				s, ok := fv.(basetypes.StringValue)
				if fv.IsNull() {
					return nil, fmt.Errorf("[%d].%s: must not be null", i, name)
				}
				if !ok {
					return nil, fmt.Errorf("[%d].%s: must be a string", i, name)
				}
				if name == "key" {
					r.Key = s.ValueString()
				} else {
					r.Operator = s.ValueString()
				}
			case "values":
				vals, err := stringElems(fv)
				if err != nil {
					return nil, fmt.Errorf("[%d].values: %w", i, err)
				}
				r.Values = vals
			default:
				return nil, fmt.Errorf("[%d]: unknown attribute %q; use key, operator and values", i, name)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func objectFields(v attr.Value) (map[string]attr.Value, error) {
	switch o := v.(type) {
	case basetypes.ObjectValue:
		return o.Attributes(), nil
	case basetypes.MapValue:
		return o.Elements(), nil
	}
	return nil, fmt.Errorf("must be an object, got %s", v.Type(context.Background()))
}

// stringFields reads match_labels; a null value is no requirement on its key (see schedattr.LabelsFromMap).
func stringFields(v attr.Value) (map[string]string, error) {
	out := map[string]string{}
	if v.IsNull() {
		return out, nil
	}
	fields, err := objectFields(v)
	if err != nil {
		return nil, err
	}
	for k, fv := range fields {
		if fv.IsNull() {
			continue
		}
		s, ok := fv.(basetypes.StringValue)
		if !ok {
			return nil, fmt.Errorf("value of %q must be a string", k)
		}
		out[k] = s.ValueString()
	}
	return out, nil
}

// stringElems reads a requirement's values: null is none, and a null value is left out.
func stringElems(v attr.Value) ([]string, error) {
	if v.IsNull() {
		return nil, nil
	}
	elems, ok := elementsOf(v)
	if !ok {
		return nil, fmt.Errorf("must be a list of strings")
	}
	out := make([]string, 0, len(elems))
	for _, e := range elems {
		if e.IsNull() {
			continue
		}
		s, ok := e.(basetypes.StringValue)
		if !ok {
			return nil, fmt.Errorf("must be a list of strings")
		}
		out = append(out, s.ValueString())
	}
	return out, nil
}

// elementsOf returns the elements of a list, tuple or set: HCL literals arrive as tuples.
func elementsOf(v attr.Value) ([]attr.Value, bool) {
	switch l := v.(type) {
	case basetypes.ListValue:
		return l.Elements(), true
	case basetypes.TupleValue:
		return l.Elements(), true
	case basetypes.SetValue:
		return l.Elements(), true
	}
	return nil, false
}
