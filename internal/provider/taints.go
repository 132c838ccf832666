package provider

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
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// Taints, tolerations and weights: how a platform team takes a destination out of service and
// sends more to bigger ones. The rules are Kubernetes' (package scheduling); these are their
// attributes, their validators and the tolerations' reader. A destination's taints and weight are
// read with the rest of the pool (pool.go: taintsFromList, weightOf).

var (
	taintEffects       = []string{scheduling.EffectNoSchedule, scheduling.EffectPreferNoSchedule, scheduling.EffectNoExecute}
	maxWeight    int64 = 1000
)

// taintsAttribute is kratix_destination's taints, and the pool's copy of them.
func taintsAttribute(description string, validated bool) schema.ListNestedAttribute {
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

// tolerationsAttribute is the tolerations of a promise or a request.
func tolerationsAttribute(what string) schema.ListNestedAttribute {
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
		one, known := tolerationsFromList(types.ListValueMust(e.Type(context.Background()), []attr.Value{e}))
		if !known || len(one) == 0 {
			continue
		}
		if err := scheduling.ValidateToleration(one[0]); err != nil {
			at := req.Path.AtListIndex(i)
			resp.Diagnostics.AddAttributeError(at, "Invalid Toleration", fmt.Sprintf("%s: %s.", at, strings.ReplaceAll(err.Error(), "\n", "; ")))
		}
	}
}

// weightAttribute is kratix_destination's weight, and the pool's copy of it.
func weightAttribute(description string, validated bool) schema.Int64Attribute {
	a := schema.Int64Attribute{Optional: true, MarkdownDescription: description}
	if validated {
		a.Validators = []validator.Int64{int64validator.Between(1, maxWeight)}
	}
	return a
}

// tolerationsFromList reads a tolerations attribute; known is false while any of it is unknown.
func tolerationsFromList(list types.List) ([]scheduling.Toleration, bool) {
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
	taints, known := taintsFromList(req.ConfigValue)
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
