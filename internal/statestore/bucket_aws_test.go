package statestore

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// bucketPolicy allows everything a store does on bucket.
func bucketPolicy(bucket string) string {
	return fmt.Sprintf(`{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":["s3:*"],"Resource":["arn:aws:s3:::%[1]s","arn:aws:s3:::%[1]s/*"]}
]}`, bucket)
}

// writeThrough applies one Put of name with store and returns the content an independent root
// client reads back ("" when the object is missing).
func writeThrough(t *testing.T, st Store, client *minio.Client, bucket, name string) (string, error) {
	t.Helper()
	ctx := context.Background()
	if _, err := st.Apply(ctx, Change{Put: map[string][]byte{name: []byte("written\n")}}); err != nil {
		return "", err
	}
	obj, err := client.GetObject(ctx, bucket, name, minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = obj.Close() }()
	b, err := io.ReadAll(obj)
	if err != nil {
		return "", nil //nolint:nilerr // a missing object reads as ""
	}
	return string(b), nil
}

// TestBucketIAMProfile: auth_method = "IAM" reads a profile of the shared credentials file,
// chosen by the store's profile or by AWS_PROFILE, and a profile that does not exist fails
// naming it and the file it was looked for in.
func TestBucketIAMProfile(t *testing.T) {
	ctx := context.Background()
	srv := testMinIO(t)
	_, client, bucket := testBucket(t)
	key, secret, err := srv.AddUserWithPolicy(ctx, bucketPolicy(bucket))
	if err != nil {
		t.Fatal(err)
	}
	_, credsFile := testinfra.IsolateAWS(t)
	writeFile(t, credsFile, fmt.Sprintf("[default]\naws_access_key_id = nobody\naws_secret_access_key = nothing\n\n"+
		"[team]\naws_access_key_id = %s\naws_secret_access_key = %s\n", key, secret))
	iam := BucketConfig{Endpoint: srv.Endpoint, BucketName: bucket, Insecure: true, AuthMethod: "IAM"}

	t.Run("profile attribute", func(t *testing.T) {
		cfg := iam
		cfg.Profile = "team"
		st, err := NewPool().Bucket(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := writeThrough(t, st, client, bucket, "by-attribute.yaml"); err != nil || got != "written\n" {
			t.Fatalf("writing with profile = \"team\": %q, %v; want the object written", got, err)
		}
	})
	t.Run("AWS_PROFILE", func(t *testing.T) {
		t.Setenv("AWS_PROFILE", "team")
		st, err := NewPool().Bucket(iam)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := writeThrough(t, st, client, bucket, "by-env.yaml"); err != nil || got != "written\n" {
			t.Fatalf("writing with AWS_PROFILE=team: %q, %v; want the object written", got, err)
		}
	})
	t.Run("default profile", func(t *testing.T) {
		// The default profile's keys are unknown to MinIO: the chain used them.
		st, err := NewPool().Bucket(iam)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := writeThrough(t, st, client, bucket, "by-default.yaml"); kindOf(err) != KindAuth {
			t.Fatalf("writing with the default profile's unknown keys = %v; want %q", err, KindAuth)
		}
	})
	t.Run("missing profile", func(t *testing.T) {
		cfg := iam
		cfg.Profile = "nope"
		_, err := NewPool().Bucket(cfg)
		if err == nil {
			t.Fatal("a store with a profile that does not exist was made")
		}
		for _, want := range []string{`AWS profile "nope" was not found`, credsFile} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the error does not say %q:\n%v", want, err)
			}
		}
		if kindOf(err) != KindConfig {
			t.Errorf("kind %q, want %q", kindOf(err), KindConfig)
		}
	})
	t.Run("profile with accessKey", func(t *testing.T) {
		cfg := iam
		cfg.AuthMethod, cfg.Profile, cfg.AccessKeyID, cfg.SecretAccessKey = "accessKey", "team", key, secret
		if _, err := NewPool().Bucket(cfg); err == nil || !strings.Contains(err.Error(), `auth_method = "IAM"`) {
			t.Errorf("a profile with auth_method accessKey gave %v; want an error pointing at auth_method", err)
		}
	})
}

