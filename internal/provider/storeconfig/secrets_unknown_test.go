package storeconfig

import (
	"context"
	"errors"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// TestSecretsPartlyUnknown: a set with one value unknown at plan cannot be judged (its other
// values are not enough to say it is incomplete); a fully known set next to it can.
func TestSecretsPartlyUnknown(t *testing.T) {
	t.Parallel()
	attrTypes := map[string]attr.Type{}
	for _, k := range SecretKeys {
		attrTypes[k.Name] = types.StringType
	}
	set := func(values map[string]types.String) attr.Value {
		attrs := map[string]attr.Value{}
		for _, k := range SecretKeys {
			attrs[k.Name] = types.StringNull()
			if v, ok := values[k.Name]; ok {
				attrs[k.Name] = v
			}
		}
		return types.ObjectValueMust(attrTypes, attrs)
	}
	secrets := types.MapValueMust(types.ObjectType{AttrTypes: attrTypes}, map[string]attr.Value{
		"partly": set(map[string]types.String{"access_key_id": types.StringValue("id"), "secret_access_key": types.StringUnknown()}),
		"known":  set(map[string]types.String{"access_key_id": types.StringValue("id")}),
		"whole":  types.ObjectUnknown(attrTypes),
	})
	var diags diag.Diagnostics
	d := ReadSecrets(context.Background(), secrets, func(string) (string, bool) { return "", false }, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	for _, name := range []string{"partly", "whole"} {
		if _, _, err := d.Resolve(name); !errors.Is(err, ErrSecretsUnknown) {
			t.Errorf("secret(%q) gave %v, want errSecretsUnknown", name, err)
		}
	}
	got, found, err := d.Resolve("known")
	if err != nil || !found || got["access_key_id"] != "id" || got["secret_access_key"] != "" {
		t.Errorf("secret(known) = %v, %v, %v", got, found, err)
	}
	// A set that is not configured is known to be missing: the map's keys are known.
	if _, found, err := d.Resolve("other"); err != nil || found {
		t.Errorf("secret(other) = %v, %v; want not found and no error", found, err)
	}
}
