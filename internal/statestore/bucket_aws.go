package statestore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go/logging"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// The AWS credential chain (auth_method = "IAM") comes from the AWS SDK for Go v2's config
// loader, not from minio-go's own chain. minio-go's chain covers environment variables, static
// keys of a credentials-file profile, web identity from the environment and instance or
// container roles, but not what platform teams use day to day: SSO sessions (`aws sso login`),
// profiles that assume a role from a source profile (role_arn, source_profile, external_id,
// role_session_name in ~/.aws/config), credential_process, nor the SDK's exact precedence rules.
// The SDK's loader is the reference implementation of all of those, kept up to date by AWS and
// shared with the AWS CLI's behaviour, so a profile that works for `aws s3 ls` works here.
// minio-go still signs the S3 requests: awsCredentials hands it the SDK's credentials.

// credentialsExpiryWindow is how long before their expiry temporary credentials are renewed,
// both by the SDK's cache and by minio-go (see awsCredentials.IsExpired), so that a request is
// never signed with credentials that expire in flight.
const credentialsExpiryWindow = 2 * time.Minute

// bucketCredentials returns the minio-go credentials for cfg: static keys for "accessKey"
// without assume_role (as before), and otherwise an SDK credentials provider.
// store is the store's Describe(), for messages.
func bucketCredentials(ctx context.Context, cfg BucketConfig, tr *http.Transport, store string) (*credentials.Credentials, error) {
	switch cfg.AuthMethod {
	case "", "accessKey", "IAM":
	default:
		return nil, fmt.Errorf("unknown auth_method %q; use \"accessKey\" or \"IAM\"", cfg.AuthMethod)
	}
	iam := cfg.AuthMethod == "IAM"
	if !iam && cfg.Profile != "" {
		return nil, fmt.Errorf("profile %q is set, but auth_method is %q: a profile is read only by auth_method = \"IAM\"", cfg.Profile, cfg.AuthMethod)
	}
	if !iam && cfg.AssumeRole == nil {
		return credentials.NewStaticV4(cfg.AccessKeyID, cfg.SecretAccessKey, cfg.SessionToken), nil
	}
	base, err := loadAWSConfig(ctx, cfg, sdkHTTPClient(tr), iam)
	if err != nil {
		return nil, err
	}
	provider := base.Credentials
	if ar := cfg.AssumeRole; ar != nil {
		provider = aws.NewCredentialsCache(assumeRoleProvider(base, *ar, cfg.STSEndpoint), cacheOptions)
	}
	return credentials.New(&awsCredentials{provider: provider, source: profileName(cfg), store: store}), nil
}

// loadAWSConfig runs the SDK's config loader: region, HTTP client and, for the chain (iam),
// credentials from the environment, the shared files, SSO, web identity and instance roles;
// otherwise the store's static keys.
func loadAWSConfig(ctx context.Context, cfg BucketConfig, client *awshttp.BuildableClient, iam bool) (aws.Config, error) {
	region := cfg.Region
	if region == "" {
		// STS needs a region to sign with; AWS_REGION or the profile's region win over this.
		region = "us-east-1"
	}
	opts := []func(*awsconfig.LoadOptions) error{
		awsconfig.WithDefaultRegion(region),
		awsconfig.WithHTTPClient(client),
		// The SDK logs nothing unless asked; a no-op logger makes sure nothing of a request or
		// a response ever reaches the provider's stderr (and so Terraform's log).
		awsconfig.WithLogger(logging.Nop{}),
		awsconfig.WithCredentialsCacheOptions(cacheOptions),
	}
	if cfg.Profile != "" {
		opts = append(opts, awsconfig.WithSharedConfigProfile(cfg.Profile))
	}
	if !iam {
		opts = append(opts, awsconfig.WithCredentialsProvider(
			awscreds.NewStaticCredentialsProvider(cfg.AccessKeyID, cfg.SecretAccessKey, cfg.SessionToken)))
	}
	if ep := cfg.STSEndpoint; ep != "" {
		// Roles that the chain itself assumes (a profile's role_arn, web identity) use the
		// store's STS endpoint too.
		opts = append(opts,
			awsconfig.WithAssumeRoleCredentialOptions(func(o *stscreds.AssumeRoleOptions) {
				if c, ok := o.Client.(*sts.Client); ok {
					o.Client = stsAt{c: c, endpoint: ep}
				}
			}),
			awsconfig.WithWebIdentityRoleCredentialOptions(func(o *stscreds.WebIdentityRoleOptions) {
				if c, ok := o.Client.(*sts.Client); ok {
					o.Client = stsAt{c: c, endpoint: ep}
				}
			}))
	}
	loaded, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, explainLoadError(cfg, err)
	}
	return loaded, nil
}

// sdkHTTPClient is the SDK's HTTP client (for STS, SSO, instance and container roles) with the
// store's dial timeout and CA. It is the SDK's buildable client, so that AWS_CA_BUNDLE (or a
// profile's ca_bundle) can add to its roots as the SDK does elsewhere; the pool is copied, so
// that nothing added there reaches the S3 transport.
func sdkHTTPClient(tr *http.Transport) *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.DialContext = tr.DialContext
		if tr.TLSClientConfig != nil {
			t.TLSClientConfig = tr.TLSClientConfig.Clone()
			if pool := tr.TLSClientConfig.RootCAs; pool != nil {
				t.TLSClientConfig.RootCAs = pool.Clone()
			}
		}
	})
}

