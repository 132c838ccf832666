package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/health"
	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
)

// TestReadHealthWithSecretsKnownOnlyAtApply: an observe store whose credentials are not known
// yet (a secret set planned from another resource) is not read, and says nothing: health stays
// as state has it, as placements do, and the refresh after the apply reads it.
func TestReadHealthWithSecretsKnownOnlyAtApply(t *testing.T) {
	t.Parallel()
	attrTypes := map[string]attr.Type{}
	for _, k := range storeconfig.SecretKeys {
		attrTypes[k.Name] = types.StringType
	}
	secrets := types.MapValueMust(types.ObjectType{AttrTypes: attrTypes}, map[string]attr.Value{
		"later": types.ObjectUnknown(attrTypes),
	})
	var diags diag.Diagnostics
	d := &providerData{lookupEnv: func(string) (string, bool) { return "", false }}
	d.configureSecrets(context.Background(), secrets, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	obs := observeConfig{root: "health", ref: storeconfig.Ref{
		Name: types.StringValue("health"), Path: types.StringValue("health"), SecretRef: types.StringValue("later"),
		Bucket: &storeconfig.Bucket{Endpoint: types.StringValue("127.0.0.1:1"), BucketName: types.StringValue("b"), Insecure: types.BoolValue(true)},
	}}
	views, ok := d.readHealth(context.Background(), `Promise "p"`, obs, health.Subject{Promise: "p"},
		map[string]*poolMember{"w1": nil}, nil, &diags)
	if ok || views != nil || len(diags) != 0 {
		t.Errorf("readHealth = %v, %v, diagnostics %v; want nothing read and nothing said", views, ok, diags)
	}
}
