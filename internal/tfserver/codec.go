package tfserver

import (
	"context"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The codec: models in and out of plans and states without the framework's reflection.
//
// tfsdk's Get and Set walk the model struct by reflection on every call, and compile a regular
// expression for each field's tag each time: about a seventh of the provider's CPU in an apply of
// 100 destinations and a promise that writes nothing. Every model the codec takes is a struct whose fields
// are all attr.Value, one per top-level attribute, so the conversion is one ValueFromTerraform
// (or ToTerraformValue) per field, with the custom types' validation run as the framework runs
// it. A model of another shape, or a value the fast path cannot place, goes to the framework,
// which then words the error. TestModelCodecAgreesWithTheFramework compares both ways.

// schemaTyped is what the codec needs of a plan's or state's schema (the framework's
// fwschema.Schema, which is internal).
type schemaTyped interface {
	Type() attr.Type
}

// modelField is one field of a model struct: its index and its attribute's name.
type modelField struct {
	index int
	name  string
}

var (
	attrValueType = reflect.TypeFor[attr.Value]()
	modelFields   sync.Map // reflect.Type of the struct => []modelField, or nil when not a model
)

// fieldsOf returns the fields of struct type t, or nil when t is not a model the codec handles:
// every exported field an attr.Value with a tfsdk tag, and no other field.
func fieldsOf(t reflect.Type) []modelField {
	if cached, ok := modelFields.Load(t); ok {
		fields, _ := cached.([]modelField)
		return fields
	}
	var fields []modelField
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			fields = nil // an embedded struct: the framework's
			break
		}
		if !f.IsExported() {
			continue // a model's own bookkeeping (the framework ignores these too)
		}
		tag := f.Tag.Get("tfsdk")
		if tag == "" || tag == "-" || !f.Type.Implements(attrValueType) || f.Type.Kind() == reflect.Interface {
			fields = nil
			break
		}
		fields = append(fields, modelField{index: i, name: tag})
	}
	modelFields.Store(t, fields)
	return fields
}

// modelShape returns the model's fields and the schema's attribute types, ok false when the two
// do not match one for one.
func modelShape(s schemaTyped, t reflect.Type) ([]modelField, map[string]attr.Type, bool) {
	if t.Kind() != reflect.Struct {
		return nil, nil, false
	}
	fields := fieldsOf(t)
	typ, ok := s.Type().(attr.TypeWithAttributeTypes)
	if fields == nil || !ok {
		return nil, nil, false
	}
	types := typ.AttributeTypes()
	if len(types) != len(fields) {
		return nil, nil, false
	}
	for _, f := range fields {
		if _, ok := types[f.name]; !ok {
			return nil, nil, false
		}
	}
	return fields, types, true
}

// GetPlan reads the plan into *target, as p.Get does.
func GetPlan(ctx context.Context, p tfsdk.Plan, target any) diag.Diagnostics {
	if diags, ok := fastGet(ctx, p.Schema, p.Raw, target); ok {
		return diags
	}
	return p.Get(ctx, target)
}

// GetState reads the state into *target, as s.Get does.
func GetState(ctx context.Context, s tfsdk.State, target any) diag.Diagnostics {
	if diags, ok := fastGet(ctx, s.Schema, s.Raw, target); ok {
		return diags
	}
	return s.Get(ctx, target)
}

// fastGet reads raw, a value of schema s, into *target without the framework; ok is false for anything it does not handle.
func fastGet(ctx context.Context, s schemaTyped, raw tftypes.Value, target any) (diag.Diagnostics, bool) {
	ptr := reflect.ValueOf(target)
	if ptr.Kind() != reflect.Pointer || ptr.IsNil() || !raw.IsKnown() || raw.IsNull() {
		return nil, false
	}
	fields, types, ok := modelShape(s, ptr.Elem().Type())
	if !ok {
		return nil, false
	}
	var attrs map[string]tftypes.Value
	if raw.As(&attrs) != nil || len(attrs) != len(fields) {
		return nil, false
	}
	out := reflect.New(ptr.Elem().Type()).Elem() // unexported fields zero, as the framework leaves them
	var diags diag.Diagnostics
	for _, f := range fields {
		v, ok := attrs[f.name]
		if !ok {
			return nil, false
		}
		typ := types[f.name]
		av, err := typ.ValueFromTerraform(ctx, v)
		if err != nil {
			return nil, false
		}
		field := out.Field(f.index)
		if reflect.TypeOf(av) != field.Type() {
			return nil, false
		}
		if d, ok := validateValue(ctx, typ, av, v, path.Root(f.name)); ok {
			diags.Append(d...)
		}
		if diags.HasError() {
			return nil, false // the framework reports it, with its own wording
		}
		field.Set(reflect.ValueOf(av))
	}
	ptr.Elem().Set(out)
	return diags, true
}

