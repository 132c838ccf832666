package tfvalue

import (
	"context"
	"maps"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// StringMapValue is m as a map of strings.
func StringMapValue(m map[string]string) types.Map {
	elems := make(map[string]attr.Value, len(m))
	for k, v := range m {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}

// StringMap is m's elements; empty when it is null or unknown.
func StringMap(ctx context.Context, m types.Map) map[string]string {
	out := map[string]string{}
	if m.IsNull() || m.IsUnknown() {
		return out
	}
	_ = m.ElementsAs(ctx, &out, false)
	return out
}

// SortedKeys is m's keys in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// StringListOf is a list of strings' elements; nil when it is null or unknown.
func StringListOf(ctx context.Context, l types.List) []string {
	var out []string
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	_ = l.ElementsAs(ctx, &out, false)
	return out
}

// AttrsCopy is the attributes of object v in a map of their own. tftypes.Value.As hands out the
// value's own map, so an edit of what it returns changes v and every value sharing it: a plan
// compared with the value it was made from would then always look unchanged.
func AttrsCopy(v tftypes.Value) (map[string]tftypes.Value, error) {
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		return nil, err
	}
	return maps.Clone(m), nil
}

// ObjectsAs converts a list of objects. known is false when the list or one of its elements is
// unknown. A null element is T's zero value (every attribute null), so indexes stay those of the
// configuration.
func ObjectsAs[T any](ctx context.Context, list types.List) (out []T, known bool, diags diag.Diagnostics) {
	if list.IsUnknown() {
		return nil, false, nil
	}
	for _, e := range list.Elements() {
		if e.IsUnknown() {
			return nil, false, nil
		}
		var m T
		obj, isObject := e.(types.Object)
		if !isObject || obj.IsNull() {
			out = append(out, m)
			continue
		}
		diags.Append(obj.As(ctx, &m, basetypes.ObjectAsOptions{})...)
		if diags.HasError() {
			return nil, false, diags
		}
		out = append(out, m)
	}
	return out, true, diags
}

// StringList is names as a list of strings.
func StringList(names []string) types.List {
	elems := make([]attr.Value, len(names))
	for i, n := range names {
		elems[i] = types.StringValue(n)
	}
	return types.ListValueMust(types.StringType, elems)
}
