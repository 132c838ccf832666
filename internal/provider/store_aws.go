package provider

import (
	"fmt"
	"maps"
	"net/url"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// assumeRoleModel is a bucket store's assume_role, in the AWS provider's shape.
type assumeRoleModel struct {
	RoleARN     types.String `tfsdk:"role_arn"`
	ExternalID  types.String `tfsdk:"external_id"`
	SessionName types.String `tfsdk:"session_name"`
	Duration    types.String `tfsdk:"duration"`
}

// STS accepts role sessions of 15 minutes to 12 hours (the role's maximum may be lower).
const (
	minRoleDuration = 15 * time.Minute
	maxRoleDuration = 12 * time.Hour
)

// bucketAWSAttributes are the bucket attributes that shape where AWS credentials come from
// (profile, assume_role and sts_endpoint) and which of Amazon's names the bucket is reached at
// (use_dual_stack). None holds a secret: they name a profile, a role and an endpoint, and are
// shown in plans. use_dual_stack has no default value, so that state written before it existed
// plans no change (null is false). roleRequired makes assume_role.role_arn required (the
// store resource); in the state_store object of other resources everything is optional.
func bucketAWSAttributes(roleRequired bool) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"profile": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Profile of the shared AWS config and credentials files (`~/.aws/config`, " +
				"`~/.aws/credentials`, or `AWS_CONFIG_FILE` and `AWS_SHARED_CREDENTIALS_FILE`) that the AWS credential " +
				"chain starts from; unset, `AWS_PROFILE` or the default profile. SSO profiles (after `aws sso login`) " +
				"and profiles with `role_arn` work. Only with `auth_method = \"IAM\"`.",
			Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
		},
		"assume_role": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "A role to assume through STS with the credentials of `auth_method` (the AWS " +
				"credential chain, or the secret's access keys); the store is written with the role's temporary " +
				"credentials, renewed before they expire. The shape of the AWS provider's `assume_role`.",
			Attributes: map[string]schema.Attribute{
				"role_arn": schema.StringAttribute{
					Required: roleRequired, Optional: !roleRequired,
					MarkdownDescription: "ARN of the role, e.g. `arn:aws:iam::123456789012:role/kratix-state`.",
					Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
				},
				"external_id": schema.StringAttribute{
					Optional:            true,
					MarkdownDescription: "External ID the role's trust policy asks for.",
				},
				"session_name": schema.StringAttribute{
					Optional:            true,
					MarkdownDescription: "Name of the role session, as CloudTrail shows it; unset, the AWS SDK picks one.",
				},
				"duration": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "How long the temporary credentials last, a Go duration between `15m` and " +
						"`12h` (at most the role's maximum session duration); unset, 15 minutes.",
					Validators: []validator.String{roleDuration()},
				},
			},
		},
		"use_dual_stack": schema.BoolAttribute{
			Optional: true,
			MarkdownDescription: "Reach an Amazon S3 endpoint at its dual-stack (IPv4 and IPv6) name, " +
				"`<bucket>.s3.dualstack.<region>.amazonaws.com`, as Kratix's `useDualStack`. Unset or `false`, the " +
				"endpoint is used as written: the dual-stack names need IPv6 or an egress for them, which many VPCs " +
				"do not have. Other S3-compatible servers are not affected.",
		},
		"sts_endpoint": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "URL of the STS API used to assume roles (`assume_role`, a profile's `role_arn`, web " +
				"identity), e.g. a VPC endpoint `https://vpce-...sts.eu-west-2.vpce.amazonaws.com` or MinIO's own " +
				"STS; unset, `AWS_ENDPOINT_URL_STS` or AWS's regional endpoint.",
			Validators: []validator.String{stsEndpoint()},
		},
	}
}

// roleDuration accepts a Go duration STS allows for a role session.
func roleDuration() validator.String {
	return stringCheck{
		summary:     "Invalid Duration",
		description: "a Go duration between 15m and 12h",
		check: func(s string) string {
			d, err := time.ParseDuration(s)
			if err != nil {
				return fmt.Sprintf("%q is not a duration such as \"1h\" or \"45m\".", s)
			}
			if d < minRoleDuration || d > maxRoleDuration {
				return fmt.Sprintf("%q is outside what STS allows for a role session: 15m to 12h.", s)
			}
			return ""
		},
	}
}

// stsEndpoint accepts an http(s) URL with a host.
func stsEndpoint() validator.String {
	return stringCheck{
		summary:     "Invalid STS Endpoint",
		description: "an https:// (or http://) URL",
		check: func(s string) string {
			u, err := url.Parse(s)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return fmt.Sprintf("%q is not an https:// or http:// URL, such as \"https://sts.eu-west-2.amazonaws.com\".", s)
			}
			if u.User != nil {
				return fmt.Sprintf("%q carries credentials; STS is signed with the store's credentials.", statestore.RedactURL(s))
			}
			return ""
		},
	}
}

// assumeRoleFromObject reads an assume_role object; nil when it is null.
func assumeRoleFromObject(o types.Object) *assumeRoleModel {
	if o.IsNull() || o.IsUnknown() {
		return nil
	}
	a := o.Attributes()
	return &assumeRoleModel{RoleARN: objString(a, "role_arn"), ExternalID: objString(a, "external_id"),
		SessionName: objString(a, "session_name"), Duration: objString(a, "duration")}
}

// values are the attribute values, for known().
func (m *assumeRoleModel) values() []attr.Value {
	if m == nil {
		return nil
	}
	return []attr.Value{m.RoleARN, m.ExternalID, m.SessionName, m.Duration}
}

// config is the statestore form; the duration was validated at plan.
func (m *assumeRoleModel) config() (*statestore.AssumeRole, error) {
	if m == nil {
		return nil, nil
	}
	ar := &statestore.AssumeRole{RoleARN: m.RoleARN.ValueString(), ExternalID: m.ExternalID.ValueString(),
		SessionName: m.SessionName.ValueString()}
	if ar.RoleARN == "" {
		return nil, fmt.Errorf("assume_role.role_arn is empty: name the role to assume")
	}
	if s := m.Duration.ValueString(); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("assume_role.duration %q is not a duration", s)
		}
		ar.Duration = d
	}
	return ar, nil
}

// withAttributes is base with more attributes added.
func withAttributes(base, more map[string]schema.Attribute) map[string]schema.Attribute {
	maps.Copy(base, more)
	return base
}