// SetPlan writes model (a struct, or a pointer to one) into the plan, as p.Set does.
func SetPlan(ctx context.Context, p *tfsdk.Plan, model any) diag.Diagnostics {
	if v, diags, ok := fastSet(ctx, p.Schema, model); ok {
		p.Raw = v
		return diags
	}
	return p.Set(ctx, model)
}

// SetState writes model (a struct, or a pointer to one) into the state, as s.Set does.
func SetState(ctx context.Context, s *tfsdk.State, model any) diag.Diagnostics {
	if v, diags, ok := fastSet(ctx, s.Schema, model); ok {
		s.Raw = v
		return diags
	}
	return s.Set(ctx, model)
}

// fastSet returns model as a value of schema s without the framework; ok is false for anything
// it does not handle.
func fastSet(ctx context.Context, s schemaTyped, model any) (tftypes.Value, diag.Diagnostics, bool) {
	val := reflect.ValueOf(model)
	if val.Kind() == reflect.Pointer {
		if val.IsNil() {
			return tftypes.Value{}, nil, false
		}
		val = val.Elem()
	}
	fields, types, ok := modelShape(s, val.Type())
	if !ok {
		return tftypes.Value{}, nil, false
	}
	var diags diag.Diagnostics
	attrs := make(map[string]tftypes.Value, len(fields))
	for _, f := range fields {
		av, ok := val.Field(f.index).Interface().(attr.Value)
		if !ok || av == nil {
			return tftypes.Value{}, nil, false
		}
		typ := types[f.name]
		if !typ.TerraformType(ctx).Equal(av.Type(ctx).TerraformType(ctx)) {
			return tftypes.Value{}, nil, false
		}
		tv, err := av.ToTerraformValue(ctx)
		if err != nil {
			return tftypes.Value{}, nil, false
		}
		if d, ok := validateValue(ctx, typ, av, tv, path.Root(f.name)); ok {
			diags.Append(d...)
		}
		if diags.HasError() {
			return tftypes.Value{}, nil, false // the framework reports it, with its own wording
		}
		attrs[f.name] = tv
	}
	return tftypes.NewValue(s.Type().TerraformType(ctx), attrs), diags, true
}

// validateValue runs the validation the framework runs on a value it reads or writes: the
// value's own, or its type's; ok is false when there is none.
func validateValue(ctx context.Context, typ attr.Type, av attr.Value, raw tftypes.Value, p path.Path) (diag.Diagnostics, bool) {
	if v, ok := av.(xattr.ValidateableAttribute); ok {
		var resp xattr.ValidateAttributeResponse
		v.ValidateAttribute(ctx, xattr.ValidateAttributeRequest{Path: p}, &resp)
		return resp.Diagnostics, true
	}
	//nolint:staticcheck // the framework still runs the deprecated interface, so this does too
	if t, ok := typ.(xattr.TypeWithValidate); ok {
		return t.Validate(ctx, raw, p), true
	}
	return nil, false
}

// Decodes reports whether GetPlan reads raw, a value of schema s, into target without the
// framework (tests use it to see that a model takes the fast path).
func Decodes(ctx context.Context, s schemaTyped, raw tftypes.Value, target any) bool {
	_, ok := fastGet(ctx, s, raw, target)
	return ok
}

// ModelFits reports whether model (a pointer to a struct) matches schema s one field for one
// attribute, so that the codec takes it.
func ModelFits(s schemaTyped, model any) bool {
	t := reflect.TypeOf(model)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	_, _, ok := modelShape(s, t)
	return ok
}
