package tfserver

import (
	"context"
	"encoding/json"
	"maps"
	"reflect"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Private state, the one place the framework's private-state type is built outside it.
//
// The framework's requests and responses (resource.ReadRequest, ModifyPlanResponse,
// CreateResponse) hold private state in a field of a type internal to the framework
// (privatestate.ProviderData), which only the framework can make otherwise. Its zero value is
// what its own constructor makes (an empty map, filled on the first SetKey), so a new zero value
// is allocated by reflection and filled with its exported SetKey, as the framework's
// NewProviderData fills it from the protocol's bytes. The bytes going out are encoded as the
// framework's Data.Bytes encodes provider keys: a JSON object of the keys set, each value base64,
// or nothing when no key is set. TestFrameworkVersionReviewed pins the framework version this
// was checked against.

// privateData is what the code here uses of the framework's private-state type.
type privateData interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// setPrivate gives target (a pointer to a framework request or response with a Private field)
// a new private state holding raw, the protocol's bytes (nothing when raw is empty).
func setPrivate(ctx context.Context, target any, raw []byte) diag.Diagnostics {
	var diags diag.Diagnostics
	f := reflect.ValueOf(target).Elem().FieldByName("Private")
	if !f.IsValid() || f.Kind() != reflect.Pointer {
		diags.AddError("Unexpected Framework Type", "the framework's "+reflect.TypeOf(target).String()+" holds no private state pointer: review internal/tfserver against this framework version (version_test.go)")
		return diags
	}
	v := reflect.New(f.Type().Elem())
	p, ok := v.Interface().(privateData)
	if !ok {
		diags.AddError("Unexpected Framework Type", "the framework's private state has no GetKey and SetKey: review internal/tfserver against this framework version (version_test.go)")
		return diags
	}
	if !emptyPrivate(raw) {
		var keys map[string][]byte // as the framework encodes it: each value base64
		if err := json.Unmarshal(raw, &keys); err != nil {
			diags.AddError("Error Decoding Private State", err.Error())
			return diags
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			diags.Append(p.SetKey(ctx, k, keys[k])...)
		}
		if diags.HasError() {
			return diags
		}
	}
	f.Set(v)
	return diags
}

// privateBytes is private state p as the framework encodes it, for the given keys.
func privateBytes(ctx context.Context, p privateData, keys []string) ([]byte, diag.Diagnostics) {
	var diags diag.Diagnostics
	m := map[string][]byte{}
	for _, k := range keys {
		v, d := p.GetKey(ctx, k)
		diags.Append(d...)
		if len(v) > 0 {
			m[k] = v
		}
	}
	if len(m) == 0 || diags.HasError() {
		return nil, diags
	}
	b, err := json.Marshal(m)
	if err != nil {
		diags.AddError("Error Encoding Private State", err.Error())
	}
	return b, diags
}

// emptyPrivate reports whether private state holds nothing.
func emptyPrivate(p []byte) bool { return len(p) == 0 || string(p) == "{}" || string(p) == "null" }

// attrsCopy is the attributes of object v in a map of their own. tftypes.Value.As hands out the
// value's own map, so an edit of what it returns changes v and every value sharing it.
func attrsCopy(v tftypes.Value) (map[string]tftypes.Value, error) {
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		return nil, err
	}
	return maps.Clone(m), nil
}

// EncodeValue is v, of type typ, in the protocol's MessagePack encoding (for a resource that
// keeps a value in private state).
func EncodeValue(typ tftypes.Type, v tftypes.Value) ([]byte, error) {
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		return nil, err
	}
	return dv.MsgPack, nil
}

// DecodeValue is EncodeValue's reverse.
func DecodeValue(raw []byte, typ tftypes.Type) (tftypes.Value, error) {
	return (&tfprotov6.DynamicValue{MsgPack: raw}).Unmarshal(typ)
}
