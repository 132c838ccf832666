package schedattr

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schemautil"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// Taints, tolerations and weights: how a platform team takes a destination out of service and
// sends more to bigger ones. The rules are Kubernetes' (package scheduling); these are their
// attributes, their validators and their readers (TolerationsFromList, TaintsFromList, WeightOf;
// a destination's taints and weight are read with the rest of the pool, in the provider's pool.go).

var (
	taintEffects       = []string{scheduling.EffectNoSchedule, scheduling.EffectPreferNoSchedule, scheduling.EffectNoExecute}
	maxWeight    int64 = 1000
)

// TaintsAttribute is kratix_destination's taints, and the pool's copy of them.
func TaintsAttribute(description string, validated bool) schema.ListNestedAttribute {
	key := schema.StringAttribute{Required: validated, Optional: !validated,
		MarkdownDescription: "The taint's key, a Kubernetes label key such as `maintenance` or `example.com/drain`."}
	value := schema.StringAttribute{Optional: true,
		MarkdownDescription: "The taint's value, a Kubernetes label value; optional."}
	effect := schema.StringAttribute{Required: validated, Optional: !validated,
		MarkdownDescription: "`NoSchedule` (nothing new is placed here; what is here stays), `PreferNoSchedule` " +
			"(chosen only when no other candidate is left) or `NoExecute` (requests here move to their next choice, " +
			"promise dependencies here are unscheduled as `on_unschedule` says)."}
	a := schema.ListNestedAttribute{Optional: true, MarkdownDescription: description}
	if validated {
		a.Validators = []validator.List{taintsValidator{}}
		key.Validators = []validator.String{schemautil.LabelKey()}
		value.Validators = []validator.String{schemautil.LabelValue()}
		effect.Validators = []validator.String{stringvalidator.OneOf(taintEffects...)}
	}
	a.NestedObject = schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{"key": key, "value": value, "effect": effect}}
	return a
}

// TolerationsAttribute is the tolerations of a promise or a request.
func TolerationsAttribute(what string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "Taints of destinations that " + what + " tolerates, with Kubernetes' matching rules: a " +
			"toleration matches a taint of the same key (any key when `key` is unset and `operator` is `Exists`), the same " +
			"value (any value with `Exists`) and the same effect (any effect when `effect` is unset).",
		Validators: []validator.List{tolerationsValidator{}},
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"key": schema.StringAttribute{Optional: true,
				MarkdownDescription: "The taint key matched; unset with `operator = \"Exists\"` matches every taint."},
			"operator": schema.StringAttribute{Optional: true,
				MarkdownDescription: "`Equal` (the default: the value must be equal) or `Exists` (any value; `value` must be unset)."},
			"value": schema.StringAttribute{Optional: true,
				MarkdownDescription: "The taint value matched with `Equal`."},
			"effect": schema.StringAttribute{Optional: true,
				MarkdownDescription: "The effect matched; unset matches every effect."},
		}},
	}
}

// tolerationsValidator checks each toleration with Kubernetes' rules (scheduling.ValidateToleration),
// the fields together: a toleration without a key must use Exists, Exists takes no value.
type tolerationsValidator struct{}

func (tolerationsValidator) Description(context.Context) string {
	return "each toleration follows Kubernetes' rules"
}

func (v tolerationsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (tolerationsValidator) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for i, e := range req.ConfigValue.Elements() {
		one, known := TolerationsFromList(types.ListValueMust(e.Type(context.Background()), []attr.Value{e}))
		if !known || len(one) == 0 {
			continue
		}
		if err := scheduling.ValidateToleration(one[0]); err != nil {
			at := req.Path.AtListIndex(i)
			resp.Diagnostics.AddAttributeError(at, "Invalid Toleration", fmt.Sprintf("%s: %s.", at, strings.ReplaceAll(err.Error(), "\n", "; ")))
		}
	}
}

// WeightAttribute is kratix_destination's weight, and the pool's copy of it.
func WeightAttribute(description string, validated bool) schema.Int64Attribute {
	a := schema.Int64Attribute{Optional: true, MarkdownDescription: description}
	if validated {
		a.Validators = []validator.Int64{int64validator.Between(1, maxWeight)}
	}
	return a
}

// TolerationsFromList reads a tolerations attribute; known is false while any of it is unknown.
func TolerationsFromList(list types.List) ([]scheduling.Toleration, bool) {
	return stringObjects(list, []string{"key", "operator", "value", "effect"}, func(v []string) scheduling.Toleration {
		return scheduling.Toleration{Key: v[0], Operator: v[1], Value: v[2], Effect: v[3]}
	})
}

// taintsValidator refuses two taints of one key and effect, as Kubernetes does; each taint's
// fields are checked by their own validators.
type taintsValidator struct{}

func (taintsValidator) Description(context.Context) string {
	return "no two taints have the same key and effect"
}

func (v taintsValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (taintsValidator) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	taints, known := TaintsFromList(req.ConfigValue)
	if !known || req.ConfigValue.IsNull() {
		return
	}
	for _, t := range taints {
		if scheduling.ValidateTaint(t) != nil {
			return // the field's own validator says what is wrong
		}
	}
	if err := scheduling.ValidateTaints(taints); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Taints", fmt.Sprintf("%s: %s.", req.Path, strings.ReplaceAll(err.Error(), "\n", "; ")))
	}
}

// TaintsFromList reads a taints attribute; known is false while any of it is unknown.
func TaintsFromList(list types.List) ([]scheduling.Taint, bool) {
	return stringObjects(list, []string{"key", "value", "effect"}, func(v []string) scheduling.Taint {
		return scheduling.Taint{Key: v[0], Value: v[1], Effect: v[2]}
	})
}

// stringObjects reads a list of objects of string attributes, the named ones in order (null
// reads as ""), each made into a T; null elements are skipped, and known is false while any of it
// is unknown.
func stringObjects[T any](list types.List, names []string, build func([]string) T) (out []T, known bool) {
	if list.IsUnknown() {
		return nil, false
	}
	for _, e := range list.Elements() {
		obj, ok := e.(types.Object)
		if !ok || obj.IsNull() {
			continue
		}
		if obj.IsUnknown() {
			return nil, false
		}
		a := obj.Attributes()
		vals := make([]string, len(names))
		for i, n := range names {
			v := storeconfig.Attr[types.String](a, n)
			if v.IsUnknown() {
				return nil, false
			}
			vals[i] = v.ValueString()
		}
		out = append(out, build(vals))
	}
	return out, true
}

// WeightOf reads a weight attribute: 0 (counted as 1) when null; known is false while unknown.
func WeightOf(v types.Int64) (int, bool) {
	if v.IsUnknown() {
		return 0, false
	}
	return int(v.ValueInt64()), true
}
