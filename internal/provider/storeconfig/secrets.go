package storeconfig

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// SecretKey is a key a credential set may hold, with what it is for.
type SecretKey struct {
	Name, Description string
}

// SecretKeys are the keys a credential set may hold.
var SecretKeys = []SecretKey{
	{"access_key_id", "Access key id of a bucket store (`auth_method = \"accessKey\"`)."},
	{"secret_access_key", "Secret access key of a bucket store."},
	{"session_token", "Session token of a bucket store, for temporary credentials."},
	{"username", "User name for a Git store over HTTP(S). Defaults to `git` when only `password` is set."},
	{"password", "Password or access token for a Git store over HTTP(S)."},
	{"ssh_private_key", "Private key (PEM or OpenSSH format, the content, not a path) for a Git store over SSH."},
	{"known_hosts", "known_hosts content for a Git store over SSH: the host keys to trust. Required unless the store sets `insecure_ignore_host_key`."},
	{"ca_certificate", "PEM content of a CA certificate to trust, for either kind of store."},
	{"signing_key", "Private key that signs a Git store's commits, named by its `git.signing.secret_ref`: an armored OpenPGP private key (`format = \"openpgp\"`) or an OpenSSH or PEM private key (`format = \"ssh\"`); the content, not a path."},
	{"signing_key_passphrase", "Passphrase of an encrypted `signing_key`."},
	{"github_app_id", "For a Git store over HTTPS on GitHub: the GitHub App's id (or its client id). The provider " +
		"signs a JWT with the App's key and uses the installation token it is given as the password of `x-access-token`. " +
		"Needs `github_app_installation_id` and `github_app_private_key`; not with `username` or `password`. " +
		"See the GitHub App guide."},
	{"github_app_installation_id", "The id of the GitHub App's installation on the repository's owner (the number " +
		"at the end of the installation's settings URL)."},
	{"github_app_private_key", "PEM content of the GitHub App's private key (PKCS#1 `BEGIN RSA PRIVATE KEY`, as " +
		"GitHub generates it, or PKCS#8)."},
	{"github_app_api_url", "GitHub API URL the installation token is asked from: `https://HOST/api/v3` for GitHub " +
		"Enterprise Server. Defaults to `https://api.github.com`. Not secret, but kept with the App's settings."},
}

// SecretsSchema is the provider block's secrets attribute.
func SecretsSchema() schema.Attribute {
	attrs := map[string]schema.Attribute{}
	for _, k := range SecretKeys {
		attrs[k.Name] = schema.StringAttribute{
			Optional:            true,
			Sensitive:           true,
			MarkdownDescription: k.Description + " Environment: `KRATIX_SECRET_<NAME>_" + strings.ToUpper(k.Name) + "`.",
		}
	}
	return schema.MapNestedAttribute{
		Optional:  true,
		Sensitive: true,
		MarkdownDescription: "Named credential sets, the counterpart of the Kubernetes Secrets that Kratix state stores " +
			"name in `secretRef`. A state store names one in `secret_ref`. Every value can also come from the " +
			"environment as `KRATIX_SECRET_<NAME>_<KEY>`, upper-cased with any character other than a letter or " +
			"digit turned into `_` (for the set `minio`: `KRATIX_SECRET_MINIO_ACCESS_KEY_ID` and " +
			"`KRATIX_SECRET_MINIO_SECRET_ACCESS_KEY`), which is how HCP Terraform workspace variables reach " +
			"the provider. A value in the configuration wins over the environment. Secrets never reach state, " +
			"plan output or logs.",
		NestedObject: schema.NestedAttributeObject{Attributes: attrs},
	}
}

// Set is one named set of credentials; unset keys are empty.
type Set map[string]string

// keys lists the keys the set holds (never their values), sorted.
func (s Set) keys() []string { return slices.Sorted(maps.Keys(s)) }

// Secrets are the provider's named credential sets, resolved key by key from the configuration,
// then the environment.
type Secrets struct {
	sets        map[string]Set
	allUnknown  bool            // the secrets attribute as a whole was not known at Configure
	unknownSets map[string]bool // sets with a value not known at Configure (planned from other resources)
	lookupEnv   func(string) (string, bool)
	environ     func() []string // os.Environ when nil; tests replace it
}

