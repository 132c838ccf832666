package provider

import (
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// storeRefSchema is the state_store attribute of the resources that write to a store. Its
// attributes are a subset of kratix_state_store's, so the whole store resource can be passed;
// everything but the name is optional so that a hand-written object works too.
func storeRefSchema(description string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Required:            true,
		MarkdownDescription: description,
		PlanModifiers:       []planmodifier.Object{replaceIfStoreMoves()},
		Attributes:          storeRefAttributes(),
	}
}

func storeRefAttributes() map[string]schema.Attribute {
	bucket := map[string]schema.Attribute{
		"endpoint":    schema.StringAttribute{Optional: true, MarkdownDescription: "host[:port] of the S3 API."},
		"bucket_name": schema.StringAttribute{Optional: true, MarkdownDescription: "Bucket name."},
		"insecure":    schema.BoolAttribute{Optional: true, MarkdownDescription: "Plain HTTP."},
		"region":      schema.StringAttribute{Optional: true, MarkdownDescription: "Bucket region."},
		"auth_method": schema.StringAttribute{Optional: true, MarkdownDescription: "`accessKey` (the default) or `IAM` (the AWS credential chain)."},
	}
	maps.Copy(bucket, bucketAWSAttributes(false))
	return map[string]schema.Attribute{
		"name":       schema.StringAttribute{Optional: true, MarkdownDescription: "The store's name (required)."},
		"path":       schema.StringAttribute{Optional: true, MarkdownDescription: "The store's path."},
		"secret_ref": schema.StringAttribute{Optional: true, MarkdownDescription: "The provider secret with the store's credentials."},
		"bucket": schema.SingleNestedAttribute{
			Optional:            true,
			MarkdownDescription: "The store's bucket settings.",
			Attributes:          bucket,
		},
		"git": schema.SingleNestedAttribute{
			Optional:            true,
			MarkdownDescription: "The store's Git settings.",
			Attributes: map[string]schema.Attribute{
				"url": schema.StringAttribute{
					Optional: true, MarkdownDescription: "Repository URL, without credentials.",
					Validators: []validator.String{gitURLWithoutCredentials()},
				},
				"branch": schema.StringAttribute{Optional: true, MarkdownDescription: "Branch; `main` when unset."},
				"author": schema.SingleNestedAttribute{
					Optional:            true,
					MarkdownDescription: "Commit author.",
					Attributes: map[string]schema.Attribute{
						"name":  schema.StringAttribute{Optional: true, MarkdownDescription: "Author name; `kratix` when unset."},
						"email": schema.StringAttribute{Optional: true, MarkdownDescription: "Author email."},
					},
				},
				"insecure_ignore_host_key": schema.BoolAttribute{Optional: true, MarkdownDescription: "Accept any SSH host key."},
				"signing": schema.SingleNestedAttribute{
					Optional:            true,
					MarkdownDescription: "The key that signs the store's commits.",
					Attributes: map[string]schema.Attribute{
						"secret_ref": schema.StringAttribute{Optional: true, MarkdownDescription: "The provider secret holding `signing_key`."},
						"format":     schema.StringAttribute{Optional: true, MarkdownDescription: "`ssh` or `openpgp`."},
					},
				},
			},
		},
	}
}
