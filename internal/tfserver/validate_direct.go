package tfserver

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Direct validation: ValidateResourceConfig of a registered kind without the framework's walk.
// (In the provider: a destination, a promise or a request.)
//
// Terraform validates each object three times per apply (validation, plan, apply), in three
// provider processes. The framework's validation looks every attribute up from the root of the
// schema and the value: a destination's store object (some forty attributes, one validator among
// them), a promise's or request's whole pool. A hundred destinations cost it 45 ms per apply of
// B2 against a provider that does nothing, and a promise was validated with its pool taken out,
// at the price of encoding and decoding its dependencies once more. This walk goes through the
// value once, from the top, along the attributes that have something to check (walkPlan), and
// does for each what the framework does: a custom type's
// own validation first (its errors end the attribute's), then the read-only, required and
// write-only checks, then the attribute's validators with the same request (path, path
// expression, configuration, client capabilities), then the attributes nested in a known object
// or in each element of a known list or map (with the element's object validators). It takes
// only schemas it knows whole (directValidationOf): strings (of custom types that validate their
// values), booleans, integers, maps and lists of strings, read-only collections of anything,
// nested attributes without object validators on a single object; no deprecation, no
// resource-level validator. Any block must be null in the configuration (the timeouts), and an
// element that is null or unknown goes to the framework too (validate_pool.go, the pool taken
// out). In the acceptance tests every direct answer is also asked of the framework and the
// diagnostics compared (steady_state_verify_test.go).

// directValidation validates one resource type's configurations.
type directValidation struct {
	schema schema.Schema
	typ    tftypes.Type
	plan   []walkAttr // the attributes with something to check
}

// walkAttr is an attribute the walk looks at: one with something to check, in itself or in the
// attributes nested in it (nested). The others are not even looked up: in a pool of a hundred
// destinations most of a store object's forty attributes have nothing to check.
type walkAttr struct {
	name   string
	attr   schema.Attribute
	nested []walkAttr
}

func walkPlan(attrs map[string]schema.Attribute) []walkAttr {
	var out []walkAttr
	for name, a := range attrs {
		var nested map[string]schema.Attribute
		switch a := a.(type) {
		case schema.SingleNestedAttribute:
			nested = a.Attributes
		case schema.ListNestedAttribute:
			nested = a.NestedObject.Attributes
		case schema.MapNestedAttribute:
			nested = a.NestedObject.Attributes
		}
		w := walkAttr{name: name, attr: a, nested: walkPlan(nested)}
		if len(w.nested) > 0 || checksItself(a) {
			out = append(out, w)
		}
	}
	return out
}

// checksItself reports whether the framework checks anything on a itself: its being required,
// read-only or write-only, a custom type's validation, validators on it or on its elements.
func checksItself(a schema.Attribute) bool {
	if a.IsRequired() || a.IsComputed() && !a.IsOptional() || a.IsWriteOnly() {
		return true
	}
	switch a := a.(type) {
	case schema.StringAttribute:
		return a.CustomType != nil || len(a.Validators) > 0
	case schema.BoolAttribute:
		return len(a.Validators) > 0
	case schema.Int64Attribute:
		return len(a.Validators) > 0
	case schema.MapAttribute:
		return len(a.Validators) > 0
	case schema.ListAttribute:
		return len(a.Validators) > 0
	case schema.ListNestedAttribute:
		return len(a.Validators) > 0 || len(a.NestedObject.Validators) > 0
	case schema.MapNestedAttribute:
		return len(a.Validators) > 0 || len(a.NestedObject.Validators) > 0
	}
	return false
}

// directValidationOf returns the direct validation of a schema; ok is false when the schema holds
// something the walk does not do as the framework does.
func directValidationOf(ctx context.Context, s schema.Schema, r any) (*directValidation, bool) {
	if hasMethod(r, "ValidateConfig") || hasMethod(r, "ConfigValidators") || s.DeprecationMessage != "" || !walkable(s.Attributes) {
		return nil, false
	}
	for _, b := range s.Blocks {
		if _, ok := b.(schema.SingleNestedBlock); !ok {
			return nil, false // a collection block: the framework nullifies empty ones first
		}
	}
	return &directValidation{schema: s, typ: s.Type().TerraformType(ctx), plan: walkPlan(s.Attributes)}, true
}

