package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// An edit of a value's attributes makes a new value and leaves the old one as it was. The
// no-change plan compares what ModifyPlan returns with what it was given; when withTopLevel
// edited its base in place, the two were always equal and a request whose file was edited by
// hand planned no repair (TestAccRequest_writeOnlySecret).
func TestValueEditsLeaveTheOriginal(t *testing.T) {
	t.Parallel()
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{"a": tftypes.String, "secret": tftypes.String}}
	original := func() tftypes.Value {
		return tftypes.NewValue(typ, map[string]tftypes.Value{
			"a": tftypes.NewValue(tftypes.String, "before"), "secret": tftypes.NewValue(tftypes.String, "s"),
		})
	}
	base := original()
	edited, diags := withTopLevel(context.Background(), base, map[string]attr.Value{"a": types.StringValue("after")})
	if diags.HasError() {
		t.Fatal(diags)
	}
	if !base.Equal(original()) {
		t.Errorf("withTopLevel changed its base: %v", base)
	}
	if edited.Equal(base) {
		t.Errorf("withTopLevel returned its base unchanged: %v", edited)
	}
}
