package testinfra

import (
	"os"
	"path/filepath"
	"testing"
)

// awsVariables are the environment variables that steer the AWS SDK's credential chain.
var awsVariables = []string{
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY", "AWS_SECRET_KEY",
	"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ROLE_ARN", "AWS_ROLE_SESSION_NAME", "AWS_WEB_IDENTITY_TOKEN_FILE",
	"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_STS", "AWS_STS_REGIONAL_ENDPOINTS",
	"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_AUTHORIZATION_TOKEN",
	"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", "AWS_CA_BUNDLE", "AWS_DEFAULTS_MODE", "AWS_SDK_LOAD_CONFIG",
	"MINIO_ACCESS_KEY", "MINIO_SECRET_KEY", "MINIO_ROOT_USER", "MINIO_ROOT_PASSWORD",
}

// IsolatedAWS makes empty shared AWS config and credentials files in dir and returns them with
// the environment that makes the AWS SDK read only them: every AWS_* variable that could bring
// credentials, a profile, a role, a region or an endpoint from the developer's environment is
// set empty (the SDK treats empty as unset), AWS_CONFIG_FILE and AWS_SHARED_CREDENTIALS_FILE
// point at the new files (never ~/.aws), and AWS_EC2_METADATA_DISABLED keeps the chain from
// waiting on an instance metadata service. Tests set each variable with t.Setenv, or pass them
// to a CLI.
func IsolatedAWS(dir string) (configFile, credentialsFile string, env map[string]string, err error) {
	configFile, credentialsFile = filepath.Join(dir, "aws-config"), filepath.Join(dir, "aws-credentials")
	for _, f := range []string{configFile, credentialsFile} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			return "", "", nil, err
		}
	}
	env = map[string]string{}
	for _, name := range awsVariables {
		env[name] = ""
	}
	env["AWS_CONFIG_FILE"], env["AWS_SHARED_CREDENTIALS_FILE"] = configFile, credentialsFile
	env["AWS_EC2_METADATA_DISABLED"] = "true"
	return configFile, credentialsFile, env, nil
}

// IsolateAWS is IsolatedAWS in a temporary folder of t, with the variables set for the rest of
// the test (t.Setenv): for tests that serve the provider in-process. It returns the files to fill.
func IsolateAWS(t testing.TB) (configFile, credentialsFile string) {
	t.Helper()
	configFile, credentialsFile, env, err := IsolatedAWS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	return configFile, credentialsFile
}