func cacheOptions(o *aws.CredentialsCacheOptions) { o.ExpiryWindow = credentialsExpiryWindow }

// assumeRoleProvider assumes ar with base's credentials, through STS at endpoint ("" for the
// SDK's choice).
func assumeRoleProvider(base aws.Config, ar AssumeRole, endpoint string) aws.CredentialsProvider {
	client := sts.NewFromConfig(base, func(o *sts.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
	return stscreds.NewAssumeRoleProvider(client, ar.RoleARN, func(o *stscreds.AssumeRoleOptions) {
		if ar.ExternalID != "" {
			o.ExternalID = aws.String(ar.ExternalID)
		}
		if ar.SessionName != "" {
			o.RoleSessionName = ar.SessionName
		}
		o.Duration = ar.Duration
	})
}

// stsAt sends the STS calls of the chain's own role providers to another endpoint.
type stsAt struct {
	c        *sts.Client
	endpoint string
}

func (s stsAt) at(o *sts.Options) { o.BaseEndpoint = aws.String(s.endpoint) }

func (s stsAt) AssumeRole(ctx context.Context, in *sts.AssumeRoleInput, optFns ...func(*sts.Options)) (*sts.AssumeRoleOutput, error) {
	return s.c.AssumeRole(ctx, in, append(optFns, s.at)...)
}

func (s stsAt) AssumeRoleWithWebIdentity(ctx context.Context, in *sts.AssumeRoleWithWebIdentityInput,
	optFns ...func(*sts.Options),
) (*sts.AssumeRoleWithWebIdentityOutput, error) {
	return s.c.AssumeRoleWithWebIdentity(ctx, in, append(optFns, s.at)...)
}

// explainLoadError names the profile and the files it was looked for in.
func explainLoadError(cfg BucketConfig, err error) error {
	var missing awsconfig.SharedConfigProfileNotExistError
	if errors.As(err, &missing) {
		files := missing.Filename
		if len(files) == 0 {
			files = []string{sharedFile("AWS_CONFIG_FILE", awsconfig.DefaultSharedConfigFilename()),
				sharedFile("AWS_SHARED_CREDENTIALS_FILE", awsconfig.DefaultSharedCredentialsFilename())}
		}
		return fmt.Errorf("AWS profile %q was not found in %s; check the store's profile (or AWS_PROFILE), "+
			"or point AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE at the files that define it", missing.Profile,
			strings.Join(files, " and "))
	}
	return fmt.Errorf("loading the AWS configuration (%s): %w", profileName(cfg), err)
}

// sharedFile is the shared file the SDK reads: the environment variable's, else the default.
func sharedFile(env, def string) string {
	if v := os.Getenv(env); v != "" {
		return v
	}
	return def
}

// profileName says which profile the chain starts from, for messages.
func profileName(cfg BucketConfig) string {
	if cfg.AuthMethod != "IAM" {
		return "the store's access keys"
	}
	if cfg.Profile != "" {
		return fmt.Sprintf("profile %q", cfg.Profile)
	}
	return "the AWS credential chain"
}

// awsCredentials is a minio-go credentials.Provider backed by an SDK credentials provider
// (cached with aws.NewCredentialsCache by the loader). It keeps only the expiry of the last
// credentials; the values themselves stay in the SDK's cache and in minio-go's Credentials.
type awsCredentials struct {
	provider aws.CredentialsProvider
	source   string // where the credentials come from, for messages
	store    string // the store's Describe()

	mu        sync.Mutex
	canExpire bool
	expires   time.Time
}

var _ credentials.Provider = (*awsCredentials)(nil)

// RetrieveWithCredContext asks the SDK for credentials, with the request's context when minio-go
// passes one.
func (a *awsCredentials) RetrieveWithCredContext(cc *credentials.CredContext) (credentials.Value, error) {
	ctx := context.Background()
	if cc != nil && cc.Context != nil {
		ctx = cc.Context
	}
	v, err := a.provider.Retrieve(ctx)
	if err != nil {
		return credentials.Value{}, &Error{Store: a.store, Op: "credentials", Kind: KindAuth, Err: fmt.Errorf(
			"no AWS credentials from %s (the AWS SDK's chain: environment, shared config and credentials files, "+
				"SSO, assume role, web identity, container and instance roles): %w", a.source, err)}
	}
	a.mu.Lock()
	a.canExpire, a.expires = v.CanExpire, v.Expires
	a.mu.Unlock()
	return credentials.Value{
		AccessKeyID: v.AccessKeyID, SecretAccessKey: v.SecretAccessKey, SessionToken: v.SessionToken,
		Expiration: v.Expires, SignerType: credentials.SignatureV4,
	}, nil
}

// Retrieve is RetrieveWithCredContext without a context.
func (a *awsCredentials) Retrieve() (credentials.Value, error) { return a.RetrieveWithCredContext(nil) }

// IsExpired reports whether the last credentials expire within credentialsExpiryWindow;
// credentials without an expiry never do.
func (a *awsCredentials) IsExpired() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.canExpire && !time.Now().Before(a.expires.Add(-credentialsExpiryWindow))
}
