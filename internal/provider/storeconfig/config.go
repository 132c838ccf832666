package storeconfig

import (
	"errors"
	"fmt"

	"github.com/promise-platform/terraform-provider-kratix/internal/statestore"
)

// Config is how a store is reached: the statestore configuration of its bucket or of its
// repository, with the credentials of its secret_ref.
type Config struct {
	Bucket *statestore.BucketConfig
	Git    *statestore.GitConfig
}

// Config resolves a state_store object's configuration, credentials included. createBucket lets
// a bucket store's Check create a missing bucket.
func (s *Secrets) Config(m Ref, createBucket bool) (Config, error) {
	var set Set
	if ref := m.SecretRef.ValueString(); ref != "" {
		resolved, found, err := s.Resolve(ref)
		if err != nil {
			return Config{}, err
		}
		if !found {
			return Config{}, fmt.Errorf("secret %q is not in the provider's secrets nor in KRATIX_SECRET_* environment variables", ref)
		}
		set = resolved
	}
	switch {
	case m.Bucket != nil:
		method := m.Bucket.AuthMethod.ValueString()
		if method == "" {
			method = DefaultAuth
		}
		role, err := m.Bucket.AssumeRole.config()
		if err != nil {
			return Config{}, err
		}
		return Config{Bucket: &statestore.BucketConfig{
			Endpoint:        m.Bucket.Endpoint.ValueString(),
			BucketName:      m.Bucket.BucketName.ValueString(),
			Region:          m.Bucket.Region.ValueString(),
			Insecure:        m.Bucket.Insecure.ValueBool(),
			AuthMethod:      method,
			AccessKeyID:     set["access_key_id"],
			SecretAccessKey: set["secret_access_key"],
			SessionToken:    set["session_token"],
			CACertificate:   set["ca_certificate"],
			CreateBucket:    createBucket,
			Profile:         m.Bucket.Profile.ValueString(),
			AssumeRole:      role,
			STSEndpoint:     m.Bucket.STSEndpoint.ValueString(),
			UseDualStack:    m.Bucket.UseDualStack.ValueBool(),
		}}, nil
	case m.Git != nil:
		author := DefaultAuthorName
		email := ""
		if m.Git.Author != nil {
			if v := m.Git.Author.Name.ValueString(); v != "" {
				author = v
			}
			email = m.Git.Author.Email.ValueString()
		}
		sign, err := s.signingConfig(m.Git.Signing)
		if err != nil {
			return Config{}, err
		}
		return Config{Git: &statestore.GitConfig{
			SigningFormat:         sign.SigningFormat,
			SigningKey:            sign.SigningKey,
			SigningPassphrase:     sign.SigningPassphrase,
			URL:                   m.Git.URL.ValueString(),
			Branch:                BranchOf(m.Git),
			AuthorName:            author,
			AuthorEmail:           email,
			InsecureIgnoreHostKey: m.Git.InsecureIgnoreHostKey.ValueBool(),
			Username:              set["username"],
			Password:              set["password"],
			SSHPrivateKey:         set["ssh_private_key"],
			KnownHosts:            set["known_hosts"],
			CACertificate:         set["ca_certificate"],
			GitHubApp: statestore.GitHubApp{
				AppID:          set["github_app_id"],
				InstallationID: set["github_app_installation_id"],
				PrivateKey:     set["github_app_private_key"],
				APIURL:         set["github_app_api_url"],
			},
		}}, nil
	}
	return Config{}, fmt.Errorf("state store %q has neither bucket nor git", m.Name.ValueString())
}

// signingConfig resolves a git store's signing key: the signing fields of its GitConfig, empty
// when the store does not sign.
func (s *Secrets) signingConfig(sg *Signing) (statestore.GitConfig, error) {
	var cfg statestore.GitConfig
	if sg == nil || (sg.SecretRef.ValueString() == "" && sg.Format.ValueString() == "") {
		return cfg, nil
	}
	ref := sg.SecretRef.ValueString()
	if ref == "" {
		return cfg, errors.New("git.signing has no secret_ref: name the provider secret holding signing_key")
	}
	set, found, err := s.Resolve(ref)
	if err != nil {
		return cfg, err
	}
	if !found {
		return cfg, fmt.Errorf("signing secret %q is not in the provider's secrets nor in KRATIX_SECRET_* environment variables", ref)
	}
	cfg.SigningFormat = sg.Format.ValueString()
	if cfg.SigningFormat == "" {
		return cfg, errors.New("git.signing has no format: set \"ssh\" or \"openpgp\"")
	}
	cfg.SigningKey, cfg.SigningPassphrase = set["signing_key"], set["signing_key_passphrase"]
	return cfg, nil
}
