package storeconfig

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/schemautil"
	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// RefSchema is the state_store attribute of the resources that write to a store. Its
// attributes are a subset of kratix_state_store's, so the whole store resource can be passed;
// everything but the name is optional so that a hand-written object works too.
func RefSchema(description string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Required:            true,
		MarkdownDescription: description,
		PlanModifiers:       []planmodifier.Object{ReplaceIfMoves()},
		Attributes:          RefAttributes(),
	}
}

func RefAttributes() map[string]schema.Attribute {
	bucket := map[string]schema.Attribute{
		"endpoint":    schema.StringAttribute{Optional: true, MarkdownDescription: "host[:port] of the S3 API."},
		"bucket_name": schema.StringAttribute{Optional: true, MarkdownDescription: "Bucket name."},
		"insecure":    schema.BoolAttribute{Optional: true, MarkdownDescription: "Plain HTTP."},
		"region":      schema.StringAttribute{Optional: true, MarkdownDescription: "Bucket region."},
		"auth_method": schema.StringAttribute{Optional: true, MarkdownDescription: "`accessKey` (the default) or `IAM` (the AWS credential chain)."},
	}
	maps.Copy(bucket, BucketAWSAttributes(false))
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
					Validators: []validator.String{GitURLWithoutCredentials()},
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

// STS accepts role sessions of 15 minutes to 12 hours (the role's maximum may be lower).
const (
	minRoleDuration = 15 * time.Minute
	maxRoleDuration = 12 * time.Hour
)

// BucketAWSAttributes are the bucket attributes that shape where AWS credentials come from
// (profile, assume_role and sts_endpoint) and which of Amazon's names the bucket is reached at
// (use_dual_stack). None holds a secret: they name a profile, a role and an endpoint, and are
// shown in plans. use_dual_stack has no default value, so that state written before it existed
// plans no change (null is false). roleRequired makes assume_role.role_arn required (the
// store resource); in the state_store object of other resources everything is optional.
func BucketAWSAttributes(roleRequired bool) map[string]schema.Attribute {
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
	return schemautil.StringCheck{
		Summary: "Invalid Duration",
		Rule:    "a Go duration between 15m and 12h",
		Check: func(s string) string {
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
	return schemautil.StringCheck{
		Summary: "Invalid STS Endpoint",
		Rule:    "an https:// (or http://) URL",
		Check: func(s string) string {
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

// GitURL accepts the URL forms the git backend can reach, without credentials.
func GitURL() validator.String {
	return schemautil.StringCheck{
		Summary: "Invalid Git URL",
		Rule:    "https://, ssh://, scp-like git@host:org/repo.git, http:// or file://, without credentials",
		Check: func(s string) string {
			if _, err := GitTransport(s); err != nil {
				return err.Error() + "."
			}
			return urlCredentialsProblem(s)
		},
	}
}

// GitURLWithoutCredentials refuses credentials in a Git URL given to a resource by hand (a
// store object written out rather than a kratix_state_store); the rest is the store's to check.
func GitURLWithoutCredentials() validator.String {
	return schemautil.StringCheck{
		Summary: "Credentials in Git URL",
		Rule:    "must not carry credentials: give them in the provider's secrets",
		Check:   urlCredentialsProblem,
	}
}

func urlCredentialsProblem(s string) string {
	what := statestore.URLCredentials(s)
	if what == "" {
		return ""
	}
	return fmt.Sprintf("%s carries %s, which would be copied into the state and plan of the store and of "+
		"every destination, promise and request that uses it. Remove them from the URL and give them in the "+
		"provider's `secrets`: a set with `username` and `password` (an access token goes in `password`), or "+
		"the environment variables KRATIX_SECRET_<NAME>_USERNAME and KRATIX_SECRET_<NAME>_PASSWORD, named by "+
		"the store's `secret_ref`. Over SSH, a user name (git@host) is fine and the key goes in `ssh_private_key`.",
		strconv.Quote(statestore.RedactURL(s)), what)
}

// Endpoint accepts host[:port], as minio-go (and Kratix's BucketStateStore) expect.
func Endpoint() validator.String {
	return schemautil.StringCheck{
		Summary: "Invalid Endpoint",
		Rule:    "host[:port], without a scheme or path",
		Check: func(s string) string {
			if strings.Contains(s, "://") {
				return fmt.Sprintf("%q has a scheme; give host[:port] only (for example %q) and set insecure = true for plain HTTP.",
					s, s[strings.Index(s, "://")+3:])
			}
			if s == "" || strings.ContainsAny(s, "/ ") {
				return fmt.Sprintf("%q is not host[:port].", s)
			}
			return ""
		},
	}
}

// ReplaceIfMoves forces replacement when the store object now points at another place
// (endpoint, bucket, repository, branch or path, compared in normalised form). Credentials, TLS
// options, the commit author and cosmetic spellings (a ".git" suffix, a trailing "/", a path of
// "." for none, endpoint case) change in place, even while they are unknown.
func ReplaceIfMoves() planmodifier.Object {
	return objectplanmodifier.RequiresReplaceIf(
		func(ctx context.Context, req planmodifier.ObjectRequest, resp *objectplanmodifier.RequiresReplaceIfFuncResponse) {
			if req.StateValue.IsNull() {
				return // imported: filling in the rest from the configuration is an update
			}
			prior, okPrior := LocationOf(ctx, req.StateValue)
			planned, okPlan := LocationOf(ctx, req.PlanValue)
			// A location not known yet could be anywhere: Terraform asks again once it is known.
			resp.RequiresReplace = !okPrior || !okPlan || prior != planned
		},
		"Moving the destination to another store, bucket, repository, branch or store path replaces it.",
		"Moving the destination to another store, bucket, repository, branch or store path replaces it.",
	)
}
