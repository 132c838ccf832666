package provider

import (
	"context"
	"maps"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func stringMapValue(m map[string]string) types.Map {
	elems := make(map[string]attr.Value, len(m))
	for k, v := range m {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}

func stringMap(ctx context.Context, m types.Map) map[string]string {
	out := map[string]string{}
	if m.IsNull() || m.IsUnknown() {
		return out
	}
	_ = m.ElementsAs(ctx, &out, false)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// stringListOf is a list of strings' elements; nil when it is null or unknown.
func stringListOf(ctx context.Context, l types.List) []string {
	var out []string
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	_ = l.ElementsAs(ctx, &out, false)
	return out
}

// attrsCopy is the attributes of object v in a map of their own. tftypes.Value.As hands out the
// value's own map, so an edit of what it returns changes v and every value sharing it: a plan
// compared with the value it was made from would then always look unchanged.
func attrsCopy(v tftypes.Value) (map[string]tftypes.Value, error) {
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		return nil, err
	}
	return maps.Clone(m), nil
}
