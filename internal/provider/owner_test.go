package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestOwnerFrom(t *testing.T) {
	for _, c := range []struct {
		name  string
		attr  types.String
		env   map[string]string
		want  string
		error string
	}{
		{"unnamed", types.StringNull(), nil, "", ""},
		{"the provider block wins", types.StringValue("platform-eu"), map[string]string{"KRATIX_OWNER": "x", "TFC_WORKSPACE_NAME": "y"}, "platform-eu", ""},
		{"then KRATIX_OWNER", types.StringNull(), map[string]string{"KRATIX_OWNER": "fleet-a", "TFC_WORKSPACE_NAME": "y"}, "fleet-a", ""},
		{"then the HCP workspace", types.StringNull(), map[string]string{"TFC_WORKSPACE_NAME": "payments-prod"}, "payments-prod", ""},
		{"blank variables are unset", types.StringNull(), map[string]string{"KRATIX_OWNER": " ", "TFC_WORKSPACE_NAME": "ws"}, "ws", ""},
		{"unknown reads the environment", types.StringUnknown(), map[string]string{"KRATIX_OWNER": "fleet-a"}, "fleet-a", ""},
		{"no control characters", types.StringValue("a\nb"), nil, "a\nb", "not printable"},
		{"no outer spaces", types.StringValue(" a"), nil, " a", "starts or ends with a space"},
		{"not too long", types.StringValue(strings.Repeat("a", 129)), nil, strings.Repeat("a", 129), "129 bytes long"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var diags diag.Diagnostics
			got := ownerFrom(c.attr, func(k string) (string, bool) { v, ok := c.env[k]; return v, ok }, &diags)
			if got != c.want {
				t.Errorf("owner = %q, want %q", got, c.want)
			}
			switch {
			case c.error == "" && diags.HasError():
				t.Errorf("unexpected error: %v", diags)
			case c.error != "" && (!diags.HasError() || !strings.Contains(diags[0].Detail(), c.error)):
				t.Errorf("want an error saying %q, got %v", c.error, diags)
			}
		})
	}
}