// ReadSecrets reads the provider's secrets attribute, with lookupEnv to read the environment.
// During plan some may be unknown (a random_password's result, a tls_private_key's key): the
// whole attribute, a whole set or one value. A set with anything unknown cannot be judged until
// apply, when Terraform configures the provider again with every value known.
func ReadSecrets(ctx context.Context, v types.Map, lookupEnv func(string) (string, bool), diags *diag.Diagnostics) Secrets {
	s := Secrets{lookupEnv: lookupEnv}
	s.sets, s.unknownSets, s.allUnknown = secretsFromConfig(ctx, v, diags)
	return s
}

func secretsFromConfig(ctx context.Context, v types.Map, diags *diag.Diagnostics) (sets map[string]Set, unknownSets map[string]bool, allUnknown bool) {
	unknownSets = map[string]bool{}
	if v.IsUnknown() {
		return nil, unknownSets, true
	}
	out := map[string]Set{}
	if v.IsNull() {
		return out, unknownSets, false
	}
	var objects map[string]types.Object
	diags.Append(v.ElementsAs(ctx, &objects, false)...)
	for name, obj := range objects {
		if obj.IsUnknown() {
			unknownSets[name] = true
			continue
		}
		set := Set{}
		for key, attr := range obj.Attributes() {
			s, ok := attr.(types.String)
			if !ok {
				continue
			}
			if s.IsUnknown() {
				unknownSets[name] = true
				continue
			}
			if !s.IsNull() && s.ValueString() != "" {
				set[key] = s.ValueString()
			}
		}
		out[name] = set
	}
	return out, unknownSets, false
}

// EnvPrefix is the start of the environment variables of the secret set name.
func EnvPrefix(name string) string {
	up := strings.Map(func(r rune) rune {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return unicode.ToUpper(r)
		}
		return '_'
	}, name)
	return "KRATIX_SECRET_" + up + "_"
}

// EnvName is the environment variable that holds key of the secret set name.
func EnvName(name, key string) string {
	return EnvPrefix(name) + strings.ToUpper(key)
}

// ErrSecretsUnknown says a secret set cannot be resolved yet: it depends on values known only
// after apply.
var ErrSecretsUnknown = fmt.Errorf("the provider's secrets are not known yet (they depend on values known only after apply)")

// Resolve resolves a named credential set: configuration first, then the environment, key by
// key. found is false when neither has anything for that name.
func (s *Secrets) Resolve(name string) (set Set, found bool, err error) {
	if s.unknownSets[name] {
		return nil, false, ErrSecretsUnknown
	}
	set = Set{}
	cfg, inConfig := s.sets[name]
	for _, k := range SecretKeys {
		if v := cfg[k.Name]; v != "" {
			set[k.Name] = v
			continue
		}
		if v, ok := s.lookupEnv(EnvName(name, k.Name)); ok && v != "" {
			set[k.Name] = v
		}
	}
	found = inConfig || len(set) > 0
	if !found && s.allUnknown {
		return nil, false, ErrSecretsUnknown
	}
	return set, found, nil
}

// strayEnv lists the environment variables that start with the prefix of set name but name no
// key a set may hold (KRATIX_SECRET_MINIO_ACCESS_KEY for ..._ACCESS_KEY_ID): the names only,
// never their values, for the errors that would otherwise say nothing is set.
func (s *Secrets) strayEnv(name string) []string {
	environ := os.Environ
	if s.environ != nil {
		environ = s.environ
	}
	prefix := EnvPrefix(name)
	var out []string
	for _, kv := range environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		if !slices.ContainsFunc(SecretKeys, func(sk SecretKey) bool { return EnvName(name, sk.Name) == k }) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// acceptedEnv is what strayEnv's variables should have been called.
func acceptedEnv(name string) string {
	keys := make([]string, 0, len(SecretKeys))
	for _, k := range SecretKeys {
		keys = append(keys, strings.ToUpper(k.Name))
	}
	return EnvPrefix(name) + "<KEY>, with <KEY> one of " + strings.Join(keys, ", ")
}

// strayEnvNote is a sentence naming strayEnv's variables and the accepted names; "" when there
// are none.
func (s *Secrets) strayEnvNote(name string) string {
	stray := s.strayEnv(name)
	if len(stray) == 0 {
		return ""
	}
	return fmt.Sprintf(" Found %s in the environment, which name no key a secret set may hold: the accepted "+
		"variables are %s.", strings.Join(stray, ", "), acceptedEnv(name))
}

// names lists the configured set names, for error messages.
func (s *Secrets) names() []string {
	names := make([]string, 0, len(s.sets))
	for n := range s.sets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