// TestBucketAssumeRole: temporary credentials from MinIO's own STS AssumeRole, asked for with a
// regular user's keys (from a profile, or from the store's access keys), write the store; the
// object is read back with an independent root client. The role can also come from a profile
// of the shared config file (role_arn, source_profile, external_id, role_session_name).
func TestBucketAssumeRole(t *testing.T) {
	ctx := context.Background()
	srv := testMinIO(t)
	_, client, bucket := testBucket(t)
	key, secret, err := srv.AddUserWithPolicy(ctx, bucketPolicy(bucket))
	if err != nil {
		t.Fatal(err)
	}
	configFile, credsFile := testinfra.IsolateAWS(t)
	writeFile(t, credsFile, fmt.Sprintf("[team]\naws_access_key_id = %s\naws_secret_access_key = %s\n", key, secret))
	writeFile(t, configFile, "[profile deploy]\nrole_arn = arn:aws:iam::123456789012:role/kratix\n"+
		"source_profile = team\nexternal_id = ext-42\nrole_session_name = kratix-test\n")
	sts := "http://" + srv.Endpoint
	role := &AssumeRole{RoleARN: "arn:aws:iam::123456789012:role/kratix", ExternalID: "ext-42", SessionName: "kratix-test", Duration: time.Hour}
	cases := map[string]BucketConfig{
		"profile then assume_role": {AuthMethod: "IAM", Profile: "team", AssumeRole: role, STSEndpoint: sts},
		"access keys then assume_role": {AuthMethod: "accessKey", AccessKeyID: key, SecretAccessKey: secret,
			AssumeRole: role, STSEndpoint: sts},
		"profile with role_arn": {AuthMethod: "IAM", Profile: "deploy", STSEndpoint: sts},
	}
	for name, cfg := range cases {
		t.Run(name, func(t *testing.T) {
			cfg.Endpoint, cfg.BucketName, cfg.Insecure = srv.Endpoint, bucket, true
			st, err := NewPool().Bucket(cfg)
			if err != nil {
				t.Fatal(err)
			}
			// The premise: these are temporary credentials, with a session token and an expiry.
			v, err := st.(*bucketStore).client.GetCreds()
			if err != nil {
				t.Fatalf("getting credentials: %v", err)
			}
			if v.SessionToken == "" || v.AccessKeyID == key || v.Expiration.IsZero() {
				t.Fatalf("the store signs with access key %q (the user's is %q), a %d-byte session token, expiry %v: "+
					"not temporary credentials", v.AccessKeyID, key, len(v.SessionToken), v.Expiration)
			}
			obj := strings.ReplaceAll(name, " ", "-") + ".yaml"
			if got, err := writeThrough(t, st, client, bucket, obj); err != nil || got != "written\n" {
				t.Fatalf("writing with assumed-role credentials: %q, %v; want the object written", got, err)
			}
		})
	}
	t.Run("STS unreachable", func(t *testing.T) {
		// With STS down, nothing is written: the role is not skipped.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		dead := "http://" + l.Addr().String()
		_ = l.Close()
		cfg := BucketConfig{Endpoint: srv.Endpoint, BucketName: bucket, Insecure: true, AuthMethod: "IAM", Profile: "team",
			AssumeRole: role, STSEndpoint: dead}
		st, err := NewPool().Bucket(cfg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Apply(ctx, Change{Put: map[string][]byte{"never.yaml": []byte("x")}})
		if kindOf(err) != KindAuth || !strings.Contains(err.Error(), `profile "team"`) {
			t.Fatalf("writing with STS unreachable = %v; want %q naming the profile", err, KindAuth)
		}
	})
}

// fakeSTS answers AssumeRoleWithWebIdentity with fixed credentials and records the form of the
// last request.
type fakeSTS struct {
	mu   sync.Mutex
	form url.Values
}

func (f *fakeSTS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.form = r.PostForm
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/xml")
	_, _ = fmt.Fprintf(w, `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
<AssumeRoleWithWebIdentityResult><Credentials>
<AccessKeyId>WEBIDKEY</AccessKeyId><SecretAccessKey>WEBIDSECRET</SecretAccessKey><SessionToken>WEBIDTOKEN</SessionToken>
<Expiration>%s</Expiration>
</Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>`, time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
}

// TestBucketWebIdentity: AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN, as HCP Terraform's
// dynamic credentials set them, reach the SDK's web identity provider: the token file's content
// and the role are sent to STS (here a fake at sts_endpoint, as MinIO serves
// AssumeRoleWithWebIdentity only with an OpenID provider configured), and the store signs with
// what STS returned. Web identity wins over the shared files, as in the SDK.
func TestBucketWebIdentity(t *testing.T) {
	_, credsFile := testinfra.IsolateAWS(t)
	writeFile(t, credsFile, "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = FILESECRET\n")
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, "header.payload.signature")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", tokenFile)
	t.Setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/hcp-run")
	fake := &fakeSTS{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	cfg := BucketConfig{Endpoint: "127.0.0.1:1", BucketName: "kratix", Insecure: true, AuthMethod: "IAM", STSEndpoint: srv.URL}
	st, err := NewPool().Bucket(cfg)
	if err != nil {
		t.Fatal(err)
	}
	v, err := st.(*bucketStore).client.GetCreds()
	if err != nil {
		t.Fatalf("getting credentials: %v", err)
	}
	if v.AccessKeyID != "WEBIDKEY" || v.SecretAccessKey != "WEBIDSECRET" || v.SessionToken != "WEBIDTOKEN" {
		t.Errorf("the store signs with key %q, secret %q, token %q; want STS's WEBIDKEY, WEBIDSECRET, WEBIDTOKEN",
			v.AccessKeyID, v.SecretAccessKey, v.SessionToken)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	want := map[string]string{"Action": "AssumeRoleWithWebIdentity", "RoleArn": "arn:aws:iam::123456789012:role/hcp-run",
		"WebIdentityToken": "header.payload.signature"}
	for k, w := range want {
		if got := fake.form.Get(k); got != w {
			t.Errorf("STS got %s = %q, want %q", k, got, w)
		}
	}
}