// walkable reports whether every attribute is one the walk validates as the framework does.
func walkable(attrs map[string]schema.Attribute) bool {
	for _, a := range attrs {
		if a.GetDeprecationMessage() != "" || a.IsWriteOnly() && (a.IsComputed() || a.IsRequired() && a.IsOptional()) {
			return false // the framework reports the last two as the provider's mistakes
		}
		switch a := a.(type) {
		case schema.StringAttribute:
			if a.CustomType != nil && !validatesAsValue(a.CustomType) {
				return false
			}
		case schema.BoolAttribute:
			if a.CustomType != nil {
				return false
			}
		case schema.Int64Attribute:
			if a.CustomType != nil {
				return false
			}
		case schema.MapAttribute:
			if a.CustomType != nil || !a.ElementType.Equal(types.StringType) && !readOnly(a, len(a.Validators)) {
				return false
			}
		case schema.ListAttribute:
			if a.CustomType != nil || !a.ElementType.Equal(types.StringType) && !readOnly(a, len(a.Validators)) {
				return false
			}
		case schema.SingleNestedAttribute:
			if a.CustomType != nil || len(a.Validators) > 0 || !walkable(a.Attributes) {
				return false
			}
		case schema.ListNestedAttribute:
			o := a.NestedObject
			if a.CustomType != nil || o.CustomType != nil || !walkable(o.Attributes) {
				return false
			}
		case schema.MapNestedAttribute:
			o := a.NestedObject
			if a.CustomType != nil || o.CustomType != nil || !walkable(o.Attributes) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// validatesAsValue reports whether a custom string type is validated by its values
// (xattr.ValidateableAttribute), as the walk does, and not by the deprecated type validation.
func validatesAsValue(t basetypes.StringTypable) bool {
	if _, old := t.(xattr.TypeWithValidate); old { //nolint:staticcheck // what the walk does not do
		return false
	}
	v, err := t.ValueFromTerraform(context.Background(), tftypes.NewValue(tftypes.String, nil))
	if err != nil {
		return false
	}
	_, ok := v.(basetypes.StringValuable)
	return ok
}

// readOnly reports whether an attribute without validators can only be null in a configuration:
// its values are then never converted, so their element type does not matter.
func readOnly(a schema.Attribute, validators int) bool {
	return a.IsComputed() && !a.IsOptional() && validators == 0
}

// validate answers the request; ok is false when the framework must (a block set, a list element
// null or unknown, a value that does not decode).
func (v *directValidation) validate(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (diag.Diagnostics, bool) {
	config, err := req.Config.Unmarshal(v.typ)
	if err != nil || !config.IsKnown() || config.IsNull() {
		return nil, false
	}
	var attrs map[string]tftypes.Value
	if config.As(&attrs) != nil {
		return nil, false
	}
	for name := range v.schema.Blocks {
		if b, ok := attrs[name]; !ok || !b.IsNull() {
			return nil, false
		}
	}
	w := configWalk{ctx: ctx, config: tfsdk.Config{Schema: v.schema, Raw: config}}
	if req.ClientCapabilities != nil {
		w.caps.WriteOnlyAttributesAllowed = req.ClientCapabilities.WriteOnlyAttributesAllowed
	}
	if !w.object(path.Empty(), v.plan, attrs) {
		return nil, false
	}
	return w.diags, true
}

type configWalk struct {
	ctx    context.Context
	config tfsdk.Config
	caps   validator.ValidateSchemaClientCapabilities
	diags  diag.Diagnostics
}

// object validates the attributes of one known object at p (the root when p is empty).
func (w *configWalk) object(p path.Path, plan []walkAttr, values map[string]tftypes.Value) bool {
	for _, wa := range plan {
		at := path.Root(wa.name)
		if len(p.Steps()) > 0 {
			at = p.AtName(wa.name)
		}
		val, ok := values[wa.name]
		if !ok || !w.attribute(at, wa, val) {
			return false
		}
	}
	return true
}

func (w *configWalk) attribute(p path.Path, wa walkAttr, val tftypes.Value) bool {
	a := wa.attr
	null, unknown := val.IsNull(), !val.IsKnown()
	// A value of a custom type validates itself first; its errors end the attribute's validation.
	if s, ok := a.(schema.StringAttribute); ok && s.CustomType != nil {
		v, err := s.CustomType.ValueFromTerraform(w.ctx, val)
		if err != nil {
			return false
		}
		if v, ok := v.(xattr.ValidateableAttribute); ok {
			var resp xattr.ValidateAttributeResponse
			v.ValidateAttribute(w.ctx, xattr.ValidateAttributeRequest{Path: p}, &resp)
			w.diags.Append(resp.Diagnostics...)
			if resp.Diagnostics.HasError() {
				return true
			}
		}
	}
	if a.IsComputed() && !a.IsOptional() && !null {
		w.diags.AddAttributeError(p, "Invalid Configuration for Read-Only Attribute",
			"Cannot set value for this attribute as the provider has marked it as read-only. Remove the configuration line setting the value.\n\n"+
				"Refer to the provider documentation or contact the provider developers for additional information about configurable and read-only attributes that are supported.")
	}
	if a.IsRequired() && null {
		w.diags.AddAttributeError(p, "Missing Configuration for Required Attribute",
			"Must set a configuration value for the "+p.String()+" attribute as the provider has marked it as required.\n\n"+
				"Refer to the provider documentation or contact the provider developers for additional information about configurable attributes that are required.")
	}
	if !w.caps.WriteOnlyAttributesAllowed && a.IsWriteOnly() && !null {
		w.diags.AddAttributeError(p, "WriteOnly Attribute Not Allowed",
			fmt.Sprintf("The resource contains a non-null value for WriteOnly attribute %s. Write-only attributes are only supported in Terraform 1.11 and later.", p.String()))
	}
	switch a := a.(type) {
	case schema.StringAttribute:
		if len(a.Validators) == 0 {
			return true
		}
		var s types.String
		if tftypesToString(val, &s) != nil {
			return false
		}
		req := validator.StringRequest{ClientCapabilities: w.caps, Config: w.config, ConfigValue: s, Path: p, PathExpression: p.Expression()}
		for _, v := range a.Validators {
			resp := &validator.StringResponse{}
			v.ValidateString(w.ctx, req, resp)
			w.diags.Append(resp.Diagnostics...)
		}
		return true
	case schema.BoolAttribute:
		if len(a.Validators) == 0 {
			return true
		}
		b, ok := w.value(types.BoolType, val).(types.Bool)
		if !ok {
			return false
		}
		req := validator.BoolRequest{ClientCapabilities: w.caps, Config: w.config, ConfigValue: b, Path: p, PathExpression: p.Expression()}
		for _, v := range a.Validators {
			resp := &validator.BoolResponse{}
			v.ValidateBool(w.ctx, req, resp)
			w.diags.Append(resp.Diagnostics...)
		}
		return true
	case schema.Int64Attribute:
		if len(a.Validators) == 0 {
			return true
		}
		n, ok := w.value(types.Int64Type, val).(types.Int64)
		if !ok {
			return false
		}
		req := validator.Int64Request{ClientCapabilities: w.caps, Config: w.config, ConfigValue: n, Path: p, PathExpression: p.Expression()}
		for _, v := range a.Validators {
			resp := &validator.Int64Response{}
			v.ValidateInt64(w.ctx, req, resp)
			w.diags.Append(resp.Diagnostics...)
		}
		return true
	case schema.MapAttribute:
		return w.mapValidators(p, a.GetType(), val, a.Validators)
	case schema.ListAttribute:
		return w.listValidators(p, a.GetType(), val, a.Validators)
	case schema.SingleNestedAttribute:
		if null || unknown {
			return true
		}
		var attrs map[string]tftypes.Value
		return len(wa.nested) == 0 || val.As(&attrs) == nil && w.object(p, wa.nested, attrs)
	case schema.ListNestedAttribute:
		if !w.listValidators(p, a.GetType(), val, a.Validators) {
			return false
		}
		if null || unknown {
			return true
		}
		var elems []tftypes.Value
		if val.As(&elems) != nil {
			return false
		}
		for i, e := range elems {
			if !w.element(p.AtListIndex(i), wa, a.NestedObject, e) {
				return false
			}
		}
		return true
	case schema.MapNestedAttribute:
		if !w.mapValidators(p, a.GetType(), val, a.Validators) {
			return false
		}
		if null || unknown {
			return true
		}
		var elems map[string]tftypes.Value
		if val.As(&elems) != nil {
			return false
		}
		for key, e := range elems {
			if !w.element(p.AtMapKey(key), wa, a.NestedObject, e) {
				return false
			}
		}
		return true
	}
	return false
}

// listValidators runs a list's validators on val converted as typ (a list of strings or of nested
// objects); false when it does not convert.
func (w *configWalk) listValidators(p path.Path, typ attr.Type, val tftypes.Value, validators []validator.List) bool {
	if len(validators) == 0 {
		return true
	}
	l, ok := w.value(typ, val).(types.List)
	if !ok {
		return false
	}
	req := validator.ListRequest{ClientCapabilities: w.caps, Config: w.config, ConfigValue: l, Path: p, PathExpression: p.Expression()}
	for _, v := range validators {
		resp := &validator.ListResponse{}
		v.ValidateList(w.ctx, req, resp)
		w.diags.Append(resp.Diagnostics...)
	}
	return true
}

// mapValidators is listValidators for maps.
func (w *configWalk) mapValidators(p path.Path, typ attr.Type, val tftypes.Value, validators []validator.Map) bool {
	if len(validators) == 0 {
		return true
	}
	m, ok := w.value(typ, val).(types.Map)
	if !ok {
		return false
	}
	req := validator.MapRequest{ClientCapabilities: w.caps, Config: w.config, ConfigValue: m, Path: p, PathExpression: p.Expression()}
	for _, v := range validators {
		resp := &validator.MapResponse{}
		v.ValidateMap(w.ctx, req, resp)
		w.diags.Append(resp.Diagnostics...)
	}
	return true
}

// element validates one element e, at p, of a list or map of nested objects: its object
// validators, then its attributes that have something to check.
func (w *configWalk) element(p path.Path, wa walkAttr, o schema.NestedAttributeObject, e tftypes.Value) bool {
	if !e.IsKnown() || e.IsNull() || !w.nestedObject(p, o, e) {
		return false
	}
	if len(wa.nested) == 0 {
		return true
	}
	var attrs map[string]tftypes.Value
	return e.As(&attrs) == nil && w.object(p, wa.nested, attrs)
}

// nestedObject runs the object validators of a nested attribute's element e at p.
func (w *configWalk) nestedObject(p path.Path, o schema.NestedAttributeObject, e tftypes.Value) bool {
	if len(o.Validators) == 0 {
		return true
	}
	obj, ok := w.value(o.Type(), e).(types.Object)
	if !ok {
		return false
	}
	req := validator.ObjectRequest{ClientCapabilities: w.caps, Config: w.config, ConfigValue: obj, Path: p, PathExpression: p.Expression()}
	for _, v := range o.Validators {
		resp := &validator.ObjectResponse{}
		v.ValidateObject(w.ctx, req, resp)
		w.diags.Append(resp.Diagnostics...)
	}
	return true
}

// value is val as typ gives it to validators; nil when it does not convert.
func (w *configWalk) value(typ attr.Type, val tftypes.Value) attr.Value {
	v, err := typ.ValueFromTerraform(w.ctx, val)
	if err != nil {
		return nil
	}
	return v
}
