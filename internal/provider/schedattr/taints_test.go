package schedattr

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Tolerations are checked with Kubernetes' rules, each at its own element: a toleration without
// a key must use Exists, and Exists takes no value.
func TestTolerationsValidator(t *testing.T) {
	t.Parallel()
	objType := map[string]attr.Type{"key": types.StringType, "operator": types.StringType, "value": types.StringType, "effect": types.StringType}
	tol := func(key, op, value, effect string) attr.Value {
		s := func(v string) types.String {
			if v == "" {
				return types.StringNull()
			}
			return types.StringValue(v)
		}
		return types.ObjectValueMust(objType, map[string]attr.Value{"key": s(key), "operator": s(op), "value": s(value), "effect": s(effect)})
	}
	list := types.ListValueMust(types.ObjectType{AttrTypes: objType}, []attr.Value{
		tol("maintenance", "Exists", "", "NoExecute"),  // fine
		tol("", "Equal", "x", ""),                      // no key with Equal
		tol("maintenance", "Exists", "2026-12-01", ""), // Exists with a value
		tol("maintenance", "", "2026-12-01", "NoSchedule"),
	})
	var resp validator.ListResponse
	tolerationsValidator{}.ValidateList(context.Background(), validator.ListRequest{Path: path.Root("tolerations"), ConfigValue: list}, &resp)
	want := map[string]string{
		"tolerations[1]": "must use operator Exists",
		"tolerations[2]": "Exists takes no value",
	}
	if len(resp.Diagnostics) != len(want) {
		t.Fatalf("got %d diagnostics, want %d: %v", len(resp.Diagnostics), len(want), resp.Diagnostics)
	}
	for _, d := range resp.Diagnostics {
		p := d.(interface{ Path() path.Path }).Path().String()
		if w, ok := want[p]; !ok || !strings.Contains(d.Detail(), w) {
			t.Errorf("diagnostic at %s: %q; want one containing %q", p, d.Detail(), w)
		}
	}
}
