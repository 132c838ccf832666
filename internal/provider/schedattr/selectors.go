package schedattr

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schemautil"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// SelectorModel is one selector entry. match_expressions is a types.List, as the whole list of
// entries is (see SelectorsFromList): either may be unknown at plan.
type SelectorModel struct {
	MatchLabels      types.Map  `tfsdk:"match_labels"`
	MatchExpressions types.List `tfsdk:"match_expressions"`
}

type requirementModel struct {
	Key      types.String `tfsdk:"key"`
	Operator types.String `tfsdk:"operator"`
	Values   types.List   `tfsdk:"values"`
}

var Operators = []string{"In", "NotIn", "Exists", "DoesNotExist"}

func SelectorsDescription(what string) string {
	return what + " Entries combine with AND, as in Kratix: their `match_labels` merge into one map (the first " +
		"entry wins a key given twice) and every `match_expressions` requirement must hold. No entries means every " +
		"destination, except labelled destinations with `strict_match_labels`."
}

func SelectorsResourceSchema(description string) rschema.ListNestedAttribute {
	return rschema.ListNestedAttribute{
		Optional:            true,
		MarkdownDescription: description,
		NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
			"match_labels": rschema.MapAttribute{
				ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Labels a destination must carry, with these values. A null value puts no requirement on its key.",
				Validators:          []validator.Map{schemautil.LabelsValidator{}},
			},
			"match_expressions": rschema.ListNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Kubernetes set-based requirements (an extension: Kratix has only `match_labels`).",
				NestedObject: rschema.NestedAttributeObject{Attributes: map[string]rschema.Attribute{
					"key": rschema.StringAttribute{Required: true, MarkdownDescription: "Label key."},
					"operator": rschema.StringAttribute{
						Required: true, MarkdownDescription: "`In`, `NotIn`, `Exists` or `DoesNotExist`.",
						Validators: []validator.String{stringvalidator.OneOf(Operators...)},
					},
					"values": rschema.ListAttribute{
						ElementType: types.StringType, Optional: true,
						MarkdownDescription: "Values for `In` and `NotIn`; must be empty for `Exists` and `DoesNotExist`.",
					},
				}},
			},
		}},
	}
}

// PlacementSelectorsSchema is SelectorsResourceSchema for selectors that place work (a
// promise's, a request's, a wave's), where an empty entry is refused
// (schemautil.EmptySelectorValidator): it selects everything, and is most often a selector
// written without match_labels. A guard's protect keeps allowing it.
func PlacementSelectorsSchema(description string) rschema.ListNestedAttribute {
	s := SelectorsResourceSchema(description)
	s.NestedObject.Validators = []validator.Object{schemautil.EmptySelectorValidator{}}
	return s
}

// SelectorsFromList converts a list of selector entries and validates them with Kubernetes'
// rules. ok is false while the list, or anything in it, is unknown: a conditional such as
// `cond ? [{...}] : []` on a value known after apply is unknown as a whole at plan.
func SelectorsFromList(ctx context.Context, at path.Path, list types.List) (entries []scheduling.Selector, ok bool, diags diag.Diagnostics) {
	models, known, diags := tfvalue.ObjectsAs[SelectorModel](ctx, list)
	if !known || diags.HasError() {
		return nil, false, diags
	}
	return selectorsFromModel(ctx, at, models)
}

// selectorsFromModel converts selector entries and validates them with Kubernetes' rules. ok is
// false while any of it is unknown.
func selectorsFromModel(ctx context.Context, at path.Path, models []SelectorModel) (entries []scheduling.Selector, ok bool, diags diag.Diagnostics) {
	for _, m := range models {
		if m.MatchLabels.IsUnknown() {
			return nil, false, nil
		}
		labels, known := LabelsFromMap(m.MatchLabels)
		if !known {
			return nil, false, nil
		}
		sel := scheduling.Selector{MatchLabels: labels}
		requirements, known, d := tfvalue.ObjectsAs[requirementModel](ctx, m.MatchExpressions)
		if !known || d.HasError() {
			return nil, false, d
		}
		for _, r := range requirements {
			if r.Key.IsUnknown() || r.Operator.IsUnknown() || r.Values.IsUnknown() {
				return nil, false, nil
			}
			var values []string
			if !r.Values.IsNull() {
				for _, v := range r.Values.Elements() {
					s, isString := v.(types.String)
					if !isString || s.IsUnknown() {
						return nil, false, nil
					}
					if s.IsNull() {
						continue // left out, as a null label is (see LabelsFromMap)
					}
					values = append(values, s.ValueString())
				}
			}
			sel.MatchExpressions = append(sel.MatchExpressions, scheduling.Requirement{
				Key: r.Key.ValueString(), Operator: r.Operator.ValueString(), Values: values,
			})
		}
		entries = append(entries, sel)
	}
	for _, fe := range scheduling.Validate(entries) {
		p := at
		previous := ""
		for _, step := range fe.Path {
			switch s := step.(type) {
			case int:
				p = p.AtListIndex(s)
			case string:
				if previous == "match_labels" {
					p = p.AtMapKey(s)
				} else {
					p = p.AtName(s)
				}
				previous = s
			}
		}
		diags.AddAttributeError(p, "Invalid Selector", fmt.Sprintf("%s: %s", p, fe.Message))
	}
	return entries, !diags.HasError(), diags
}

// SelectorsValue is selector entries as the selectors attributes hold them (null when there are
// none): what a data source returns for a resource's selectors to take.
func SelectorsValue(entries []scheduling.Selector) types.List {
	obj, _ := SelectorsResourceSchema("").NestedObject.Type().(types.ObjectType) // a nested object's type is always one
	reqType, _ := obj.AttrTypes["match_expressions"].(types.ListType)
	reqObj, _ := reqType.ElemType.(types.ObjectType)
	if len(entries) == 0 {
		return types.ListNull(obj)
	}
	elems := make([]attr.Value, len(entries))
	for i, e := range entries {
		labels := types.MapNull(types.StringType)
		if len(e.MatchLabels) > 0 {
			labels = tfvalue.StringMapValue(e.MatchLabels)
		}
		exprs := types.ListNull(reqObj)
		if len(e.MatchExpressions) > 0 {
			reqs := make([]attr.Value, len(e.MatchExpressions))
			for j, r := range e.MatchExpressions {
				values := types.ListNull(types.StringType)
				if len(r.Values) > 0 {
					values = tfvalue.StringList(r.Values)
				}
				reqs[j] = types.ObjectValueMust(reqObj.AttrTypes, map[string]attr.Value{
					"key": types.StringValue(r.Key), "operator": types.StringValue(r.Operator), "values": values})
			}
			exprs = types.ListValueMust(reqObj, reqs)
		}
		elems[i] = types.ObjectValueMust(obj.AttrTypes, map[string]attr.Value{"match_labels": labels, "match_expressions": exprs})
	}
	return types.ListValueMust(obj, elems)
}
