package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	fwresource "github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/storeconfig"
)

// TestPlacesAnew: the plan reads a store only when it is new or moves (endpoint and bucket, or
// repository and branch); a plan of a store that stays where it is, whatever else changes
// (path, credentials, TLS, author), asks nothing of the server, nor does the plan that completes
// an import (its state holds only the name).
func TestPlacesAnew(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var sr fwresource.SchemaResponse
	(&stateStoreResource{}).Schema(ctx, fwresource.SchemaRequest{}, &sr)
	state := func(m *stateStoreModel) tfsdk.State {
		s := tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(sr.Schema.Type().TerraformType(ctx), nil)}
		if m == nil {
			return s
		}
		m.Timeouts.Object = types.ObjectNull(map[string]attr.Type{"create": types.StringType, "read": types.StringType, "update": types.StringType})
		if d := s.Set(ctx, m); d.HasError() {
			t.Fatal(d)
		}
		return s
	}
	bucket := func(endpoint, name, path, secret string, insecure bool) *stateStoreModel {
		return &stateStoreModel{ID: types.StringValue("s"), Name: types.StringValue("s"), Path: types.StringValue(path),
			SecretRef: types.StringValue(secret), Bucket: &bucketStoreModel{Bucket: storeconfig.Bucket{
				Endpoint: types.StringValue(endpoint), BucketName: types.StringValue(name), Insecure: types.BoolValue(insecure),
				Region: types.StringNull(), AuthMethod: types.StringValue("accessKey")}, CreateBucket: types.BoolValue(false)}}
	}
	git := func(url, branch, author string) *stateStoreModel {
		return &stateStoreModel{ID: types.StringValue("s"), Name: types.StringValue("s"), Path: types.StringNull(),
			SecretRef: types.StringValue("s"), Git: &storeconfig.Git{URL: types.StringValue(url), Branch: types.StringValue(branch),
				Author:                &storeconfig.Author{Name: types.StringValue(author), Email: types.StringValue("")},
				InsecureIgnoreHostKey: types.BoolValue(false)}}
	}
	imported := &stateStoreModel{ID: types.StringValue("s"), Name: types.StringValue("s"), Path: types.StringNull(), SecretRef: types.StringNull()}
	tests := []struct {
		name  string
		prior *stateStoreModel // nil: no state
		plan  *stateStoreModel
		want  bool
	}{
		{"new bucket store", nil, bucket("minio:9000", "kratix", "", "s", true), true},
		{"new git store", nil, git("https://git.local/org/repo.git", "main", "kratix"), true},
		{"bucket unchanged", bucket("minio:9000", "kratix", "", "s", true), bucket("minio:9000", "kratix", "", "s", true), false},
		{"bucket: path, secret and TLS change", bucket("minio:9000", "kratix", "", "s", true), bucket("minio:9000", "kratix", "team", "t", false), false},
		{"bucket: endpoint case and default port", bucket("minio:9000", "kratix", "", "s", true), bucket("MINIO:9000", "kratix", "", "s", true), false},
		{"bucket renamed", bucket("minio:9000", "kratix", "", "s", true), bucket("minio:9000", "other", "", "s", true), true},
		{"bucket on another endpoint", bucket("minio:9000", "kratix", "", "s", true), bucket("minio2:9000", "kratix", "", "s", true), true},
		{"git unchanged", git("https://git.local/org/repo.git", "main", "kratix"), git("https://git.local/org/repo.git", "main", "kratix"), false},
		{"git: .git suffix and author", git("https://git.local/org/repo.git", "main", "kratix"), git("https://git.local/org/repo", "main", "bot"), false},
		{"git: another branch", git("https://git.local/org/repo.git", "main", "kratix"), git("https://git.local/org/repo.git", "dev", "kratix"), true},
		{"git: another repository", git("https://git.local/org/repo.git", "main", "kratix"), git("https://git.local/org/other.git", "main", "kratix"), true},
		{"import being completed", imported, bucket("minio:9000", "kratix", "", "s", true), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := placesAnew(ctx, state(tt.prior), tt.plan.storeRef()); got != tt.want {
				t.Errorf("placesAnew = %v, want %v", got, tt.want)
			}
		})
	}
}
